package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// startLocal makes the checked call and the warm-up calls of a row done
// in process (the floor). It has no process to read memory or CPU of.
func (run *cellRun) startLocal(ctx context.Context, cfg *config, r row) *cellRun {
	sent := time.Now()
	err := run.o.Do(0, 0)
	run.calls++
	if err == nil {
		err = run.o.Check(&toolResult{})
	}
	if err != nil {
		run.cell.Err, run.cell.ErrAfter = err, time.Since(sent)
		return run
	}
	run.iters[0]++
	if r.Warmups > 0 {
		warm, err := localPhase(ctx, run.o, 1, cfg.warmup, r.Warmups, run.iters)
		run.calls += warm.Calls
		if err != nil {
			run.cell.Err = err
		}
	}
	return run
}

// localPhase is timedPhase for an operation done in process: workers
// goroutines, each doing the operation over and over until d has passed
// and it has done its share of minCalls. The first error stops them all.
func localPhase(ctx context.Context, o *op, workers int, d time.Duration, minCalls int, iters []int) (*phase, error) {
	minEach := (minCalls + workers - 1) / workers
	lats := make([][]time.Duration, workers)
	errs := make([]error, workers)
	var stop atomic.Bool
	var wg sync.WaitGroup
	start := time.Now()
	for w := range workers {
		wg.Go(func() {
			for !stop.Load() {
				if err := ctx.Err(); err != nil {
					errs[w] = err
					return
				}
				sent := time.Now()
				if err := o.Do(w, iters[w]); err != nil {
					errs[w] = err
					stop.Store(true)
					return
				}
				lats[w] = append(lats[w], time.Since(sent))
				iters[w]++
				if len(lats[w]) >= minEach && time.Since(start) >= d {
					return
				}
			}
		})
	}
	wg.Wait()
	p := &phase{Elapsed: time.Since(start)}
	for _, l := range lats {
		p.Latency = append(p.Latency, l...)
	}
	p.Calls = len(p.Latency)
	slices.Sort(p.Latency)
	return p, firstError(errs)
}

// ratio is a pair of servers compared, by index in the run's servers.
type ratio struct{ Num, Den int }

// ratioFlags collects -ratio flags: NUM:DEN, by label.
type ratioFlags [][2]string

func (f *ratioFlags) String() string { return fmt.Sprint(len(*f), " ratios") }

func (f *ratioFlags) Set(v string) error {
	num, den, ok := strings.Cut(v, ":")
	if !ok || num == "" || den == "" {
		return fmt.Errorf("%q: want NUM:DEN, two servers' labels", v)
	}
	*f = append(*f, [2]string{num, den})
	return nil
}

// resolve finds the pairs among the servers' labels; no pairs means the
// first with each of the others that is not the floor (local).
func (f ratioFlags) resolve(labels []string, local []bool) ([]ratio, error) {
	if len(f) == 0 {
		var out []ratio
		for i := 1; i < len(labels); i++ {
			if !local[i] {
				out = append(out, ratio{0, i})
			}
		}
		return out, nil
	}
	out := make([]ratio, len(f))
	for i, p := range f {
		num, den := slices.Index(labels, p[0]), slices.Index(labels, p[1])
		if num < 0 || den < 0 {
			return nil, fmt.Errorf("-ratio %s:%s: no such server (known: %s)", p[0], p[1], strings.Join(labels, ", "))
		}
		out[i] = ratio{num, den}
	}
	return out, nil
}

// applyOnly keeps servers to the rows that -only flags (LABEL=ROWS) give
// them.
func applyOnly(servers []*server, flags []string) error {
	for _, v := range flags {
		i := strings.LastIndex(v, "=")
		if i < 0 {
			return fmt.Errorf("-only %q: want LABEL=ROWS", v)
		}
		j := slices.IndexFunc(servers, func(s *server) bool { return s.Label == v[:i] })
		if j < 0 {
			return fmt.Errorf("-only %q: no server %q", v, v[:i])
		}
		only, err := selectRows(v[i+1:])
		if err != nil {
			return fmt.Errorf("-only %q: %w", v, err)
		}
		for _, r := range only {
			servers[j].only = append(servers[j].only, r.ID)
		}
	}
	return nil
}
