//go:build unix && !acpfs_portable

package main

import (
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// polled is polledStdin for any file f.
func polled(f *os.File) (*os.File, func()) {
	if f.SetReadDeadline(time.Time{}) == nil {
		return f, func() {} // given non-blocking: the poller reads it already
	}
	fd := int(f.Fd())
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return f, func() {}
	}
	if kind := st.Mode & syscall.S_IFMT; kind != syscall.S_IFIFO && kind != syscall.S_IFSOCK {
		return f, func() {}
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		return f, func() {}
	}
	restore := func() { syscall.SetNonblock(fd, false) }
	// The poller gets a descriptor of its own, so that f and the file
	// returned never close each other's: a duplicate shares the open file,
	// O_NONBLOCK with it, and NewFile puts a non-blocking one in the poller.
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		restore()
		return f, func() {}
	}
	return os.NewFile(uintptr(dup), f.Name()), restore
}
