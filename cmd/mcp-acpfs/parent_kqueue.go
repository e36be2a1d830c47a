//go:build darwin || freebsd

package main

import (
	"errors"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// watchParent calls gone once this process's parent has exited, and
// returns a function that stops the watch. A parent gone before the watch
// started counts too; a process whose parent is already init (pid 1) has
// none to watch.
func watchParent(gone func()) (stop func()) {
	ppid := os.Getppid()
	if ppid == 1 {
		return func() {}
	}
	gone = sync.OnceFunc(gone)
	stop = watchExit(ppid, gone)
	if os.Getppid() != ppid {
		gone()
	}
	return stop
}

// watchExit calls gone once process pid has exited, learned from kqueue
// (EVFILT_PROC, NOTE_EXIT), or at once if there is no such process; stop
// ends the watch and waits for it.
func watchExit(pid int, gone func()) (stop func()) {
	kq, err := unix.Kqueue()
	if err != nil {
		return func() {}
	}
	var changes [2]unix.Kevent_t
	unix.SetKevent(&changes[0], pid, unix.EVFILT_PROC, unix.EV_ADD|unix.EV_ONESHOT)
	changes[0].Fflags = unix.NOTE_EXIT
	unix.SetKevent(&changes[1], 0, unix.EVFILT_USER, unix.EV_ADD|unix.EV_CLEAR) // stop's wake-up
	if _, err := unix.Kevent(kq, changes[:], nil, nil); err != nil {
		unix.Close(kq)
		if errors.Is(err, unix.ESRCH) {
			gone()
		}
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		events := make([]unix.Kevent_t, 1)
		for {
			n, err := unix.Kevent(kq, nil, events, nil)
			if err == unix.EINTR {
				continue
			}
			if err == nil && n == 1 && events[0].Filter == unix.EVFILT_PROC {
				gone()
			}
			return
		}
	}()
	return sync.OnceFunc(func() {
		var wake [1]unix.Kevent_t
		unix.SetKevent(&wake[0], 0, unix.EVFILT_USER, 0)
		wake[0].Fflags = unix.NOTE_TRIGGER
		unix.Kevent(kq, wake[:], nil, nil)
		<-done
		unix.Close(kq)
	})
}
