package main

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// goalRatio is the goal: the first server has at least goalRatio times
// the throughput of each other, and at most 1/goalRatio of its memory.
const goalRatio = 3

// report is the outcome of a run.
type report struct {
	Ratios   []ratio // the pairs of servers compared
	Started  time.Time
	Servers  []*server
	Root     string
	Inflight int
	Duration time.Duration
	Warmup   time.Duration
	Rounds   int
	Machine  machine
	Note     string

	Rows      []row
	Cells     map[string][]*cell // by row id, in the order of Servers
	IdleStart []int64            // VmRSS after the handshake and a second's rest
	IdleEnd   []int64            // VmRSS two seconds after the workload
}

// machine describes the machine the run was on.
type machine struct {
	Cores  int
	Memory int64 // bytes
	CPU    string
	Kernel string
	Go     string
	Load   string // the load averages over 1, 5 and 15 minutes, at the start
}

func describeMachine() machine {
	m := machine{Cores: runtime.NumCPU(), Go: runtime.Version()}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		for line := range strings.Lines(string(b)) {
			if _, err := fmt.Sscanf(line, "MemTotal: %d kB", &kb); err == nil {
				m.Memory = kb << 10
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			if name, value, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(name) == "model name" {
				m.CPU = strings.TrimSpace(value)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			m.Load = strings.Join(f[:3], " ")
		}
	}
	return m
}

// markdown renders the report.
func (r *report) markdown() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	cols := func(n int) {
		for range n {
			p("---:|")
		}
		p("\n")
	}

	p("Run %s on %d cores (%s), %s of memory, Linux %s, load average %s at the start; harness built with %s.\n",
		r.Started.UTC().Format("2006-01-02 15:04 MST"), r.Machine.Cores, r.Machine.CPU, fmtBytes(r.Machine.Memory), r.Machine.Kernel, r.Machine.Load, r.Machine.Go)
	if r.Note != "" {
		p("%s\n", r.Note)
	}
	p("\n")
	for _, s := range r.Servers {
		if s.local {
			p("- **%s**: no server: the writes and the edit done in this process (%s)\n", s.Label, replaceSteps(s.floor))
			continue
		}
		p("- **%s**: `%s` (server %s %s, protocol %s)\n", s.Label, r.displayArgv(s.Argv), s.hs.Name, s.hs.Version, s.hs.Protocol)
	}
	p("\nEach row started with a call whose result was checked, and %s of untimed calls to warm the server up. "+
		"Each timed phase ran for %s (or to the row's least number of calls), in %d rounds, the servers taking turns round by round; "+
		"\"1\" is one call in flight at a time, \"%d\" is %d calls in flight on the one stdio connection. "+
		"calls/s is completed calls over the phase's wall time; p50 and p99 are of the latency of each call, "+
		"from the request's write to its response's last byte, with one call in flight. "+
		"Peak RSS is the server process's VmHWM over the row, reset before it.\n\n",
		r.Warmup, r.Duration, r.Rounds, r.Inflight, r.Inflight)

	// Throughput and latency.
	goals := r.goalPairs()
	p("| workload |")
	for _, s := range r.Servers {
		p(" %s calls/s (1 / %d) |", s.Label, r.Inflight)
	}
	for _, q := range r.Ratios {
		p(" %s ÷ %s (1 / %d) |", r.Servers[q.Num].Label, r.Servers[q.Den].Label, r.Inflight)
	}
	for _, s := range r.Servers {
		p(" %s p50 / p99 |", s.Label)
	}
	if len(goals) > 0 {
		p(" goal (≥ %d× throughput, ≤ ⅓ peak RSS) |", goalRatio)
	}
	p("\n|---|")
	cols(len(r.Servers)*2 + len(r.Ratios) + min(len(goals), 1))
	var notes []string // footnotes: failures and stalls
	for _, row := range r.Rows {
		cells := r.Cells[row.ID]
		p("| %s |", row.Name)
		for i, c := range cells {
			switch {
			case c.NA:
				p(" – |")
			case c.Err != nil:
				p(" fails after %s[^%d] |", fmtDur(c.ErrAfter), len(notes)+1)
				notes = append(notes, fmt.Sprintf("%s, %s: %v", row.Name, r.Servers[i].Label, c.Err))
			default:
				p(" %s / %s |", fmtRate(c.Seq.rate()), fmtRate(c.Conc.rate()))
			}
		}
		for _, q := range r.Ratios {
			a, o := cells[q.Num], cells[q.Den]
			if !a.ok() || !o.ok() {
				p(" – |")
				continue
			}
			p(" %s / %s |", fmtRatio(a.Seq.rate(), o.Seq.rate()), fmtRatio(a.Conc.rate(), o.Conc.rate()))
		}
		for i, c := range cells {
			if !c.ok() || c.Seq == nil {
				p(" – |")
				continue
			}
			p(" %s / %s", fmtDur(percentile(c.Seq.Latency, 50)), fmtDur(percentile(c.Seq.Latency, 99)))
			if stall := c.Seq.stall(); stall != "" {
				p("[^%d]", len(notes)+1)
				notes = append(notes, fmt.Sprintf("%s, %s: %s", row.Name, r.Servers[i].Label, stall))
			}
			p(" |")
		}
		if len(goals) > 0 {
			var verdicts []string
			for _, q := range goals {
				if v := verdict(cells[q.Num], cells[q.Den], row); !slices.Contains(verdicts, v) {
					verdicts = append(verdicts, v)
				}
			}
			p(" %s |", strings.Join(verdicts, "; "))
		}
		p("\n")
	}
	for i, n := range notes {
		p("\n[^%d]: %s\n", i+1, r.clip(n))
	}

	r.floorTable(p)

	// Memory, of the server processes.
	var procs []int
	for i, s := range r.Servers {
		if !s.local {
			procs = append(procs, i)
		}
	}
	var memRatios, memGoals []ratio
	for _, q := range r.Ratios {
		if !r.Servers[q.Num].local && !r.Servers[q.Den].local {
			memRatios = append(memRatios, q)
		}
	}
	for _, q := range goals {
		memGoals = append(memGoals, q)
	}
	p("\n| memory |")
	for _, i := range procs {
		p(" %s |", r.Servers[i].Label)
	}
	for _, q := range memRatios {
		p(" %s ÷ %s |", r.Servers[q.Num].Label, r.Servers[q.Den].Label)
	}
	if len(memGoals) > 0 {
		p(" goal (≤ ⅓) |")
	}
	p("\n|---|")
	cols(len(procs) + len(memRatios) + min(len(memGoals), 1))
	memRow := func(name string, vals []int64, goal bool) {
		p("| %s |", name)
		for _, i := range procs {
			p(" %s |", fmtBytes(vals[i]))
		}
		for _, q := range memRatios {
			p(" %s |", fmtFrac(float64(vals[q.Num])/float64(vals[q.Den])))
		}
		if len(memGoals) > 0 {
			var verdicts []string
			for _, q := range memGoals {
				v := "–"
				if vals[q.Num] > 0 && vals[q.Den] > 0 {
					v = yesNo(goal, float64(vals[q.Num]) <= float64(vals[q.Den])/goalRatio)
				}
				if !slices.Contains(verdicts, v) {
					verdicts = append(verdicts, v)
				}
			}
			p(" %s |", strings.Join(verdicts, "; "))
		}
		p("\n")
	}
	if len(r.IdleStart) == len(r.Servers) {
		memRow("idle RSS after the handshake", r.IdleStart, true)
	}
	if len(r.IdleEnd) == len(r.Servers) {
		memRow("idle RSS 2 s after the workload", r.IdleEnd, true)
	}
	overall := make([]int64, len(r.Servers))
	for _, row := range r.Rows {
		vals := make([]int64, len(r.Servers))
		for i, c := range r.Cells[row.ID] {
			vals[i] = c.Peak
			overall[i] = max(overall[i], c.Peak)
		}
		memRow("peak RSS: "+row.Name, vals, row.Goal || row.Floor)
	}
	memRow("peak RSS over the whole run", overall, true)

	// Latency with calls in flight, and CPU.
	p("\n| workload |")
	for _, s := range r.Servers {
		p(" %s p50 / p99 with %d in flight |", s.Label, r.Inflight)
	}
	for _, i := range procs {
		p(" %s CPU per call |", r.Servers[i].Label)
	}
	p("\n|---|")
	cols(len(r.Servers) + len(procs))
	for _, row := range r.Rows {
		p("| %s |", row.Name)
		cells := r.Cells[row.ID]
		for _, c := range cells {
			if !c.ok() || c.Conc == nil {
				p(" – |")
				continue
			}
			p(" %s / %s |", fmtDur(percentile(c.Conc.Latency, 50)), fmtDur(percentile(c.Conc.Latency, 99)))
		}
		for _, i := range procs {
			p(" %s |", fmtDur(cells[i].CPUPerCall))
		}
		p("\n")
	}

	// The calls made.
	p("\n| workload |")
	for _, s := range r.Servers {
		p(" %s does |", s.Label)
	}
	p("\n|---|")
	for range r.Servers {
		p("---|")
	}
	p("\n")
	for _, row := range r.Rows {
		p("| %s |", row.Name)
		for _, c := range r.Cells[row.ID] {
			if c.Call == "" {
				p(" – |")
				continue
			}
			p(" %s |", c.Call)
		}
		p("\n")
	}
	return b.String()
}

// floorGoal is the goal of the floor rows: our p50 at most floorGoal
// times the floor's.
const floorGoal = 1.3

// floorTable renders each acpfs server against each floor of its
// durability, on the floor rows: p50 and p95 with 1 and with Inflight
// calls in flight.
func (r *report) floorTable(p func(string, ...any)) {
	pairs := r.floorPairs()
	if len(pairs) == 0 {
		return
	}
	p("\nAgainst the floor, the same replace done in this process with no MCP, in the same rounds; goal: our p50 at most %.1f× the floor's.\n\n", floorGoal)
	p("| workload | server ÷ floor | in flight | server p50 / p95 | floor p50 / p95 | server ÷ floor, p50 / p95 | goal (p50 ≤ %.1f×) |\n|---|---|---:|---:|---:|---:|---|\n", floorGoal)
	for _, row := range r.Rows {
		if !row.Floor {
			continue
		}
		cells := r.Cells[row.ID]
		for _, q := range pairs {
			a, f := cells[q.Num], cells[q.Den]
			for _, n := range []int{1, r.Inflight} {
				pa, pf := a.Seq, f.Seq
				if n > 1 {
					pa, pf = a.Conc, f.Conc
				}
				p("| %s | %s ÷ %s | %d |", row.Name, r.Servers[q.Num].Label, r.Servers[q.Den].Label, n)
				if !a.ok() || !f.ok() || pa == nil || pf == nil {
					p(" – | – | – | – |\n")
					continue
				}
				a50, a95 := percentile(pa.Latency, 50), percentile(pa.Latency, 95)
				f50, f95 := percentile(pf.Latency, 50), percentile(pf.Latency, 95)
				ok := float64(a50) <= floorGoal*float64(f50)
				p(" %s / %s | %s / %s | %s / %s | %s |\n", fmtDur(a50), fmtDur(a95), fmtDur(f50), fmtDur(f95),
					fmtRatio(float64(a50), float64(f50)), fmtRatio(float64(a95), float64(f95)), yesNo(true, ok))
			}
		}
	}
}

// floorPairs pairs each acpfs server with each floor of the same
// durability.
func (r *report) floorPairs() []ratio {
	var out []ratio
	for i, s := range r.Servers {
		if s.Profile != "acpfs" {
			continue
		}
		for j, f := range r.Servers {
			if f.local && f.noSync == s.noSync {
				out = append(out, ratio{i, j})
			}
		}
	}
	return out
}

// goalPairs are the ratios the goal is about: an acpfs server against
// the reference server.
func (r *report) goalPairs() []ratio {
	var out []ratio
	for _, q := range r.Ratios {
		if r.Servers[q.Num].Profile == "acpfs" && r.Servers[q.Den].Profile == "reference" {
			out = append(out, q)
		}
	}
	return out
}

// ok reports whether the cell has figures.
func (c *cell) ok() bool { return !c.NA && c.Err == nil }

// verdict says whether row holds the goal for a against o.
func verdict(a, o *cell, row row) string {
	switch {
	case a.NA || o.NA:
		return "–"
	case row.Floor:
		return "(against the floor, below)"
	case !row.Goal:
		return "(not a goal row)"
	}
	switch {
	case a.Err != nil:
		return "✗ fails"
	case o.Err != nil:
		return "✓ (the peer fails)"
	}
	var missed []string
	if a.Seq.rate() < goalRatio*o.Seq.rate() || (a.Conc != nil && o.Conc != nil && a.Conc.rate() < goalRatio*o.Conc.rate()) {
		missed = append(missed, "throughput")
	}
	if float64(a.Peak) > float64(o.Peak)/goalRatio {
		missed = append(missed, "memory")
	}
	if len(missed) == 0 {
		return "✓"
	}
	return "✗ " + strings.Join(missed, ", ")
}

func yesNo(goal, ok bool) string {
	switch {
	case !goal:
		return "(not a goal row)"
	case ok:
		return "✓"
	}
	return "✗"
}

// displayArgv shows a command line without machine paths: the root is
// ROOT, a path inside node_modules starts there, any other absolute path
// is its base name.
func (r *report) displayArgv(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		a = strings.ReplaceAll(a, "{root}", "ROOT")
		switch {
		case a == r.Root:
			a = "ROOT"
		case filepath.IsAbs(a):
			if j := strings.LastIndex(a, "node_modules/"); j >= 0 {
				a = a[j:]
			} else {
				a = filepath.Base(a)
			}
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

// percentile returns the p-th percentile of sorted, by nearest rank.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// stall describes the slowest call of a phase of one call in flight if it
// took far longer than the others (at least 100 ms, and 20 times the
// median), and is "" otherwise. Such a call lowers the phase's throughput
// while p50 and p99 hide it when it is one of a few hundred: a machine
// that stalls for a second shows up here, not as a mystery ratio.
func (p *phase) stall() string {
	n := len(p.Latency)
	if n == 0 {
		return ""
	}
	slowest, median := p.Latency[n-1], percentile(p.Latency, 50)
	if slowest < 100*time.Millisecond || slowest < 20*median {
		return ""
	}
	return fmt.Sprintf("the slowest of the %d calls with one in flight took %s (p50 %s), %.0f %% of the phase's time",
		n, fmtDur(slowest), fmtDur(median), 100*slowest.Seconds()/p.Elapsed.Seconds())
}

// fmtDur shows d with three significant digits.
func fmtDur(d time.Duration) string {
	switch {
	case d <= 0:
		return "–"
	case d < time.Millisecond:
		return sig3(float64(d)/float64(time.Microsecond)) + " µs"
	case d < time.Second:
		return sig3(float64(d)/float64(time.Millisecond)) + " ms"
	}
	return sig3(d.Seconds()) + " s"
}

// fmtRate shows calls per second.
func fmtRate(r float64) string {
	if r <= 0 {
		return "–"
	}
	return sig3(r)
}

// fmtRatio shows a/b as a factor.
func fmtRatio(a, b float64) string {
	if a <= 0 || b <= 0 {
		return "–"
	}
	return sig3(a/b) + "×"
}

// fmtFrac shows a memory ratio.
func fmtFrac(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) || x <= 0 {
		return "–"
	}
	return sig3(x) + "×"
}

// fmtBytes shows a size in MiB (GiB from 10 GiB up).
func fmtBytes(n int64) string {
	switch {
	case n <= 0:
		return "–"
	case n >= 10<<30:
		return fmt.Sprintf("%.0f GiB", float64(n)/(1<<30))
	}
	return sig3(float64(n)/(1<<20)) + " MiB"
}

// sig3 shows x with three significant digits, and no exponent.
func sig3(x float64) string {
	switch {
	case x >= 100:
		return fmt.Sprintf("%.0f", x)
	case x >= 10:
		return fmt.Sprintf("%.1f", x)
	case x >= 1:
		return fmt.Sprintf("%.2f", x)
	}
	return fmt.Sprintf("%.3g", x)
}

// clip makes an error message a footnote: one line of at most 400
// bytes, with the fixtures' root shown as ROOT.
func (r *report) clip(s string) string {
	s = strings.Join(strings.Fields(strings.ReplaceAll(s, r.Root, "ROOT")), " ")
	if len(s) > 400 {
		s = strings.ToValidUTF8(s[:400], "") + "…"
	}
	return s
}
