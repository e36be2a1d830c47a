package main

import (
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// polledStdin returns standard input as a file that Go's network poller
// reads, when it is a pipe or a socket (as a host that starts the command
// gives it), and a function that puts it back as it was: blocking.
//
// A plain os.Stdin is read by a blocking read(2) that holds a thread, and
// the scheduler's processor with it, until the next message arrives; the
// request the last message started, handed to a worker, waits in that
// processor's queue until another steals it. Through the poller the
// reading goroutine parks instead. With 8 calls in flight a 4 KiB read's
// throughput rose by about a quarter (bench/peerbench, BENCHMARKS.md).
//
// O_NONBLOCK belongs to the open file, which the host may share: restore
// clears it again before the process exits. Terminals, regular files and
// a standard input given non-blocking are left as they are.
func polledStdin() (stdin *os.File, restore func()) {
	return polled(os.Stdin)
}

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
