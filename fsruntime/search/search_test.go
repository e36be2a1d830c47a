package search_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/search"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
)

// openDisk opens a Disk on dirs, closed when the test ends.
func openDisk(t *testing.T, opts fsruntime.DiskOptions, dirs ...string) *fsruntime.Disk {
	t.Helper()
	d, err := fsruntime.OpenDisk(dirs, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// realTempDir is t.TempDir with its symlinks resolved.
func realTempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// writeFile writes content at path, making its directories.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// searchDisk returns a Disk on dir that can walk. Until the Disk walks by
// itself, a fake supplies Walk over the local file system, after the same
// roots check a Disk makes.
func searchDisk(t *testing.T, opts fsruntime.DiskOptions, dir string) fsruntime.WalkFS {
	t.Helper()
	d := openDisk(t, opts, dir)
	if w, ok := any(d).(fsruntime.WalkFS); ok {
		return w
	}
	return fakeWalkDisk{d}
}

// fakeWalkDisk is a Disk with a Walk of filepath.WalkDir, which reports a
// symlink it finds as one and never follows it. The root is resolved, as
// WalkFS says, after the Disk's own roots check.
type fakeWalkDisk struct{ *fsruntime.Disk }

func (f fakeWalkDisk) Walk(ctx context.Context, root string, fn fsruntime.WalkFunc) error {
	rootInfo := fsruntime.FileInfo{Name: filepath.Base(root), Path: root}
	if err := f.Check(root); err != nil {
		return fn(root, rootInfo, err)
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fn(root, rootInfo, &fs.PathError{Op: "walk", Path: root, Err: err})
	}
	err = filepath.WalkDir(real, func(p string, e fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return &fs.PathError{Op: "walk", Path: root, Err: cerr}
		}
		p = root + p[len(real):]
		if err != nil {
			return fn(p, fsruntime.FileInfo{Name: filepath.Base(p), Path: p}, err)
		}
		info, err := e.Info()
		if err != nil {
			return fn(p, fsruntime.FileInfo{Name: filepath.Base(p), Path: p}, err)
		}
		fi := fileInfo(p, info)
		if p == root {
			fi.Name = filepath.Base(root)
		}
		return fn(p, fi, nil)
	})
	if err == fs.SkipAll || err == fs.SkipDir {
		err = nil
	}
	return err
}

func fileInfo(p string, info fs.FileInfo) fsruntime.FileInfo {
	typ := fsruntime.TypeOther
	switch m := info.Mode(); {
	case m.IsRegular():
		typ = fsruntime.TypeFile
	case m.IsDir():
		typ = fsruntime.TypeDirectory
	case m&fs.ModeSymlink != 0:
		typ = fsruntime.TypeSymlink
	}
	return fsruntime.FileInfo{Name: info.Name(), Path: p, Type: typ, Size: info.Size(), ModTime: info.ModTime(), Mode: info.Mode()}
}

// globPaths returns the paths of r's matches relative to dir.
func globPaths(t *testing.T, dir string, r search.GlobResult) []string {
	t.Helper()
	out := []string{}
	for _, m := range r.Matches {
		rel, err := filepath.Rel(dir, m.Path)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

func TestGlob(t *testing.T) {
	dir := realTempDir(t)
	for _, f := range []string{
		"a.go", "a-b.go", "B.go", "a/b.go", "a/c.txt", "a/d/e.go", "x.txt",
		".hidden/h.go", "node_modules/m/m.go", ".git/g.go", "build/out.go", "src/build.go",
	} {
		writeFile(t, filepath.Join(dir, f), "package x\n")
	}
	fsys := searchDisk(t, fsruntime.DiskOptions{}, dir)
	tests := []struct {
		pattern string
		want    []string
	}{
		// Walk order: component by component, so a/... comes before a-b.go.
		{"**/*.go", []string{".hidden/h.go", "B.go", "a/b.go", "a/d/e.go", "a-b.go", "a.go", "src/build.go"}},
		{"*.go", []string{"B.go", "a-b.go", "a.go"}},
		{"a/*", []string{"a/b.go", "a/c.txt", "a/d"}},
		{"a/**", []string{"a", "a/b.go", "a/c.txt", "a/d", "a/d/e.go"}}, // as doublestar matches "a" itself
		{"./a/*.go", []string{"a/b.go"}},
		{"a/d/e.go", []string{"a/d/e.go"}},
		{"**/e.go", []string{"a/d/e.go"}},
		{"{a,src}/*.go", []string{"a/b.go", "src/build.go"}},
		{"{a/d,x}*", []string{"a/d", "x.txt"}},
		{"?.go", []string{"B.go", "a.go"}},
		{"[ab]*.go", []string{"a-b.go", "a.go"}},
		{"**/*.{txt,md}", []string{"a/c.txt", "x.txt"}},
		{"nothing/**", []string{}},
		{"*.rs", []string{}},
		// Skipped directories only when the pattern names them.
		{"node_modules/**/*.go", []string{"node_modules/m/m.go"}},
		{"**/node_modules/**/*.go", []string{"node_modules/m/m.go"}},
		{".git/*", []string{".git/g.go"}},
		{"build/*.go", []string{"build/out.go"}},
		{"**/build*", []string{"build", "src/build.go"}},
		{"**/build/*", []string{"build/out.go"}},
		{"**", []string{".hidden", ".hidden/h.go", "B.go", "a", "a/b.go", "a/c.txt", "a/d", "a/d/e.go", "a-b.go", "a.go", "src", "src/build.go", "x.txt"}},
	}
	for _, tc := range tests {
		r, err := search.Glob(t.Context(), fsys, dir, tc.pattern, 0)
		if err != nil {
			t.Errorf("Glob(%q): %v", tc.pattern, err)
			continue
		}
		if got := globPaths(t, dir, r); !slices.Equal(got, tc.want) {
			t.Errorf("Glob(%q) = %q, want %q", tc.pattern, got, tc.want)
		}
		if r.Truncated {
			t.Errorf("Glob(%q) truncated", tc.pattern)
		}
	}

	// Types, and an absolute pattern, which ignores dir.
	if r, err := search.Glob(t.Context(), fsys, ostest.HostPath("/nowhere"), filepath.ToSlash(dir)+"/a/*", 0); err != nil {
		t.Errorf("absolute Glob: %v", err)
	} else {
		var types []string
		for _, m := range r.Matches {
			types = append(types, m.Name+":"+string(m.Type))
		}
		if want := []string{"b.go:file", "c.txt:file", "d:directory"}; !slices.Equal(types, want) {
			t.Errorf("absolute Glob = %q, want %q", types, want)
		}
	}
	// A subdirectory as dir.
	r, err := search.Glob(t.Context(), fsys, filepath.Join(dir, "a"), "**/*.go", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := globPaths(t, dir, r), []string{"a/b.go", "a/d/e.go"}; !slices.Equal(got, want) {
		t.Errorf("Glob in a/ = %q, want %q", got, want)
	}
	// Inside a skipped directory, given as dir.
	r, err = search.Glob(t.Context(), fsys, filepath.Join(dir, "node_modules"), "**/*.go", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := globPaths(t, dir, r), []string{"node_modules/m/m.go"}; !slices.Equal(got, want) {
		t.Errorf("Glob in node_modules/ = %q, want %q", got, want)
	}
}

func TestGlobCap(t *testing.T) {
	dir := realTempDir(t)
	for i := range 5 {
		writeFile(t, filepath.Join(dir, "d", fmt.Sprintf("f%d.txt", i)), "x")
	}
	fsys := searchDisk(t, fsruntime.DiskOptions{}, dir)
	for _, tc := range []struct {
		max       int
		want      []string
		truncated bool
	}{
		{3, []string{"d/f0.txt", "d/f1.txt", "d/f2.txt"}, true},
		{5, []string{"d/f0.txt", "d/f1.txt", "d/f2.txt", "d/f3.txt", "d/f4.txt"}, false},
		{6, []string{"d/f0.txt", "d/f1.txt", "d/f2.txt", "d/f3.txt", "d/f4.txt"}, false},
	} {
		r, err := search.Glob(t.Context(), fsys, dir, "**/*.txt", tc.max)
		if err != nil {
			t.Fatal(err)
		}
		if got := globPaths(t, dir, r); !slices.Equal(got, tc.want) || r.Truncated != tc.truncated {
			t.Errorf("Glob max %d = %q truncated %v, want %q truncated %v", tc.max, got, r.Truncated, tc.want, tc.truncated)
		}
	}
}

func TestGlobErrors(t *testing.T) {
	base := realTempDir(t)
	dir := filepath.Join(base, "root")
	writeFile(t, filepath.Join(dir, "f.txt"), "x")
	writeFile(t, filepath.Join(base, "outside/o.txt"), "x")
	noLinks := ostest.NoSymlinks(t, base)
	if noLinks == nil {
		if err := os.Symlink("f.txt", filepath.Join(dir, "link")); err != nil {
			t.Fatal(err)
		}
	}
	fsys := searchDisk(t, fsruntime.DiskOptions{}, dir)
	for _, tc := range []struct {
		dir, pattern string
		want         error
		text         string
	}{
		{dir, "[", fs.ErrInvalid, `invalid glob pattern "["`},
		{dir, "{a,b", fs.ErrInvalid, "invalid glob pattern"},
		{dir, "", fs.ErrInvalid, "empty"},
		{filepath.Join(dir, "f.txt"), "*", fs.ErrInvalid, "not a directory"},
		{filepath.Join(dir, "missing"), "*", fs.ErrNotExist, ""},
		{filepath.Join(dir, "missing"), "sub/*", fs.ErrNotExist, ""},
		{filepath.Join(base, "outside"), "*", fsruntime.ErrOutsideRoots, ""},
		{dir, "../outside/*", fsruntime.ErrOutsideRoots, ""},
		{dir, filepath.ToSlash(base) + "/outside/*", fsruntime.ErrOutsideRoots, ""},
		{dir, "/*", fsruntime.ErrOutsideRoots, ""},
	} {
		_, err := search.Glob(t.Context(), fsys, tc.dir, tc.pattern, 0)
		if !errors.Is(err, tc.want) || !strings.Contains(fmt.Sprint(err), tc.text) {
			t.Errorf("Glob(%s, %q) error %v, want %v containing %q", tc.dir, tc.pattern, err, tc.want, tc.text)
		}
	}
	t.Run("symlink", func(t *testing.T) {
		ostest.SkipWithoutSymlinks(t, noLinks)
		// The link is resolved, to f.txt.
		link := filepath.Join(dir, "link")
		if _, err := search.Glob(t.Context(), fsys, link, "*", 0); !errors.Is(err, fs.ErrInvalid) || !strings.Contains(fmt.Sprint(err), "not a directory") {
			t.Errorf("Glob(%s, %q) error %v, want %v containing %q", link, "*", err, fs.ErrInvalid, "not a directory")
		}
	})
	var pe *search.PatternError
	if _, err := search.Glob(t.Context(), fsys, dir, "[", 0); !errors.As(err, &pe) || pe.Pattern != "[" {
		t.Errorf("bad pattern error %v, want a PatternError", err)
	}
	// A literal prefix that names nothing, or a file, is no match.
	for _, p := range []string{"missing/*.go", "missing/sub/**", "f.txt/*"} {
		r, err := search.Glob(t.Context(), fsys, dir, p, 0)
		if err != nil || len(r.Matches) != 0 {
			t.Errorf("Glob(%q) = %v, %v; want no match", p, r.Matches, err)
		}
	}
}

// TestGlobPruning compares Glob, which skips directories that cannot
// match, with matching every path of a tree.
func TestGlobPruning(t *testing.T) {
	dir := realTempDir(t)
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"a", "b", "ab", "src", "lib", "x.go", "y.txt", "a.b", "{c}", "c,d"}
	var all []string
	var gen func(rel string, depth int)
	gen = func(rel string, depth int) {
		for _, n := range names {
			if rng.IntN(3) == 0 {
				continue
			}
			p := n
			if rel != "" {
				p = rel + "/" + n
			}
			if depth < 3 && rng.IntN(2) == 0 && !strings.Contains(n, ".") {
				if err := os.MkdirAll(filepath.Join(dir, p), 0o755); err != nil {
					t.Fatal(err)
				}
				all = append(all, p)
				gen(p, depth+1)
			} else {
				writeFile(t, filepath.Join(dir, p), "x")
				all = append(all, p)
			}
		}
	}
	gen("", 0)
	fsys := searchDisk(t, fsruntime.DiskOptions{}, dir)
	patterns := []string{
		"**", "*", "*/*", "**/*.go", "a/**", "a/**/x.go", "{a,b}/*", "{a/b,src}/**", "{a,{b,lib}}/*/*",
		"**/a/*", "*/**/y.txt", "?/*", "[ab]/**/*.txt", "a*/b*", "**/{x.go,y.txt}", "src/*/lib/**",
		`\{c\}/*`, "{c,d}/**", "*,d/*", "a/b/**/a/*", "**/**/x.go", "{,a}/x.go", "a/{,b/}x.go",
	}
	for _, pat := range patterns {
		r, err := search.Glob(t.Context(), fsys, dir, pat, 100000)
		if err != nil {
			t.Errorf("Glob(%q): %v", pat, err)
			continue
		}
		got := globPaths(t, dir, r)
		var want []string
		for _, p := range all {
			if doublestar.MatchUnvalidated(pat, p) {
				want = append(want, p)
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("Glob(%q):\n got %q\nwant %q", pat, got, want)
		}
	}
}

// grepLines renders matches as rel:line:text.
func grepLines(t *testing.T, dir string, r search.GrepResult) []string {
	t.Helper()
	out := []string{}
	for _, m := range r.Matches {
		rel, err := filepath.Rel(dir, m.Path)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s:%d:%s", filepath.ToSlash(rel), m.Line, m.Text))
	}
	return out
}

func TestGrep(t *testing.T) {
	dir := realTempDir(t)
	writeFile(t, filepath.Join(dir, "a.go"), "package a\n\nfunc Hello() {}\nfunc hello() {}\n")
	writeFile(t, filepath.Join(dir, "a/b.go"), "package b\r\nfunc HELLO() {}\r\n// hello again")
	writeFile(t, filepath.Join(dir, "a-b.txt"), "hello text\n")
	writeFile(t, filepath.Join(dir, "bin.dat"), "hello\x00binary\n")
	writeFile(t, filepath.Join(dir, "latin1.txt"), "hello caf\xe9\n")
	writeFile(t, filepath.Join(dir, "big.txt"), strings.Repeat("hello big\n", 200))
	writeFile(t, filepath.Join(dir, "node_modules/m.js"), "hello dep\n")
	writeFile(t, filepath.Join(dir, ".git/config"), "hello git\n")
	writeFile(t, filepath.Join(dir, "long.txt"), "hello "+strings.Repeat("é", 400)+"\n")
	writeFile(t, filepath.Join(dir, "kelvin.txt"), "\u212Aelvin\nkelvin\n")
	fsys := searchDisk(t, fsruntime.DiskOptions{MaxFileSize: 1000}, dir)
	long := "long.txt:1:hello " + strings.Repeat("é", 247) + search.GrepLineCut

	for _, tc := range []struct {
		opts search.GrepOptions
		want []string
	}{
		{search.GrepOptions{Pattern: "hello"}, []string{
			"a/b.go:3:// hello again", "a-b.txt:1:hello text", "a.go:4:func hello() {}", long,
		}},
		{search.GrepOptions{Pattern: "hello", IgnoreCase: true}, []string{
			"a/b.go:2:func HELLO() {}", "a/b.go:3:// hello again", "a-b.txt:1:hello text",
			"a.go:3:func Hello() {}", "a.go:4:func hello() {}", long,
		}},
		{search.GrepOptions{Pattern: `^func \w+\(\) \{\}$`}, []string{
			"a/b.go:2:func HELLO() {}", "a.go:3:func Hello() {}", "a.go:4:func hello() {}",
		}},
		{search.GrepOptions{Pattern: "(?i)h[e]llo", Include: "*.go"}, []string{
			"a/b.go:2:func HELLO() {}", "a/b.go:3:// hello again", "a.go:3:func Hello() {}", "a.go:4:func hello() {}",
		}},
		{search.GrepOptions{Pattern: "hello", Include: "*.{txt,js}"}, []string{"a-b.txt:1:hello text", long}},
		{search.GrepOptions{Pattern: "hello", Include: "a/*.go"}, []string{"a/b.go:3:// hello again"}},
		{search.GrepOptions{Pattern: "hello", Include: "node_modules/*"}, []string{"node_modules/m.js:1:hello dep"}},
		{search.GrepOptions{Pattern: "package"}, []string{"a/b.go:1:package b", "a.go:1:package a"}},
		{search.GrepOptions{Pattern: "nothing"}, []string{}},
		{search.GrepOptions{Pattern: "^$"}, []string{"a.go:2:"}},
		{search.GrepOptions{Pattern: "kelvin", IgnoreCase: true}, []string{"kelvin.txt:1:\u212Aelvin", "kelvin.txt:2:kelvin"}},
		{search.GrepOptions{Pattern: "KELVIN", IgnoreCase: true, Include: "kelvin.txt"}, []string{"kelvin.txt:1:\u212Aelvin", "kelvin.txt:2:kelvin"}},
		{search.GrepOptions{Pattern: "hello", MaxResults: 2}, []string{"a/b.go:3:// hello again", "a-b.txt:1:hello text"}},
	} {
		for _, workers := range []int{1, 2, 8} {
			opts := tc.opts
			opts.Workers = workers
			r, err := search.Grep(t.Context(), fsys, dir, opts)
			if err != nil {
				t.Errorf("Grep(%+v): %v", opts, err)
				continue
			}
			if got := grepLines(t, dir, r); !slices.Equal(got, tc.want) {
				t.Errorf("Grep(%+v) =\n%q, want\n%q", opts, got, tc.want)
			}
			if wantTrunc := tc.opts.MaxResults > 0; r.Truncated != wantTrunc {
				t.Errorf("Grep(%+v) truncated %v", opts, r.Truncated)
			}
		}
	}

	r, err := search.Grep(t.Context(), fsys, dir, search.GrepOptions{Pattern: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	if r.SkippedBinary != 2 || r.SkippedLarge != 1 || r.Searched != 5 {
		t.Errorf("searched %d, skipped %d binary and %d large; want 5, 2 and 1", r.Searched, r.SkippedBinary, r.SkippedLarge)
	}
	for _, m := range r.Matches {
		if m.Cut != strings.HasSuffix(m.Text, search.GrepLineCut) {
			t.Errorf("%s:%d: Cut %v for %q", m.Path, m.Line, m.Cut, m.Text)
		}
	}

	// A file as root is searched alone, whatever include says.
	r, err = search.Grep(t.Context(), fsys, filepath.Join(dir, "a.go"), search.GrepOptions{Pattern: "func", Include: "*.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := grepLines(t, dir, r), []string{"a.go:3:func Hello() {}", "a.go:4:func hello() {}"}; !slices.Equal(got, want) {
		t.Errorf("Grep on a file = %q, want %q", got, want)
	}
	r, err = search.Grep(t.Context(), fsys, filepath.Join(dir, "bin.dat"), search.GrepOptions{Pattern: "hello"})
	if err != nil || len(r.Matches) != 0 || r.SkippedBinary != 1 {
		t.Errorf("Grep on a binary file = %+v, %v; want it skipped", r, err)
	}
}

// TestGrepLateInvalidUTF8 searches a file that is text by its first 8 KiB
// and has invalid UTF-8 further on: lines are matched as the regexp reads
// them (an invalid byte as U+FFFD), and come back as valid UTF-8.
func TestGrepLateInvalidUTF8(t *testing.T) {
	dir := realTempDir(t)
	writeFile(t, filepath.Join(dir, "late.txt"), strings.Repeat("filler line\n", 1000)+"caf\xe9 au lait\n")
	fsys := searchDisk(t, fsruntime.DiskOptions{}, dir)
	for _, pat := range []string{"caf\uFFFD", "caf. au", "au lait"} {
		r, err := search.Grep(t.Context(), fsys, dir, search.GrepOptions{Pattern: pat})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := grepLines(t, dir, r), []string{"late.txt:1001:caf\uFFFD au lait"}; !slices.Equal(got, want) {
			t.Errorf("grep %q = %q, want %q", pat, got, want)
		}
	}
}

func TestGrepCapAcrossFiles(t *testing.T) {
	dir := realTempDir(t)
	total := 0
	for i := range 30 {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("d%d/f.txt", i%3)), "")
		writeFile(t, filepath.Join(dir, fmt.Sprintf("d%d/f%02d.txt", i%3, i)), strings.Repeat("match\n", i%4))
		total += i % 4
	}
	fsys := searchDisk(t, fsruntime.DiskOptions{}, dir)
	all, err := search.Grep(t.Context(), fsys, dir, search.GrepOptions{Pattern: "match", MaxResults: search.MaxGrepResults})
	if err != nil {
		t.Fatal(err)
	}
	if all.Truncated || len(all.Matches) != total {
		t.Fatalf("%d matches, truncated %v; want %d", len(all.Matches), all.Truncated, total)
	}
	if !slices.IsSortedFunc(all.Matches, func(a, b search.GrepMatch) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return a.Line - b.Line
	}) {
		t.Error("matches are not sorted by path and line")
	}
	for _, n := range []int{1, 2, 3, 10, total - 1, total} {
		for _, workers := range []int{1, 3} {
			r, err := search.Grep(t.Context(), fsys, dir, search.GrepOptions{Pattern: "match", MaxResults: n, Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(r.Matches, all.Matches[:n]) || r.Truncated != (n < total) {
				t.Errorf("max %d: %d matches truncated %v, want the first %d", n, len(r.Matches), r.Truncated, n)
			}
		}
	}
	// The cap has a ceiling, and a default.
	r, err := search.Grep(t.Context(), fsys, dir, search.GrepOptions{Pattern: "^", MaxResults: 1 << 30})
	if err != nil || len(r.Matches) != total {
		t.Errorf("huge max: %d matches, %v", len(r.Matches), err)
	}
}

func TestGrepErrors(t *testing.T) {
	base := realTempDir(t)
	dir := filepath.Join(base, "root")
	writeFile(t, filepath.Join(dir, "f.txt"), "x\n")
	writeFile(t, filepath.Join(base, "outside/o.txt"), "x\n")
	if noLinks := ostest.NoSymlinks(t, base); noLinks != nil {
		t.Logf("no symlink in the tree: %v", noLinks)
	} else if err := os.Symlink("f.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	fsys := searchDisk(t, fsruntime.DiskOptions{}, dir)
	for _, tc := range []struct {
		root string
		opts search.GrepOptions
		want error
		text string
	}{
		{dir, search.GrepOptions{Pattern: "a("}, fs.ErrInvalid, `invalid regular expression "a(": missing closing ): ` + "`a(`"},
		{dir, search.GrepOptions{Pattern: `\p{Nope}`}, fs.ErrInvalid, "invalid character class range"},
		{dir, search.GrepOptions{Pattern: ""}, fs.ErrInvalid, "empty"},
		{dir, search.GrepOptions{Pattern: "x", Include: "[a"}, fs.ErrInvalid, `invalid include pattern "[a"`},
		{filepath.Join(dir, "missing"), search.GrepOptions{Pattern: "x"}, fs.ErrNotExist, ""},
		{filepath.Join(base, "outside"), search.GrepOptions{Pattern: "x"}, fsruntime.ErrOutsideRoots, ""},
		{base, search.GrepOptions{Pattern: "x"}, fsruntime.ErrOutsideRoots, ""},
	} {
		_, err := search.Grep(t.Context(), fsys, tc.root, tc.opts)
		if !errors.Is(err, tc.want) || !strings.Contains(fmt.Sprint(err), tc.text) {
			t.Errorf("Grep(%s, %+v) error %v, want %v containing %q", tc.root, tc.opts, err, tc.want, tc.text)
		}
	}
	var pe *search.PatternError
	if _, err := search.Grep(t.Context(), fsys, dir, search.GrepOptions{Pattern: "a("}); !errors.As(err, &pe) || pe.Pattern != "a(" {
		t.Errorf("bad regexp error %v, want a PatternError", err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := search.Grep(ctx, fsys, dir, search.GrepOptions{Pattern: "x"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Grep error %v, want context.Canceled", err)
	}

	// Without a way to read files, there is no grep.
	if _, err := search.Grep(t.Context(), walkOnly{fsys}, dir, search.GrepOptions{Pattern: "x"}); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("Grep on a walk-only FS: %v, want errors.ErrUnsupported", err)
	}
}

// walkOnly hides every method but Walk.
type walkOnly struct{ w fsruntime.WalkFS }

func (w walkOnly) Walk(ctx context.Context, root string, fn fsruntime.WalkFunc) error {
	return w.w.Walk(ctx, root, fn)
}

// textOnly walks, and reads only with ReadTextFile.
type textOnly struct {
	walkOnly
	fsruntime.FS
}

func TestGrepReadsThroughFS(t *testing.T) {
	dir := realTempDir(t)
	writeFile(t, filepath.Join(dir, "a.txt"), "one\ntwo\n")
	writeFile(t, filepath.Join(dir, "b.bin"), "two\x00")
	writeFile(t, filepath.Join(dir, "c.txt"), strings.Repeat("two\n", 100))
	d := openDisk(t, fsruntime.DiskOptions{MaxFileSize: 100}, dir)
	fsys := textOnly{walkOnly{searchDisk(t, fsruntime.DiskOptions{MaxFileSize: 100}, dir)}, d}
	r, err := search.Grep(t.Context(), fsys, dir, search.GrepOptions{Pattern: "two", MaxFileSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := grepLines(t, dir, r), []string{"a.txt:2:two"}; !slices.Equal(got, want) {
		t.Errorf("Grep = %q, want %q", got, want)
	}
	if r.SkippedBinary != 1 || r.SkippedLarge != 1 {
		t.Errorf("skipped %d binary and %d large, want 1 and 1", r.SkippedBinary, r.SkippedLarge)
	}
}

// TestGrepMatchesRegexp compares Grep with running the regexp on every
// line, for patterns that take each of its paths: a plain literal, a
// folded one, a literal a regexp needs, and none.
func TestGrepMatchesRegexp(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"a", "b", "A", "B", "ab", "AB", "k", "K", "s", "S", "\u212A", "\u017F", "é", "É", "\n", "\r\n", "\r", " ", ".", "x1", "_"}
	patterns := []string{
		"ab", "AB", "a", "k", "s", "ks", "é", "a.b", "a\\.b", "(ab)+", "ab|ba", "^ab", "ab$", "b\\r", "a\\nb",
		"(?i)ab", "(?i)k", "(?i)é", "(?i)s\\.", "x1", "(?i)X1_", "[ab]{2}", "a(b)?k", "^$", "^", "\\bab\\b", "(?i)a.b$",
		"(?s)a.b", "(?m)^a", "a{2,}", "\\x{212A}", "é+", "_s",
	}
	rounds := 6
	if testing.Short() {
		rounds = 2
	}
	for round := range rounds {
		dir := realTempDir(t)
		fsys := searchDisk(t, fsruntime.DiskOptions{}, dir)
		var files [][]string // the lines of each file, in walk order
		for i := range 50 {
			var sb strings.Builder
			for range rng.IntN(60) {
				sb.WriteString(pieces[rng.IntN(len(pieces))])
			}
			writeFile(t, filepath.Join(dir, fmt.Sprintf("f%02d.txt", i)), sb.String())
			files = append(files, strings.SplitAfter(sb.String(), "\n"))
		}
		for _, pat := range patterns {
			for _, fold := range []bool{false, true} {
				expr := pat
				if fold {
					expr = "(?i)" + pat
				}
				re := regexp.MustCompile(expr)
				want := []string{}
				for i, lines := range files {
					for n, l := range lines {
						if l == "" {
							continue
						}
						l = strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r")
						if re.MatchString(l) {
							want = append(want, fmt.Sprintf("f%02d.txt:%d:%s", i, n+1, l))
						}
					}
				}
				r, err := search.Grep(t.Context(), fsys, dir, search.GrepOptions{Pattern: pat, IgnoreCase: fold, MaxResults: search.MaxGrepResults})
				if err != nil {
					t.Fatal(err)
				}
				if r.Truncated {
					t.Fatalf("round %d, pattern %q: truncated", round, expr)
				}
				if got := grepLines(t, dir, r); !slices.Equal(got, want) {
					for i := range min(len(got), len(want)) {
						if got[i] != want[i] {
							t.Fatalf("round %d, pattern %q: first difference at result %d: got %q, want %q", round, expr, i, got[i], want[i])
						}
					}
					t.Fatalf("round %d, pattern %q: %d results, want %d", round, expr, len(got), len(want))
				}
			}
		}
	}
}
