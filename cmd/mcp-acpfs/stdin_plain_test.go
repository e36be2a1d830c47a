//go:build !unix || acpfs_portable

package main

import (
	"os"
	"testing"
)

// TestPlainStdin: where standard input is not put in the poller, polled
// gives the file back as it is, and it reads what is written to it.
func TestPlainStdin(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	in, restore := polled(r)
	defer restore()
	if in != r {
		t.Fatal("polled replaced the file")
	}
	if _, err := w.Write([]byte("line\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	if n, err := in.Read(buf); err != nil || string(buf[:n]) != "line\n" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
}
