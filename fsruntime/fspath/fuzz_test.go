package fspath_test

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fspath"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
)

// fuzzWorkDir is the working directory FuzzAbs resolves against in Unix
// syntax (fuzzWinWorkDir in Windows syntax).
const fuzzWorkDir = "/w/d"

// FuzzAbs checks path resolution in Unix syntax on any string: it never
// panics; a result is absolute, clean, free of NUL bytes and within
// NAME_MAX and PATH_MAX; a plain path keeps % as it is; a file URI stands
// for its decoded path only when it is local and has no query or
// fragment; every error is a *fs.PathError for the path as given that
// matches fs.ErrInvalid; and AbsFile is Abs but for a path that ends in a
// separator. It also checks the macOS and Windows syntax on the same
// string (checkFlavours), and Abs and AbsFile, which resolve in the
// running OS's syntax (checkHost).
func FuzzAbs(f *testing.F) {
	for _, seed := range []string{
		`C:\w\a.txt`, `C:/w/../../x`, `c:a.txt`, `D:a`, `\\srv\share\r\..\..\x`, `//srv/share`,
		`\\?\C:\w\a`, `\\.\pipe\x`, `\??\C:\x`, `CON`, `nul.txt`, `COM¹`, `a.txt:s`, `a. `,
		`file:///C:/w/a.txt`, `file:/C:/w/%5C..%5C..`, `file:/etc`, `/W/D/X`, `/w/ſ/x`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, p string) {
		checkFlavours(t, p)
		checkHost(t, p)
		got, err := fspath.AbsIn(fspath.UnixPaths, fuzzWorkDir, p)
		if err != nil {
			pe, ok := errors.AsType[*fs.PathError](err)
			if !ok || pe.Path != p || pe.Op != "resolve" || !errors.Is(err, fs.ErrInvalid) {
				t.Fatalf("Abs(%q) error %v: want a *fs.PathError for the path as given, matching fs.ErrInvalid", p, err)
			}
		} else {
			checkResolved(t, p, got)
		}

		// The reference: what the path names, decoded once if it is a
		// file:// URI.
		name, local := p, true
		if len(p) >= 6 && strings.EqualFold(p[:6], "file:/") {
			u, perr := url.Parse(p)
			local = perr == nil && u.User == nil && (u.Host == "" || strings.EqualFold(u.Host, "localhost")) &&
				u.RawQuery == "" && !u.ForceQuery && !strings.Contains(p, "#") && strings.HasPrefix(u.Path, "/")
			if local {
				name = u.Path
			}
		}
		switch {
		case p == "" || strings.Contains(name, "\x00") || strings.Contains(p, "\x00") || !local:
			if err == nil {
				t.Fatalf("Abs(%q) = %q, want an error", p, got)
			}
		case err == nil:
			want := path.Join(fuzzWorkDir, name)
			if path.IsAbs(name) {
				want = path.Clean(name)
			}
			if got != want {
				t.Fatalf("Abs(%q) = %q, want %q", p, got, want)
			}
		case !strings.Contains(err.Error(), "NAME_MAX") && !strings.Contains(err.Error(), "PATH_MAX"):
			t.Fatalf("Abs(%q) = %v: a local path within the limits is refused", p, err)
		}

		file, ferr := fspath.AbsFileIn(fspath.UnixPaths, fuzzWorkDir, p)
		switch {
		case err != nil:
			if ferr == nil || ferr.Error() != err.Error() {
				t.Fatalf("AbsFile(%q) = %q, %v; want Abs's error %v", p, file, ferr, err)
			}
		case strings.HasSuffix(name, "/") || strings.HasSuffix(name, "/."):
			if !errors.Is(ferr, fspath.ErrNamesDir) {
				t.Fatalf("AbsFile(%q) = %q, %v; want ErrNamesDir for a directory's path", p, file, ferr)
			}
		case ferr != nil || file != got:
			t.Fatalf("AbsFile(%q) = %q, %v; want Abs's %q", p, file, ferr, got)
		}
	})
}

// The roots checkFlavours matches resolved paths against, and the working
// directory it resolves in, in each syntax.
var (
	fuzzUnixRoots    = []string{"/", "/w", "/w/d", "/w/d/sub"}
	fuzzWinWorkDir   = `C:\w\d`
	fuzzWindowsRoots = []string{`C:\`, `C:\w`, `C:\w\d`, `\\srv\share`, `\\srv\share\r`}
)

// checkHost checks Abs and AbsFile on p: they resolve in the running OS's
// syntax, Windows' where path/filepath has \ for a separator and Unix'
// (which macOS shares) elsewhere, against a working directory that is
// absolute there, which FuzzAbs and checkFlavours check in every syntax;
// and a result is absolute and clean to path/filepath, the OS's own path
// functions, and passes Check.
func checkHost(t *testing.T, p string) {
	t.Helper()
	f := fspath.UnixPaths
	if filepath.Separator == '\\' {
		f = fspath.WindowsPaths
	}
	wd := ostest.HostPath(fuzzWorkDir)
	got, err := fspath.Abs(wd, p)
	if want, werr := fspath.AbsIn(f, wd, p); got != want || fmt.Sprint(err) != fmt.Sprint(werr) {
		t.Fatalf("Abs(%q, %q) = %q, %v; want %q, %v as in flavour %d", wd, p, got, err, want, werr, f)
	}
	file, ferr := fspath.AbsFile(wd, p)
	if want, werr := fspath.AbsFileIn(f, wd, p); file != want || fmt.Sprint(ferr) != fmt.Sprint(werr) {
		t.Fatalf("AbsFile(%q, %q) = %q, %v; want %q, %v as in flavour %d", wd, p, file, ferr, want, werr, f)
	}
	if err != nil {
		return
	}
	if !filepath.IsAbs(got) || filepath.Clean(got) != got {
		t.Fatalf("Abs(%q, %q) = %q: not absolute and clean to path/filepath", wd, p, got)
	}
	if err := fspath.Check(got); err != nil {
		t.Fatalf("Abs(%q, %q) = %q, which Check refuses: %v", wd, p, got, err)
	}
}

// checkFlavours resolves p in each OS's syntax and matches the result to
// roots. Linux matches lexically (filepath.Rel, where the running OS
// writes Unix paths); macOS and Windows exactly when the root's names
// equal the path's first names ignoring case, the rest handed on being
// the path's own, with no "..", ".", empty name or volume: no input
// yields a path outside its root. On Windows a result is one the FS
// accepts (absolute, clean, no device path, reserved name, stream or
// trailing dot or space), on the working directory's drive unless p
// names a volume.
func checkFlavours(t *testing.T, p string) {
	t.Helper()
	for _, f := range []fspath.Flavor{fspath.UnixPaths, fspath.DarwinPaths} {
		got, err := fspath.AbsIn(f, fuzzWorkDir, p)
		if err != nil {
			continue
		}
		for _, root := range fuzzUnixRoots {
			checkMatch(t, f, "/", root, got)
		}
	}

	got, err := fspath.AbsIn(fspath.WindowsPaths, fuzzWinWorkDir, p)
	if err != nil {
		pe, ok := errors.AsType[*fs.PathError](err)
		if !ok || pe.Path != p || pe.Op != "resolve" || !errors.Is(err, fs.ErrInvalid) {
			t.Fatalf("Abs(%q) on Windows: error %v: want a *fs.PathError for the path as given, matching fs.ErrInvalid", p, err)
		}
		return
	}
	if err := fspath.CheckIn(fspath.WindowsPaths, got); err != nil {
		t.Fatalf("Abs(%q) on Windows = %q, which the FS refuses: %v", p, got, err)
	}
	name := p
	if u, err := url.Parse(p); err == nil && len(p) >= 6 && strings.EqualFold(p[:6], "file:/") {
		name = u.Path
		if len(name) >= 3 && name[2] == ':' {
			name = name[1:]
		}
		if u.Host != "" && !strings.EqualFold(u.Host, "localhost") {
			name = "//" + u.Host + u.Path // a share
		}
	}
	namesVolume := len(name) >= 2 && (name[1] == ':' || strings.ContainsRune(`\/`, rune(name[0])) && strings.ContainsRune(`\/`, rune(name[1])))
	if !namesVolume && !strings.HasPrefix(got, `C:\`) {
		t.Fatalf("Abs(%q) on Windows = %q: off the working directory's drive", p, got)
	}
	for _, root := range fuzzWindowsRoots {
		checkMatch(t, fspath.WindowsPaths, `\`, root, got)
	}
}

// checkMatch checks within(root, p) in f against a reference that splits
// both at sep.
func checkMatch(t *testing.T, f fspath.Flavor, sep, root, p string) {
	t.Helper()
	rel, ok := fspath.WithinIn(f, root, p)
	same := func(a, b string) bool { return a == b }
	if f != fspath.UnixPaths {
		same = strings.EqualFold
	}
	rootNames := strings.Split(strings.TrimSuffix(root, sep), sep)
	names := strings.Split(strings.TrimSuffix(p, sep), sep)
	want := len(names) >= len(rootNames)
	for i := 0; want && i < len(rootNames); i++ {
		want = same(rootNames[i], names[i])
	}
	if f == fspath.UnixPaths && filepath.Separator == '/' {
		// path/filepath is the Unix syntax's own here: a reference too.
		r, err := filepath.Rel(root, p)
		want = err == nil && r != ".." && !strings.HasPrefix(r, "../")
		if want && (rel != r) {
			t.Fatalf("within(%q, %q) = %q, %v; filepath.Rel says %q", root, p, rel, ok, r)
		}
	}
	if ok != want {
		t.Fatalf("within(%q, %q) in flavour %d = %q, %v; want a match: %v", root, p, f, rel, ok, want)
	}
	if !ok || rel == "." {
		return
	}
	if !strings.HasSuffix(p, sep+rel) {
		t.Fatalf("within(%q, %q) = %q: not the rest of the path", root, p, rel)
	}
	for name := range strings.SplitSeq(rel, sep) {
		if name == "" || name == "." || name == ".." || f == fspath.WindowsPaths && strings.ContainsAny(name, `:/`) {
			t.Fatalf("within(%q, %q) = %q: the rest has the name %q", root, p, rel, name)
		}
	}
}

// checkResolved fails unless got is what Abs may return in Unix syntax.
func checkResolved(t *testing.T, p, got string) {
	t.Helper()
	if !path.IsAbs(got) || path.Clean(got) != got || strings.Contains(got, "\x00") || len(got) >= 4096 {
		t.Fatalf("Abs(%q) = %q: not absolute, clean, NUL-free and under PATH_MAX", p, got)
	}
	for name := range strings.SplitSeq(got, "/") {
		if len(name) > 255 {
			t.Fatalf("Abs(%q) = %q: a name over NAME_MAX", p, got)
		}
	}
}
