//go:build unix && (!linux || acpfs_portable)

package fsruntime

import (
	"golang.org/x/sys/unix"
)

// renamesAcrossRoots says that renameBetween can move a directory or a
// symlink from one root to another.
const renamesAcrossRoots = true

// renameBetween renames srel in sr to drel in dr, two roots: one renameat
// between the handles of the two parent directories, each opened through
// its root's os.Root, on single names, which rename never follows.
func renameBetween(sr *diskRoot, srel string, dr *diskRoot, drel string) error {
	return atParents(sr, srel, dr, drel, func(sfd int, from string, dfd int, to string) error {
		return ignoringEINTR(func() error { return unix.Renameat(sfd, from, dfd, to) })
	})
}
