package fspath

import "testing"

// TestLinkRelative: in Windows syntax a symlink target rooted at a volume
// (\x) or relative to a drive's current directory (D:x) is not relative to
// the link's directory, so linkTarget must not join it there; elsewhere
// those are names like any other.
func TestLinkRelative(t *testing.T) {
	cases := []struct {
		f    flavor
		dest string
		want bool
	}{
		{windowsPaths, `a\b.txt`, true},
		{windowsPaths, `..\b.txt`, true},
		{windowsPaths, `\Windows\win.ini`, false},
		{windowsPaths, `/Windows/win.ini`, false},
		{windowsPaths, `D:x.txt`, false},
		{windowsPaths, `d:..\x.txt`, false},
		{windowsPaths, `\??\C:\x`, false},
		{unixPaths, `\Windows\win.ini`, true},
		{unixPaths, `D:x.txt`, true},
		{darwinPaths, `D:x.txt`, true},
	}
	for _, c := range cases {
		if got := c.f.linkRelative(c.dest); got != c.want {
			t.Errorf("flavour %d: linkRelative(%q) = %t, want %t", c.f, c.dest, got, c.want)
		}
	}
}
