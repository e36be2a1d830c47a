package fsruntime

import (
	"errors"
	"io/fs"
	"syscall"
	"testing"
)

// TestMoveErrNotEmpty: a rename over a directory that is not empty fails
// with ENOTEMPTY on ext4 and with EEXIST on XFS, as POSIX allows. With
// overwrite both are that one refusal, which never asks for overwrite;
// without it, EEXIST is the destination that exists.
func TestMoveErrNotEmpty(t *testing.T) {
	var d Disk
	for _, c := range []struct {
		errno     syscall.Errno
		overwrite bool
		want      error
	}{
		{syscall.ENOTEMPTY, true, errDstNotEmpty},
		{syscall.EEXIST, true, errDstNotEmpty},
		{syscall.EEXIST, false, errDstExists},
	} {
		err := d.moveErr("/r/src", "/r/dst", c.overwrite, c.errno)
		var pe *fs.PathError
		if !errors.As(err, &pe) || pe.Path != "/r/dst" || pe.Err != c.want {
			t.Errorf("%v, overwrite %t: %v; want %q at /r/dst", c.errno, c.overwrite, err, c.want)
		}
	}
}
