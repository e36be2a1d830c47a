package integration

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// killPID kills pid.
func killPID(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}

// mkfifo fails: Windows has no named pipes in the file system.
func mkfifo(string) error { return errors.ErrUnsupported }

// peakRSS returns 0: Windows does not report an exited process's memory.
func peakRSS(*proc) int64 { return 0 }

// alive reports whether pid names a process that has not exited.
func alive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) != nil || code == 259 // STILL_ACTIVE
}

// waitGone waits until pid is gone or deadline passes, and reports
// whether it is gone.
func waitGone(pid int, deadline time.Time) bool { return pollGone(pid, deadline) }
