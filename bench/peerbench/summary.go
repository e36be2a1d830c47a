package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

// runFile is a run's figures as -json writes them, for -summarize.
type runFile struct {
	Started  time.Time
	Machine  machine
	Note     string
	Inflight int
	Servers  []serverFile
	Rows     []rowFile
}

type serverFile struct {
	Label, Profile string
	Local, NoSync  bool
}

type rowFile struct {
	ID, Name string
	Floor    bool
	Cells    []cellFile // in the order of Servers
}

type cellFile struct {
	NA         bool   `json:",omitempty"`
	Err        string `json:",omitempty"`
	Seq, Conc  *phaseFile
	Peak       int64
	CPUPerCall time.Duration
}

// phaseFile is a timed phase: its throughput and latency percentiles.
type phaseFile struct {
	Calls         int
	Elapsed       time.Duration
	Rate          float64
	P50, P95, P99 time.Duration
}

func phaseOf(p *phase) *phaseFile {
	if p == nil {
		return nil
	}
	return &phaseFile{Calls: p.Calls, Elapsed: p.Elapsed, Rate: p.rate(),
		P50: percentile(p.Latency, 50), P95: percentile(p.Latency, 95), P99: percentile(p.Latency, 99)}
}

// writeJSON writes the run's figures to file.
func (r *report) writeJSON(file string) error {
	out := runFile{Started: r.Started, Machine: r.Machine, Note: r.Note, Inflight: r.Inflight}
	for _, s := range r.Servers {
		out.Servers = append(out.Servers, serverFile{Label: s.Label, Profile: s.Profile, Local: s.local, NoSync: s.noSync})
	}
	for _, row := range r.Rows {
		rf := rowFile{ID: row.ID, Name: row.Name, Floor: row.Floor}
		for _, c := range r.Cells[row.ID] {
			cf := cellFile{NA: c.NA, Seq: phaseOf(c.Seq), Conc: phaseOf(c.Conc), Peak: c.Peak, CPUPerCall: c.CPUPerCall}
			if c.Err != nil {
				cf.Err = c.Err.Error()
			}
			rf.Cells = append(rf.Cells, cf)
		}
		out.Rows = append(out.Rows, rf)
	}
	b, err := json.MarshalIndent(out, "", "\t")
	if err != nil {
		return err
	}
	return os.WriteFile(file, b, 0o644)
}

// summarizeRuns prints, for each pair of ratios and each row, the spread
// of the throughput ratio over the runs in files (min–max and median),
// with one call in flight and with several, and of the ratios of p50
// latency and of CPU per call; and each acpfs server's p50 and p95 over
// the floor's.
func summarizeRuns(w io.Writer, pairs ratioFlags, files []string) error {
	runs := make([]*runFile, len(files))
	for i, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		runs[i] = &runFile{}
		if err := json.Unmarshal(b, runs[i]); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	first := runs[0]
	labels, local := make([]string, len(first.Servers)), make([]bool, len(first.Servers))
	for i, s := range first.Servers {
		labels[i], local[i] = s.Label, s.Local
	}
	ratios, err := pairs.resolve(labels, local)
	if err != nil {
		return err
	}
	// byLabel finds a row's cell of a server in a run, by label, since
	// runs may list the servers in another order.
	byLabel := func(run *runFile, id, label string) *cellFile {
		i := slices.IndexFunc(run.Servers, func(s serverFile) bool { return s.Label == label })
		j := slices.IndexFunc(run.Rows, func(r rowFile) bool { return r.ID == id })
		if i < 0 || j < 0 || i >= len(run.Rows[j].Cells) {
			return nil
		}
		c := &run.Rows[j].Cells[i]
		if c.NA || c.Err != "" || c.Seq == nil {
			return nil
		}
		return c
	}
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	var loads []string
	for _, run := range runs {
		loads = append(loads, run.Machine.Load)
	}
	p("%d runs, %s to %s, on %d cores, load average at the start of each: %s; spread over the runs: min–max (median).\n\n", len(runs),
		first.Started.UTC().Format("2006-01-02 15:04"), runs[len(runs)-1].Started.UTC().Format("15:04 MST"), first.Machine.Cores, strings.Join(loads, "; "))
	p("| workload | ratio | throughput, 1 in flight | throughput, %d in flight | p50 latency, 1 in flight | CPU per call |\n|---|---|---:|---:|---:|---:|\n", first.Inflight)
	for _, row := range first.Rows {
		for _, q := range ratios {
			num, den := labels[q.Num], labels[q.Den]
			var seq, conc, lat, cpu []float64
			for _, run := range runs {
				a, o := byLabel(run, row.ID, num), byLabel(run, row.ID, den)
				if a == nil || o == nil {
					continue
				}
				seq = append(seq, a.Seq.Rate/o.Seq.Rate)
				lat = append(lat, float64(a.Seq.P50)/float64(o.Seq.P50))
				if a.CPUPerCall > 0 && o.CPUPerCall > 0 {
					cpu = append(cpu, float64(a.CPUPerCall)/float64(o.CPUPerCall))
				}
				if a.Conc != nil && o.Conc != nil {
					conc = append(conc, a.Conc.Rate/o.Conc.Rate)
				}
			}
			if len(seq) == 0 { // the pair has no figures on this row
				continue
			}
			p("| %s | %s ÷ %s | %s | %s | %s | %s |\n", row.Name, num, den, spread(seq), spread(conc), spread(lat), spread(cpu))
		}
	}
	// Each acpfs server over each floor of its durability.
	var floors [][2]string
	for _, s := range first.Servers {
		if s.Profile != "acpfs" {
			continue
		}
		for _, f := range first.Servers {
			if f.Local && f.NoSync == s.NoSync {
				floors = append(floors, [2]string{s.Label, f.Label})
			}
		}
	}
	if len(floors) == 0 {
		return nil
	}
	p("\n| workload | server ÷ floor | p50, 1 in flight | p95, 1 in flight | p50, %d in flight | p95, %d in flight |\n|---|---|---:|---:|---:|---:|\n", first.Inflight, first.Inflight)
	for _, row := range first.Rows {
		if !row.Floor {
			continue
		}
		for _, pair := range floors {
			var v [4][]float64
			for _, run := range runs {
				a, f := byLabel(run, row.ID, pair[0]), byLabel(run, row.ID, pair[1])
				if a == nil || f == nil {
					continue
				}
				v[0] = append(v[0], float64(a.Seq.P50)/float64(f.Seq.P50))
				v[1] = append(v[1], float64(a.Seq.P95)/float64(f.Seq.P95))
				if a.Conc != nil && f.Conc != nil {
					v[2] = append(v[2], float64(a.Conc.P50)/float64(f.Conc.P50))
					v[3] = append(v[3], float64(a.Conc.P95)/float64(f.Conc.P95))
				}
			}
			p("| %s | %s ÷ %s | %s | %s | %s | %s |\n", row.Name, pair[0], pair[1], spread(v[0]), spread(v[1]), spread(v[2]), spread(v[3]))
		}
	}
	return nil
}

// spread shows values as min–max (median), or the one value.
func spread(v []float64) string {
	switch len(v) {
	case 0:
		return "–"
	case 1:
		return fmtFactor(v[0])
	}
	v = slices.Clone(v)
	slices.Sort(v)
	var med float64
	if n := len(v); n%2 == 1 {
		med = v[n/2]
	} else {
		med = (v[n/2-1] + v[n/2]) / 2
	}
	return strings.Join([]string{fmtFactor(v[0]), "–", fmtFactor(v[len(v)-1]), " (", fmtFactor(med), ")"}, "")
}

// fmtFactor shows a ratio with two decimals, enough to see 5 %, and
// three significant digits below 0.1 and from 10 up.
func fmtFactor(x float64) string {
	if x >= 0.1 && x < 10 {
		return fmt.Sprintf("%.2f×", x)
	}
	return sig3(x) + "×"
}
