package fspath

import "testing"

// TestBelowCaseRename: where a flavour ignores case, a dst that is src
// but for case is src itself (a move renames src's own name, not into
// itself); a dst below src is below it, in any case.
func TestBelowCaseRename(t *testing.T) {
	cases := []struct {
		f        flavor
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
		if got := c.f.below(c.src, c.dst); got != c.want {
			t.Errorf("flavour %d: below(%q, %q) = %t, want %t", c.f, c.src, c.dst, got, c.want)
		}
	}
}
