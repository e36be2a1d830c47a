//go:build unix

package ostest

import (
	"errors"
	"os"
	"runtime"
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
	if err := MkfifoErr(path); err != nil {
		t.Fatal(err)
	}
}

// MkfifoErr makes a named pipe at path, or returns why it cannot.
func MkfifoErr(path string) error { return unix.Mkfifo(path, 0o644) }

// MaxRSS returns the most memory this process has held, in MiB.
func MaxRSS() (float64, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	kib := float64(ru.Maxrss)
	if runtime.GOOS == "darwin" { // bytes there
		kib /= 1024
	}
	return kib / 1024, true
}

// CPUTime returns the CPU time, user and system, this process has used.
func CPUTime(b testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// OtherFileSystemDir returns a new directory on another file system than
// the one that holds than (a tmpfs, /dev/shm), removed after the test, or
// skips.
func OtherFileSystemDir(tb testing.TB, than string) string {
	tb.Helper()
	dir, err := os.MkdirTemp("/dev/shm", "mcp-acpfs-test-")
	if err != nil {
		tb.Skipf("no /dev/shm: %v", err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	var a, b syscall.Stat_t
	if syscall.Stat(dir, &a) != nil || syscall.Stat(than, &b) != nil || a.Dev == b.Dev {
		tb.Skip("/dev/shm is on the same file system as " + than)
	}
	return dir
}
