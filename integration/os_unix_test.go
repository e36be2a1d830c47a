//go:build unix

package integration

import (
	"runtime"
	"syscall"
)

// killPID kills pid with SIGKILL.
func killPID(pid int) { syscall.Kill(pid, syscall.SIGKILL) }

// mkfifo makes a named pipe at path.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }

// peakRSS returns the peak resident set size of an exited process, in
// bytes: the system gives it in KiB, or in bytes on macOS.
func peakRSS(p *proc) int64 {
	unit := int64(1024)
	if runtime.GOOS == "darwin" {
		unit = 1
	}
	return p.cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * unit
}
