//go:build !linux

package runtime

import (
	"context"
	"io"
	"io/fs"
	"os"
)

// parentDir is the directory that holds the file a write replaces, opened
// as an os.Root of its own through the root's, so that every step of the
// write is on a single name in that directory.
type parentDir struct{ root *os.Root }

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
	return node{exists: true, mode: info.Mode(), links: linkCount(info)}, nil
}

// readlink returns the target of the symlink name in p.
func (p *parentDir) readlink(name string) (string, error) { return p.root.Readlink(name) }

// replace writes content to a new temporary file beside name (tempName)
// and renames it over name. Only Linux has files without a name
// (O_TMPFILE): here a process killed in the middle of a write leaves the
// temporary file behind.
//
// perm is the new file's permission bits; keep says to set them exactly
// (those of the file replaced), not less the umask. With sync, the file is
// synced before the rename and the directory after it.
func (p *parentDir) replace(ctx context.Context, name, content string, perm fs.FileMode, keep, sync bool) (err error) {
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
		if err = f.Sync(); err != nil {
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
	if err = p.root.Rename(tmp, name); err != nil {
		return err
	}
	if sync {
		// The new content is in place by now; a file system that cannot
		// sync a directory does not make the write a failure.
		if d, derr := p.root.Open("."); derr == nil {
			d.Sync()
			d.Close()
		}
	}
	return nil
}
