//go:build linux && !acpfs_portable

package fsruntime

import (
	"testing"

	"golang.org/x/sys/unix"
)

// wantImpls are Linux's own mechanisms.
var wantImpls = [3]string{"O_TMPFILE", "getdents64", "renameat2"}

// unnamedTemps reports whether a write in dir makes its temporary file
// with no name (O_TMPFILE): where dir's file system has none (as some FUSE
// and network ones, and overlayfs before Linux 6.6), writes fall back to
// named ones.
func unnamedTemps(t testing.TB, dir string) bool {
	t.Helper()
	fd, err := openTestParent(t, dir).openUnnamed(0o600)
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
}
