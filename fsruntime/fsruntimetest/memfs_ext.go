package fsruntimetest

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
)

// ExtMemFS is a [MemFS] that also implements every optional interface of
// package fsruntime, as the disk does, without symlinks; MemFS itself has
// none, so that a test can also run a caller's fallbacks. It passes
// [TestFSExt], and [TestRootsExt] when Roots is set. Directories are implied
// by the files below them, and made explicit (listed, removable) by MkdirAll
// or a move of an empty directory. A root in Roots always exists; neither it
// nor a directory above it can be moved or removed. Files are mode 0644,
// directories 0755; a file's ModTime is the time of its last write.
type ExtMemFS struct {
	*MemFS // required
}

// NewExtMemFS returns an empty ExtMemFS with no size limit and no roots.
func NewExtMemFS() *ExtMemFS { return &ExtMemFS{NewMemFS()} }

var (
	_ fsruntime.StatFS   = (*ExtMemFS)(nil)
	_ fsruntime.DirFS    = (*ExtMemFS)(nil)
	_ fsruntime.WalkFS   = (*ExtMemFS)(nil)
	_ fsruntime.MoveFS   = (*ExtMemFS)(nil)
	_ fsruntime.BinaryFS = (*ExtMemFS)(nil)
	_ fsruntime.HashFS   = (*ExtMemFS)(nil)
)

var (
	errMemNotDir    = fmt.Errorf("not a directory: %w", fs.ErrInvalid)
	errMemInTheWay  = fmt.Errorf("a file that is not a directory is in the way: %w", fs.ErrExist)
	errMemExists    = fmt.Errorf("the destination exists: %w", fs.ErrExist)
	errMemNotEmpty  = fmt.Errorf("the directory is not empty: %w", fs.ErrExist)
	errMemRoot      = fmt.Errorf("it is, or holds, a root: %w", fs.ErrPermission)
	errMemIntoSelf  = fmt.Errorf("cannot move a directory into itself: %w", fs.ErrInvalid)
	errMemMismatch  = fmt.Errorf("the destination is not of the same kind as the source: %w", fs.ErrExist)
	memFileMode     = fs.FileMode(0o644)
	memDirMode      = fs.ModeDir | 0o755
	memSep          = string(filepath.Separator)
	errMemNoParents = fmt.Errorf("a parent is not a directory: %w", fs.ErrNotExist)
)

// under returns the prefix of every path below dir.
func under(dir string) string {
	if strings.HasSuffix(dir, memSep) {
		return dir
	}
	return dir + memSep
}

// isRoot reports whether path is one of m's roots.
func (m *ExtMemFS) isRoot(path string) bool {
	return slices.ContainsFunc(m.Roots, func(r string) bool { return filepath.Clean(r) == path })
}

// holdsRoot reports whether path is one of m's roots or above one.
func (m *ExtMemFS) holdsRoot(path string) bool {
	return slices.ContainsFunc(m.Roots, func(r string) bool {
		r = filepath.Clean(r)
		return r == path || strings.HasPrefix(r, under(path))
	})
}

// dirExists reports whether path is a directory. m.mu must be held.
func (m *ExtMemFS) dirExists(path string) bool {
	return path == memSep || m.isRoot(path) || m.isDir(path)
}

// fileAbove reports whether a file is path or above it. m.mu must be held.
func (m *ExtMemFS) fileAbove(path string) bool {
	for p := path; ; p = filepath.Dir(p) {
		if _, ok := m.files[p]; ok {
			return true
		}
		if p == filepath.Dir(p) {
			return false
		}
	}
}

// info describes path. m.mu must be held.
func (m *ExtMemFS) info(path string) (fsruntime.FileInfo, bool) {
	fi := fsruntime.FileInfo{Name: filepath.Base(path), Path: path}
	if content, ok := m.files[path]; ok {
		fi.Type, fi.Size, fi.ModTime, fi.Mode = fsruntime.TypeFile, int64(len(content)), m.mod[path], memFileMode
		return fi, true
	}
	if m.dirExists(path) {
		fi.Type, fi.Mode = fsruntime.TypeDirectory, memDirMode
		return fi, true
	}
	return fi, false
}

// children returns the names directly in the directory dir, sorted. m.mu
// must be held.
func (m *ExtMemFS) children(dir string) []string {
	prefix := under(dir)
	seen := map[string]bool{}
	add := func(p string) {
		if rest, ok := strings.CutPrefix(p, prefix); ok && rest != "" {
			name, _, _ := strings.Cut(rest, memSep)
			seen[name] = true
		}
	}
	for p := range m.files {
		add(p)
	}
	for p := range m.dirs {
		add(p)
	}
	names := make([]string, 0, len(seen))
	for name := range seen {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Stat implements [fsruntime.StatFS].
func (m *ExtMemFS) Stat(ctx context.Context, path string) (fsruntime.FileInfo, error) {
	if err := m.check(ctx, path); err != nil {
		return fsruntime.FileInfo{}, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	fi, ok := m.info(path)
	if !ok {
		return fsruntime.FileInfo{}, &fs.PathError{Op: "stat", Path: path, Err: fs.ErrNotExist}
	}
	return fi, nil
}

// ReadDir implements [fsruntime.DirFS].
func (m *ExtMemFS) ReadDir(ctx context.Context, path string, max int) ([]fsruntime.FileInfo, bool, error) {
	if err := m.check(ctx, path); err != nil {
		return nil, false, &fs.PathError{Op: "readdir", Path: path, Err: err}
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	fi, ok := m.info(path)
	switch {
	case !ok:
		return nil, false, &fs.PathError{Op: "readdir", Path: path, Err: fs.ErrNotExist}
	case fi.Type != fsruntime.TypeDirectory:
		return nil, false, &fs.PathError{Op: "readdir", Path: path, Err: errMemNotDir}
	}
	names := m.children(path)
	truncated := max > 0 && len(names) > max
	if truncated {
		names = names[:max]
	}
	entries := make([]fsruntime.FileInfo, len(names))
	for i, name := range names {
		entries[i], _ = m.info(filepath.Join(path, name))
	}
	return entries, truncated, nil
}

// ListDir implements [fsruntime.DirFS].
func (m *ExtMemFS) ListDir(ctx context.Context, path string, max int) ([]fsruntime.DirEntry, bool, error) {
	infos, truncated, err := m.ReadDir(ctx, path, max)
	if err != nil {
		return nil, false, err
	}
	entries := make([]fsruntime.DirEntry, len(infos))
	for i, fi := range infos {
		entries[i] = fsruntime.DirEntry{Name: fi.Name, Type: fi.Type}
	}
	return entries, truncated, nil
}

// MkdirAll implements [fsruntime.DirFS].
func (m *ExtMemFS) MkdirAll(ctx context.Context, path string) error {
	if err := m.check(ctx, path); err != nil {
		return &fs.PathError{Op: "mkdir", Path: path, Err: err}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fileAbove(path) {
		return &fs.PathError{Op: "mkdir", Path: path, Err: errMemInTheWay}
	}
	m.keepDir(path)
	return nil
}

// Walk implements [fsruntime.WalkFS]. The lock is not held while fn runs,
// so fn may use m.
func (m *ExtMemFS) Walk(ctx context.Context, root string, fn fsruntime.WalkFunc) error {
	if err := ctx.Err(); err != nil {
		return &fs.PathError{Op: "walk", Path: root, Err: err}
	}
	bare := fsruntime.FileInfo{Name: filepath.Base(root), Path: root}
	err := m.check(ctx, root)
	if err != nil {
		err = fn(root, bare, &fs.PathError{Op: "walk", Path: root, Err: err})
	} else if fi, ok := m.lockedInfo(root); !ok {
		err = fn(root, bare, &fs.PathError{Op: "walk", Path: root, Err: fs.ErrNotExist})
	} else {
		err = m.walk(ctx, fi, fn)
	}
	if err == fs.SkipDir || err == fs.SkipAll {
		return nil
	}
	return err
}

func (m *ExtMemFS) lockedInfo(path string) (fsruntime.FileInfo, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.info(path)
}

// walk follows fs.WalkDir.
func (m *ExtMemFS) walk(ctx context.Context, fi fsruntime.FileInfo, fn fsruntime.WalkFunc) error {
	if err := fn(fi.Path, fi, nil); err != nil || fi.Type != fsruntime.TypeDirectory {
		if err == fs.SkipDir && fi.Type == fsruntime.TypeDirectory {
			err = nil
		}
		return err
	}
	m.mu.RLock()
	names := m.children(fi.Path)
	m.mu.RUnlock()
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return &fs.PathError{Op: "walk", Path: fi.Path, Err: err}
		}
		child, ok := m.lockedInfo(filepath.Join(fi.Path, name))
		if !ok {
			continue // removed by fn
		}
		if err := m.walk(ctx, child, fn); err != nil {
			if err == fs.SkipDir {
				break
			}
			return err
		}
	}
	return nil
}

// Move implements [fsruntime.MoveFS].
func (m *ExtMemFS) Move(ctx context.Context, src, dst string, overwrite bool) error {
	fail := func(path string, err error) error { return &fs.PathError{Op: "move", Path: path, Err: err} }
	if err := m.check(ctx, src); err != nil {
		return fail(src, err)
	}
	if err := m.check(ctx, dst); err != nil {
		return fail(dst, err)
	}
	if m.holdsRoot(src) {
		return fail(src, errMemRoot)
	}
	if m.isRoot(dst) {
		return fail(dst, errMemRoot)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	sfi, ok := m.info(src)
	switch {
	case !ok:
		return fail(src, fs.ErrNotExist)
	case src == dst && !overwrite:
		return fail(dst, errMemExists)
	case src == dst:
		return nil
	case sfi.Type == fsruntime.TypeDirectory && strings.HasPrefix(dst, under(src)):
		return fail(dst, errMemIntoSelf)
	case m.fileAbove(filepath.Dir(dst)):
		return fail(dst, errMemInTheWay)
	}
	if dfi, ok := m.info(dst); ok {
		switch {
		case !overwrite:
			return fail(dst, errMemExists)
		case dfi.Type != sfi.Type:
			return fail(dst, errMemMismatch)
		case dfi.Type == fsruntime.TypeDirectory && len(m.children(dst)) > 0:
			return fail(dst, errMemNotEmpty)
		}
		delete(m.dirs, dst)
	}
	m.keepDir(filepath.Dir(src))
	if sfi.Type == fsruntime.TypeFile {
		m.files[dst], m.mod[dst] = m.files[src], m.mod[src]
		delete(m.files, src)
		delete(m.mod, src)
		return nil
	}
	from, to := under(src), under(dst)
	for p, content := range m.files {
		if rest, ok := strings.CutPrefix(p, from); ok {
			m.files[to+rest], m.mod[to+rest] = content, m.mod[p]
			delete(m.files, p)
			delete(m.mod, p)
		}
	}
	for p := range m.dirs {
		if rest, ok := strings.CutPrefix(p, from); ok {
			m.dirs[to+rest] = true
			delete(m.dirs, p)
		}
	}
	delete(m.dirs, src)
	m.keepDir(dst)
	return nil
}

// keepDir makes dir explicit, so that it outlives what is moved or removed
// from it, as a directory on disk does. m.mu must be held.
func (m *ExtMemFS) keepDir(dir string) {
	if m.dirs == nil {
		m.dirs = make(map[string]bool)
	}
	m.dirs[dir] = true
}

// Remove implements [fsruntime.MoveFS].
func (m *ExtMemFS) Remove(ctx context.Context, path string, recursive bool) error {
	fail := func(err error) error { return &fs.PathError{Op: "remove", Path: path, Err: err} }
	if err := m.check(ctx, path); err != nil {
		return fail(err)
	}
	if m.holdsRoot(path) || path == memSep {
		return fail(errMemRoot)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	fi, ok := m.info(path)
	switch {
	case !ok:
		return fail(fs.ErrNotExist)
	case fi.Type != fsruntime.TypeFile && !recursive && len(m.children(path)) > 0:
		return fail(errMemNotEmpty)
	}
	m.keepDir(filepath.Dir(path))
	if fi.Type == fsruntime.TypeFile {
		delete(m.files, path)
		delete(m.mod, path)
		return nil
	}
	prefix := under(path)
	for p := range m.files {
		if strings.HasPrefix(p, prefix) {
			delete(m.files, p)
			delete(m.mod, p)
		}
	}
	for p := range m.dirs {
		if strings.HasPrefix(p, prefix) {
			delete(m.dirs, p)
		}
	}
	delete(m.dirs, path)
	return nil
}

// ReadFile implements [fsruntime.BinaryFS]. max <= 0 means Max, and no limit
// if Max is 0 too.
func (m *ExtMemFS) ReadFile(ctx context.Context, path string, max int64) ([]byte, error) {
	content, err := m.file(ctx, "read", path)
	if err != nil {
		return nil, err
	}
	if max <= 0 {
		max = m.Max
	}
	if max > 0 && int64(len(content)) > max {
		return nil, &fs.PathError{Op: "read", Path: path, Err: &fsruntime.TooLargeError{Size: int64(len(content)), Limit: max}}
	}
	return []byte(content), nil
}

// HashTextFile implements [fsruntime.HashFS]. Like the disk, it hashes a
// file over Max too.
func (m *ExtMemFS) HashTextFile(ctx context.Context, path string) (string, error) {
	content, err := m.file(ctx, "hash", path)
	if err != nil {
		return "", err
	}
	if !isText(content) {
		return "", &fs.PathError{Op: "hash", Path: path, Err: fsruntime.ErrBinary}
	}
	return fsruntime.HashText(content), nil
}

// file returns the content of the file at path.
func (m *ExtMemFS) file(ctx context.Context, op, path string) (string, error) {
	if err := m.check(ctx, path); err != nil {
		return "", &fs.PathError{Op: op, Path: path, Err: err}
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	fi, ok := m.info(path)
	switch {
	case !ok && m.fileAbove(filepath.Dir(path)):
		return "", &fs.PathError{Op: op, Path: path, Err: errMemNoParents}
	case !ok:
		return "", &fs.PathError{Op: op, Path: path, Err: fs.ErrNotExist}
	case fi.Type != fsruntime.TypeFile:
		return "", &fs.PathError{Op: op, Path: path, Err: errIsDir}
	}
	return m.files[path], nil
}
