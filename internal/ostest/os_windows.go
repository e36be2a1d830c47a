package ostest

import (
	"os"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// KilledCode is the proxy's exit code when its agent was killed: a killed
// process exits with status 1 (TerminateProcess).
const KilledCode = 1

// KillProcess kills pid.
func KillProcess(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

// ProcessGone reports whether pid has exited: it cannot be opened, or it
// has an exit code.
func ProcessGone(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return true
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code != 259 // STILL_ACTIVE
}

// Mkfifo skips the test: Windows has no named pipes in the file system.
func Mkfifo(t testing.TB, path string) {
	t.Helper()
	t.Skip("Windows has no named pipes in the file system")
}

// MkfifoErr returns ErrNoFifos: Windows has no named pipes in the file
// system.
func MkfifoErr(path string) error { return ErrNoFifos }

// MaxRSS is not measured here.
func MaxRSS() (float64, bool) { return 0, false }

// CPUTime returns the CPU time, user and kernel, this process has used.
func CPUTime(b testing.TB) time.Duration {
	var creation, exit, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(windows.CurrentProcess(), &creation, &exit, &kernel, &user); err != nil {
		b.Fatal(err)
	}
	ticks := func(f windows.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return time.Duration((ticks(kernel) + ticks(user)) * 100) // 100 ns ticks
}

// OtherFileSystemDir skips: the tests have no second file system here.
func OtherFileSystemDir(tb testing.TB, than string) string {
	tb.Helper()
	tb.Skip("no second file system to move to on Windows")
	return ""
}
