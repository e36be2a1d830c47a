package fsruntime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fspath"
)

// DefaultMaxFileSize is the default limit on the size of content returned by
// a read or given to a write: 10 MiB.
const DefaultMaxFileSize = 10 << 20

// DiskOptions configure a [Disk].
type DiskOptions struct {
	// MaxFileSize limits the content a read returns and a write accepts,
	// in bytes. Zero means DefaultMaxFileSize. A line range of a larger
	// file can still be read.
	MaxFileSize int64
	// AllowHardLinks lets the operations on a file's content (reads,
	// writes, hashes, and the Check of the editor route) use a regular
	// file that has more than one name. By default such a file is
	// refused with an error wrapping ErrHardLinked: its other names may
	// lie outside the roots, and a link made there to a file outside
	// would otherwise read or change that file.
	AllowHardLinks bool
	// NoSync makes writes skip fsync. They stay atomic against a process
	// that crashes or is killed (the content goes to a temporary file
	// that is renamed over the target, so the file holds the old content
	// or the new, never a mix), but a power loss or a kernel crash may
	// lose the latest writes, and on some file systems leave a newly
	// written file empty. By default (false) a write syncs the file's
	// data before the rename and the directory after it (not on Windows,
	// which cannot sync a directory).
	NoSync bool
}

// Disk is an FS on local disk, confined to a set of root directories,
// each opened once as an [os.Root]. A path is matched to the root that
// contains it component by component (never by string prefix), and the
// rest is resolved by os.Root, which refuses any symlink or ".." that leads
// out of the root at the time of the operation. A regular file with more
// than one name (hard links) is refused to the operations on its content
// unless [DiskOptions.AllowHardLinks] is set. See DESIGN.md, "Confinement".
type Disk struct {
	roots     []*diskRoot // fixed once opened
	max       int64
	hardLinks bool // DiskOptions.AllowHardLinks
	noSync    bool // DiskOptions.NoSync
	rules     replaceRules
	closed    atomic.Bool
	// freeing are the files writes replaced, being freed after the
	// writes returned (free); Close waits for them. freeMu orders free's
	// check of closed with Close.
	freeing sync.WaitGroup
	freeMu  sync.Mutex

	// listings are the directory listings kept (listcache.go), and now
	// the clock a listing begins by, time.Now but in tests.
	listings *listCache
	now      func() time.Time
}

// Options returns the options d is opened with, the default file size
// limit filled in.
func (d *Disk) Options() DiskOptions {
	return DiskOptions{MaxFileSize: d.max, AllowHardLinks: d.hardLinks, NoSync: d.noSync}
}

// ErrHardLinked: a regular file with more than one name (hard links) was
// refused to an operation on its content, as its other names may lie
// outside the roots. It matches fs.ErrPermission.
var ErrHardLinked = &sentinel{"hard-linked file refused", fs.ErrPermission}

// errClosed is the error of every operation on a closed Disk.
var errClosed = fmt.Errorf("the roots are closed: %w", fs.ErrClosed)

var _ FS = (*Disk)(nil)

type diskRoot struct {
	path string // absolute, clean, as configured
	real string // the same with symlinks resolved; may equal path
	root *os.Root
}

// OpenDisk opens a Disk confined to roots, which must be existing
// directories. Each is made absolute and cleaned; a root reached through a
// symlink is also known by its real path. An empty list gives a Disk that
// refuses every path.
func OpenDisk(roots []string, opts DiskOptions) (*Disk, error) {
	d := &Disk{max: opts.MaxFileSize, hardLinks: opts.AllowHardLinks, noSync: opts.NoSync, rules: hostRules(),
		listings: newListCache(), now: time.Now}
	if d.max <= 0 {
		d.max = DefaultMaxFileSize
	}
	for _, p := range roots {
		if err := checkRootArg(p); err != nil {
			d.Close()
			return nil, &fs.PathError{Op: "open root", Path: p, Err: err}
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			d.Close()
			return nil, &fs.PathError{Op: "open root", Path: p, Err: err}
		}
		if err := d.add(abs, func() (*os.Root, error) { return os.OpenRoot(abs) }); err != nil {
			d.Close()
			return nil, err
		}
	}
	return d, nil
}

func checkRootArg(p string) error {
	if p == "" {
		return fspath.ErrEmpty
	}
	if slices.Contains([]byte(p), 0) {
		return fspath.ErrNUL
	}
	return nil
}

// add opens a root at abs (absolute, clean) with open and records it,
// skipping a duplicate.
func (d *Disk) add(abs string, open func() (*os.Root, error)) error {
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return &fs.PathError{Op: "open root", Path: abs, Err: unwrapPathError(err)}
	}
	for _, r := range d.roots {
		if r.path == abs || r.real == real {
			return nil
		}
	}
	r, err := open()
	if err != nil {
		return &fs.PathError{Op: "open root", Path: abs, Err: unwrapPathError(err)}
	}
	d.roots = append(d.roots, &diskRoot{path: abs, real: real, root: r})
	return nil
}

// Roots returns the root directories, absolute and clean, in the order given.
func (d *Disk) Roots() []string {
	out := make([]string, len(d.roots))
	for i, r := range d.roots {
		out[i] = r.path
	}
	return out
}

// MaxFileSize returns the size limit in force.
func (d *Disk) MaxFileSize() int64 { return d.max }

// Narrow returns a Disk confined to those of dirs that lie inside d's roots,
// plus those of d's roots that lie inside one of dirs: roots can only
// shrink. Each new root is opened through the existing one, so a symlink
// cannot widen it. A dir outside every root, or missing, is dropped. The
// result shares only d's kept listings with d, and must be closed itself.
func (d *Disk) Narrow(dirs []string) (*Disk, error) {
	n := &Disk{max: d.max, hardLinks: d.hardLinks, noSync: d.noSync, rules: d.rules, listings: d.listings, now: d.now}
	for _, dir := range dirs {
		if checkRootArg(dir) != nil || !filepath.IsAbs(dir) {
			continue
		}
		dir = filepath.Clean(dir)
		for _, r := range d.roots {
			if _, ok := fspath.Within(dir, r.path); ok {
				// The whole configured root is inside the client's.
				if err := n.add(r.path, func() (*os.Root, error) { return r.root.OpenRoot(".") }); err != nil {
					n.Close()
					return nil, err
				}
				continue
			}
			rel, ok := r.rel(dir)
			if !ok {
				continue
			}
			// The narrowed root is spelled as its configured root spells
			// the part they share (see CheckedPath).
			if err := n.add(r.spell(dir), func() (*os.Root, error) { return r.root.OpenRoot(rel) }); err != nil {
				if errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrOutsideRoots) || isEscape(err) {
					continue
				}
				n.Close()
				return nil, err
			}
		}
	}
	return n, nil
}

// rel returns p relative to r, matching either of r's names.
func (r *diskRoot) rel(p string) (string, bool) {
	if rel, ok := fspath.Within(r.path, p); ok {
		return rel, true
	}
	if r.real != r.path {
		return fspath.Within(r.real, p)
	}
	return "", false
}

// locate finds the root that holds path, preferring the deepest.
func (d *Disk) locate(path string) (*diskRoot, string, error) {
	if err := fspath.Check(path); err != nil {
		return nil, "", err
	}
	if d.closed.Load() {
		return nil, "", errClosed
	}
	var best *diskRoot
	var bestRel string
	for _, r := range d.roots {
		rel, ok := r.rel(path)
		if ok && (best == nil || len(rel) < len(bestRel)) {
			best, bestRel = r, rel
		}
	}
	if best == nil {
		return nil, "", d.outside()
	}
	return best, bestRel, nil
}

func (d *Disk) outside() error { return &OutsideRootsError{Roots: d.Roots()} }

// Check reports whether path lies inside the roots, following symlinks that
// exist on disk now. It returns nil for a path that does not exist yet but
// whose nearest existing ancestor is inside. It is for routes that do not go
// through Disk (the editor), which must not be sent a path outside the roots.
// As the editor would read or write the file's content, Check also refuses
// what the Disk refuses to such operations: a named pipe, socket or device
// (which could block the editor), and a regular file with other hard
// links, unless they are allowed. A directory passes.
func (d *Disk) Check(path string) error {
	_, err := d.CheckedPath(path)
	return err
}

// CheckedPath is [Disk.Check], and returns path as its root spells it:
// the root's own path joined with the rest of path. That is the path to
// give a peer that resolves names itself (the editor): where roots match
// ignoring case (macOS, Windows), the spelling of the root part of path
// may name another directory on a file system that tells case, or folds
// it otherwise. Where names match byte for byte, it is path.
func (d *Disk) CheckedPath(path string) (string, error) {
	r, rel, err := d.locate(path)
	if err != nil {
		return "", &fs.PathError{Op: "check", Path: path, Err: err}
	}
	if err := d.checkIn(path, r, rel); err != nil {
		return "", err
	}
	return r.spell(path), nil
}

// spell returns p, which lies in r, as r spells it.
func (r *diskRoot) spell(p string) string {
	if s, ok := fspath.Spell(r.path, p); ok {
		return s
	}
	if s, ok := fspath.Spell(r.real, p); ok {
		return s
	}
	return p
}

// checkIn is Check of path, which lies at rel in r.
func (d *Disk) checkIn(path string, r *diskRoot, rel string) error {
	// Walk up to the nearest existing ancestor; Stat follows symlinks
	// and fails if one leads out of the root.
	for p := rel; ; p = filepath.Dir(p) {
		info, err := r.root.Stat(p)
		if err == nil && p == rel && !info.IsDir() {
			if err := d.contentAt(r.root, p, info); err != nil {
				return d.mapErr("check", path, err)
			}
		}
		if err == nil || p == "." {
			return d.mapErr("check", path, err)
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return d.mapErr("check", path, err)
		}
	}
}

// ReadTextFile implements [FS]. It streams: a line range reads only as far
// as its last line and holds only the lines it returns.
func (d *Disk) ReadTextFile(ctx context.Context, path string, line, limit int) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", &fs.PathError{Op: "read", Path: path, Err: err}
	}
	r, rel, err := d.locate(path)
	if err != nil {
		return "", &fs.PathError{Op: "read", Path: path, Err: err}
	}
	// O_NONBLOCK: opening a FIFO must not wait for a writer. It has no
	// effect on the regular files that are read below.
	f, err := r.root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return "", d.openErr("read", path, r, rel, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", d.mapErr("read", path, err)
	}
	if err := d.content(f, info); err != nil {
		return "", d.mapErr("read", path, err)
	}
	whole := line <= 1 && limit <= 0
	if whole && info.Size() > d.max {
		return "", &fs.PathError{Op: "read", Path: path, Err: &TooLargeError{Size: info.Size(), Limit: d.max, Read: true}}
	}
	text, err := readLines(ctxReader{ctx, f}, line, limit, d.max, info.Size())
	if err != nil {
		return "", d.mapErr("read", path, err)
	}
	return text, nil
}

// openErr maps the error of opening rel for reading. A socket (or a device
// without a driver) cannot be opened at all (ENXIO), and is named as
// regular names it.
func (d *Disk) openErr(op, path string, r *diskRoot, rel string, err error) error {
	if errors.Is(err, syscall.ENXIO) {
		if info, serr := r.root.Stat(rel); serr == nil {
			if rerr := regular(info); rerr != nil {
				return &fs.PathError{Op: op, Path: path, Err: rerr}
			}
		}
	}
	return d.mapErr(op, path, err)
}

// regular refuses anything that is not a regular file, naming what it is.
func regular(info fs.FileInfo) error { return RegularMode(info.Mode()) }

// RegularMode refuses a mode m that is not a regular file's, with an
// error that wraps [ErrNotRegular] and names what the file is.
func RegularMode(m fs.FileMode) error {
	if m.IsRegular() {
		return nil
	}
	kind := "special file"
	switch {
	case m.IsDir():
		kind = "directory"
	case m&fs.ModeNamedPipe != 0:
		kind = "named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		kind = "socket"
	case m&fs.ModeDevice != 0:
		kind = "device"
	case m&fs.ModeSymlink != 0:
		kind = "symbolic link"
	}
	return fmt.Errorf("%w: it is a %s", ErrNotRegular, kind)
}

// content refuses, to an operation on the content of the open file f
// (described by info, its own stat), what regular refuses, and a regular
// file with other hard links unless they are allowed.
func (d *Disk) content(f *os.File, info fs.FileInfo) error {
	if err := regular(info); err != nil {
		return err
	}
	return d.links(f, info)
}

// contentAt is content for the file rel in root, described by info from a
// stat of rel.
func (d *Disk) contentAt(root *os.Root, rel string, info fs.FileInfo) error {
	if err := regular(info); err != nil {
		return err
	}
	return d.linksAt(root, rel, info)
}

// links refuses the open file f, described by info, if it is a regular
// file that has more than one name, unless the Disk allows hard links:
// another name may lie outside the roots, so its content is not the
// roots' to give or change. The count comes from info where the
// platform's stat carries it, else from f (Windows).
func (d *Disk) links(f *os.File, info fs.FileInfo) error {
	if d.hardLinks || !info.Mode().IsRegular() {
		return nil
	}
	n, ok := linkCount(info)
	if !ok {
		var err error
		if n, err = fileLinkCount(f); err != nil {
			return err
		}
	}
	return d.linksOf(info.Mode(), n)
}

// linksAt is links for the file rel in root, described by info from a
// stat of rel: where that stat carries no link count (Windows), rel is
// opened to ask its handle.
func (d *Disk) linksAt(root *os.Root, rel string, info fs.FileInfo) error {
	if d.hardLinks || !info.Mode().IsRegular() {
		return nil
	}
	if n, ok := linkCount(info); ok {
		return d.linksOf(info.Mode(), n)
	}
	f, err := root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return d.links(f, info)
}

// linksOf is links for a file of mode m that has n names.
func (d *Disk) linksOf(m fs.FileMode, n uint64) error {
	if d.hardLinks || !m.IsRegular() {
		return nil
	}
	if n > 1 {
		return fmt.Errorf("%w: it has %d names (hard links), and another may lie outside the allowed roots", ErrHardLinked, n)
	}
	return nil
}

// ctxReader stops a long read when its context is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// WriteTextFile implements [FS]. It creates the file and its missing parent
// directories, and replaces the file atomically: a temporary file in the
// same directory, synced unless [DiskOptions.NoSync], is renamed over it,
// so a crash leaves the old or the new content, never a mix. An existing
// file keeps its permission bits (on Windows a read-only file, or one
// another process holds, is refused: [ErrReadOnly], [ErrInUse]). A symlink
// is written through when its target is inside the root, and kept. On
// Linux the replaced file is freed after the call (see [Disk.Close]).
func (d *Disk) WriteTextFile(ctx context.Context, path, content string) error {
	if err := ctx.Err(); err != nil {
		return &fs.PathError{Op: "write", Path: path, Err: err}
	}
	r, rel, err := d.locate(path)
	if err != nil {
		return &fs.PathError{Op: "write", Path: path, Err: err}
	}
	if int64(len(content)) > d.max {
		return &fs.PathError{Op: "write", Path: path, Err: &TooLargeError{Size: int64(len(content)), Limit: d.max}}
	}
	if err := checkText(content); err != nil {
		return &fs.PathError{Op: "write", Path: path, Err: err}
	}
	if rel == "." {
		return &fs.PathError{Op: "write", Path: path, Err: fmt.Errorf("%w: it is a directory (a root)", ErrNotRegular)}
	}
	dir, name, old, err := r.openTarget(rel)
	if err != nil {
		return d.mapErr("write", path, err)
	}
	defer dir.close()
	perm := fs.FileMode(0o666) // less the umask, for a new file
	if old.exists {
		if err := d.rules.writable(old); err != nil {
			return &fs.PathError{Op: "write", Path: path, Err: err}
		}
		if err := d.nodeLinks(dir, name, old); err != nil {
			return d.mapErr("write", path, err)
		}
	}
	keep := old.exists && d.rules.keepMode
	if keep {
		perm = old.mode.Perm()
	}
	if err := dir.replace(ctx, name, content, perm, keep, !d.noSync, d.rules); err != nil {
		return d.mapErr("write", path, err)
	}
	if free := dir.takeReplaced(); free != nil {
		d.free(free)
	}
	return nil
}

// free runs f, which frees the file a write replaced, on a goroutine of
// its own that Close waits for, so that the write returns first; or at
// once, once d is closed.
func (d *Disk) free(f func()) {
	d.freeMu.Lock()
	defer d.freeMu.Unlock()
	if d.closed.Load() {
		f()
		return
	}
	d.freeing.Go(f)
}

// nodeLinks is links for the file name in dir, described by n: where
// the lstat behind n carried no link count (Windows), dir opens the file
// to ask its handle.
func (d *Disk) nodeLinks(dir *parentDir, name string, n node) error {
	if d.hardLinks || !n.mode.IsRegular() {
		return nil
	}
	links, err := dir.links(name, n)
	if err != nil {
		return err
	}
	return d.linksOf(n.mode, links)
}

// checkText refuses content that is not text by the same rule reads use.
func checkText(s string) error {
	head := s[:min(len(s), SniffLen)]
	for i := 0; i < len(head); i++ {
		if head[i] == 0 {
			return ErrBinary
		}
	}
	if !utf8.ValidString(s) {
		return ErrBinary
	}
	return nil
}

// maxLinks bounds the symlink chain a write follows, as the kernel does.
const maxLinks = 40

// node is what a write learns of the name it replaces, from one lstat.
type node struct {
	exists bool
	mode   fs.FileMode
	links  uint64 // how many names the file has, if counted
	// counted says that the lstat gave links; else parentDir.links asks.
	counted bool
}

// openTarget finds the file that a write to rel replaces, following
// symlinks at the final component within the root, and opens the directory
// that holds it (see openParent), creating it and its missing parents if
// need be. It returns the open directory, the file's name in it (a single
// component), and what the name is now: a regular file, or nothing yet. A
// link target is joined lexically to the link's directory; os.Root refuses
// a result that leads out of the root when that directory is opened. See
// DESIGN.md, "Writes in one open directory".
func (r *diskRoot) openTarget(rel string) (*parentDir, string, node, error) {
	for range maxLinks {
		// rel is clean and does not lead out of the root (locate and
		// linkTarget see to it), so name is a single component.
		if rel == "." { // a link to the root
			return nil, "", node{}, fmt.Errorf("%w: it is a directory (a root)", ErrNotRegular)
		}
		dirRel, name := filepath.Dir(rel), filepath.Base(rel)
		if name == ".." {
			return nil, "", node{}, ErrOutsideRoots
		}
		dir, err := openOrMakeParent(r.root, dirRel)
		if err != nil {
			return nil, "", node{}, err
		}
		n, err := dir.lstat(name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return dir, name, node{}, nil
		case err != nil:
		case n.mode&fs.ModeSymlink != 0:
			var dest string
			if dest, err = dir.readlink(name); err == nil {
				dir.close()
				if rel, err = r.linkTarget(dirRel, dest); err != nil {
					return nil, "", node{}, err
				}
				continue
			}
		case n.mode.IsDir():
			err = fmt.Errorf("%w: it is a directory", ErrNotRegular)
		case !n.mode.IsRegular():
			err = RegularMode(n.mode)
		default:
			return dir, name, n, nil
		}
		dir.close()
		return nil, "", node{}, err
	}
	return nil, "", node{}, &fs.PathError{Op: "readlink", Path: rel, Err: syscall.ELOOP}
}

// linkTarget returns the path, relative to the root, that a symlink in the
// directory dirRel pointing to dest names, or ErrOutsideRoots if it leads
// out of the root. It is lexical: os.Root resolves the result.
func (r *diskRoot) linkTarget(dirRel, dest string) (string, error) {
	if filepath.IsAbs(dest) {
		in, ok := r.rel(filepath.Clean(dest))
		if !ok {
			return "", ErrOutsideRoots
		}
		return in, nil
	}
	if !fspath.LinkRelative(dest) {
		return "", ErrOutsideRoots // \x or D:x on Windows: not from the link's directory
	}
	rel := filepath.Join(dirRel, dest)
	if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", ErrOutsideRoots
	}
	return rel, nil
}

// openOrMakeParent opens the directory dir of root with openParent; if it
// is missing, it creates it and its missing parents first. The common case,
// an existing directory, costs one open.
func openOrMakeParent(root *os.Root, dir string) (*parentDir, error) {
	p, err := openParent(root, dir)
	if err == nil || dir == "." || !errors.Is(err, fs.ErrNotExist) {
		return p, err
	}
	if err := root.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	return openParent(root, dir)
}

// tempName returns a new name for a temporary file beside rel: hidden,
// after rel's name, and within NAME_MAX however long that name is.
func tempName(rel string) string {
	suffix := ".tmp-" + randomSuffix()
	base := filepath.Base(rel)
	if keep := fspath.NameMax - len(suffix) - 1; len(base) > keep {
		base = strings.ToValidUTF8(base[:keep], "")
	}
	return filepath.Join(filepath.Dir(rel), "."+base+suffix)
}

func randomSuffix() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Close releases the roots, once the files that writes and moves replaced
// are freed. Later operations fail with an error wrapping fs.ErrClosed; one
// under way may fail too.
func (d *Disk) Close() error {
	if d.closed.Swap(true) {
		return nil
	}
	d.freeMu.Lock() // a free that saw d open has started its goroutine
	d.freeMu.Unlock()
	d.freeing.Wait()
	var errs []error
	for _, r := range d.roots {
		errs = append(errs, r.root.Close())
	}
	return errors.Join(errs...)
}

// mapErr turns an error from os.Root or the reader into the runtime's
// vocabulary, wrapped in a *fs.PathError for op and the caller's path.
func (d *Disk) mapErr(op, path string, err error) error {
	if err == nil {
		return nil
	}
	inner := unwrapPathError(err)
	switch {
	case isEscape(inner), errors.Is(inner, ErrOutsideRoots):
		inner = d.outside()
	case errors.Is(inner, fs.ErrClosed):
		inner = errClosed // the roots closed under the call
	case errors.Is(inner, syscall.ELOOP):
		inner = fmt.Errorf("too many levels of symbolic links: %w", fs.ErrInvalid)
	case errors.Is(inner, syscall.ENOTDIR) && !errors.Is(inner, fs.ErrNotExist):
		// On Windows ENOTDIR is ERROR_PATH_NOT_FOUND, which a missing
		// parent gives as well as a file: it is said to be missing.
		inner = fmt.Errorf("a parent is not a directory: %w", fs.ErrNotExist)
	case errors.Is(inner, syscall.ENOENT), errors.Is(inner, syscall.ENOTDIR):
		inner = fs.ErrNotExist // "file does not exist", as io/fs says it
	case errnoIs(inner, fs.ErrPermission):
		inner = fmt.Errorf("%w (the file system refused access)", fs.ErrPermission)
	case errors.Is(inner, syscall.EISDIR):
		inner = fmt.Errorf("%w: it is a directory", ErrNotRegular)
	case errors.Is(inner, syscall.ENAMETOOLONG):
		inner = fmt.Errorf("a name or the path is too long for the file system (NAME_MAX or PATH_MAX): %w", fs.ErrInvalid)
	}
	return &fs.PathError{Op: op, Path: path, Err: inner}
}

// errnoIs reports whether err is a system error number that matches
// target as the os package matches them: fs.ErrPermission is EACCES and
// EPERM, and on Windows also ERROR_ACCESS_DENIED.
func errnoIs(err, target error) bool {
	var errno syscall.Errno
	return errors.As(err, &errno) && errno.Is(target)
}

// unwrapPathError drops the *fs.PathError that os adds, whose path is
// relative to a root and would confuse a reader of the message.
func unwrapPathError(err error) error {
	for {
		var pe *fs.PathError
		if !errors.As(err, &pe) {
			return err
		}
		err = pe.Err
	}
}

// isEscape reports whether err is os.Root's refusal of a path that leads
// out of the root. The os package does not export that error, so it is
// learnt once by asking a root for "..".
func isEscape(err error) bool {
	escapeOnce.Do(func() {
		if r, rerr := os.OpenRoot(os.TempDir()); rerr == nil {
			_, escapeErr = r.Stat("..")
			escapeErr = unwrapPathError(escapeErr)
			r.Close()
		}
	})
	return escapeErr != nil && errors.Is(err, escapeErr)
}

var (
	escapeOnce sync.Once
	escapeErr  error
)
