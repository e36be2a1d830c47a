//go:build unix

package proxy

import (
	"os"

	"golang.org/x/sys/unix"
)

// holdLock creates the file at path and takes an exclusive flock on it,
// which the kernel releases when the process is gone, however it ended.
func holdLock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// lockHeld reports whether a live process holds the lock file at path.
// It counts as held when it cannot be tested.
func lockHeld(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return true
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return true
	}
	unix.Flock(int(f.Fd()), unix.LOCK_UN)
	return false
}
