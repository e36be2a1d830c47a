package fspath_test

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fspath"
)

// TestPathAttacksInEveryOSSyntax runs path attacks in the syntax of macOS
// and Windows through the pure resolution and root matching that those
// systems use: each is refused when resolved, or matches no root. The
// case-insensitive matching lets in the root in another case, and nothing
// beside it.
func TestPathAttacksInEveryOSSyntax(t *testing.T) {
	for _, tc := range []struct {
		f        fspath.Flavor
		workDir  string
		roots    []string
		attacks  []string
		insiders map[string]string // inside a root ignoring case: the rest handed on
	}{
		{fspath.WindowsPaths, `C:\w\d`, []string{`C:\w`, `\\srv\share\r`}, []string{
			// Prefix siblings and "..", with either separator and in any case.
			`C:\w2\secret.txt`, `c:\W_backup\x`, `C:/w2/x`, `C:\w\..\outside\x`, `C:/w/../outside`,
			`..\..\outside\x`, `d\..\..\..\x`, `..\..`, `\outside\x`, `/outside/x`, `C:\`, `C:\Windows\System32\config\SAM`,
			`\\srv\share\r2\x`, `\\srv\share\r\..\x`, `//srv/share/r/../x`, `\\srv\share2\r\x`, `\\srv2\share\r\x`,
			`\\srv\share`, `\\SRV\SHARE\x`,
			// Other drives, drive-relative paths off the working drive.
			`D:\w\x`, `d:/w/x`, `D:x`, `D:`, `D:..\w\x`,
			// Device and verbatim paths, whatever they name.
			`\\?\C:\w\x`, `\\.\C:\w\x`, `\??\C:\w\x`, `//?/C:/w/x`, `//./C:/w/x`, `\\?\UNC\srv\share\r\x`,
			`\\.\pipe\x`, `\\.\PhysicalDrive0`, `\\?\GLOBALROOT\Device\HarddiskVolume1\w\x`,
			// Names Windows would not keep as written: they could open a
			// device or another file than the one named.
			`C:\w\CON`, `C:\w\con.txt`, `C:\w\sub\NUL\x`, `C:\w\aux.tar.gz`, `C:\w\COM1`, `C:\w\lpt9.log`, `C:\w\COM¹`,
			`C:\w\CONIN$`, `C:\w\CON .txt`, `PRN`, `nul`,
			`C:\w\a.txt:secret`, `C:\w\a.txt::$DATA`, `C:\w\sub:stream\x`, `a.txt:s`,
			`C:\w\a.txt.`, `C:\w\a.txt `, `C:\w\sub.\x`, `C:\w\... \x`,
			`C:\w\a*`, `C:\w\a?`, `C:\w\a|b`, `C:\w\a<b>`, `C:\w\a"b`,
			// File URIs.
			`file:///C:/outside/x`, `file:/C:/w2/x`, `file:///D:/w/x`, `file:///C:/w/..%5C..%5Coutside`,
			`file:///C:/w/%2e%2e/outside`, `file://srv/share/r2/x`, `file://srv/share/r/../x`, `file:////srv/share/r2/x`, `file:///C:/w/con`,
			`file:///C:/w/a.txt%3Asecret`, `file:///%5C%5C%3F%5CC:/w/x`,
		}, map[string]string{
			`c:\W\a.txt`: `a.txt`, `C:/w/Sub/A.TXT`: `Sub\A.TXT`, `\\SRV\Share\R\x`: `x`,
			`file:///c:/W/a.txt`: `a.txt`, `file://SRV/share/r/x`: `x`, `a.txt`: `d\a.txt`, `\w\x`: `x`, `C:x`: `d\x`,
		}},
		{fspath.DarwinPaths, "/Users/me/proj/d", []string{"/users/me/proj"}, []string{
			"/Users/me/Proj2/x", "/users/me/project/x", "/USERS/ME/PROJ/../x", "/users/me/proj/../../me/x",
			"../../x", "/Users/me", "/", "file:///Users/me/PROJ_backup/x", "file:/users/me/proj/%2e%2e/x",
			`/Users/me/proj\..\x/..`, // a backslash is a name's character here
		}, map[string]string{
			"/Users/me/Proj/a.txt": "a.txt", "/USERS/ME/PROJ": ".", "a.txt": "d/a.txt", "file:/users/Me/proj/X": "X",
			`/users/me/proj/a\..\..\x`: `a\..\..\x`,
		}},
	} {
		for _, p := range tc.attacks {
			abs, err := fspath.AbsIn(tc.f, tc.workDir, p)
			if err != nil {
				if !errors.Is(err, fs.ErrInvalid) {
					t.Errorf("Abs(%q) in flavour %d: %v, want fs.ErrInvalid", p, tc.f, err)
				}
				continue
			}
			for _, root := range tc.roots {
				if rel, ok := fspath.WithinIn(tc.f, root, abs); ok {
					t.Errorf("%q (%s) in flavour %d lies in the root %s, as %q", p, abs, tc.f, root, rel)
				}
			}
		}
		for p, want := range tc.insiders {
			abs, err := fspath.AbsIn(tc.f, tc.workDir, p)
			if err != nil {
				t.Errorf("Abs(%q) in flavour %d: %v", p, tc.f, err)
				continue
			}
			var got []string
			for _, root := range tc.roots {
				if rel, ok := fspath.WithinIn(tc.f, root, abs); ok {
					got = append(got, rel)
				}
			}
			if len(got) != 1 || got[0] != want {
				t.Errorf("%q (%s) in flavour %d lies in the roots as %q, want %q", p, abs, tc.f, got, want)
			}
		}
	}
}
