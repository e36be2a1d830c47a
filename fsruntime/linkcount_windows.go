package fsruntime

import (
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// linkCount never says here: a FileInfo's Sys() on Windows is a
// *syscall.Win32FileAttributeData, which has no link count, so the count
// is asked of an open handle (fileLinkCount).
func linkCount(fs.FileInfo) (uint64, bool) { return 0, false }

// fileLinkCount returns how many names the open file f has:
// GetFileInformationByHandle's NumberOfLinks.
func fileLinkCount(f *os.File) (uint64, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var d windows.ByHandleFileInformation
	var ierr error
	if err := rc.Control(func(h uintptr) { ierr = windows.GetFileInformationByHandle(windows.Handle(h), &d) }); err != nil {
		return 0, err
	}
	if ierr != nil {
		return 0, &fs.PathError{Op: "GetFileInformationByHandle", Path: f.Name(), Err: ierr}
	}
	return uint64(d.NumberOfLinks), nil
}
