package fsruntime

import (
	"errors"
	"io/fs"
	"syscall"
	"testing"
)

// deniedErrnos are the system's words for an access the file system
// refused: EACCES and EPERM, and on Windows ERROR_ACCESS_DENIED
// (deniedErrnosOS).
var deniedErrnos = append([]syscall.Errno{syscall.EACCES, syscall.EPERM}, deniedErrnosOS...)

// TestMapErrDenied: every refusal of access, in whatever words the system
// gives it, reads the same and matches fs.ErrPermission, with the path
// the caller named.
func TestMapErrDenied(t *testing.T) {
	var d Disk
	for _, errno := range deniedErrnos {
		err := d.mapErr("write", "/r/a.txt", &fs.PathError{Op: "openat", Path: "a.txt", Err: errno})
		if want := "write /r/a.txt: permission denied (the file system refused access)"; err.Error() != want || !errors.Is(err, fs.ErrPermission) {
			t.Errorf("errno %d (%v): %q, want %q", uintptr(errno), errno, err, want)
		}
	}
}
