//go:build unix && !linux

package integration

import (
	"errors"
	"syscall"
	"time"
)

// alive reports whether pid names a process that is not gone. Without
// /proc, a zombie or a process that got the pid of one that is gone counts
// as alive: the processes the tests check have parents that reap them.
func alive(pid int) bool { return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

// waitGone waits until pid is gone or deadline passes, and reports
// whether it is gone.
func waitGone(pid int, deadline time.Time) bool { return pollGone(pid, deadline) }
