package fsruntime_test

import "testing"

// mkfifo skips: Windows has no named pipes in its file systems.
func mkfifo(t testing.TB, path string) {
	t.Helper()
	t.Skip("Windows has no named pipes (FIFOs) in its file systems")
}
