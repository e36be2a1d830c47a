package runtime

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// openUnnamed opens a new file with no name in the directory dir of root
// (O_TMPFILE), for linkUnnamed to name once its content is complete: a
// process killed while writing it leaves nothing behind. It fails where
// the kernel or the file system has no O_TMPFILE, or where /proc, which
// linkUnnamed needs, is not mounted; the caller then uses a named
// temporary file.
func openUnnamed(root *os.Root, dir string, perm fs.FileMode) (*os.File, error) {
	if !procFDs() {
		return nil, errNoUnnamed
	}
	return root.OpenFile(dir, os.O_WRONLY|unix.O_TMPFILE, perm)
}

// linkUnnamed gives f, from openUnnamed, the name rel in root. It links the
// file through /proc/self/fd, which, unlike linkat with AT_EMPTY_PATH,
// needs no privilege.
func linkUnnamed(root *os.Root, f *os.File, rel string) error {
	d, err := root.Open(filepath.Dir(rel))
	if err != nil {
		return err
	}
	defer d.Close()
	name := filepath.Base(rel)
	return withFDs(f, d, func(ffd, dfd int) error {
		return ignoringEINTR(func() error {
			return unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(ffd), dfd, name, unix.AT_SYMLINK_FOLLOW)
		})
	})
}

// procFDs reports whether /proc/self/fd is there to link unnamed files
// through.
var procFDs = sync.OnceValue(func() bool {
	_, err := os.Stat("/proc/self/fd")
	return err == nil
})
