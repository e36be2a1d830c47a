package fspath_test

import (
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fspath"
)

// The path syntax of each OS is a pure function of the path, so macOS's
// and Windows' run here too.

func TestAbsWindowsPaths(t *testing.T) {
	const wd = `C:\w`
	for _, tc := range []struct{ p, want string }{
		// Drive-letter paths with either separator.
		{`C:\w\a.txt`, `C:\w\a.txt`},
		{`C:/w/a.txt`, `C:\w\a.txt`},
		{`C:\w/sub\\a.txt`, `C:\w\sub\a.txt`},
		{`c:\W\A.txt`, `c:\W\A.txt`}, // as written: the roots ignore case
		{`C:\`, `C:\`},
		{`C:\..\..`, `C:\`},
		// Relative to the working directory, or to its drive's root.
		{`a.txt`, `C:\w\a.txt`},
		{`sub/a.txt`, `C:\w\sub\a.txt`},
		{`sub\..\a.txt`, `C:\w\a.txt`},
		{`..\..\..\x`, `C:\x`},
		{`\x\y`, `C:\x\y`},
		{`/x/y`, `C:\x\y`},
		// Drive-relative on the working directory's drive: the working
		// directory is that drive's current directory.
		{`C:a.txt`, `C:\w\a.txt`},
		{`c:sub\a.txt`, `C:\w\sub\a.txt`},
		{`C:`, `C:\w`},
		// File URIs.
		{`file:///C:/w/a.txt`, `C:\w\a.txt`},
		{`file:/C:/w/a.txt`, `C:\w\a.txt`},
		{`FILE://localhost/c:/w/a%20b.txt`, `c:\w\a b.txt`},
		{`file:///C:`, `C:\`},
		{`file:///C:/`, `C:\`},
		{`file:///w/a.txt`, `C:\w\a.txt`},
		{`file:///C:/w/..%5C..%5Cx`, `C:\x`},
		{`file:///c%3A/w/a.txt`, `c:\w\a.txt`}, // as VS Code writes a drive
		{`file://server/share/x`, `\\server\share\x`},
		{`file://Server/share/a%20b/../c`, `\\Server\share\c`},
		// UNC paths resolve; the roots decide.
		{`\\server\share\x`, `\\server\share\x`},
		{`//server/share/x/../y`, `\\server\share\y`},
		{`\\server\share\..\..\x`, `\\server\share\x`},
		{`\\server\share`, `\\server\share`},
		{`\\server\share\`, `\\server\share\`},
		// Names that only look like the refused ones.
		{`C:\w\CONSOLE.txt`, `C:\w\CONSOLE.txt`},
		{`C:\w\COM10`, `C:\w\COM10`},
		{`C:\w\COM`, `C:\w\COM`},
		{`C:\w\nul-ish.txt`, `C:\w\nul-ish.txt`},
		{`C:\w\xcon`, `C:\w\xcon`},
		{`C:\w\.hidden`, `C:\w\.hidden`},
		{`C:\w\a b.txt`, `C:\w\a b.txt`},
		{`C:\w\a.b.c`, `C:\w\a.b.c`},
		{`~\x`, `C:\w\~\x`}, // ~ is a name to Abs: see ExpandHome
		{`%2e%2e\x`, `C:\w\%2e%2e\x`},
	} {
		got, err := fspath.AbsIn(fspath.WindowsPaths, wd, tc.p)
		if err != nil || got != tc.want {
			t.Errorf("Abs(%q) on Windows = %q, %v; want %q", tc.p, got, err, tc.want)
			continue
		}
		if err := fspath.CheckIn(fspath.WindowsPaths, got); err != nil {
			t.Errorf("Abs(%q) on Windows = %q, which the FS refuses: %v", tc.p, got, err)
		}
	}
}

func TestAbsWindowsRefuses(t *testing.T) {
	const (
		device   = "device path"
		unc      = "UNC path needs a server and a share"
		reserved = "a device name that Windows reserves"
		stream   = "alternate data stream"
		trailing = "ends in a dot or a space"
		char     = "Windows does not allow in a name"
	)
	for _, tc := range []struct{ p, want string }{
		{`D:a.txt`, "drive-relative path (D: without a separator"},
		{`d:`, "drive-relative"},
		{`\\?\C:\w\a.txt`, device},
		{`\\?\UNC\server\share\x`, device},
		{`\\.\C:\w\a.txt`, device},
		{`//?/C:/w/a.txt`, device},
		{`//./pipe/x`, device},
		{`\\.\PhysicalDrive0`, device},
		{`\\.`, device},
		{`\??\C:\w\a.txt`, device},
		{`/??/C:/w/a.txt`, device},
		{`\\server`, unc},
		{`\\server\`, unc},
		{`\\`, unc},
		{`\\\x`, unc},
		{`//`, unc},
		{`CON`, reserved},
		{`con.txt`, reserved},
		{`C:\w\sub\Nul\x.txt`, reserved},
		{`aux.tar.gz`, reserved},
		{`PRN`, reserved},
		{`COM1`, reserved},
		{`com0`, reserved},
		{`lpt9.log`, reserved},
		{`COM¹`, reserved},
		{`lpt³.txt`, reserved},
		{`CON .txt`, reserved},
		{`conin$`, reserved},
		{`CONOUT$.x`, reserved},
		{`file:///C:/w/nul`, reserved},
		{`a.txt:secret`, stream},
		{`a.txt::$DATA`, stream},
		{`C:\w\a.txt:x:$DATA`, stream},
		{`C:\w\sub:s\a.txt`, stream},
		{`file:///C:/w/a.txt%3Asecret`, stream},
		{`a.txt.`, trailing},
		{`a.txt `, trailing},
		{`dir.\a.txt`, trailing},
		{`C:\w\ \x`, trailing},
		{`...`, trailing},
		{`a<b`, char},
		{`a>b`, char},
		{`a|b`, char},
		{`a"b`, char},
		{`a*b`, char},
		{`a?b`, char},
		{"a\x01b", char},
		{"a\tb", char},
		{`file://server:445/share/x`, "does not name a share"},
		{`file://[::1]/share/x`, "does not name a share"},
		{`file://server`, "no absolute path"},
		{`file://evil.example/C:/etc/passwd`, "cannot be a UNC path's server or share name"},
		{`\\srv\C:\x`, `"C:" cannot be a UNC path's server or share name (\\server\share\dir\name; `},
		{`//srv?/share/x`, "cannot be a UNC path's server or share name"},
		{`file://server/`, "needs a server and a share"},
		{`file:///C:/w/a.txt?x`, "query"},
		{``, "empty path"},
		{"C:\\w\\a\x00", "NUL"},
		{`C:\w\` + strings.Repeat("n", 256), "NAME_MAX"},
	} {
		got, err := fspath.AbsIn(fspath.WindowsPaths, `C:\w`, tc.p)
		if err == nil {
			t.Errorf("Abs(%q) on Windows = %q, want an error saying %q", tc.p, got, tc.want)
			continue
		}
		pe, ok := errors.AsType[*fs.PathError](err)
		if !ok || pe.Path != tc.p || !errors.Is(err, fs.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Abs(%q) on Windows: %v; want a *fs.PathError for the path as given, matching fs.ErrInvalid, saying %q", tc.p, err, tc.want)
		}
	}
	// A relative path needs an absolute working directory.
	for _, wd := range []string{"", `w`, `\w`, `C:w`, `\\?\C:\w`} {
		if got, err := fspath.AbsIn(fspath.WindowsPaths, wd, `a.txt`); err == nil || !strings.Contains(err.Error(), "not absolute") {
			t.Errorf("Abs(a.txt) in %q on Windows = %q, %v; want: not absolute", wd, got, err)
		}
	}
	// A drive-relative path on another drive than a UNC working directory.
	if _, err := fspath.AbsIn(fspath.WindowsPaths, `\\srv\share\w`, `C:a.txt`); err == nil {
		t.Errorf("Abs(C:a.txt) in a UNC working directory: want an error")
	}
}

// TestAbsUnixPathsUnchanged: on Linux and macOS only / separates, and what
// Windows refuses are ordinary names.
func TestAbsUnixPathsUnchanged(t *testing.T) {
	for _, f := range []fspath.Flavor{fspath.UnixPaths, fspath.DarwinPaths} {
		for _, tc := range []struct{ p, want string }{
			{`C:\w\a.txt`, `/w/C:\w\a.txt`},
			{`C:/w/a.txt`, `/w/C:/w/a.txt`},
			{`a\..\..\b`, `/w/a\..\..\b`},
			{`\\server\share\x`, `/w/\\server\share\x`},
			{`\\?\C:\x`, `/w/\\?\C:\x`},
			{`CON`, `/w/CON`},
			{`nul.txt`, `/w/nul.txt`},
			{`a.txt:secret`, `/w/a.txt:secret`},
			{`a.`, `/w/a.`},
			{`a `, `/w/a `},
			{`a<b|c`, `/w/a<b|c`},
			{`file:///C:/w/a.txt`, `/C:/w/a.txt`},
			{`file:/etc/passwd`, `/etc/passwd`},
			{`FILE:/w/a%20b`, `/w/a b`},
			{`file:x`, `/w/file:x`},
			{`~/x`, `/w/~/x`},
			{`//x//y/`, `/x/y`},
		} {
			got, err := fspath.AbsIn(f, "/w", tc.p)
			if err != nil || got != tc.want {
				t.Errorf("Abs(%q) in flavour %d = %q, %v; want %q", tc.p, f, got, err, tc.want)
			}
		}
	}
}

func TestWithinMatchesWholeNames(t *testing.T) {
	type match struct {
		dir, p, rel string // rel "" for no match
	}
	for _, tc := range []struct {
		f     fspath.Flavor
		cases []match
	}{
		{fspath.UnixPaths, []match{
			{"/w", "/w/a.txt", "a.txt"},
			{"/w", "/w", "."},
			{"/", "/a/b", "a/b"},
			{"/", "/", "."},
			{"/w", "/wa/b", ""},
			{"/w/a", "/w", ""},
			{"/users/me/proj", "/Users/me/Proj/a.txt", ""}, // case counts on Linux
			{"/w", "/W", ""},
			{`/w`, `/w\a`, ""},
			{`/w\a`, `/w\a/b`, "b"},
			{"/w", "w/a", ""},
		}},
		{fspath.DarwinPaths, []match{
			{"/users/me/proj", "/Users/me/Proj/a.txt", "a.txt"},
			{"/Users/me/Proj", "/users/ME/proj/Sub/A.txt", "Sub/A.txt"},
			{"/w", "/W", "."},
			{"/Users/me/proj", "/Users/me/project/a", ""},
			{"/Users/me/proj", "/Users/me/pro", ""},
			{`/w`, `/w\a`, ""},
			{"/Ärger", "/ärger/x", "x"},
			{"/Straße", "/STRASSE/x", ""}, // simple folding only, as the file system
		}},
		{fspath.WindowsPaths, []match{
			{`C:\w`, `C:\w\a.txt`, `a.txt`},
			{`C:\w`, `c:\W\Sub\A.TXT`, `Sub\A.TXT`},
			{`C:\w`, `C:\w`, `.`},
			{`C:\`, `C:\a\b`, `a\b`},
			{`C:\`, `c:\`, `.`},
			{`C:\w`, `C:\wx\a`, ``},
			{`C:\w`, `D:\w\a`, ``},
			{`C:\w`, `\\srv\share\w\a`, ``},
			{`\\srv\share\r`, `\\SRV\Share\R\x`, `x`},
			{`\\srv\share`, `\\srv\share\x`, `x`},
			{`\\srv\share`, `\\srv\share`, `.`},
			{`\\srv\share`, `\\srv\share2\x`, ``},
			{`\\srv\share`, `\\srv2\share\x`, ``},
			{`C:\w`, `\\?\C:\w\a`, ``},
			{`\\?\C:\w`, `\\?\C:\w\a`, ``},
			{`C:\w`, `C:a`, ``},
			{`C:\w`, `\w\a`, ``},
			// The rest is the path's own, whatever the byte lengths of
			// the names that matched: ſ folds to S.
			{`C:\w\ſ`, `C:\W\S\a.txt`, `a.txt`},
			{`C:\Ǆ`, `C:\ǆ\x`, `x`},
		}},
	} {
		for _, c := range tc.cases {
			rel, ok := fspath.WithinIn(tc.f, c.dir, c.p)
			if ok != (c.rel != "") || rel != c.rel {
				t.Errorf("within(%q, %q) in flavour %d = %q, %v; want %q", c.dir, c.p, tc.f, rel, ok, c.rel)
			}
		}
	}
}

func TestExpandHome(t *testing.T) {
	for _, tc := range []struct {
		f             fspath.Flavor
		home, p, want string
	}{
		{fspath.UnixPaths, "/home/me", "~", "/home/me"},
		{fspath.UnixPaths, "/home/me", "~/notes.txt", "/home/me/notes.txt"},
		{fspath.UnixPaths, "/home/me", "~/", "/home/me/"},
		{fspath.UnixPaths, "/home/me", "~/../../etc/passwd", "/home/me/../../etc/passwd"},
		{fspath.UnixPaths, "/home/me", "~user/x", "~user/x"},
		{fspath.UnixPaths, "/home/me", "~~/x", "~~/x"},
		{fspath.UnixPaths, "/home/me", "a/~/x", "a/~/x"},
		{fspath.UnixPaths, "/home/me", "/~/x", "/~/x"},
		{fspath.UnixPaths, "/home/me", `~\x`, `~\x`},
		{fspath.UnixPaths, "/home/me", "file:///~/x", "file:///~/x"},
		{fspath.UnixPaths, "", "~/x", "~/x"},
		{fspath.UnixPaths, "home/me", "~/x", "~/x"},
		{fspath.DarwinPaths, "/Users/me", "~/x", "/Users/me/x"},
		{fspath.WindowsPaths, `C:\Users\me`, `~\notes.txt`, `C:\Users\me\notes.txt`},
		{fspath.WindowsPaths, `C:\Users\me`, `~/notes.txt`, `C:\Users\me/notes.txt`},
		{fspath.WindowsPaths, `C:\Users\me`, `~`, `C:\Users\me`},
		{fspath.WindowsPaths, `C:\Users\me`, `~user\x`, `~user\x`},
		{fspath.WindowsPaths, `/home/me`, `~\x`, `~\x`}, // not absolute on Windows
	} {
		if got := fspath.ExpandHomeIn(tc.f, tc.home, tc.p); got != tc.want {
			t.Errorf("ExpandHome(%q, %q) in flavour %d = %q, want %q", tc.home, tc.p, tc.f, got, tc.want)
		}
	}
	// Expanded, the path is resolved and confined as any other.
	p := fspath.ExpandHomeIn(fspath.WindowsPaths, `C:\Users\me`, `~/notes.txt`)
	if got, err := fspath.AbsIn(fspath.WindowsPaths, `C:\w`, p); err != nil || got != `C:\Users\me\notes.txt` {
		t.Errorf("Abs(%q) on Windows = %q, %v", p, got, err)
	}
	if _, ok := fspath.WithinIn(fspath.WindowsPaths, `C:\w`, `C:\Users\me\notes.txt`); ok {
		t.Error("the home directory matched a root it is not in")
	}
}

func TestNamesDirFlavours(t *testing.T) {
	for _, tc := range []struct {
		f    fspath.Flavor
		p    string
		want bool
	}{
		{fspath.WindowsPaths, `C:\w\`, true},
		{fspath.WindowsPaths, `C:/w/`, true},
		{fspath.WindowsPaths, `sub\.`, true},
		{fspath.WindowsPaths, `file:///C:/w/`, true},
		{fspath.WindowsPaths, `a.txt`, false},
		{fspath.WindowsPaths, `sub\..`, false},
		{fspath.UnixPaths, `a\`, false},
		{fspath.UnixPaths, `a/`, true},
		{fspath.UnixPaths, `file:/w/`, true},
		{fspath.UnixPaths, `a/.`, true},
		{fspath.UnixPaths, `.`, false},
	} {
		if got := fspath.NamesDirIn(tc.f, tc.p); got != tc.want {
			t.Errorf("NamesDir(%q) in flavour %d = %v, want %v", tc.p, tc.f, got, tc.want)
		}
	}
	if _, err := fspath.AbsFileIn(fspath.WindowsPaths, `C:\w`, `a.txt\`); !errors.Is(err, fspath.ErrNamesDir) {
		t.Errorf(`AbsFile(a.txt\) on Windows: %v, want ErrNamesDir`, err)
	}
}

// TestCheckPathWindows: what every FS operation on Windows asks of its
// path, whoever made it.
func TestCheckPathWindows(t *testing.T) {
	for p, want := range map[string]string{
		`C:\w\a.txt`:     "",
		`C:\`:            "",
		`\\srv\share`:    "",
		`\\srv\share\x`:  "",
		`C:/w/a.txt`:     "not clean",
		`C:\w\`:          "not clean",
		`C:\w\..\x`:      "not clean",
		`a.txt`:          "not absolute",
		`\a.txt`:         "not absolute",
		`C:a.txt`:        "not absolute",
		`\\?\C:\w\a.txt`: "not absolute",
		`C:\w\CON`:       "Windows reserves",
		`C:\w\a:b`:       "alternate data stream",
		`C:\w\a.`:        "dot or a space",
	} {
		err := fspath.CheckIn(fspath.WindowsPaths, p)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, fs.ErrInvalid)) {
			t.Errorf("checkPath(%q) on Windows = %v, want %q", p, err, want)
		}
	}
}

// A path matched to a root ignoring case is given to the editor as the
// root spells it: on a file system that tells case, or folds it otherwise
// (NTFS keeps the Kelvin sign apart from K), the path's own spelling of
// the root part may name another directory, outside every root.
func TestSpellTakesTheRootsSpelling(t *testing.T) {
	for _, tc := range []struct {
		f         fspath.Flavor
		dir, p    string
		want      string
		wantMatch bool
	}{
		{fspath.DarwinPaths, "/Users/me/proj", "/users/ME/PROJ/src/a.txt", "/Users/me/proj/src/a.txt", true},
		{fspath.DarwinPaths, "/Users/me/proj", "/USERS/me/proj", "/Users/me/proj", true},
		{fspath.WindowsPaths, `C:\Users\me\work`, "C:\\users\\me\\wor\u212A\\x.ps1", `C:\Users\me\work\x.ps1`, true},
		{fspath.WindowsPaths, `C:\w`, `c:/W/sub/A.txt`, `C:\w\sub/A.txt`, true},
		{fspath.WindowsPaths, `C:\`, `c:\a.txt`, `C:\a.txt`, true},
		{fspath.UnixPaths, "/w", "/w/a.txt", "/w/a.txt", true},
		{fspath.UnixPaths, "/", "/a.txt", "/a.txt", true},
		{fspath.UnixPaths, "/w", "/W/a.txt", "", false},
		{fspath.DarwinPaths, "/w", "/w2/a.txt", "", false},
	} {
		got, ok := fspath.SpellIn(tc.f, tc.dir, tc.p)
		if got != tc.want || ok != tc.wantMatch {
			t.Errorf("spell(%q, %q) = %q, %v; want %q, %v", tc.dir, tc.p, got, ok, tc.want, tc.wantMatch)
		}
	}
}

// TestFileURIRoundTrips: the URI FileURI writes for a path is a file://
// URI, percent-encoded where the path needs it, that Abs resolves back to
// the path, in the syntax of every OS.
func TestFileURIRoundTrips(t *testing.T) {
	for _, tc := range []struct {
		f       fspath.Flavor
		p, want string
	}{
		{fspath.UnixPaths, `/w/a.txt`, `file:///w/a.txt`},
		{fspath.UnixPaths, `/`, `file:///`},
		{fspath.UnixPaths, `/w/a b%#?.txt`, `file:///w/a%20b%25%23%3F.txt`},
		{fspath.UnixPaths, `/w/C:\x`, `file:///w/C:%5Cx`},
		{fspath.UnixPaths, `/w/été`, `file:///w/%C3%A9t%C3%A9`},
		{fspath.DarwinPaths, `/Users/me/a.txt`, `file:///Users/me/a.txt`},
		{fspath.WindowsPaths, `C:\w\a.txt`, `file:///C:/w/a.txt`},
		{fspath.WindowsPaths, `C:\`, `file:///C:/`},
		{fspath.WindowsPaths, `d:\a b\c#1.txt`, `file:///d:/a%20b/c%231.txt`},
		{fspath.WindowsPaths, `\\server\share\a\b.txt`, `file://server/share/a/b.txt`},
		{fspath.WindowsPaths, `\\server\share`, `file://server/share`},
	} {
		got := fspath.FileURIIn(tc.f, tc.p)
		if got != tc.want {
			t.Errorf("FileURI(%q) in %v = %q, want %q", tc.p, tc.f, got, tc.want)
		}
		if back, err := fspath.AbsIn(tc.f, "", got); err != nil || back != tc.p {
			t.Errorf("Abs(%q) in %v = %q, %v; want %q", got, tc.f, back, err, tc.p)
		}
	}
}
