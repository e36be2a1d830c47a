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
