package integration

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// alive reports whether pid names a live process of this test's binaries
// (the agent, its children, relays): not gone, not a zombie waiting for a
// parent that may never reap it, and not a process that got the pid of one
// that is gone.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	proc := "/proc/" + strconv.Itoa(pid)
	stat, err := os.ReadFile(proc + "/stat")
	if errors.Is(err, os.ErrNotExist) {
		return false
	}
	// pid (comm) state ...; comm may contain spaces and parentheses.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
		return false
	}
	exe, err := os.Readlink(proc + "/exe")
	return err != nil || exe == testAgentPath || exe == binPath
}

// waitGone waits until pid is gone (see alive) or deadline passes, and
// reports whether it is gone. It waits on a pidfd of the process, which
// becomes readable when the process exits; a kernel without pidfds is
// polled.
func waitGone(pid int, deadline time.Time) bool {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return true
	}
	if err != nil {
		return pollGone(pid, deadline)
	}
	defer unix.Close(fd)
	for alive(pid) { // else a zombie, or another program that got the pid
		wait := time.Until(deadline)
		if wait <= 0 {
			return false
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, int(wait.Milliseconds())+1); err != nil && err != unix.EINTR {
			return pollGone(pid, deadline)
		}
	}
	return true
}
