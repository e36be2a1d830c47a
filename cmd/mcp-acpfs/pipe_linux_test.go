//go:build !acpfs_portable

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// pipeSize is the buffer size of the pipe f is.
func pipeSize(t *testing.T, f *os.File) int {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var size int
	rc.Control(func(fd uintptr) { size, err = unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0) })
	if err != nil {
		t.Fatal(err)
	}
	return size
}

// TestGrowPipe: both ends of a pipe get a pipeBuffer buffer (or the
// most the system allows), a regular file is left alone, and a pipe
// given non-blocking stays so.
func TestGrowPipe(t *testing.T) {
	want := pipeBuffer
	if b, err := os.ReadFile("/proc/sys/fs/pipe-max-size"); err == nil {
		if max, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && max < want {
			want = max
		}
	}
	for _, end := range []string{"read", "write"} {
		t.Run(end, func(t *testing.T) {
			r, w, err := os.Pipe() // non-blocking, in the poller
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			defer w.Close()
			f := r
			if end == "write" {
				f = w
			}
			before := pipeSize(t, f)
			growPipe(f)
			if got := pipeSize(t, f); got < want || got < before {
				t.Errorf("pipe buffer %d bytes after growPipe (%d before), want %d", got, before, want)
			}
			if err := f.SetDeadline(time.Time{}); err != nil {
				t.Errorf("the pipe left the poller: %v", err)
			}
		})
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "out.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	growPipe(f) // no pipe: nothing to do, and nothing to fail
}
