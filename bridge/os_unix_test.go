//go:build unix

package bridge_test

import (
	"errors"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// killedCode is the proxy's exit code when its agent was killed: 128+SIGKILL.
const killedCode = 128 + int(syscall.SIGKILL)

// killProcess kills pid with SIGKILL.
func killProcess(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }

// processGone reports whether pid is gone and reaped.
func processGone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

// mkfifo makes a named pipe at path.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := unix.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}

// cpuTime returns the CPU time, user and system, this process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
