package fspath_test

import "path/filepath"

// hostHasShares reports whether the running OS names network shares in
// its paths (\\server\share on Windows), so that a file:// URI with a
// host other than localhost names a local path there.
var hostHasShares = filepath.VolumeName(`\\server\share\x`) != ""
