//go:build unix

package integration

import (
	"os"
	"os/exec"
	"runtime"
	"syscall"
)

// exeSuffix ends the name of a binary that go build makes.
const exeSuffix = ""

// stopSignal is how a service manager or a terminal asks a process to
// stop.
var stopSignal os.Signal = syscall.SIGTERM

// signalable prepares cmd, not yet started, for sendSignal: nothing to do
// here.
func signalable(*exec.Cmd) {}

// sendSignal sends sig to p.
func sendSignal(p *os.Process, sig os.Signal) error { return p.Signal(sig) }

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
