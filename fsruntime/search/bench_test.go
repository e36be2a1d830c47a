package search_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/search"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
)

// The search benchmarks run over a generated tree of 100,000 small files
// (1,000 directories of 100), made once per machine in the temporary
// directory and reused: it is never committed. Where ripgrep is installed,
// each benchmark also times the equivalent rg command over the same tree,
// in the same run, and reports how many times slower ours is (ours/rg).

const (
	benchDirs        = 1000
	benchFilesPerDir = 100
	benchTreeVersion = "v1" // bump when the generator changes
)

// benchTree returns the root of the generated tree.
func benchTree(b *testing.B) string {
	b.Helper()
	root := filepath.Join(os.TempDir(), "mcp-acpfs-bench-tree-100k-"+benchTreeVersion)
	complete := root + ".complete" // beside the tree, not in it
	if _, err := os.Stat(complete); err == nil {
		return root
	}
	if err := os.RemoveAll(root); err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	for d := range benchDirs {
		dir := filepath.Join(root, fmt.Sprintf("pkg%03d", d/100), fmt.Sprintf("mod%03d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range benchFilesPerDir {
			n := d*benchFilesPerDir + f
			buf.Reset()
			name := benchFile(&buf, d, f, n)
			if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(complete, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	return root
}

// benchFile writes the content of file f of directory d (the n-th file of
// the tree) and returns its name. Every file is a few hundred bytes of
// Go-like text; a few hold what the benchmarks look for.
func benchFile(w *bytes.Buffer, d, f, n int) string {
	ext := [...]string{".go", ".go", ".go", ".txt", ".md", ".js", ".go", ".json", ".go", ".py"}[f%10]
	fmt.Fprintf(w, "package mod%03d\n\n// File %d of the benchmark tree.\n\n", d, n)
	for i := range 4 {
		fmt.Fprintf(w, "func f%d_%d(x int) int {\n\tif x > %d {\n\t\treturn x - %d\n\t}\n\treturn x + %d\n}\n\n", n, i, i*7, i, n%97)
	}
	if n%1000 == 7 {
		w.WriteString("// TODO: find the needle_marker in this file\n")
	}
	if n%997 == 3 {
		fmt.Fprintf(w, "func Serve%dHandler(w io.Writer) {}\n", n)
	}
	if n%1009 == 5 {
		fmt.Fprintf(w, "// released on 2024-%02d-%02d\n", n%12+1, n%28+1)
	}
	return fmt.Sprintf("file%03d%s", f, ext)
}

// benchDisk opens a Disk on the tree.
func benchDisk(b *testing.B, root string) *fsruntime.Disk {
	b.Helper()
	d, err := fsruntime.OpenDisk([]string{root}, fsruntime.DiskOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { d.Close() })
	if _, ok := any(d).(fsruntime.WalkFS); !ok {
		b.Skip("the Disk does not walk yet")
	}
	return d
}

// A cost is the mean wall and CPU time (user and system) of an operation.
type cost struct{ wall, cpu time.Duration }

// report adds the CPU time per operation to b's metrics.
func (c cost) report(b *testing.B) {
	b.ReportMetric(float64(c.cpu.Microseconds())/1000, "cpu-ms/op")
}

// ratio adds to b's metrics how many times ours takes what rg takes, in
// wall time and in CPU time.
func ratio(b *testing.B, ours, rg cost) {
	if ours.wall > 0 && rg.wall > 0 {
		b.ReportMetric(float64(ours.wall)/float64(rg.wall), "ours/rg")
	}
	if ours.cpu > 0 && rg.cpu > 0 {
		b.ReportMetric(float64(ours.cpu)/float64(rg.cpu), "ours/rg-cpu")
	}
}

// timed runs op in a benchmark loop and returns its mean cost; op returns
// the CPU time it took, or 0 to have the process's own measured.
func timed(b *testing.B, op func() time.Duration) cost {
	n := 0
	var cpu time.Duration
	before := ostest.CPUTime(b)
	for b.Loop() {
		cpu += op()
		n++
	}
	if cpu == 0 {
		now := ostest.CPUTime(b)
		cpu = now - before
	}
	n = max(n, 1)
	return cost{b.Elapsed() / time.Duration(n), cpu / time.Duration(n)}
}

// ripgrep times rg with args in a sub-benchmark named "ripgrep", checks
// that it prints want lines, and reports the ratios of ours to it, ours
// being the cost measured by our own sub-benchmark.
func ripgrep(b *testing.B, ours *cost, want int, args ...string) {
	b.Run("ripgrep", func(b *testing.B) {
		rg, err := exec.LookPath("rg")
		if err != nil {
			b.Skip("ripgrep (rg) is not installed, so there is nothing to compare with: apt-get install ripgrep")
		}
		var lines int
		c := timed(b, func() time.Duration {
			cmd := exec.Command(rg, args...)
			out, err := cmd.Output()
			if err != nil {
				b.Fatalf("rg %s: %v", strings.Join(args, " "), err)
			}
			lines = bytes.Count(out, []byte{'\n'})
			return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		})
		if lines != want {
			b.Fatalf("rg printed %d lines, ours found %d", lines, want)
		}
		c.report(b)
		ratio(b, *ours, c)
	})
}

func BenchmarkGlob(b *testing.B) {
	root := benchTree(b)
	d := benchDisk(b, root)
	for _, tc := range []struct {
		name, pattern string
		rg            []string
	}{
		{"all-go", "**/*.go", []string{"--files", "--no-ignore", "--hidden", "-g", "*.go", root}},
		{"one-dir", "pkg000/mod042/*.go", nil},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var ours cost
			var found int
			b.Run("ours", func(b *testing.B) {
				ours = timed(b, func() time.Duration {
					r, err := search.Glob(b.Context(), d, root, tc.pattern, 1_000_000)
					if err != nil {
						b.Fatal(err)
					}
					found = len(r.Matches)
					return 0
				})
				b.ReportMetric(float64(found), "matches")
				ours.report(b)
			})
			if tc.rg != nil {
				ripgrep(b, &ours, found, tc.rg...)
			}
		})
	}
}

func BenchmarkGrep(b *testing.B) {
	root := benchTree(b)
	d := benchDisk(b, root)
	for _, tc := range []struct {
		name       string
		opts       search.GrepOptions
		rgPatterns []string
	}{
		{"literal", search.GrepOptions{Pattern: "needle_marker"}, []string{"needle_marker"}},
		{"ignore-case", search.GrepOptions{Pattern: "NEEDLE_MARKER", IgnoreCase: true}, []string{"-i", "NEEDLE_MARKER"}},
		{"regex", search.GrepOptions{Pattern: `func Serve\d+Handler\(`}, []string{`func Serve\d+Handler\(`}},
		{"regex-no-literal", search.GrepOptions{Pattern: `\d{4}-\d{2}-\d{2}`}, []string{`\d{4}-\d{2}-\d{2}`}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var ours cost
			var found int
			b.Run("ours", func(b *testing.B) {
				opts := tc.opts
				opts.MaxResults = search.MaxGrepResults
				var r search.GrepResult
				ours = timed(b, func() time.Duration {
					var err error
					r, err = search.Grep(b.Context(), d, root, opts)
					if err != nil {
						b.Fatal(err)
					}
					return 0
				})
				if r.Truncated || r.Searched != benchDirs*benchFilesPerDir {
					b.Fatalf("searched %d files, truncated %v", r.Searched, r.Truncated)
				}
				found = len(r.Matches)
				b.ReportMetric(float64(found), "matches")
				ours.report(b)
				if mib, ok := ostest.MaxRSS(); ok {
					b.ReportMetric(mib, "maxrss-MiB")
				}
			})
			args := append([]string{"-n", "--no-heading", "--color", "never", "--no-ignore", "--hidden"}, tc.rgPatterns...)
			ripgrep(b, &ours, found, append(args, root)...)
		})
	}
}

// BenchmarkGrepCapped stops at the default cap: a common pattern over a
// big tree returns as soon as the first results are known.
func BenchmarkGrepCapped(b *testing.B) {
	root := benchTree(b)
	d := benchDisk(b, root)
	for b.Loop() {
		r, err := search.Grep(b.Context(), d, root, search.GrepOptions{Pattern: "return"})
		if err != nil {
			b.Fatal(err)
		}
		if !r.Truncated || len(r.Matches) != search.DefaultGrepResults {
			b.Fatalf("%d matches, truncated %v", len(r.Matches), r.Truncated)
		}
	}
}
