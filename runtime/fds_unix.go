//go:build unix

package runtime

import (
	"os"

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
