//go:build unix

package ostest

import (
	"errors"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// KilledCode is the proxy's exit code when its agent was killed: 128+SIGKILL.
const KilledCode = 128 + int(syscall.SIGKILL)

// KillProcess kills pid with SIGKILL.
func KillProcess(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }

// ProcessGone reports whether pid is gone and reaped.
func ProcessGone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

// Mkfifo makes a named pipe at path.
func Mkfifo(t testing.TB, path string) {
	t.Helper()
	if err := unix.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}

// CPUTime returns the CPU time, user and system, this process has used.
func CPUTime(b testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
