//go:build !linux || acpfs_portable

package runtime

import (
	"errors"
	"io/fs"
	"syscall"
)

// renameImpl names how this build renames.
const renameImpl = "os.Root.Rename"

// oDirectory is not portable; openDir checks the mode of what it opened.
const oDirectory = 0

// renameIn renames srel in sr to drel in dr with os.Root's Rename. Without
// overwrite, drel is looked up first: there is a small window in which a
// new drel could be replaced. Two roots cannot share a rename here, so a
// move between them is treated as one across file systems.
func renameIn(sr *diskRoot, srel string, dr *diskRoot, drel string, overwrite bool) error {
	if sr != dr {
		return syscall.EXDEV
	}
	if !overwrite {
		if _, err := dr.root.Lstat(drel); err == nil {
			return syscall.EEXIST
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return sr.root.Rename(srel, drel)
}
