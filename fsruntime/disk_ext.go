package fsruntime

import (
	"bufio"
	"container/heap"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fspath"
)

// Disk implements the optional interfaces. Every operation goes through the
// os.Root of the root that holds its path, as ReadTextFile and
// WriteTextFile do, so nothing here compares path strings to decide what
// may be touched, and a symlink that leads out of a root is refused by
// os.Root at the moment of the operation.
var (
	_ StatFS   = (*Disk)(nil)
	_ DirFS    = (*Disk)(nil)
	_ WalkFS   = (*Disk)(nil)
	_ MoveFS   = (*Disk)(nil)
	_ BinaryFS = (*Disk)(nil)
	_ HashFS   = (*Disk)(nil)
)

// Errors of the optional operations, each matching the io/fs sentinel that
// fsext.go documents.
var (
	errNotADirectory = &sentinel{"not a directory", fs.ErrInvalid}
	errInTheWay      = &sentinel{"a file that is not a directory is in the way", fs.ErrExist}
	errDstExists     = &sentinel{"the destination exists (set overwrite to replace it)", fs.ErrExist}
	errDstNotEmpty   = &sentinel{"the destination is a directory that is not empty, which is never replaced", fs.ErrExist}
	errDstIsDir      = &sentinel{"the destination is a directory, which only a directory can replace", fs.ErrExist}
	errDstNotDir     = &sentinel{"the destination is not a directory, and the source is one", fs.ErrExist}
	errNotEmpty      = &sentinel{"the directory is not empty (set recursive to remove it with its contents)", fs.ErrExist}
	errIsRoot        = &sentinel{"it is one of the session's roots, which cannot be moved, replaced or removed", fs.ErrPermission}
	errHoldsRoot     = &sentinel{"it holds one of the session's roots, which cannot be moved or removed", fs.ErrPermission}
	errIntoItself    = &sentinel{"cannot move a directory into itself", fs.ErrInvalid}
	errCrossDevice   = &sentinel{"cannot move a directory or symbolic link to another file system, where only a regular file is copied; for a directory, create the destination and move what is in it (an overlay file system, as in a container, counts a directory from its image as another)", errors.ErrUnsupported}
	errCrossRoots    = &sentinel{"cannot move a directory or symbolic link between two roots on this system, where only a regular file is copied; for a directory, create the destination and move what is in it", errors.ErrUnsupported}
	errChanged       = &sentinel{"it was replaced while it was being read", fs.ErrNotExist}
)

// begin checks ctx and finds the root of path, for op.
func (d *Disk) begin(ctx context.Context, op, path string) (*diskRoot, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", &fs.PathError{Op: op, Path: path, Err: err}
	}
	r, rel, err := d.locate(path)
	if err != nil {
		return nil, "", &fs.PathError{Op: op, Path: path, Err: err}
	}
	return r, rel, nil
}

// newFileInfo describes the file at path from what lstat or stat said.
func newFileInfo(path string, info fs.FileInfo) FileInfo {
	return FileInfo{
		Name:    filepath.Base(path),
		Path:    path,
		Type:    fileType(info.Mode()),
		Size:    info.Size(),
		ModTime: info.ModTime(),
		Mode:    info.Mode(),
	}
}

func fileType(m fs.FileMode) FileType {
	switch {
	case m.IsRegular():
		return TypeFile
	case m.IsDir():
		return TypeDirectory
	case m&fs.ModeSymlink != 0:
		return TypeSymlink
	}
	return TypeOther
}

// Stat implements [StatFS]. A symlink is described, not followed; the
// directories on the way to it are resolved within the root.
func (d *Disk) Stat(ctx context.Context, path string) (FileInfo, error) {
	r, rel, err := d.begin(ctx, "stat", path)
	if err != nil {
		return FileInfo{}, err
	}
	info, err := r.root.Lstat(rel)
	if err != nil {
		return FileInfo{}, d.mapErr("stat", path, err)
	}
	return newFileInfo(path, info), nil
}

// openDir opens the directory rel for reading its entries. os.Root follows
// a symlink within the root and refuses one that leads out; O_NONBLOCK
// keeps a FIFO from blocking the open, and the mode is checked on the open
// file, so nothing swapped in after a check is read.
func (r *diskRoot) openDir(rel string) (*os.File, fs.FileInfo, error) {
	f, err := r.root.OpenFile(rel, os.O_RDONLY|oDirectory|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !info.IsDir() {
		f.Close()
		return nil, nil, syscall.ENOTDIR
	}
	return f, info, nil
}

// dirErr maps an error from openDir: a path that exists and is not a
// directory gets errNotADirectory, where mapErr would say that a parent is
// not one. Where open has no O_DIRECTORY, opening a socket or a device
// fails with its own error (ENXIO, EOPNOTSUPP), so any error is checked.
func (d *Disk) dirErr(op, path string, r *diskRoot, rel string, err error) error {
	if errors.Is(err, syscall.ENOTDIR) || oDirectory == 0 {
		if info, serr := r.root.Stat(rel); serr == nil && !info.IsDir() {
			return &fs.PathError{Op: op, Path: path, Err: errNotADirectory}
		}
	}
	return d.mapErr(op, path, err)
}

// ReadDir implements [DirFS]: the entries ListDir names, each then
// described without following symlinks, one fstatat each in the directory
// opened as a root of its own (r.root.Lstat(rel/name) would open and
// close the directory again for every entry). An entry removed between
// the listing and its lstat is left out.
func (d *Disk) ReadDir(ctx context.Context, path string, max int) ([]FileInfo, bool, error) {
	const op = "readdir"
	l, names, truncated, err := d.list(ctx, op, path, max)
	if err != nil {
		return nil, false, err
	}
	defer l.close()
	dir, err := l.root()
	if err != nil {
		return nil, false, d.dirErr(op, path, l.r, l.rel, err)
	}
	entries := make([]FileInfo, 0, len(names))
	for _, e := range names {
		if err := ctx.Err(); err != nil {
			return nil, false, &fs.PathError{Op: op, Path: path, Err: err}
		}
		info, err := dir.Lstat(e.Name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, false, d.mapErr(op, path, err)
		}
		entries = append(entries, newFileInfo(filepath.Join(path, e.Name), info))
	}
	return entries, truncated, nil
}

// ListDir implements [DirFS]. The directory is opened through os.Root (a
// symlinked directory is followed within the root and refused if it leads
// out) and read a buffer at a time, each name with the type the directory
// records for it (see readDirEntries); with a cap, only the max smallest
// names are kept, in a bounded heap, so memory is O(max) however large
// the directory. A listing of a directory that has not changed since it
// was last read is given again without reading it (listcache.go).
func (d *Disk) ListDir(ctx context.Context, path string, max int) ([]DirEntry, bool, error) {
	l, entries, truncated, err := d.list(ctx, "readdir", path, max)
	if err != nil {
		return nil, false, err
	}
	l.close()
	return entries, truncated, nil
}

// list reads the directory at path for ReadDir and ListDir. The lister it
// returns has the directory open as a root if a lookup needed it; the
// caller closes it.
func (d *Disk) list(ctx context.Context, op, path string, max int) (*dirLister, []DirEntry, bool, error) {
	r, rel, err := d.begin(ctx, op, path)
	if err != nil {
		return nil, nil, false, err
	}
	start := d.now()
	f, info, err := r.openDir(rel)
	if err != nil {
		return nil, nil, false, d.dirErr(op, path, r, rel, err)
	}
	defer f.Close()
	l := &dirLister{r: r, rel: rel}
	stamp, keep := dirStamp(f, info, start)
	if keep {
		if h, ok := d.listings.get(stamp); ok {
			if max > 0 && len(h) > max {
				return l, h[:max], true, nil
			}
			return l, h, false, nil
		}
	}
	var h entryHeap
	truncated := false
	err = readDirEntries(ctx, f, l.lookup, func(e DirEntry) {
		switch {
		case max <= 0 || len(h) < max:
			h = append(h, e) // no heap order needed until the cap is passed
		default:
			if !truncated {
				truncated = true
				heap.Init(&h)
			}
			if e.Name < h[0].Name {
				h[0] = e
				heap.Fix(&h, 0)
			}
		}
	})
	if err != nil {
		l.close()
		return nil, nil, false, d.mapErr(op, path, err)
	}
	slices.SortFunc(h, func(a, b DirEntry) int { return strings.Compare(a.Name, b.Name) })
	if keep && !truncated {
		d.listings.put(stamp, h)
	}
	return l, h, truncated, nil
}

// typeLookup describes the entry name of a directory being listed, for a
// listing that was not told its type; ok is false if it is gone.
type typeLookup func(name string) (typ FileType, ok bool, err error)

// dirLister opens the directory being listed as an os.Root, once and only
// when needed, to describe its entries without following symlinks.
type dirLister struct {
	r   *diskRoot
	rel string
	dir *os.Root
}

func (l *dirLister) root() (*os.Root, error) {
	if l.dir == nil {
		dir, err := l.r.root.OpenRoot(l.rel)
		if err != nil {
			return nil, err
		}
		l.dir = dir
	}
	return l.dir, nil
}

func (l *dirLister) lookup(name string) (FileType, bool, error) {
	dir, err := l.root()
	if err != nil {
		return "", false, err
	}
	info, err := dir.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return fileType(info.Mode()), true, nil
}

func (l *dirLister) close() {
	if l.dir != nil {
		l.dir.Close()
	}
}

// entryHeap is a max-heap of entries by name: the largest, the first to
// drop, is on top.
type entryHeap []DirEntry

func (h entryHeap) Len() int           { return len(h) }
func (h entryHeap) Less(i, j int) bool { return h[i].Name > h[j].Name }
func (h entryHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *entryHeap) Push(x any)        { *h = append(*h, x.(DirEntry)) }
func (h *entryHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// MkdirAll implements [DirFS] with os.Root's MkdirAll, which creates each
// missing directory relative to its parent's handle. A symlink to a
// directory inside the root counts as a directory; one that leads out is
// refused; one that dangles is in the way (its target is not created).
func (d *Disk) MkdirAll(ctx context.Context, path string) error {
	const op = "mkdir"
	r, rel, err := d.begin(ctx, op, path)
	if err != nil {
		return err
	}
	if rel == "." {
		return nil // a root is a directory
	}
	if err := r.root.MkdirAll(rel, 0o777); err != nil {
		return d.mkdirErr(op, path, err)
	}
	return nil
}

// mkdirErr maps an error of os.Root's MkdirAll: EEXIST (the path is a
// file) and ENOTDIR (a parent is) both mean that a file is in the way.
func (d *Disk) mkdirErr(op, path string, err error) error {
	inner := unwrapPathError(err)
	if errors.Is(inner, syscall.EEXIST) || errors.Is(inner, syscall.ENOTDIR) {
		return &fs.PathError{Op: op, Path: path, Err: errInTheWay}
	}
	return d.mapErr(op, path, err)
}

// Walk implements [WalkFS]. The root is resolved through os.Root (a
// symlink there is followed within the root); below it, a symlink is
// reported, never followed. A directory is read only if it is still the
// one that was described: one swapped for a symlink or another directory
// meanwhile is reported as an error. ctx is checked before each entry.
// See DESIGN.md, "Disk.Walk".
func (d *Disk) Walk(ctx context.Context, root string, fn WalkFunc) error {
	err := d.walk(ctx, root, fn)
	if err == fs.SkipDir || err == fs.SkipAll {
		return nil
	}
	return err
}

func (d *Disk) walk(ctx context.Context, path string, fn WalkFunc) error {
	const op = "walk"
	if err := ctx.Err(); err != nil {
		return &fs.PathError{Op: op, Path: path, Err: err}
	}
	bare := FileInfo{Name: filepath.Base(path), Path: path}
	r, rel, err := d.locate(path)
	if err != nil {
		return fn(path, bare, &fs.PathError{Op: op, Path: path, Err: err})
	}
	info, err := r.root.Stat(rel)
	if err != nil {
		return fn(path, bare, d.mapErr(op, path, err))
	}
	w := &diskWalker{d: d, r: r, ctx: ctx, fn: fn}
	return w.visit(rel, path, info)
}

type diskWalker struct {
	d   *Disk
	r   *diskRoot
	ctx context.Context
	fn  WalkFunc
}

// visit reports the entry at rel (path to the caller), described by info,
// and walks below it if it is a directory; it follows fs.WalkDir. A
// directory's entries are described one at a time, as the walk reaches
// them, and its descriptor is closed before the walk goes into a
// subdirectory and opened again after (if it is still the same
// directory); see DESIGN.md, "Disk.Walk".
func (w *diskWalker) visit(rel, path string, info fs.FileInfo) error {
	fi := newFileInfo(path, info)
	if err := w.fn(path, fi, nil); err != nil || !info.IsDir() {
		if err == fs.SkipDir && info.IsDir() {
			err = nil
		}
		return err
	}
	// report makes the second call of fn, for an error reading the
	// directory, and says whether to go on with it.
	report := func(err error) (bool, error) {
		if err := w.fn(path, fi, w.d.dirErr("walk", path, w.r, rel, err)); err != nil {
			if err == fs.SkipDir {
				err = nil
			}
			return false, err
		}
		return true, nil
	}
	dir, names, err := w.openNames(rel, info)
	if err != nil {
		if more, err := report(err); !more || dir == nil {
			return err
		}
	}
	defer func() {
		if dir != nil {
			dir.Close()
		}
	}()
	for _, name := range names {
		if err := w.ctx.Err(); err != nil {
			return &fs.PathError{Op: "walk", Path: path, Err: err}
		}
		if dir == nil {
			if dir, err = w.openAt(rel, info); err != nil {
				_, err := report(err)
				return err
			}
		}
		einfo, err := dir.Lstat(name)
		if err != nil {
			continue // gone
		}
		if einfo.IsDir() {
			dir.Close() // a deep tree holds no descriptors
			dir = nil
		}
		if err := w.visit(filepath.Join(rel, name), filepath.Join(path, name), einfo); err != nil {
			if err == fs.SkipDir {
				break
			}
			return err
		}
	}
	return nil
}

// openAt opens the directory at rel, which must still be the one described
// by want.
func (w *diskWalker) openAt(rel string, want fs.FileInfo) (*os.Root, error) {
	dir, err := w.r.root.OpenRoot(rel)
	if err != nil {
		return nil, err
	}
	info, err := dir.Stat(".")
	if err == nil && !os.SameFile(info, want) {
		err = errChanged
	}
	if err != nil {
		dir.Close()
		return nil, err
	}
	return dir, nil
}

// openNames opens the directory at rel as openAt does, and reads its
// names, sorted. On an error reading them it returns the open directory,
// the names read, and the error.
func (w *diskWalker) openNames(rel string, want fs.FileInfo) (*os.Root, []string, error) {
	dir, err := w.openAt(rel, want)
	if err != nil {
		return nil, nil, err
	}
	f, err := dir.Open(".")
	if err != nil {
		return dir, nil, err
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	slices.Sort(names)
	return dir, names, err
}

// Move implements [MoveFS] with one rename between the two parent
// directories, each opened through its root's os.Root, so src and dst may
// be in different roots and neither can be redirected out of them. Without
// overwrite an existing dst is refused (DESIGN.md, "Disk.Move without
// overwrite"); with it, on Linux the file replaced is freed after the call,
// as by a write. Across file systems a regular file is copied to a synced
// file beside dst, renamed into place, then removed from src; a directory
// or symlink is refused (errors.ErrUnsupported), as between roots on Windows.
func (d *Disk) Move(ctx context.Context, src, dst string, overwrite bool) error {
	const op = "move"
	sr, srel, err := d.begin(ctx, op, src)
	if err != nil {
		return err
	}
	dr, drel, err := d.begin(ctx, op, dst)
	if err != nil {
		return err
	}
	if srel == "." {
		return &fs.PathError{Op: op, Path: src, Err: errIsRoot}
	}
	if drel == "." {
		return &fs.PathError{Op: op, Path: dst, Err: errIsRoot}
	}
	sinfo, err := sr.root.Lstat(srel)
	if err != nil {
		return d.mapErr(op, src, err)
	}
	if err := d.guard(sinfo); err != nil {
		return &fs.PathError{Op: op, Path: src, Err: err}
	}
	if src == dst {
		if !overwrite {
			return &fs.PathError{Op: op, Path: dst, Err: errDstExists}
		}
		return nil
	}
	if sinfo.IsDir() && fspath.Below(src, dst) {
		return &fs.PathError{Op: op, Path: dst, Err: errIntoItself}
	}
	if dinfo, err := dr.root.Lstat(drel); err == nil {
		if err := d.guard(dinfo); err != nil {
			return &fs.PathError{Op: op, Path: dst, Err: err}
		}
	}
	if parent := filepath.Dir(drel); parent != "." {
		if err := dr.root.MkdirAll(parent, 0o777); err != nil {
			return d.mkdirErr(op, dst, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return &fs.PathError{Op: op, Path: src, Err: err}
	}
	free, err := renameIn(sr, srel, dr, drel, overwrite)
	if errors.Is(err, syscall.EXDEV) {
		return d.moveAcross(ctx, src, dst, sr, srel, sinfo, dr, drel, overwrite)
	}
	if free != nil {
		d.free(free)
	}
	return d.moveErr(src, dst, overwrite, err)
}

// moveErr maps an error of a rename to the path at fault. With overwrite,
// EEXIST is a directory in the way that is not empty: POSIX lets rename
// report one with either error, and XFS, unlike ext4, says EEXIST.
func (d *Disk) moveErr(src, dst string, overwrite bool, err error) error {
	const op = "move"
	if err == nil {
		return nil
	}
	inner := unwrapPathError(err)
	var le *os.LinkError
	if errors.As(inner, &le) {
		inner = le.Err
	}
	switch {
	case errors.Is(inner, syscall.ENOTEMPTY), overwrite && errors.Is(inner, syscall.EEXIST):
		return &fs.PathError{Op: op, Path: dst, Err: errDstNotEmpty}
	case errors.Is(inner, syscall.EEXIST):
		return &fs.PathError{Op: op, Path: dst, Err: errDstExists}
	case errors.Is(inner, syscall.EISDIR):
		return &fs.PathError{Op: op, Path: dst, Err: errDstIsDir}
	case errors.Is(inner, syscall.ENOTDIR):
		return &fs.PathError{Op: op, Path: dst, Err: errDstNotDir}
	case errors.Is(inner, syscall.EINVAL):
		return &fs.PathError{Op: op, Path: dst, Err: errIntoItself}
	case errors.Is(inner, syscall.EXDEV):
		return &fs.PathError{Op: op, Path: src, Err: errCrossDevice}
	}
	return d.mapErr(op, src, inner)
}

// moveAcross moves a regular file to another file system by copying it.
// The copy goes to a temporary file beside dst (synced unless
// [DiskOptions.NoSync]), which is renamed into place (with the same rule
// about an existing dst), and only then is src removed. If src cannot be
// removed, both remain and the error says so.
func (d *Disk) moveAcross(ctx context.Context, src, dst string, sr *diskRoot, srel string, sinfo fs.FileInfo, dr *diskRoot, drel string, overwrite bool) (err error) {
	const op = "move"
	if !sinfo.Mode().IsRegular() {
		if sr != dr && !renamesAcrossRoots {
			return &fs.PathError{Op: op, Path: src, Err: errCrossRoots}
		}
		return &fs.PathError{Op: op, Path: src, Err: errCrossDevice}
	}
	in, err := sr.root.OpenFile(srel, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return d.mapErr(op, src, err)
	}
	defer in.Close()
	if info, err := in.Stat(); err != nil || !os.SameFile(info, sinfo) {
		return &fs.PathError{Op: op, Path: src, Err: errChanged}
	}
	// The copy would give the content of a file with other names, which
	// may lie outside the roots, a name of its own.
	if err := d.links(in, sinfo); err != nil {
		return d.mapErr(op, src, err)
	}
	perm := sinfo.Mode().Perm()
	tmp := tempName(drel)
	out, err := dr.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return d.mapErr(op, dst, err)
	}
	placed := false
	defer func() {
		if !placed {
			out.Close()
			dr.root.Remove(tmp)
		}
	}()
	if _, err := io.Copy(out, ctxReader{ctx, in}); err != nil {
		return d.mapErr(op, src, err)
	}
	steps := []func() error{out.Sync, out.Close}
	if d.noSync {
		steps = steps[1:]
	}
	if d.rules.keepMode {
		steps = slices.Insert(steps, 0, func() error { return out.Chmod(perm) })
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return d.mapErr(op, dst, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return &fs.PathError{Op: op, Path: src, Err: err}
	}
	free, err := renameIn(dr, tmp, dr, drel, overwrite)
	if err != nil {
		return d.moveErr(src, dst, overwrite, err)
	}
	if free != nil {
		d.free(free)
	}
	placed = true
	if err := sr.root.Remove(srel); err != nil {
		return &fs.PathError{Op: op, Path: src, Err: &copiedError{unwrapPathError(d.mapErr(op, src, err))}}
	}
	return nil
}

// copiedError reports a move across file systems whose copy landed but
// whose source could not be removed.
type copiedError struct{ err error }

func (e *copiedError) Error() string {
	return "copied to the destination, but the source could not be removed: " + e.err.Error()
}
func (e *copiedError) Unwrap() error { return e.err }

// guard refuses to move or remove a directory that is one of the roots or
// holds one. It compares files, not names, so no alias of a root gets
// past it: a root is matched by its open handle, and the directories
// above it by their paths. A file or symlink can be neither.
func (d *Disk) guard(info fs.FileInfo) error {
	if !info.IsDir() {
		return nil
	}
	for _, o := range d.roots {
		if oi, err := o.root.Stat("."); err == nil && os.SameFile(info, oi) {
			return errIsRoot
		}
		for p := filepath.Dir(o.real); ; p = filepath.Dir(p) {
			if pi, err := os.Stat(p); err == nil && os.SameFile(info, pi) {
				return errHoldsRoot
			}
			if p == filepath.Dir(p) {
				break
			}
		}
	}
	return nil
}

// Remove implements [MoveFS]. A recursive removal is os.Root's RemoveAll,
// which unlinks a symlink without following it and opens each directory
// below relative to its parent without following symlinks, so it cannot
// be led out of the root. Once started it runs to the end: ctx is checked
// only before.
func (d *Disk) Remove(ctx context.Context, path string, recursive bool) error {
	const op = "remove"
	r, rel, err := d.begin(ctx, op, path)
	if err != nil {
		return err
	}
	if rel == "." {
		return &fs.PathError{Op: op, Path: path, Err: errIsRoot}
	}
	info, err := r.root.Lstat(rel)
	if err != nil {
		return d.mapErr(op, path, err)
	}
	if err := d.guard(info); err != nil {
		return &fs.PathError{Op: op, Path: path, Err: err}
	}
	if recursive && info.IsDir() {
		err = r.root.RemoveAll(rel)
	} else {
		err = r.root.Remove(rel)
	}
	if err != nil {
		// A directory that is not empty: ENOTEMPTY or EEXIST in POSIX,
		// ERROR_DIR_NOT_EMPTY on Windows; all match fs.ErrExist.
		if errors.Is(unwrapPathError(err), fs.ErrExist) {
			return &fs.PathError{Op: op, Path: path, Err: errNotEmpty}
		}
		return d.mapErr(op, path, err)
	}
	return nil
}

// openRegular opens the regular file at path for reading, as ReadTextFile
// does: O_NONBLOCK so that a FIFO cannot block the open, and anything but
// a regular file refused on the open file.
func (d *Disk) openRegular(ctx context.Context, op, path string) (*os.File, fs.FileInfo, error) {
	r, rel, err := d.begin(ctx, op, path)
	if err != nil {
		return nil, nil, err
	}
	f, err := r.root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, d.openErr(op, path, r, rel, err)
	}
	info, err := f.Stat()
	if err == nil {
		err = d.content(f, info)
	}
	if err != nil {
		f.Close()
		return nil, nil, d.mapErr(op, path, err)
	}
	return f, info, nil
}

// ReadFile implements [BinaryFS]. max <= 0 means the Disk's MaxFileSize.
// It reads at most max+1 bytes, so a file that grows while it is read is
// still refused without being held whole.
func (d *Disk) ReadFile(ctx context.Context, path string, max int64) ([]byte, error) {
	const op = "read"
	if max <= 0 {
		max = d.max
	}
	f, info, err := d.openRegular(ctx, op, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info.Size() > max {
		return nil, &fs.PathError{Op: op, Path: path, Err: &TooLargeError{Size: info.Size(), Limit: max}}
	}
	// One byte more than max tells a file that grew from one that did
	// not.
	b, err := readAtMost(ctxReader{ctx, f}, min(max, math.MaxInt64-1)+1, info.Size()+1)
	if err != nil {
		return nil, d.mapErr(op, path, err)
	}
	if int64(len(b)) > max {
		return nil, &fs.PathError{Op: op, Path: path, Err: &TooLargeError{Size: int64(len(b)), Limit: max}}
	}
	return b, nil
}

// readAtMost reads r to its end or to n bytes, whichever is first,
// starting with a buffer of hint bytes.
func readAtMost(r io.Reader, n, hint int64) ([]byte, error) {
	b := make([]byte, 0, min(max(hint, 512), n))
	for int64(len(b)) < n {
		if len(b) == cap(b) {
			b = slices.Grow(b, int(min(int64(cap(b)), n-int64(len(b)))))
		}
		m, err := r.Read(b[len(b):min(int64(cap(b)), n)])
		b = b[:len(b)+m]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return b, nil
}

// HashTextFile implements [HashFS]. It streams the file through SHA-256
// without holding it, so a file over MaxFileSize is hashed too (a range
// of it can be read, and the hash of the whole still checked). It refuses
// what a whole read refuses as binary, by the same rule: a NUL byte or
// invalid UTF-8 in the first 8 KiB, or invalid UTF-8 anywhere.
func (d *Disk) HashTextFile(ctx context.Context, path string) (string, error) {
	const op = "hash"
	f, _, err := d.openRegular(ctx, op, path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sum, err := hashText(ctxReader{ctx, f})
	if err != nil {
		return "", d.mapErr(op, path, err)
	}
	return sum, nil
}

// hashText returns the HashText of what r yields, or ErrBinary if a whole
// read would refuse it.
func hashText(r io.Reader) (string, error) {
	br := bufio.NewReaderSize(r, readBufSize)
	if err := sniff(br); err != nil {
		return "", err
	}
	h := sha256.New()
	var v utf8Checker
	if _, err := br.WriteTo(io.MultiWriter(h, &v)); err != nil {
		return "", err
	}
	if !v.Valid() {
		return "", ErrBinary
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// utf8Checker is an io.Writer that checks that what is written to it, in
// any chunks, is valid UTF-8 as a whole.
type utf8Checker struct {
	carry [utf8.UTFMax]byte // the start of a rune cut at the end of a chunk
	n     int
	bad   bool
}

func (c *utf8Checker) Write(p []byte) (int, error) {
	written := len(p)
	if c.bad {
		return written, nil
	}
	if c.n > 0 {
		// Finish the rune that the last chunk cut.
		var buf [2 * utf8.UTFMax]byte
		k := copy(buf[:], c.carry[:c.n])
		k += copy(buf[k:], p[:min(len(p), utf8.UTFMax)])
		if !utf8.FullRune(buf[:k]) {
			// Still cut: p was too short to finish it.
			c.n += copy(c.carry[c.n:], p)
			return written, nil
		}
		r, size := utf8.DecodeRune(buf[:k])
		if r == utf8.RuneError && size == 1 {
			c.bad = true
			return written, nil
		}
		p = p[size-c.n:]
		c.n = 0
	}
	// Keep a rune cut at the end for the next chunk.
	cut := 0
	for i := 1; i < utf8.UTFMax && i <= len(p); i++ {
		if utf8.RuneStart(p[len(p)-i]) {
			if !utf8.FullRune(p[len(p)-i:]) {
				cut = i
			}
			break
		}
	}
	if !utf8.Valid(p[:len(p)-cut]) {
		c.bad = true
		return written, nil
	}
	c.n = copy(c.carry[:], p[len(p)-cut:])
	return written, nil
}

// Valid reports whether everything written was valid UTF-8, with no rune
// left unfinished.
func (c *utf8Checker) Valid() bool { return !c.bad && c.n == 0 }
