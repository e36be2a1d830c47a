//go:build unix

package fsruntime

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// linkCount returns how many names the file described by info has, from
// its stat, and whether the stat says.
func linkCount(info fs.FileInfo) (uint64, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Nlink), true
}

// fileLinkCount returns how many names the open file f has: fstat's count.
func fileLinkCount(f *os.File) (uint64, error) {
	info, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if n, ok := linkCount(info); ok {
		return n, nil
	}
	return 0, fmt.Errorf("the file system gave no link count for %s", f.Name())
}
