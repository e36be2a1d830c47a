package fsruntime_test

import "testing"

// mkfifo skips: Windows has no named pipes in its file systems.
func mkfifo(t testing.TB, path string) {
	t.Helper()
	t.Skip("Windows has no named pipes (FIFOs) in its file systems")
}

// fileSystem does not tell file systems apart here.
func fileSystem(string) (uint64, bool) { return 0, false }
