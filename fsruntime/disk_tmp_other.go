//go:build !linux || acpfs_portable

package fsruntime

import (
	"context"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// tmpImpl names how this build makes a write's temporary file.
const tmpImpl = "named"

// parentDir is the directory that holds the file a write replaces, opened
// as an os.Root of its own through the root's, so that every step of the
// write is on a single name in that directory.
type parentDir struct{ root *os.Root }

// takeReplaced returns nil: the file a replace renamed over is freed in
// the rename here.
func (p *parentDir) takeReplaced() func() { return nil }

// openParent opens the directory dir of root.
func openParent(root *os.Root, dir string) (*parentDir, error) {
	r, err := root.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &parentDir{root: r}, nil
}

func (p *parentDir) close() { p.root.Close() }

// lstat describes name in p without following a symlink.
func (p *parentDir) lstat(name string) (node, error) {
	info, err := p.root.Lstat(name)
	if err != nil {
		return node{}, err
	}
	n, counted := linkCount(info)
	return node{exists: true, mode: info.Mode(), links: n, counted: counted}, nil
}

// links returns how many names the file name in p, described by n, has:
// where lstat did not count them (Windows), the file is opened to ask.
func (p *parentDir) links(name string, n node) (uint64, error) {
	if n.counted {
		return n.links, nil
	}
	f, err := p.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return fileLinkCount(f)
}

// readlink returns the target of the symlink name in p.
func (p *parentDir) readlink(name string) (string, error) { return p.root.Readlink(name) }

// The syncs of a write, in variables so that a test can count them.
var (
	syncFile = (*os.File).Sync // the temporary file's, before the rename
	syncDir  = (*os.File).Sync // the directory's, after it
)

// replace writes content to a new temporary file beside name (tempName)
// and renames it over name (rules.place). Only Linux has files without a
// name (O_TMPFILE): here a process killed mid-write leaves it behind. perm
// is the new file's permission bits; keep sets them exactly (those of the
// file replaced), not less the umask. With sync, the file is synced before
// the rename and, where rules allow, the directory after it. The temporary
// file is removed if the write fails.
func (p *parentDir) replace(ctx context.Context, name, content string, perm fs.FileMode, keep, sync bool, rules replaceRules) (err error) {
	tmp := tempName(name)
	f, err := p.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	open := true
	defer func() {
		if err != nil {
			if open {
				f.Close()
			}
			p.root.Remove(tmp)
		}
	}()
	if keep {
		// The umask applied at creation; give back the exact bits.
		if err = f.Chmod(perm); err != nil {
			return err
		}
	}
	if _, err = io.WriteString(f, content); err != nil {
		return err
	}
	if sync {
		if err = syncFile(f); err != nil {
			return err
		}
	}
	if err = ctx.Err(); err != nil {
		return err
	}
	open = false
	if err = f.Close(); err != nil {
		return err
	}
	if err = rules.place(ctx, p.root, tmp, name); err != nil {
		return err
	}
	if sync && rules.syncDir {
		// The new content is in place by now; a file system that cannot
		// sync a directory does not make the write a failure.
		if d, derr := p.root.Open("."); derr == nil {
			syncDir(d)
			d.Close()
		}
	}
	return nil
}
