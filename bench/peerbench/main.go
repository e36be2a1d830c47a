// Command peerbench runs one workload of MCP tool calls against several
// stdio MCP servers through the same client, and prints a markdown table
// of throughput, latency and memory.
//
//	peerbench [flags] -server LABEL:PROFILE:COMMAND -server ...
//
// COMMAND is the server's command line, split at white space, or a JSON
// array of strings; {root} in it stands for the directory of the
// fixtures, which the server must be allowed to use. PROFILE maps the
// workload to the server's tools: acpfs (mcp-acpfs serve) or reference
// (@modelcontextprotocol/server-filesystem); or it is floor, with COMMAND
// sync or nosync (with ",hold" or not), for no server at all: the writes
// and the edit done in this process (see floorProfile). The first server
// is compared with each of the others, or -ratio says which pairs to
// compare; each acpfs server is compared with each floor of its
// durability. bench/run builds, installs and runs the comparison in the
// repository's BENCHMARKS.md.
//
//	peerbench -summarize [-ratio A:B ...] RUN.json ...
//
// prints the spread of the ratios over runs saved with -json.
//
// Each row is run on every server in turn, the servers running side by
// side. A row starts with one call whose result is checked in full, then
// untimed warm-up calls for -warmup, then two timed phases of -duration:
// one call in flight at a time, then -inflight calls in flight on the one
// connection (rows that write give each of those its own file). Each phase
// is cut into -rounds rounds, and the servers take turns round by round,
// in the reverse order every other round, so that a change in the
// machine's load, and what one server's turn leaves behind for the next
// (the file system's state after a burst of writes), falls on all of them
// alike. The rows that write do so in one directory for all the servers
// and the floor, each in files of its own: the cost of a file system's
// create and rename depends on the directory (its place on the disk, the
// churn there), by up to 3× between two directories here, and that must
// not count against one server. Throughput is completed calls divided by
// the phase's wall time; latency is from the request's write
// to the end of its response line. Memory is read from
// /proc/PID/status of the server process: VmRSS, and VmHWM reset before
// each row (clear_refs), so a row's peak is its own. Linux only.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// server is a server under test, from a -server flag.
type server struct {
	Label   string
	Profile string
	Argv    []string // with {root} in place

	profile profile
	local   bool      // the floor: no process, the operations done in process
	only    []string  // the rows this server runs (-only); nil: all
	noSync  bool      // writes without syncs (--no-fsync, or the floor's nosync)
	floor   floorOpts // the floor's, if local
	c       *client
	hs      handshake
}

// serverFlags collects -server flags.
type serverFlags []*server

func (f *serverFlags) String() string { return fmt.Sprint(len(*f), " servers") }

// Set adds a server. Its label must differ from the others' as a file
// name too: the label names the server's files in the shared scratch
// directory, and the ratios name servers by label.
func (f *serverFlags) Set(v string) error {
	s, err := parseServer(v)
	if err != nil {
		return err
	}
	for _, o := range *f {
		if safeName(o.Label) == safeName(s.Label) {
			return fmt.Errorf("%q: the label %q is taken by %q", v, s.Label, o.Label)
		}
	}
	*f = append(*f, s)
	return nil
}

// parseServer parses LABEL:PROFILE:COMMAND.
func parseServer(v string) (*server, error) {
	label, rest, ok1 := strings.Cut(v, ":")
	prof, command, ok2 := strings.Cut(rest, ":")
	if !ok1 || !ok2 || label == "" || command == "" {
		return nil, fmt.Errorf("%q: want LABEL:PROFILE:COMMAND", v)
	}
	if prof == "floor" {
		fo, err := parseFloor(command)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", v, err)
		}
		return &server{Label: label, Profile: prof, Argv: []string{command}, profile: floorProfile(fo), local: true, noSync: !fo.sync, floor: fo}, nil
	}
	p, ok := profiles[prof]
	if !ok {
		return nil, fmt.Errorf("%q: unknown profile %q (known: acpfs, reference, floor)", v, prof)
	}
	var argv []string
	if strings.HasPrefix(strings.TrimSpace(command), "[") {
		if err := json.Unmarshal([]byte(command), &argv); err != nil {
			return nil, fmt.Errorf("%q: command: %w", v, err)
		}
	} else {
		argv = strings.Fields(command)
	}
	if len(argv) == 0 {
		return nil, fmt.Errorf("%q: empty command", v)
	}
	return &server{Label: label, Profile: prof, Argv: argv, profile: p, noSync: isNoSync(argv)}, nil
}

// config is the command line.
type config struct {
	servers  serverFlags
	cache    string
	duration time.Duration
	warmup   time.Duration
	rounds   int
	inflight int
	rows     string
	note     string
	out      string
	json     string
	ratios   ratioFlags
	only     []string // -only flags: LABEL=ROWS
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("peerbench: ")
	var cfg config
	flag.Var(&cfg.servers, "server", "a server to run: LABEL:PROFILE:COMMAND (repeat; the first is compared with the others)")
	flag.StringVar(&cfg.cache, "cache", filepath.Join(os.TempDir(), "mcp-acpfs-peerbench"), "the directory of the fixtures; the 1 GiB file in it is kept and reused")
	flag.DurationVar(&cfg.duration, "duration", 3*time.Second, "how long each timed phase of a row runs (at least its minimum number of calls)")
	flag.DurationVar(&cfg.warmup, "warmup", time.Second, "how long untimed calls warm each server up before a row's timed phases (a JIT compiler, caches)")
	flag.IntVar(&cfg.rounds, "rounds", 4, "rounds each timed phase is cut into, the servers taking turns, in the reverse order every other round")
	flag.IntVar(&cfg.inflight, "inflight", 8, "calls in flight in the concurrent phase")
	flag.StringVar(&cfg.rows, "rows", "", "comma-separated ids of the rows to run (default all): "+rowIDs())
	flag.StringVar(&cfg.note, "note", "", "a line to add to the report's header, such as the servers' runtime versions")
	flag.StringVar(&cfg.out, "o", "", "also write the report to this file")
	flag.StringVar(&cfg.json, "json", "", "also write the figures to this file, as JSON, for -summarize")
	flag.Var(&cfg.ratios, "ratio", "a pair of servers to compare, NUM:DEN by label (repeat; default: the first with each other server)")
	flag.Func("only", "LABEL=ROWS: run the server LABEL on these rows alone (comma-separated ids; repeat for other servers)", func(v string) error {
		cfg.only = append(cfg.only, v)
		return nil
	})
	summarize := flag.Bool("summarize", false, "print the spread of the -ratio pairs over the runs saved with -json given as arguments")
	flag.Parse()
	if *summarize {
		if flag.NArg() == 0 {
			flag.Usage()
			os.Exit(2)
		}
		if err := summarizeRuns(os.Stdout, cfg.ratios, flag.Args()); err != nil {
			log.Fatal(err)
		}
		return
	}
	if len(cfg.servers) == 0 || flag.NArg() > 0 || cfg.inflight < 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(context.Background(), &cfg, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func rowIDs() string {
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	return strings.Join(ids, ", ")
}

// selectRows returns the rows named in list, all for "".
func selectRows(list string) ([]row, error) {
	if list == "" {
		return rows, nil
	}
	var out []row
	for id := range strings.SplitSeq(list, ",") {
		i := slices.IndexFunc(rows, func(r row) bool { return r.ID == strings.TrimSpace(id) })
		if i < 0 {
			return nil, fmt.Errorf("-rows: unknown row %q (known: %s)", id, rowIDs())
		}
		out = append(out, rows[i])
	}
	return out, nil
}

// run runs the benchmark and writes the report to w.
func run(ctx context.Context, cfg *config, w io.Writer) error {
	selected, err := selectRows(cfg.rows)
	if err != nil {
		return err
	}
	labels, local := make([]string, len(cfg.servers)), make([]bool, len(cfg.servers))
	for i, s := range cfg.servers {
		labels[i], local[i] = s.Label, s.local
	}
	ratios, err := cfg.ratios.resolve(labels, local)
	if err != nil {
		return err
	}
	if err := applyOnly(cfg.servers, cfg.only); err != nil {
		return err
	}
	fx, err := makeFixtures(cfg.cache, log.Printf)
	if err != nil {
		return fmt.Errorf("fixtures: %w", err)
	}
	rep := &report{
		Ratios:   ratios,
		Started:  time.Now(),
		Servers:  cfg.servers,
		Root:     fx.Root,
		Inflight: cfg.inflight,
		Duration: cfg.duration,
		Warmup:   cfg.warmup,
		Rounds:   max(cfg.rounds, 1),
		Machine:  describeMachine(),
		Note:     cfg.note,
		Cells:    map[string][]*cell{},
	}
	for _, s := range cfg.servers {
		if err := start(ctx, s, fx.Root); err != nil {
			return err
		}
		if s.c != nil {
			defer s.c.close(5 * time.Second)
		}
	}
	time.Sleep(time.Second) // let start-up work settle before the idle figure
	for _, s := range cfg.servers {
		if s.local {
			rep.IdleStart = append(rep.IdleStart, 0)
			continue
		}
		st, err := readStatus(s.c.pid())
		if err != nil {
			return fmt.Errorf("%s: %w", s.Label, err)
		}
		rep.IdleStart = append(rep.IdleStart, st.RSS)
	}

	clients := make([]*client, len(cfg.servers))
	for i, s := range cfg.servers {
		clients[i] = s.c
	}
	for _, r := range selected {
		if r.Fresh {
			continue
		}
		rep.Cells[r.ID] = runRow(ctx, cfg, fx, r, cfg.servers, clients)
		rep.Rows = append(rep.Rows, r)
	}
	time.Sleep(2 * time.Second)
	for _, s := range cfg.servers {
		if s.local {
			rep.IdleEnd = append(rep.IdleEnd, 0)
			continue
		}
		st, err := readStatus(s.c.pid())
		if err != nil {
			return fmt.Errorf("%s: %w", s.Label, err)
		}
		rep.IdleEnd = append(rep.IdleEnd, st.RSS)
	}
	// A fresh row runs on each server alone, in a process of its own.
	for _, r := range selected {
		if !r.Fresh {
			continue
		}
		for _, s := range cfg.servers {
			// The floor has no fresh rows, nor a server kept off them by -only.
			if s.local || (s.only != nil && !slices.Contains(s.only, r.ID)) {
				rep.Cells[r.ID] = append(rep.Cells[r.ID], &cell{NA: true})
				continue
			}
			fresh := &server{Label: s.Label, Profile: s.Profile, Argv: s.Argv, profile: s.profile, noSync: s.noSync}
			if err := start(ctx, fresh, fx.Root); err != nil {
				rep.Cells[r.ID] = append(rep.Cells[r.ID], &cell{Err: err})
				continue
			}
			cells := runRow(ctx, cfg, fx, r, []*server{fresh}, []*client{fresh.c})
			fresh.c.close(5 * time.Second)
			rep.Cells[r.ID] = append(rep.Cells[r.ID], cells[0])
		}
		rep.Rows = append(rep.Rows, r)
	}

	text := rep.markdown()
	if _, err := io.WriteString(w, text); err != nil {
		return err
	}
	if cfg.json != "" {
		if err := rep.writeJSON(cfg.json); err != nil {
			return err
		}
	}
	if cfg.out != "" {
		return os.WriteFile(cfg.out, []byte(text), 0o644)
	}
	return nil
}

// start starts server s on root and performs the handshake. The floor
// has nothing to start.
func start(ctx context.Context, s *server, root string) error {
	if s.local {
		s.hs = handshake{Name: "in process", Version: "floor", Protocol: "none"}
		return nil
	}
	argv := make([]string, len(s.Argv))
	for i, a := range s.Argv {
		argv[i] = strings.ReplaceAll(a, "{root}", root)
	}
	c, err := startClient(argv)
	if err != nil {
		return fmt.Errorf("%s: %w", s.Label, err)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	hs, err := c.initialize(ctx)
	if err != nil {
		c.close(time.Second)
		return fmt.Errorf("%s: %w", s.Label, err)
	}
	s.c, s.hs = c, hs
	return nil
}

// phase is one timed phase of a row on one server.
type phase struct {
	Calls   int
	Elapsed time.Duration
	Latency []time.Duration // sorted
}

// add adds the calls of another round of the phase.
func (p *phase) add(q *phase) {
	p.Calls += q.Calls
	p.Elapsed += q.Elapsed
	p.Latency = append(p.Latency, q.Latency...)
	slices.Sort(p.Latency)
}

// rate is the phase's throughput in calls per second.
func (p *phase) rate() float64 {
	if p == nil || p.Elapsed <= 0 {
		return 0
	}
	return float64(p.Calls) / p.Elapsed.Seconds()
}

// cell is one row on one server.
type cell struct {
	Call       string // the call made, for the table
	Seq, Conc  *phase
	Peak       int64         // the server's peak RSS during the row
	CPUPerCall time.Duration // the server's CPU time per call, warm-ups included
	Err        error
	ErrAfter   time.Duration // how long the failing call took
	NA         bool          // the server has no such operation (the floor's reads)
}

// cellRun is one row being run on one server.
type cellRun struct {
	c     *client
	o     *op
	r     row
	cell  *cell
	pid   int
	cpu0  time.Duration
	calls int
	iters []int // each worker's calls so far
}

// startCell sets row r up on server s, resets the server's peak RSS, and
// makes the checked call and the warm-up calls. A failure is in the cell.
func startCell(ctx context.Context, cfg *config, fx *fixtures, r row, s *server, c *client) *cellRun {
	run := &cellRun{c: c, r: r, cell: &cell{}, iters: make([]int, cfg.inflight)}
	if s.only != nil && !slices.Contains(s.only, r.ID) {
		run.cell.NA = true
		return run
	}
	fail := func(err error) *cellRun {
		run.cell.Err = err
		return run
	}
	if err := os.MkdirAll(fx.Scratch, 0o755); err != nil {
		return fail(err)
	}
	o, err := s.profile(r.ID, runState{fx: fx, scratch: fx.Scratch, prefix: safeName(s.Label), workers: cfg.inflight})
	if err != nil {
		return fail(err)
	}
	if o == nil {
		run.cell.NA = true
		return run
	}
	run.o, run.cell.Call = o, o.Call
	if o.Do != nil {
		return run.startLocal(ctx, cfg, r)
	}
	var tool struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(o.Params(0, 0), &tool) == nil && !s.hs.Tools[tool.Name] {
		return fail(fmt.Errorf("the server has no tool %s", tool.Name))
	}
	run.pid = c.pid()
	if err := resetPeak(run.pid); err != nil {
		return fail(fmt.Errorf("reset the peak RSS: %w", err))
	}
	if run.cpu0, err = cpuTime(run.pid); err != nil {
		return fail(err)
	}

	// The checked call.
	cctx, cancel := context.WithTimeout(ctx, r.Timeout)
	sent, rep, err := c.request(cctx, "tools/call", o.Params(0, 0), true)
	cancel()
	run.calls++
	if err == nil {
		err = checkResult(rep.line, o)
	}
	if err != nil {
		run.cell.ErrAfter = time.Since(sent)
		return fail(err)
	}
	run.iters[0]++
	if r.Warmups > 0 {
		warm, err := timedPhase(ctx, c, o, r, 1, cfg.warmup, r.Warmups, run.iters)
		run.calls += warm.Calls
		if err != nil {
			return fail(err)
		}
	}
	return run
}

// phase runs one round of a timed phase with workers calls in flight, and
// adds it to the cell's figures.
func (run *cellRun) phase(ctx context.Context, workers int, d time.Duration, minCalls int) {
	if run.cell.Err != nil || run.cell.NA {
		return
	}
	p, err := timedPhase(ctx, run.c, run.o, run.r, workers, d, minCalls, run.iters)
	run.calls += p.Calls
	if err != nil {
		run.cell.Err = err
		return
	}
	sum := &run.cell.Seq
	if workers > 1 {
		sum = &run.cell.Conc
	}
	if *sum == nil {
		*sum = &phase{}
	}
	(*sum).add(p)
}

// finish reads the server's peak RSS and CPU time, and returns the cell.
func (run *cellRun) finish() *cell {
	if run.pid == 0 {
		return run.cell
	}
	if st, err := readStatus(run.pid); err == nil {
		run.cell.Peak = st.Peak
	}
	if cpu1, err := cpuTime(run.pid); err == nil && run.calls > 0 {
		run.cell.CPUPerCall = (cpu1 - run.cpu0) / time.Duration(run.calls)
	}
	return run.cell
}

// runRow runs row r on every server of servers (with their clients),
// interleaving them: each timed phase is cut into rounds, and every server
// runs a round in turn, so that a change in the machine's load during the
// row falls on all of them alike.
func runRow(ctx context.Context, cfg *config, fx *fixtures, r row, servers []*server, clients []*client) []*cell {
	runs := make([]*cellRun, len(servers))
	for i, s := range servers {
		log.Printf("%s: %s", r.ID, s.Label)
		runs[i] = startCell(ctx, cfg, fx, r, s, clients[i])
	}
	rounds := max(cfg.rounds, 1)
	d := cfg.duration / time.Duration(rounds)
	minEach := (r.MinCalls + rounds - 1) / rounds
	for i := range rounds {
		for _, run := range turns(runs, i) {
			run.phase(ctx, 1, d, minEach)
		}
	}
	if r.Concurrent && cfg.inflight > 1 {
		for i := range rounds {
			for _, run := range turns(runs, i) {
				run.phase(ctx, cfg.inflight, d, minEach)
			}
		}
	}
	cells := make([]*cell, len(runs))
	for i, run := range runs {
		cells[i] = run.finish()
		if cells[i].Err != nil && !cells[i].NA {
			log.Printf("%s: %s: %v", r.ID, servers[i].Label, cells[i].Err)
		}
	}
	return cells
}

// turns returns the order in which the servers take round i: as given,
// and reversed every other round, so that over an even number of rounds
// each server follows each other as often as it precedes it.
func turns[T any](runs []T, i int) []T {
	if i%2 == 0 {
		return runs
	}
	r := slices.Clone(runs)
	slices.Reverse(r)
	return r
}

// checkResult decodes a tools/call response in full and checks it.
func checkResult(line []byte, o *op) error {
	var resp struct {
		Result toolResult `json:"result"`
	}
	if err := json.Unmarshal(line, &resp); err != nil {
		return fmt.Errorf("decode the result: %w", err)
	}
	if resp.Result.IsError {
		return fmt.Errorf("the tool failed: %.300s", resp.Result.text())
	}
	if err := o.Check(&resp.Result); err != nil {
		return fmt.Errorf("wrong result: %w", err)
	}
	return nil
}

// timedPhase makes calls with workers in flight until d has passed and
// at least minCalls were made. iters counts each worker's calls. Each
// worker is a chain of calls: the reply to one, taken on the client's
// reader goroutine, starts the next there (client.start), so that the
// client spends as little CPU per call as it can, CPU the servers would
// otherwise lose on the machine's shared cores. A call with no reply
// within the row's timeout fails the phase.
func timedPhase(ctx context.Context, c *client, o *op, r row, workers int, d time.Duration, minCalls int, iters []int) (*phase, error) {
	if o.Do != nil {
		return localPhase(ctx, o, workers, d, minCalls, iters)
	}
	minEach := (minCalls + workers - 1) / workers
	lats := make([][]time.Duration, workers)
	errs := make([]error, workers)
	var stop atomic.Bool   // a worker failed: the others stop too
	var calls atomic.Int64 // completed calls, for the timeout
	var wg sync.WaitGroup
	start := time.Now()
	var next func(w int)
	next = func(w int) {
		sent := time.Now()
		c.start("tools/call", o.Params(w, iters[w]), func(rep reply) {
			if stop.Load() { // the phase has failed, and may have returned
				wg.Done()
				return
			}
			err := rep.err
			if err == nil && rep.env.IsError {
				var resp struct {
					Result toolResult `json:"result"`
				}
				json.Unmarshal(rep.line, &resp)
				err = fmt.Errorf("the tool failed: %.300s", resp.Result.text())
			}
			if err != nil {
				errs[w] = err
				stop.Store(true)
				wg.Done()
				return
			}
			calls.Add(1)
			iters[w]++
			lats[w] = append(lats[w], rep.at.Sub(sent))
			if len(lats[w]) >= minEach && time.Since(start) >= d {
				wg.Done()
				return
			}
			next(w)
		})
	}
	wg.Add(workers)
	for w := range workers {
		next(w)
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	tick := time.NewTicker(r.Timeout)
	defer tick.Stop()
	for seen := int64(-1); ; {
		select {
		case <-done:
			p := &phase{Elapsed: time.Since(start)}
			for _, l := range lats {
				p.Latency = append(p.Latency, l...)
			}
			p.Calls = len(p.Latency)
			slices.Sort(p.Latency)
			return p, firstError(errs)
		case <-ctx.Done():
			stop.Store(true)
			return &phase{Elapsed: time.Since(start), Calls: int(calls.Load())}, ctx.Err()
		case <-tick.C:
			// The chains still running end at their next reply; one
			// that never comes is the failure.
			if n := calls.Load(); n == seen {
				stop.Store(true)
				return &phase{Elapsed: time.Since(start), Calls: int(n)}, fmt.Errorf("tools/call: no response in %v", r.Timeout)
			} else {
				seen = n
			}
		}
	}
}

// firstError returns the first of errs that is not a cancellation, which
// the first failure causes in the other workers; else the first error.
func firstError(errs []error) error {
	var first error
	for _, err := range errs {
		if err == nil {
			continue
		}
		if !errors.Is(err, context.Canceled) {
			return err
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// safeName turns a label into a file name.
func safeName(label string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == os.PathSeparator || r == 0 {
			return '_'
		}
		return r
	}, label)
}
