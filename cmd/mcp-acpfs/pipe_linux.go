//go:build !acpfs_portable

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// growPipe gives the pipe f is, if it is one, a buffer of pipeBuffer
// bytes when it has less. Where the kernel refuses (a user over the
// pipe-user-pages limits), the pipe keeps its size. It reaches the
// descriptor through SyscallConn, as f.Fd would make it blocking. See
// DESIGN.md, "Pipe buffers".
func growPipe(f *os.File) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) {
		var st unix.Stat_t
		if unix.Fstat(int(fd), &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
			return
		}
		if size, err := unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0); err == nil && size < pipeBuffer {
			unix.FcntlInt(fd, unix.F_SETPIPE_SZ, pipeBuffer)
		}
	})
}
