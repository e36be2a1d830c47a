package ostest

import (
	"errors"
	"path/filepath"
	"runtime"
)

// HostPath returns the absolute path that slash, a slash-separated
// absolute fixture such as "/w/a.txt", stands for in this OS's syntax:
// itself on Unix, and on drive C: on Windows (C:\w\a.txt), where a path
// without a drive is not absolute. It names nothing on disk: it is for
// in-memory file systems and for paths that must be refused.
func HostPath(slash string) string {
	if runtime.GOOS == "windows" {
		return "C:" + filepath.FromSlash(slash)
	}
	return slash
}

// ErrNoFifos is MkfifoErr's error where the file system has no named
// pipes (Windows).
var ErrNoFifos = errors.New("no named pipes in the file system on " + runtime.GOOS)
