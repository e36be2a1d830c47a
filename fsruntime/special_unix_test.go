//go:build unix

package fsruntime_test

import (
	"syscall"
	"testing"
)

// mkfifo makes a named pipe at path.
func mkfifo(t testing.TB, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}

// fileSystem returns the device of the file system that holds path.
func fileSystem(path string) (uint64, bool) {
	var st syscall.Stat_t
	if syscall.Stat(path, &st) != nil {
		return 0, false
	}
	return uint64(st.Dev), true
}
