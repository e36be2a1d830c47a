package fsruntime

import "testing"

// TestIntoItselfCaseRename: where a flavour ignores case, a dst that is
// src but for case renames src's own name, not a move into itself; a dst
// below src still is one, in any case.
func TestIntoItselfCaseRename(t *testing.T) {
	cases := []struct {
		f        pathFlavor
		src, dst string
		want     bool
	}{
		{windowsPaths, `C:\w\dir`, `C:\w\DIR`, false},
		{windowsPaths, `C:\w\dir`, `C:\w\DIR\sub`, true},
		{windowsPaths, `C:\w\dir`, `C:\w\dir\sub`, true},
		{windowsPaths, `C:\w\dir`, `C:\w\other`, false},
		{darwinPaths, "/w/dir", "/w/Dir", false},
		{darwinPaths, "/w/dir", "/w/Dir/sub", true},
		{unixPaths, "/w/dir", "/w/DIR", false},
		{unixPaths, "/w/dir", "/w/dir/sub", true},
	}
	for _, c := range cases {
		if got := c.f.intoItself(c.src, c.dst); got != c.want {
			t.Errorf("flavour %d: intoItself(%q, %q) = %t, want %t", c.f, c.src, c.dst, got, c.want)
		}
	}
}
