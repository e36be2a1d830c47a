//go:build linux && !acpfs_portable

package fsruntime

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// direntImpl names how this build reads a directory.
const direntImpl = "getdents64"

// direntBuf is the size of the buffer each getdents64 call fills: about
// a thousand entries of ordinary names.
const direntBuf = 32 << 10

// readDirEntries calls fn with each entry of the directory f (not "." or
// ".."), in the order the directory gives them, typed from the d_type
// that getdents64 returns with each name, so the listing costs no system
// call per entry. Where the file system records no type (DT_UNKNOWN),
// lookup describes the entry; an entry it reports gone is left out.
func readDirEntries(ctx context.Context, f *os.File, lookup typeLookup, fn func(DirEntry)) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	buf := make([]byte, direntBuf)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		var n int
		var rerr error
		if err := rc.Read(func(fd uintptr) bool {
			n, rerr = ignoringEINTRn(func() (int, error) { return unix.Getdents(int(fd), buf) })
			return true
		}); err != nil {
			return err
		}
		if rerr != nil {
			return &os.SyscallError{Syscall: "getdents64", Err: rerr}
		}
		if n <= 0 {
			return nil
		}
		if err := parseDirents(buf[:n], lookup, fn); err != nil {
			return err
		}
	}
}

// Offsets in a struct linux_dirent64: d_ino (8 bytes), d_off (8), d_reclen
// (2), d_type (1), then the name, NUL-terminated and padded.
const (
	direntReclen = 16
	direntType   = 18
	direntName   = 19
)

// parseDirents calls fn with each entry in buf, records of getdents64.
func parseDirents(buf []byte, lookup typeLookup, fn func(DirEntry)) error {
	for len(buf) > 0 {
		if len(buf) < direntName {
			return fmt.Errorf("getdents64: a record of %d bytes is too short", len(buf))
		}
		reclen := int(binary.NativeEndian.Uint16(buf[direntReclen:]))
		if reclen < direntName || reclen > len(buf) {
			return fmt.Errorf("getdents64: a record claims %d bytes of %d", reclen, len(buf))
		}
		rec := buf[:reclen]
		buf = buf[reclen:]
		if binary.NativeEndian.Uint64(rec) == 0 { // d_ino 0: a deleted entry
			continue
		}
		name := rec[direntName:]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		if s := string(name); s != "." && s != ".." {
			var typ FileType
			switch rec[direntType] {
			case unix.DT_REG:
				typ = TypeFile
			case unix.DT_DIR:
				typ = TypeDirectory
			case unix.DT_LNK:
				typ = TypeSymlink
			case unix.DT_UNKNOWN:
				t, ok, err := lookup(s)
				if err != nil {
					return err
				}
				if !ok {
					continue
				}
				typ = t
			default: // FIFO, socket, device
				typ = TypeOther
			}
			fn(DirEntry{Name: s, Type: typ})
		}
	}
	return nil
}

// ignoringEINTRn calls f until it fails with something other than EINTR.
func ignoringEINTRn(f func() (int, error)) (int, error) {
	for {
		n, err := f()
		if err != unix.EINTR {
			return n, err
		}
	}
}

// dirStamp returns what identifies the state of the directory f, opened
// at start, for the listing cache (listcache.go), and whether its listing
// may be kept: on a local file system that sets directory times itself
// (the network and FUSE file systems, and overlays, are left out), and
// only if the directory last changed racyMargin or more before start.
// info is f's own description (fstat), taken when it was opened.
func dirStamp(f *os.File, info fs.FileInfo, start time.Time) (dirStampT, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return dirStampT{}, false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return dirStampT{}, false
	}
	var sfs unix.Statfs_t
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.Fstatfs(int(fd), &sfs) }); err != nil || serr != nil {
		return dirStampT{}, false
	}
	switch uint32(sfs.Type) {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC, unix.TMPFS_MAGIC, unix.F2FS_SUPER_MAGIC:
	default:
		return dirStampT{}, false
	}
	stamp := dirStampT{
		key:   dirKey{dev: uint64(st.Dev), ino: uint64(st.Ino)},
		mtime: st.Mtim.Nano(),
		ctime: st.Ctim.Nano(),
	}
	limit := start.Add(-racyMargin).UnixNano()
	return stamp, stamp.mtime < limit && stamp.ctime < limit
}
