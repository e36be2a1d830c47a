package ostest

import (
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// Holds reports whether a descriptor of this process refers to the file
// that st describes (its device and inode), found through /proc/self/fd.
func Holds(tb testing.TB, st unix.Stat_t) bool {
	tb.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		tb.Fatal(err)
	}
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		var fst unix.Stat_t
		if unix.Fstat(fd, &fst) == nil && fst.Dev == st.Dev && fst.Ino == st.Ino {
			return true
		}
	}
	return false
}

// StatOf describes the file at path, or fails the test.
func StatOf(tb testing.TB, path string) unix.Stat_t {
	tb.Helper()
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		tb.Fatal(err)
	}
	return st
}
