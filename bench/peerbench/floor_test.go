package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The floor's replace puts the new content in place, keeps the file's
// permission bits, and leaves no temporary file, with syncs and without,
// freeing the old file in the rename or after.
func TestReplaceFile(t *testing.T) {
	for _, fo := range []floorOpts{{sync: true}, {}, {sync: true, hold: true}, {hold: true}} {
		dir := t.TempDir()
		p := filepath.Join(dir, "f.txt")
		if err := os.WriteFile(p, []byte("before\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := replaceFile(p, []byte("after\n"), fo); err != nil {
			t.Fatalf("%+v: %v", fo, err)
		}
		got, err := os.ReadFile(p)
		if err != nil || string(got) != "after\n" {
			t.Errorf("%+v: the file holds %q, %v", fo, got, err)
		}
		if info, err := os.Stat(p); err != nil || info.Mode().Perm() != 0o600 {
			t.Errorf("%+v: mode %v, %v; want 0600", fo, info.Mode(), err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("%+v: %d entries in the directory, want the file alone", fo, len(entries))
		}
	}
	if err := replaceFile(filepath.Join(t.TempDir(), "missing"), []byte("x"), floorOpts{sync: true}); err == nil {
		t.Error("a missing file: no error")
	}
}

// A floor's command is sync or nosync, with ",hold" or not.
func TestParseFloor(t *testing.T) {
	for command, want := range map[string]floorOpts{
		"sync": {sync: true}, "nosync": {}, "sync,hold": {sync: true, hold: true}, "nosync,hold": {hold: true},
	} {
		if got, err := parseFloor(command); err != nil || got != want {
			t.Errorf("%q: %+v, %v; want %+v", command, got, err, want)
		}
	}
	for _, bad := range []string{"", "fsync", "sync,", "sync,keep", "hold"} {
		if _, err := parseFloor(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// The floor's edit swaps the marker as the row's calls do, and refuses a
// file without exactly one.
func TestEditFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "e.txt")
	if err := os.WriteFile(p, []byte(editText()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := editFile(p, markA, markB, floorOpts{sync: true}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	if !bytes.Contains(got, []byte(markB)) || bytes.Contains(got, []byte(markA)) || len(got) != len(editText())-len(markA)+len(markB) {
		t.Errorf("after the edit: %d bytes, markB %v", len(got), bytes.Contains(got, []byte(markB)))
	}
	if err := editFile(p, markA, markB, floorOpts{}); err == nil || !strings.Contains(err.Error(), "one occurrence") {
		t.Errorf("no marker left: %v", err)
	}
}

// The floor's profile gives the writes and the edit, in process, and
// nothing else.
func TestFloorProfile(t *testing.T) {
	st := runState{fx: &fixtures{}, scratch: t.TempDir(), workers: 2}
	prof := floorProfile(floorOpts{})
	for _, id := range []string{rowWriteSmall, rowEdit} {
		o, err := prof(id, st)
		if err != nil || o == nil || o.Do == nil {
			t.Fatalf("%s: %v, %v", id, o, err)
		}
		ph, err := localPhase(t.Context(), o, 2, 0, 4, make([]int, 2))
		if err != nil || ph.Calls < 4 || len(ph.Latency) != ph.Calls {
			t.Fatalf("%s: %+v, %v", id, ph, err)
		}
		if err := o.Check(&toolResult{}); id == rowWriteSmall && err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
	if o, err := prof(rowReadSmall, st); o != nil || err != nil {
		t.Errorf("a read: %v, %v; want no operation", o, err)
	}
}

func TestRatioFlags(t *testing.T) {
	labels := []string{"a", "b", "floor", "c"}
	local := []bool{false, false, true, false}
	var f ratioFlags
	got, err := f.resolve(labels, local)
	if err != nil || len(got) != 2 || got[0] != (ratio{0, 1}) || got[1] != (ratio{0, 3}) {
		t.Errorf("default: %v, %v", got, err)
	}
	if err := f.Set("c:b"); err != nil {
		t.Fatal(err)
	}
	if got, err := f.resolve(labels, local); err != nil || len(got) != 1 || got[0] != (ratio{3, 1}) {
		t.Errorf("c:b: %v, %v", got, err)
	}
	if err := f.Set("nobody"); err == nil {
		t.Error("no colon: no error")
	}
	f = ratioFlags{{"a", "x"}}
	if _, err := f.resolve(labels, local); err == nil {
		t.Error("an unknown label: no error")
	}
}

func TestApplyOnly(t *testing.T) {
	a, b := &server{Label: "a=1"}, &server{Label: "b"}
	if err := applyOnly([]*server{a, b}, []string{"a=1=write-4k,edit"}); err != nil {
		t.Fatal(err)
	}
	if len(a.only) != 2 || a.only[0] != rowWriteSmall || a.only[1] != rowEdit || b.only != nil {
		t.Errorf("a.only = %v, b.only = %v", a.only, b.only)
	}
	for _, bad := range []string{"a=1", "c=edit", "b=nope", "b"} {
		if err := applyOnly([]*server{{Label: "a=1"}, {Label: "b"}}, []string{bad}); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// -summarize reads the runs saved with -json and shows each ratio's
// spread, and each server over each floor.
func TestSummarize(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i, rate := range []float64{100, 110, 90} {
		ph := func(calls int) *phase {
			return &phase{Calls: calls, Elapsed: time.Second, Latency: []time.Duration{time.Duration(1e6 / calls)}}
		}
		rep := &report{
			Started:  time.Now(),
			Inflight: 8,
			Servers: []*server{{Label: "new", Profile: "acpfs"}, {Label: "old", Profile: "acpfs"},
				{Label: "floor", Profile: "floor", local: true}, {Label: "held", Profile: "floor", local: true}},
			Rows: []row{rows[2]},
			Cells: map[string][]*cell{rowWriteSmall: {
				{Seq: ph(int(rate)), Conc: ph(int(2 * rate))}, {Seq: ph(100), Conc: ph(200)}, {Seq: ph(200), Conc: ph(400)},
				{Seq: ph(400), Conc: ph(800)}}},
		}
		files = append(files, filepath.Join(dir, string(rune('a'+i))+".json"))
		if err := rep.writeJSON(files[i]); err != nil {
			t.Fatal(err)
		}
	}
	var out strings.Builder
	if err := summarizeRuns(&out, ratioFlags{{"new", "old"}}, files); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| write 4 KiB (replace a file) | new ÷ old | 0.90×–1.10× (1.00×) | 0.90×–1.10× (1.00×) | 0.91×–1.11× (1.00×) | – |",
		"| new ÷ floor | 1.82×–2.22× (2.00×) |",
		"| old ÷ floor | 2.00×–2.00× (2.00×) |",
		"| new ÷ held | 3.64×–4.44× (4.00×) |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the summary lacks %q:\n%s", want, out.String())
		}
	}
}

// The servers and the floor write in one directory, each in files of its
// own: a file system's create and rename cost differs from one directory
// to another, which must not count against one server.
func TestWritersShareTheDirectory(t *testing.T) {
	dir := t.TempDir()
	ops := map[string]*op{}
	for _, label := range []string{"mcp-acpfs", "floor"} {
		st := runState{fx: &fixtures{}, scratch: dir, prefix: safeName(label), workers: 2}
		for _, id := range []string{rowWriteSmall, rowEdit} {
			o, err := floorProfile(floorOpts{sync: true})(id, st)
			if err != nil {
				t.Fatal(err)
			}
			ops[label+" "+id] = o
		}
	}
	seen := map[string]string{}
	for name, o := range ops {
		for _, p := range o.paths {
			if filepath.Dir(p) != dir {
				t.Errorf("%s writes %s, outside the shared directory %s", name, p, dir)
			}
			if other, ok := seen[p]; ok {
				t.Errorf("%s and %s both write %s", name, other, p)
			}
			seen[p] = name
		}
	}
}

// The servers take their turns in the reverse order every other round.
func TestTurns(t *testing.T) {
	runs := []string{"a", "b", "c"}
	var got []string
	for i := range 4 {
		got = append(got, strings.Join(turns(runs, i), ""))
	}
	if want := "abc cba abc cba"; strings.Join(got, " ") != want {
		t.Errorf("turns: %q, want %q", strings.Join(got, " "), want)
	}
	if strings.Join(runs, "") != "abc" {
		t.Errorf("turns changed its argument: %q", runs)
	}
}
