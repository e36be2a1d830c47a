package fspath_test

import "path/filepath"

// hostAbs returns p, an absolute path in Unix syntax, as an absolute path
// in the running OS's syntax, for the tests of the functions that resolve
// in that syntax (Abs, AbsFile, NamesDir): p itself where / starts an
// absolute path, else p on drive C: (C:\w for /w on Windows).
func hostAbs(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return "C:" + filepath.FromSlash(p)
}

// hostHasShares reports whether the running OS names network shares in
// its paths (\\server\share on Windows), so that a file:// URI with a
// host other than localhost names a local path there.
var hostHasShares = filepath.VolumeName(`\\server\share\x`) != ""
