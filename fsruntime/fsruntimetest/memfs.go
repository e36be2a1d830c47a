package fsruntimetest

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
)

// MemFS is an in-memory [fsruntime.FS]: a map from absolute, clean paths to
// file contents, where a path is a directory if it is an ancestor of some
// file's path. Reads follow [SliceLines]; errors are *fs.PathError values
// matching the same sentinels a disk gives. It passes [TestFS], [TestLimits]
// when Max is set and [TestRoots] when Roots is set; other packages use it
// as a fake editor's buffer store, whose contents may differ from the disk.
// The zero value is an empty MemFS with no limit and no roots, ready to use.
// It is safe for concurrent use; Max and Roots must not change once in use.
type MemFS struct {
	// Max, if positive, limits the content a write accepts and a read
	// returns, in bytes; over it is an error wrapping fsruntime.ErrTooLarge.
	Max int64
	// Roots, if not empty, confines every path to these absolute
	// directories; a path outside all of them is an error wrapping
	// fsruntime.ErrOutsideRoots.
	Roots []string

	mu    sync.RWMutex
	files map[string]string
	mod   map[string]time.Time // of each file, for ExtMemFS
	dirs  map[string]bool      // directories made explicitly by ExtMemFS
}

var _ fsruntime.FS = (*MemFS)(nil)

// NewMemFS returns an empty MemFS with no size limit and no roots.
func NewMemFS() *MemFS { return &MemFS{files: make(map[string]string)} }

// Set stores content at path as it is, bypassing the size limit, the text
// check and the roots, so that a test can plant binary or oversized
// content, or an editor buffer. path must be absolute and clean, and must
// not be one of the implied directories; Set panics otherwise.
func (m *MemFS) Set(path, content string) {
	if err := checkPath(path); err != nil {
		panic(fmt.Sprintf("runtimetest: MemFS.Set(%q): %v", path, err))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.isDir(path) {
		panic(fmt.Sprintf("runtimetest: MemFS.Set(%q): it is a directory", path))
	}
	m.put(path, content)
}

// Get returns the content stored at path and whether there is a file there.
func (m *MemFS) Get(path string) (string, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	content, ok := m.files[path]
	return content, ok
}

// Delete removes the file at path, if any, and reports whether there was
// one.
func (m *MemFS) Delete(path string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.files[path]
	delete(m.files, path)
	delete(m.mod, path)
	return ok
}

// Paths returns the paths of all files, sorted.
func (m *MemFS) Paths() []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	paths := make([]string, 0, len(m.files))
	for p := range m.files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	return paths
}

// ReadTextFile implements [fsruntime.FS].
func (m *MemFS) ReadTextFile(ctx context.Context, path string, line, limit int) (string, error) {
	if err := m.check(ctx, path); err != nil {
		return "", &fs.PathError{Op: "read", Path: path, Err: err}
	}
	m.mu.RLock()
	content, ok := m.files[path]
	dir := !ok && m.isDir(path)
	m.mu.RUnlock()
	switch {
	case dir:
		return "", &fs.PathError{Op: "read", Path: path, Err: errIsDir}
	case !ok:
		return "", &fs.PathError{Op: "read", Path: path, Err: fs.ErrNotExist}
	case !isText(content):
		return "", &fs.PathError{Op: "read", Path: path, Err: fsruntime.ErrBinary}
	}
	text, err := SliceLines(content, line, limit)
	if err != nil {
		return "", &fs.PathError{Op: "read", Path: path, Err: err}
	}
	if m.Max > 0 && int64(len(text)) > m.Max {
		return "", &fs.PathError{Op: "read", Path: path, Err: &fsruntime.TooLargeError{Size: int64(len(text)), Limit: m.Max, Read: true}}
	}
	return text, nil
}

// WriteTextFile implements [fsruntime.FS]. Missing parent directories are
// implied; a write that fails changes nothing.
func (m *MemFS) WriteTextFile(ctx context.Context, path, content string) error {
	if err := m.check(ctx, path); err != nil {
		return &fs.PathError{Op: "write", Path: path, Err: err}
	}
	if m.Max > 0 && int64(len(content)) > m.Max {
		return &fs.PathError{Op: "write", Path: path, Err: &fsruntime.TooLargeError{Size: int64(len(content)), Limit: m.Max}}
	}
	if !isText(content) {
		return &fs.PathError{Op: "write", Path: path, Err: fsruntime.ErrBinary}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.isDir(path) {
		return &fs.PathError{Op: "write", Path: path, Err: errIsDir}
	}
	for p := filepath.Dir(path); ; p = filepath.Dir(p) {
		if _, ok := m.files[p]; ok {
			return &fs.PathError{Op: "write", Path: path, Err: fmt.Errorf("a parent is not a directory: %w", fs.ErrNotExist)}
		}
		if p == filepath.Dir(p) {
			break
		}
	}
	m.put(path, content)
	return nil
}

// put stores a file. m.mu must be held.
func (m *MemFS) put(path, content string) {
	if m.files == nil {
		m.files = make(map[string]string)
	}
	if m.mod == nil {
		m.mod = make(map[string]time.Time)
	}
	m.files[path] = content
	m.mod[path] = time.Now()
}

var errIsDir = fmt.Errorf("%w: it is a directory", fsruntime.ErrNotRegular)

// isDir reports whether path is an ancestor of a file, or a directory
// that ExtMemFS made (or one of its ancestors). m.mu must be held.
func (m *MemFS) isDir(path string) bool {
	if m.dirs[path] {
		return true
	}
	prefix := path
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	for p := range m.files {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	for p := range m.dirs {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}

// check checks ctx, then path, then the roots.
func (m *MemFS) check(ctx context.Context, path string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkPath(path); err != nil {
		return err
	}
	if len(m.Roots) == 0 {
		return nil
	}
	for _, root := range m.Roots {
		root = filepath.Clean(root)
		if path == root || root == string(filepath.Separator) ||
			strings.HasPrefix(path, root+string(filepath.Separator)) {
			return nil
		}
	}
	return &fsruntime.OutsideRootsError{Roots: slices.Clone(m.Roots)}
}

// checkPath refuses a path that is empty, has a NUL byte, or is not
// absolute and clean.
func checkPath(path string) error {
	switch {
	case path == "":
		return fmt.Errorf("empty path: %w", fs.ErrInvalid)
	case strings.IndexByte(path, 0) >= 0:
		return fmt.Errorf("path has a NUL byte: %w", fs.ErrInvalid)
	case !filepath.IsAbs(path):
		return fmt.Errorf("path is not absolute: %w", fs.ErrInvalid)
	case filepath.Clean(path) != path:
		return fmt.Errorf("path is not clean (clean, it is %q): %w", filepath.Clean(path), fs.ErrInvalid)
	}
	return nil
}
