//go:build linux && !acpfs_portable

package fsruntime

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// renameImpl names how this build renames.
const renameImpl = "renameat2"

// renamesAcrossRoots says that renameIn can move a directory or a symlink
// from one root to another.
const renamesAcrossRoots = true

// oDirectory makes an open fail at once on anything but a directory.
const oDirectory = syscall.O_DIRECTORY

// renameIn renames srel in sr to drel in dr: one renameat between the
// handles of the two parent directories, each opened through its root's
// os.Root. The last components are single names, which rename never
// follows, so a symlink is moved or replaced as a link. Without overwrite
// it asks for RENAME_NOREPLACE, which refuses an existing drel atomically
// with EEXIST; on a file system without it, drel is looked up first (a
// small window in which a new drel could be replaced). With overwrite, an
// existing drel is held across the rename and free lets it go, as a write
// does (holdReplaced); free is nil when nothing was replaced.
func renameIn(sr *diskRoot, srel string, dr *diskRoot, drel string, overwrite bool) (free func(), err error) {
	err = atParents(sr, srel, dr, drel, func(sfd int, from string, dfd int, to string) error {
		if overwrite {
			old, held := holdName(dfd, to)
			err := ignoringEINTR(func() error { return unix.Renameat(sfd, from, dfd, to) })
			switch {
			case held && err == nil:
				free = func() { unix.Close(old) }
			case held:
				unix.Close(old)
			}
			return err
		}
		err := ignoringEINTR(func() error { return unix.Renameat2(sfd, from, dfd, to, unix.RENAME_NOREPLACE) })
		if err != unix.EINVAL && err != unix.ENOSYS {
			return err
		}
		// No RENAME_NOREPLACE here, or a move into itself, which
		// renameat reports again below.
		var st unix.Stat_t
		switch err := unix.Fstatat(dfd, to, &st, unix.AT_SYMLINK_NOFOLLOW); err {
		case nil:
			return unix.EEXIST
		case unix.ENOENT:
		default:
			return err
		}
		return ignoringEINTR(func() error { return unix.Renameat(sfd, from, dfd, to) })
	})
	return free, err
}
