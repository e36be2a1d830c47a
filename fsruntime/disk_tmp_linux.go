//go:build linux && !acpfs_portable

package fsruntime

import (
	"context"
	"io"
	"io/fs"
	"os"
	"strconv"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// tmpImpl names how this build makes a write's temporary file.
const tmpImpl = "O_TMPFILE"

// parentDir is the directory that holds the file a write replaces, opened
// once through the root's os.Root (which refuses a path that leads out of
// the root) and then used by its descriptor alone: every step of the write
// is a system call relative to it on a single name (never a path) that is
// not followed if it is a symlink. See DESIGN.md, "Writes in one open
// directory".
type parentDir struct {
	f  *os.File // keeps fd open
	fd int
	// replaced closes the file the last replace renamed over, which it
	// held open (holdReplaced); nil when there is none.
	replaced func()
}

// openParent opens the directory dir of root. O_NONBLOCK, which means
// nothing to a directory, spares the os package its switches of the
// descriptor into and out of non-blocking mode, and so keeps f.Fd from
// switching it back.
func openParent(root *os.Root, dir string) (*parentDir, error) {
	f, err := root.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	return &parentDir{f: f, fd: int(f.Fd())}, nil
}

func (p *parentDir) close() { p.f.Close() }

// lstat describes name in p without following a symlink.
func (p *parentDir) lstat(name string) (node, error) {
	var st unix.Stat_t
	if err := ignoringEINTR(func() error { return unix.Fstatat(p.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) }); err != nil {
		return node{}, err
	}
	return node{exists: true, mode: fileMode(st.Mode), links: uint64(st.Nlink), counted: true}, nil
}

// links returns how many names the file name in p, described by n, has:
// lstat counted them.
func (p *parentDir) links(name string, n node) (uint64, error) { return n.links, nil }

// fileMode converts the st_mode of a stat to the file's type and
// permission bits, as the os package has them.
func fileMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	}
	return mode
}

// readlink returns the target of the symlink name in p.
func (p *parentDir) readlink(name string) (string, error) {
	for size := 256; ; size *= 2 {
		buf := make([]byte, size)
		var n int
		err := ignoringEINTR(func() (err error) {
			n, err = unix.Readlinkat(p.fd, name, buf)
			return err
		})
		if err != nil {
			return "", err
		}
		if n < size {
			return string(buf[:n]), nil
		}
	}
}

// The syncs of a write, in variables so that a test can count them.
var (
	// syncFile makes a temporary file's data durable before the rename:
	// fdatasync, which is enough (see DESIGN.md, "fdatasync").
	syncFile = unix.Fdatasync
	// syncDir makes the rename durable.
	syncDir = unix.Fsync
)

// replace writes content to a new file in p and renames it over name. The
// file has no name while it is written (O_TMPFILE, see openUnnamed) and is
// named beside name (tempName) only for the rename, so a process killed
// mid-write leaves the old content and nothing else; without O_TMPFILE it
// is named from the start, and such a kill leaves it behind. perm is the
// new file's permission bits; keep sets them exactly (the replaced file's),
// not less the umask. sync syncs the data before the rename and the
// directory after. rules are hostRules: the rename is renameat on p's fd.
func (p *parentDir) replace(ctx context.Context, name, content string, perm fs.FileMode, keep, sync bool, rules replaceRules) (err error) {
	tmp := "" // the temporary file's name, once it has one
	fd, err := p.openUnnamed(perm)
	if err != nil {
		tmp = tempName(name)
		err = ignoringEINTR(func() (err error) {
			fd, err = unix.Openat(p.fd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm))
			return err
		})
		if err != nil {
			return err
		}
	}
	open := true
	defer func() {
		if err != nil {
			if open {
				unix.Close(fd)
			}
			if tmp != "" {
				unix.Unlinkat(p.fd, tmp, 0)
			}
		}
	}()
	if keep {
		// The umask applied at creation; give back the exact bits.
		// Before the data, so that the sync of the data covers it.
		if err = ignoringEINTR(func() error { return unix.Fchmod(fd, uint32(perm)) }); err != nil {
			return err
		}
	}
	if err = writeString(fd, content); err != nil {
		return err
	}
	if sync {
		if err = ignoringEINTR(func() error { return syncFile(fd) }); err != nil {
			return err
		}
	}
	if err = ctx.Err(); err != nil {
		return err
	}
	if tmp == "" {
		named := tempName(name)
		if err = p.linkUnnamed(fd, named); err != nil {
			return err
		}
		tmp = named
	}
	// Close reports a failed write-back on some file systems (NFS): the
	// rename must not put such a file in place.
	open = false
	if err = unix.Close(fd); err != nil {
		return err
	}
	old, held := p.holdReplaced(name)
	if err = ignoringEINTR(func() error { return unix.Renameat(p.fd, tmp, p.fd, name) }); err != nil {
		if held {
			unix.Close(old)
		}
		return err
	}
	if sync && rules.syncDir {
		// The new content is in place by now; a file system that cannot
		// sync a directory does not make the write a failure.
		ignoringEINTR(func() error { return syncDir(p.fd) })
	}
	if held {
		p.replaced = func() { unix.Close(old) }
	}
	return nil
}

// holdReplaced opens the file name in p, which a rename is about to
// replace, so that the rename takes a name from it and does not free it:
// on ext4 that takes rename(2) 0.25 ms for 4 KiB and over 1 ms for 1 MiB,
// under the directory's lock. Closing the descriptor frees the file. See
// DESIGN.md, "The replaced file is freed after the call".
func (p *parentDir) holdReplaced(name string) (fd int, held bool) {
	return holdName(p.fd, name)
}

// holdName opens name in the directory dirfd, without following it, for
// no more than to hold the file: O_PATH needs no permission on it.
func holdName(dirfd int, name string) (fd int, held bool) {
	fd, err := unix.Openat(dirfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	return fd, err == nil
}

// takeReplaced returns the function that closes the file the last replace
// renamed over, and frees it if nothing else holds it, or nil.
func (p *parentDir) takeReplaced() func() {
	f := p.replaced
	p.replaced = nil
	return f
}

// writeString writes s whole to fd. s is given to write(2), which only
// reads it, without a copy.
func writeString(fd int, s string) error {
	b := unsafe.Slice(unsafe.StringData(s), len(s))
	for len(b) > 0 {
		n, err := unix.Write(fd, b)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return err
		case n == 0:
			return io.ErrShortWrite
		}
		b = b[n:]
	}
	return nil
}

// openUnnamed opens a new file with no name in p (O_TMPFILE), for
// linkUnnamed to name once its content is complete: a process killed while
// writing it leaves nothing behind. It fails where the kernel or the file
// system has no O_TMPFILE, or where /proc, which linkUnnamed needs, is not
// mounted; the caller then uses a named temporary file.
func (p *parentDir) openUnnamed(perm fs.FileMode) (int, error) {
	if !procFDs() {
		return -1, unix.EOPNOTSUPP
	}
	var fd int
	err := ignoringEINTR(func() (err error) {
		fd, err = unix.Openat(p.fd, ".", unix.O_WRONLY|unix.O_TMPFILE|unix.O_CLOEXEC, uint32(perm))
		return err
	})
	return fd, err
}

// linkUnnamed gives fd, from openUnnamed, the name name in p. It links the
// file through /proc/self/fd, which, unlike linkat with AT_EMPTY_PATH,
// needs no privilege.
func (p *parentDir) linkUnnamed(fd int, name string) error {
	return ignoringEINTR(func() error {
		return unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), p.fd, name, unix.AT_SYMLINK_FOLLOW)
	})
}

// procFDs reports whether /proc/self/fd is there to link unnamed files
// through.
var procFDs = sync.OnceValue(func() bool {
	_, err := os.Stat("/proc/self/fd")
	return err == nil
})
