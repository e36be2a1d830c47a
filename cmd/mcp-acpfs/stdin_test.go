//go:build unix && !acpfs_portable

package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// nonblocking reports whether fd's open file has O_NONBLOCK set.
func nonblocking(t *testing.T, fd int) bool {
	t.Helper()
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		t.Fatal(err)
	}
	return flags&unix.O_NONBLOCK != 0
}

// blockingFile makes a file of fd as a host gives standard input: blocking,
// so not read through the poller.
func blockingFile(t *testing.T, fd int, name string) *os.File {
	t.Helper()
	f := os.NewFile(uintptr(fd), name)
	t.Cleanup(func() { f.Close() })
	if f.SetReadDeadline(time.Time{}) == nil {
		t.Fatalf("%s: a blocking descriptor is in the poller", name)
	}
	return f
}

func TestPolledStdin(t *testing.T) {
	var p [2]int
	if err := unix.Pipe(p[:]); err != nil {
		t.Fatal(err)
	}
	pipeW := os.NewFile(uintptr(p[1]), "pipe writer")
	defer pipeW.Close()
	s, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range []int{p[0], p[1], s[0], s[1]} {
		unix.CloseOnExec(fd)
	}
	sockW := os.NewFile(uintptr(s[1]), "socket peer")
	defer sockW.Close()

	for _, tc := range []struct {
		name string
		in   *os.File
		w    *os.File
	}{
		{"pipe", blockingFile(t, p[0], "pipe"), pipeW},
		{"socket", blockingFile(t, s[0], "socket"), sockW},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fd := int(tc.in.Fd())
			in, restore := polled(tc.in)
			if in == tc.in {
				t.Fatal("not replaced by a file in the poller")
			}
			defer in.Close() // its own descriptor: tc.in stays open
			if !nonblocking(t, fd) {
				t.Error("not made non-blocking")
			}
			// Only a file in the poller has deadlines: a read of nothing
			// times out instead of blocking the test.
			if err := in.SetReadDeadline(time.Now().Add(10 * time.Millisecond)); err != nil {
				t.Fatalf("not read through the poller: %v", err)
			}
			buf := make([]byte, 16)
			if _, err := in.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("read of nothing: %v, want a deadline exceeded", err)
			}
			in.SetReadDeadline(time.Time{})
			if _, err := tc.w.Write([]byte("line\n")); err != nil {
				t.Fatal(err)
			}
			if n, err := in.Read(buf); err != nil || string(buf[:n]) != "line\n" {
				t.Fatalf("read %q, %v", buf[:n], err)
			}
			restore()
			if nonblocking(t, fd) {
				t.Error("restore left the open file non-blocking")
			}
			in.Close()
			if _, err := tc.w.Write([]byte("more\n")); err != nil {
				t.Fatal(err)
			}
			if n, err := tc.in.Read(buf); err != nil || string(buf[:n]) != "more\n" {
				t.Errorf("the file given, once the polled one is closed: read %q, %v", buf[:n], err)
			}
		})
	}

	t.Run("regular file", func(t *testing.T) {
		f, err := os.Create(filepath.Join(t.TempDir(), "requests.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		in, restore := polled(f)
		restore()
		if in != f || nonblocking(t, int(f.Fd())) {
			t.Error("a regular file was changed")
		}
	})

	t.Run("given non-blocking", func(t *testing.T) {
		r, w, err := os.Pipe() // Go's own pipes are in the poller
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		defer r.Close()
		in, restore := polled(r)
		restore()
		if in != r {
			t.Error("a file already in the poller was replaced")
		}
		if err := r.SetReadDeadline(time.Time{}); err != nil {
			t.Errorf("restore took the file out of the poller: %v", err)
		}
	})
}
