//go:build !linux || acpfs_portable

package fsruntime

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
)

// renameImpl names how this build renames.
const renameImpl = "os.Root.Rename"

// oDirectory is not portable; openDir checks the mode of what it opened.
const oDirectory = 0

// renameIn renames srel in sr to drel in dr: with os.Root's Rename within
// one root, with renameBetween between two. drel is looked up first, so
// that the move does what a POSIX rename does: without overwrite, an
// existing drel is refused (a small window in which a new drel could be
// replaced); only a directory replaces a directory, and only an empty one,
// which is removed first (os.Root's Rename never replaces one), so that
// for a moment drel is missing. The rename frees what it replaces: free
// is always nil.
func renameIn(sr *diskRoot, srel string, dr *diskRoot, drel string, overwrite bool) (free func(), err error) {
	sinfo, err := sr.root.Lstat(srel)
	if err != nil {
		return nil, err
	}
	dinfo, err := dr.root.Lstat(drel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		dinfo = nil
	case err != nil:
		return nil, err
	case renamesCase(sinfo, dinfo, srel, drel):
		// drel is srel itself, its name in another case: a case-only
		// rename, which replaces nothing.
		dinfo = nil
	case !overwrite:
		return nil, syscall.EEXIST
	case dinfo.IsDir() && !sinfo.IsDir():
		return nil, syscall.EISDIR
	case !dinfo.IsDir() && sinfo.IsDir():
		return nil, syscall.ENOTDIR
	}
	if sr != dr {
		return nil, renameBetween(sr, srel, dr, drel)
	}
	if dinfo != nil && dinfo.IsDir() {
		if err := removeEmptyDir(dr, drel); err != nil {
			return nil, err
		}
	}
	return nil, sr.root.Rename(srel, drel)
}

// renamesCase reports whether renaming srel to drel only changes the case
// of its name: the names differ only in case and name the same file, as
// where the file system ignores case. (Two hard links whose names differ
// only in case pass too; renaming one over the other does nothing.)
func renamesCase(sinfo, dinfo fs.FileInfo, srel, drel string) bool {
	return srel != drel && strings.EqualFold(srel, drel) && os.SameFile(sinfo, dinfo)
}

// removeEmptyDir removes the directory rel of r if it is empty, and
// refuses with ENOTEMPTY if not.
func removeEmptyDir(r *diskRoot, rel string) error {
	f, _, err := r.openDir(rel)
	if err != nil {
		return err
	}
	_, err = f.Readdirnames(1)
	f.Close()
	switch {
	case err == nil:
		return syscall.ENOTEMPTY
	case err != io.EOF:
		return err
	}
	return r.root.Remove(rel)
}
