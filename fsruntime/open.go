package fsruntime

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// openFlags open a file to read its content: O_NONBLOCK, so that opening
// a FIFO does not wait for a writer.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY

// OpenFile opens the regular file at path for reading, within the roots;
// anything else is an error wrapping [ErrNotRegular]. A symlink is
// followed as a read follows it: only as long as it stays inside the root.
func (d *Disk) OpenFile(ctx context.Context, path string) (io.ReadCloser, fs.FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	r, rel, err := d.locate(path)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	f, err := r.root.OpenFile(rel, openFlags, 0)
	if err != nil {
		return nil, nil, d.openErr("open", path, r, rel, err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, d.mapErr("open", path, err)
	}
	if err := d.content(f, info); err != nil {
		f.Close()
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return f, info, nil
}

// OpenFile is [Disk.OpenFile] on disk: ACP has no method for it, and a
// search reads what is saved.
func (r *Router) OpenFile(ctx context.Context, path string) (io.ReadCloser, fs.FileInfo, error) {
	return r.disk.OpenFile(ctx, path)
}

// A Dir is a directory of a Disk held open, to open the files in it by
// name: one openat per file instead of one per path component. It is
// opened through the Disk's root, so it stays confined as OpenFile is.
// A Dir is for one goroutine at a time.
type Dir struct {
	d    *Disk
	path string
	root *os.Root
}

// OpenDir opens the directory at path, within the roots, for
// [Dir.OpenFile]. The caller closes it.
func (d *Disk) OpenDir(ctx context.Context, path string) (*Dir, error) {
	if err := ctx.Err(); err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	r, rel, err := d.locate(path)
	if err == nil {
		var root *os.Root
		if root, err = r.root.OpenRoot(rel); err == nil {
			return &Dir{d: d, path: path, root: root}, nil
		}
	}
	return nil, d.mapErr("open", path, err)
}

// OpenDir is [Disk.OpenDir] on disk, as OpenFile is.
func (r *Router) OpenDir(ctx context.Context, path string) (*Dir, error) {
	return r.disk.OpenDir(ctx, path)
}

// OpenFile opens the file name in the directory as [Disk.OpenFile] opens
// it by its whole path. A name that the directory cannot open, such as a
// symlink that leads out of it, is opened by that path, which may still
// stay inside the roots.
func (dir *Dir) OpenFile(ctx context.Context, name string) (io.ReadCloser, fs.FileInfo, error) {
	f, err := dir.root.OpenFile(name, openFlags, 0)
	if err != nil {
		return dir.d.OpenFile(ctx, filepath.Join(dir.path, name))
	}
	info, err := f.Stat()
	if err == nil {
		err = dir.d.content(f, info)
	}
	if err != nil {
		f.Close()
		return nil, nil, &fs.PathError{Op: "open", Path: filepath.Join(dir.path, name), Err: err}
	}
	return f, info, nil
}

// Close closes the directory.
func (dir *Dir) Close() error { return dir.root.Close() }
