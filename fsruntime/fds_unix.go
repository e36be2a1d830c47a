//go:build unix

package fsruntime

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// withFDs calls f with the descriptors of a and b, which stay open
// meanwhile.
func withFDs(a, b *os.File, f func(afd, bfd int) error) error {
	ac, err := a.SyscallConn()
	if err != nil {
		return err
	}
	bc, err := b.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	cerr := ac.Control(func(afd uintptr) {
		if err := bc.Control(func(bfd uintptr) { ferr = f(int(afd), int(bfd)) }); err != nil {
			ferr = err
		}
	})
	if cerr != nil {
		return cerr
	}
	return ferr
}

func ignoringEINTR(f func() error) error {
	for {
		if err := f(); err != unix.EINTR {
			return err
		}
	}
}

// atParents calls f with the descriptors of the parent directories of
// srel in sr and drel in dr, each opened through its root's os.Root, and
// with their last names, which the *at calls never follow.
func atParents(sr *diskRoot, srel string, dr *diskRoot, drel string, f func(sfd int, from string, dfd int, to string) error) error {
	sp, _, err := sr.openDir(filepath.Dir(srel))
	if err != nil {
		return err
	}
	defer sp.Close()
	dp, _, err := dr.openDir(filepath.Dir(drel))
	if err != nil {
		return err
	}
	defer dp.Close()
	return withFDs(sp, dp, func(sfd, dfd int) error {
		return f(sfd, filepath.Base(srel), dfd, filepath.Base(drel))
	})
}
