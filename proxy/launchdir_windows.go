//go:build windows

package proxy

import "os"

// holdLock creates the file at path and keeps it open: Go opens files
// without FILE_SHARE_DELETE, so that no one can remove it until the
// process that holds it is gone, however it ended.
func holdLock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
}

// lockHeld reports whether a live process holds the lock file at path:
// whether it cannot be removed. A file that no one holds is removed.
func lockHeld(path string) bool {
	return os.Remove(path) != nil
}
