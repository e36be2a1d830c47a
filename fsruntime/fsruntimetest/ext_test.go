package fsruntimetest_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
)

func TestExtMemFS(t *testing.T) {
	if err := fsruntimetest.TestFSExt(t.Context(), fsruntimetest.NewExtMemFS(), memDir); err != nil {
		t.Fatal(err)
	}
	// It is still an FS.
	if err := fsruntimetest.TestFS(t.Context(), fsruntimetest.NewExtMemFS(), memDir); err != nil {
		t.Fatal(err)
	}
}

func TestExtMemFSWithLimitAndRoots(t *testing.T) {
	m := fsruntimetest.NewExtMemFS()
	m.Max = 2 << 20
	m.Roots = []string{ostest.HostPath("/elsewhere"), memDir}
	if err := fsruntimetest.TestFSExt(t.Context(), m, inMem("ext")); err != nil {
		t.Fatal(err)
	}
	for _, outside := range []string{ostest.HostPath("/work/outside.txt"), filepath.Join(memDir+"-sibling", "a.txt"), ostest.HostPath("/etc/passwd"), ostest.HostPath("/")} {
		if err := fsruntimetest.TestRootsExt(t.Context(), m, memDir, outside); err != nil {
			t.Errorf("outside %q: %v", outside, err)
		}
	}
}

// A MemFS implements none of the optional interfaces, so the kit has
// nothing to check and none of them may be assumed.
func TestFSExtSkipsWhatIsNotImplemented(t *testing.T) {
	m := fsruntimetest.NewMemFS()
	for name, ok := range map[string]bool{
		"StatFS":   is[fsruntime.StatFS](m),
		"DirFS":    is[fsruntime.DirFS](m),
		"WalkFS":   is[fsruntime.WalkFS](m),
		"MoveFS":   is[fsruntime.MoveFS](m),
		"BinaryFS": is[fsruntime.BinaryFS](m),
		"HashFS":   is[fsruntime.HashFS](m),
	} {
		if ok {
			t.Errorf("MemFS implements fsruntime.%s", name)
		}
	}
	if err := fsruntimetest.TestFSExt(t.Context(), m, memDir); err != nil {
		t.Fatal(err)
	}
	if err := fsruntimetest.TestRootsExt(t.Context(), m, memDir, ostest.HostPath("/outside")); err != nil {
		t.Fatal(err)
	}
	if m.Paths() == nil {
		t.Error("TestRootsExt made no fixture")
	}
}

func is[T any](v any) bool { _, ok := v.(T); return ok }

func TestExtArgs(t *testing.T) {
	ctx := t.Context()
	m := fsruntimetest.NewExtMemFS()
	link := func(string, string) error { return nil }
	for _, dir := range badArgs() {
		if fsruntimetest.TestFSExt(ctx, m, dir) == nil {
			t.Errorf("TestFSExt with dir %q: nil error", dir)
		}
		if fsruntimetest.TestSymlinks(ctx, m, dir, link) == nil {
			t.Errorf("TestSymlinks with dir %q: nil error", dir)
		}
		if fsruntimetest.TestRootsExt(ctx, m, dir, ostest.HostPath("/outside")) == nil {
			t.Errorf("TestRootsExt with root %q: nil error", dir)
		}
		if fsruntimetest.TestRootsExt(ctx, m, memDir, dir) == nil {
			t.Errorf("TestRootsExt with outside %q: nil error", dir)
		}
	}
	// A symlink that cannot be made is the caller's error, reported as such.
	err := fsruntimetest.TestSymlinks(ctx, m, memDir, func(string, string) error { return errors.ErrUnsupported })
	if !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("TestSymlinks with a failing symlink func: %v", err)
	}
}

// TestOSSymlinks runs TestSymlinks on a small os-backed FS (no roots), to
// show that its checks hold for plain lstat, rename and remove, and do not
// rely on anything particular to the disk backend. It needs symlinks that
// work, which a probe finds out.
func TestOSSymlinks(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ostest.NeedSymlinks(t, dir)
	if err := fsruntimetest.TestSymlinks(t.Context(), osExtFS{}, dir, os.Symlink); err != nil {
		t.Fatal(err)
	}
}

// osExtFS is osFS with the optional interfaces, done the obvious way with
// the os package: no roots, not atomic.
type osExtFS struct{ osFS }

func osInfo(path string, fi fs.FileInfo) fsruntime.FileInfo {
	typ := fsruntime.TypeOther
	switch m := fi.Mode(); {
	case m.IsRegular():
		typ = fsruntime.TypeFile
	case m.IsDir():
		typ = fsruntime.TypeDirectory
	case m&fs.ModeSymlink != 0:
		typ = fsruntime.TypeSymlink
	}
	return fsruntime.FileInfo{Name: filepath.Base(path), Path: path, Type: typ, Size: fi.Size(), ModTime: fi.ModTime(), Mode: fi.Mode()}
}

func (osExtFS) Stat(ctx context.Context, path string) (fsruntime.FileInfo, error) {
	if err := osCheck(ctx, path); err != nil {
		return fsruntime.FileInfo{}, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return fsruntime.FileInfo{}, osErr("stat", path, err)
	}
	return osInfo(path, fi), nil
}

func (osExtFS) ReadDir(ctx context.Context, path string, max int) ([]fsruntime.FileInfo, bool, error) {
	if err := osCheck(ctx, path); err != nil {
		return nil, false, &fs.PathError{Op: "readdir", Path: path, Err: err}
	}
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		return nil, false, &fs.PathError{Op: "readdir", Path: path, Err: fs.ErrInvalid}
	}
	des, err := os.ReadDir(path)
	if err != nil {
		return nil, false, osErr("readdir", path, err)
	}
	truncated := max > 0 && len(des) > max
	if truncated {
		des = des[:max]
	}
	out := make([]fsruntime.FileInfo, 0, len(des))
	for _, de := range des {
		fi, err := de.Info()
		if err != nil {
			return nil, false, osErr("readdir", path, err)
		}
		out = append(out, osInfo(filepath.Join(path, de.Name()), fi))
	}
	return out, truncated, nil
}

func (o osExtFS) ListDir(ctx context.Context, path string, max int) ([]fsruntime.DirEntry, bool, error) {
	infos, truncated, err := o.ReadDir(ctx, path, max)
	out := make([]fsruntime.DirEntry, len(infos))
	for i, fi := range infos {
		out[i] = fsruntime.DirEntry{Name: fi.Name, Type: fi.Type}
	}
	return out, truncated, err
}

func (osExtFS) MkdirAll(ctx context.Context, path string) error {
	if err := osCheck(ctx, path); err != nil {
		return &fs.PathError{Op: "mkdir", Path: path, Err: err}
	}
	if fi, err := os.Lstat(path); err == nil && !fi.IsDir() {
		if st, err := os.Stat(path); err != nil || !st.IsDir() {
			return &fs.PathError{Op: "mkdir", Path: path, Err: fs.ErrExist}
		}
	}
	return osErr("mkdir", path, os.MkdirAll(path, 0o777))
}

func (osExtFS) Walk(ctx context.Context, root string, fn fsruntime.WalkFunc) error {
	if err := ctx.Err(); err != nil {
		return &fs.PathError{Op: "walk", Path: root, Err: err}
	}
	if err := osCheck(ctx, root); err != nil {
		return fn(root, fsruntime.FileInfo{Name: filepath.Base(root), Path: root}, &fs.PathError{Op: "walk", Path: root, Err: err})
	}
	top, err := os.Stat(root) // the root is followed
	if err != nil {
		return fn(root, fsruntime.FileInfo{Name: filepath.Base(root), Path: root}, osErr("walk", root, err))
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fn(root, fsruntime.FileInfo{Name: filepath.Base(root), Path: root}, osErr("walk", root, err))
	}
	first := true
	err = filepath.WalkDir(real, func(path string, d fs.DirEntry, err error) error {
		path = root + strings.TrimPrefix(path, real)
		if cerr := ctx.Err(); cerr != nil {
			return &fs.PathError{Op: "walk", Path: path, Err: cerr}
		}
		fi := top
		if !first {
			if fi, err = d.Info(); err != nil {
				return nil
			}
		}
		first = false
		return fn(path, osInfo(path, fi), err)
	})
	if err == fs.SkipAll || err == fs.SkipDir {
		return nil
	}
	return err
}

func (osExtFS) Move(ctx context.Context, src, dst string, overwrite bool) error {
	for _, p := range []string{src, dst} {
		if err := osCheck(ctx, p); err != nil {
			return &fs.PathError{Op: "move", Path: p, Err: err}
		}
	}
	sfi, err := os.Lstat(src)
	if err != nil {
		return osErr("move", src, err)
	}
	if src == dst || sfi.IsDir() && strings.HasPrefix(dst, src+string(filepath.Separator)) {
		if src == dst && overwrite {
			return nil
		}
		return &fs.PathError{Op: "move", Path: dst, Err: fs.ErrExist}
	}
	if dfi, err := os.Lstat(dst); err == nil {
		if !overwrite || dfi.IsDir() != sfi.IsDir() {
			return &fs.PathError{Op: "move", Path: dst, Err: fs.ErrExist}
		}
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o777); err != nil {
		return osErr("move", dst, err)
	}
	return osErr("move", dst, os.Rename(src, dst))
}

func (osExtFS) Remove(ctx context.Context, path string, recursive bool) error {
	if err := osCheck(ctx, path); err != nil {
		return &fs.PathError{Op: "remove", Path: path, Err: err}
	}
	if _, err := os.Lstat(path); err != nil {
		return osErr("remove", path, err)
	}
	if recursive {
		return osErr("remove", path, os.RemoveAll(path))
	}
	return osErr("remove", path, os.Remove(path))
}

func (osExtFS) ReadFile(ctx context.Context, path string, max int64) ([]byte, error) {
	if err := osCheck(ctx, path); err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fsruntime.ErrNotRegular}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, osErr("read", path, err)
	}
	if max > 0 && int64(len(b)) > max {
		return nil, &fs.PathError{Op: "read", Path: path, Err: &fsruntime.TooLargeError{Size: int64(len(b)), Limit: max}}
	}
	return b, nil
}

func (f osExtFS) HashTextFile(ctx context.Context, path string) (string, error) {
	text, err := f.ReadTextFile(ctx, path, 0, 0)
	if err != nil {
		return "", err
	}
	return fsruntime.HashText(text), nil
}

// extFuncs wraps an ExtMemFS, replacing the methods whose func is set.
type extFuncs struct {
	m        *fsruntimetest.ExtMemFS
	stat     func(ctx context.Context, path string) (fsruntime.FileInfo, error)
	readDir  func(ctx context.Context, path string, max int) ([]fsruntime.FileInfo, bool, error)
	listDir  func(ctx context.Context, path string, max int) ([]fsruntime.DirEntry, bool, error)
	mkdirAll func(ctx context.Context, path string) error
	walk     func(ctx context.Context, root string, fn fsruntime.WalkFunc) error
	move     func(ctx context.Context, src, dst string, overwrite bool) error
	remove   func(ctx context.Context, path string, recursive bool) error
	readFile func(ctx context.Context, path string, max int64) ([]byte, error)
	hash     func(ctx context.Context, path string) (string, error)
}

func (f *extFuncs) ReadTextFile(ctx context.Context, path string, line, limit int) (string, error) {
	return f.m.ReadTextFile(ctx, path, line, limit)
}

func (f *extFuncs) WriteTextFile(ctx context.Context, path, content string) error {
	return f.m.WriteTextFile(ctx, path, content)
}

func (f *extFuncs) Stat(ctx context.Context, path string) (fsruntime.FileInfo, error) {
	if f.stat != nil {
		return f.stat(ctx, path)
	}
	return f.m.Stat(ctx, path)
}

func (f *extFuncs) ReadDir(ctx context.Context, path string, max int) ([]fsruntime.FileInfo, bool, error) {
	if f.readDir != nil {
		return f.readDir(ctx, path, max)
	}
	return f.m.ReadDir(ctx, path, max)
}

func (f *extFuncs) ListDir(ctx context.Context, path string, max int) ([]fsruntime.DirEntry, bool, error) {
	if f.listDir != nil {
		return f.listDir(ctx, path, max)
	}
	return f.m.ListDir(ctx, path, max)
}

func (f *extFuncs) MkdirAll(ctx context.Context, path string) error {
	if f.mkdirAll != nil {
		return f.mkdirAll(ctx, path)
	}
	return f.m.MkdirAll(ctx, path)
}

func (f *extFuncs) Walk(ctx context.Context, root string, fn fsruntime.WalkFunc) error {
	if f.walk != nil {
		return f.walk(ctx, root, fn)
	}
	return f.m.Walk(ctx, root, fn)
}

func (f *extFuncs) Move(ctx context.Context, src, dst string, overwrite bool) error {
	if f.move != nil {
		return f.move(ctx, src, dst, overwrite)
	}
	return f.m.Move(ctx, src, dst, overwrite)
}

func (f *extFuncs) Remove(ctx context.Context, path string, recursive bool) error {
	if f.remove != nil {
		return f.remove(ctx, path, recursive)
	}
	return f.m.Remove(ctx, path, recursive)
}

func (f *extFuncs) ReadFile(ctx context.Context, path string, max int64) ([]byte, error) {
	if f.readFile != nil {
		return f.readFile(ctx, path, max)
	}
	return f.m.ReadFile(ctx, path, max)
}

func (f *extFuncs) HashTextFile(ctx context.Context, path string) (string, error) {
	if f.hash != nil {
		return f.hash(ctx, path)
	}
	return f.m.HashTextFile(ctx, path)
}

// brokenExts each break one behaviour of an ExtMemFS; want is what the
// kit's report must mention.
var brokenExts = []struct {
	name string
	want string
	fs   func(m *fsruntimetest.ExtMemFS) *extFuncs
}{
	{"stat reports a file as a directory", "stat: Stat(", func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, stat: func(ctx context.Context, path string) (fsruntime.FileInfo, error) {
			fi, err := m.Stat(ctx, path)
			fi.Type = fsruntime.TypeDirectory
			return fi, err
		}}
	}},
	{"stat has a stale size", "Size is 6, want 14", func(m *fsruntimetest.ExtMemFS) *extFuncs {
		sizes := map[string]int64{}
		return &extFuncs{m: m, stat: func(ctx context.Context, path string) (fsruntime.FileInfo, error) {
			fi, err := m.Stat(ctx, path)
			if s, ok := sizes[path]; ok {
				fi.Size = s
			} else {
				sizes[path] = fi.Size
			}
			return fi, err
		}}
	}},
	{"stat names the base only", "Path is", func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, stat: func(ctx context.Context, path string) (fsruntime.FileInfo, error) {
			fi, err := m.Stat(ctx, path)
			fi.Path = fi.Name
			return fi, err
		}}
	}},
	{"readdir is unsorted", "readdir: ReadDir(", func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, readDir: func(ctx context.Context, path string, max int) ([]fsruntime.FileInfo, bool, error) {
			infos, tr, err := m.ReadDir(ctx, path, max)
			slices.Reverse(infos)
			return infos, tr, err
		}}
	}},
	{"readdir sorts case-insensitively", "want [D.txt(file) a-dir(directory)", func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, readDir: func(ctx context.Context, path string, max int) ([]fsruntime.FileInfo, bool, error) {
			infos, _, err := m.ReadDir(ctx, path, 0)
			slices.SortStableFunc(infos, func(a, b fsruntime.FileInfo) int {
				return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
			})
			tr := max > 0 && len(infos) > max
			if tr {
				infos = infos[:max]
			}
			return infos, tr, err
		}}
	}},
	{"readdir ignores max", "max=2", func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, readDir: func(ctx context.Context, path string, max int) ([]fsruntime.FileInfo, bool, error) {
			return m.ReadDir(ctx, path, 0)
		}}
	}},
	{"readdir never says truncated", "truncated is false, want true", func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, readDir: func(ctx context.Context, path string, max int) ([]fsruntime.FileInfo, bool, error) {
			infos, _, err := m.ReadDir(ctx, path, max)
			return infos, false, err
		}}
	}},
	{"readdir lists a file", "ReadDir(" + q(inMem("list/a.txt")), func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, readDir: func(ctx context.Context, path string, max int) ([]fsruntime.FileInfo, bool, error) {
			if fi, err := m.Stat(ctx, path); err == nil && fi.Type == fsruntime.TypeFile {
				return []fsruntime.FileInfo{fi}, false, nil
			}
			return m.ReadDir(ctx, path, max)
		}}
	}},
	{"listdir ignores max", "ListDir(" + q(inMem("list")) + ", max=4) = [D.txt(file) a-dir(directory) a.txt(file) b.txt(file) c(directory)]", func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, listDir: func(ctx context.Context, path string, max int) ([]fsruntime.DirEntry, bool, error) {
			return m.ListDir(ctx, path, 0)
		}}
	}},
	{"listdir lists a missing directory as empty", "ListDir(" + q(inMem("list/missing")) + ", max=0)", func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, listDir: func(ctx context.Context, path string, max int) ([]fsruntime.DirEntry, bool, error) {
			des, tr, err := m.ListDir(ctx, path, max)
			if errors.Is(err, fs.ErrNotExist) {
				return nil, false, nil
			}
			return des, tr, err
		}}
	}},
	{"mkdir is not idempotent", "of an existing directory", func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, mkdirAll: func(ctx context.Context, path string) error {
			if _, err := m.Stat(ctx, path); err == nil {
				return &fs.PathError{Op: "mkdir", Path: path, Err: fs.ErrExist}
			}
			return m.MkdirAll(ctx, path)
		}}
	}},
	{"mkdir over a file is silent", "mkdir: MkdirAll(" + q(inMem("mk/file.txt")) + ") succeeded", func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, mkdirAll: func(ctx context.Context, path string) error {
			if fi, err := m.Stat(ctx, path); err == nil && fi.Type == fsruntime.TypeFile {
				return nil
			}
			return m.MkdirAll(ctx, path)
		}}
	}},
	{"mkdir ignores the context", "mkdir: MkdirAll(" + q(inMem("mk/cancelled")) + ") with a cancelled context", func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, mkdirAll: func(ctx context.Context, path string) error {
			return m.MkdirAll(context.WithoutCancel(ctx), path)
		}}
	}},
	{"walk is in reverse", "walk: Walk(", func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, walk: func(ctx context.Context, root string, fn fsruntime.WalkFunc) error {
			var all []fsruntime.FileInfo
			err := m.Walk(ctx, root, func(path string, info fsruntime.FileInfo, err error) error {
				if err != nil {
					return fn(path, info, err)
				}
				all = append(all, info)
				return nil
			})
			slices.Reverse(all)
			for _, info := range all {
				if err := fn(info.Path, info, nil); err != nil {
					break
				}
			}
			return err
		}}
	}},
	{"walk ignores fs.SkipDir", "with fs.SkipDir from b", func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, walk: func(ctx context.Context, root string, fn fsruntime.WalkFunc) error {
			return m.Walk(ctx, root, func(path string, info fsruntime.FileInfo, err error) error {
				if err := fn(path, info, err); err != fs.SkipDir {
					return err
				}
				return nil
			})
		}}
	}},
	{"walk returns fs.SkipAll", "with fs.SkipAll from b/c.txt", func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, walk: func(ctx context.Context, root string, fn fsruntime.WalkFunc) error {
			var skipped bool
			err := m.Walk(ctx, root, func(path string, info fsruntime.FileInfo, err error) error {
				err = fn(path, info, err)
				skipped = skipped || err == fs.SkipAll
				return err
			})
			if skipped {
				return fs.SkipAll
			}
			return err
		}}
	}},
	{"walk drops fn's error", "with fn returning an error", func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, walk: func(ctx context.Context, root string, fn fsruntime.WalkFunc) error {
			err := m.Walk(ctx, root, fn)
			if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrInvalid) && !errors.Is(err, context.Canceled) {
				return nil
			}
			return err
		}}
	}},
	{"walk hides a missing root", "walk: Walk(" + q(inMem("walk/missing")) + ") succeeded", func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, walk: func(ctx context.Context, root string, fn fsruntime.WalkFunc) error {
			if _, err := m.Stat(ctx, root); errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return m.Walk(ctx, root, fn)
		}}
	}},
	{"walk goes on when the context ends", "cancelled at a-b", func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, walk: func(ctx context.Context, root string, fn fsruntime.WalkFunc) error {
			if err := ctx.Err(); err != nil {
				return &fs.PathError{Op: "walk", Path: root, Err: err}
			}
			err := m.Walk(context.WithoutCancel(ctx), root, fn)
			if err == nil && ctx.Err() != nil {
				err = &fs.PathError{Op: "walk", Path: root, Err: ctx.Err()}
			}
			return err
		}}
	}},
	{"move overwrites without overwrite", "move: Move(" + q(inMem("mv/x.txt")) + ", " + q(inMem("mv/y.txt")) + ", overwrite=false) succeeded", func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, move: func(ctx context.Context, src, dst string, overwrite bool) error {
			return m.Move(ctx, src, dst, true)
		}}
	}},
	{"move replaces a non-empty directory", "Move(" + q(inMem("mv/other")) + ", " + q(inMem("mv/full")) + ", overwrite=true) succeeded", func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, move: func(ctx context.Context, src, dst string, overwrite bool) error {
			if overwrite {
				m.Remove(ctx, dst, true)
			}
			return m.Move(ctx, src, dst, overwrite)
		}}
	}},
	{"move copies", q(inMem("mv/src.txt")) + " still exists", func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, move: func(ctx context.Context, src, dst string, overwrite bool) error {
			content, ok := m.Get(src)
			if err := m.Move(ctx, src, dst, overwrite); err != nil || !ok {
				return err
			}
			m.Set(src, content)
			return nil
		}}
	}},
	{"move names the source for an existing destination", "names path " + q(inMem("mv/x.txt")) + ", want " + q(inMem("mv/y.txt")), func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, move: func(ctx context.Context, src, dst string, overwrite bool) error {
			err := m.Move(ctx, src, dst, overwrite)
			if pe, ok := errors.AsType[*fs.PathError](err); ok && errors.Is(err, fs.ErrExist) {
				pe.Path = src
			}
			return err
		}}
	}},
	{"remove is always recursive", "remove: Remove(" + q(inMem("rm/tree")) + ", recursive=false) succeeded", func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, remove: func(ctx context.Context, path string, recursive bool) error {
			return m.Remove(ctx, path, true)
		}}
	}},
	{"remove of a missing path succeeds", "again succeeded", func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, remove: func(ctx context.Context, path string, recursive bool) error {
			if err := m.Remove(ctx, path, recursive); !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			return nil
		}}
	}},
	{"readfile ignores max", "fsruntime.ErrTooLarge", func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, readFile: func(ctx context.Context, path string, max int64) ([]byte, error) {
			return m.ReadFile(ctx, path, 0)
		}}
	}},
	{"readfile cuts at max", "returned 97 bytes", func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, readFile: func(ctx context.Context, path string, max int64) ([]byte, error) {
			b, err := m.ReadFile(ctx, path, 0)
			if max > 0 && int64(len(b)) > max {
				b = b[:max]
			}
			return b, err
		}}
	}},
	{"readfile drops CRLF", "readfile: ReadFile(", func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, readFile: func(ctx context.Context, path string, max int64) ([]byte, error) {
			b, err := m.ReadFile(ctx, path, max)
			return []byte(strings.ReplaceAll(string(b), "\r\n", "\n")), err
		}}
	}},
	{"hash in upper case", "the lowercase hex SHA-256", func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, hash: func(ctx context.Context, path string) (string, error) {
			h, err := m.HashTextFile(ctx, path)
			return strings.ToUpper(h), err
		}}
	}},
	{"hash of the text with LF endings", "crlf.txt", func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, hash: func(ctx context.Context, path string) (string, error) {
			text, err := m.ReadTextFile(ctx, path, 0, 0)
			if err != nil {
				return "", err
			}
			return fsruntime.HashText(strings.ReplaceAll(text, "\r\n", "\n")), nil
		}}
	}},
	{"hash is stale", "before a write", func(m *fsruntimetest.ExtMemFS) *extFuncs {
		seen := map[string]string{}
		return &extFuncs{m: m, hash: func(ctx context.Context, path string) (string, error) {
			if h, ok := seen[path]; ok {
				return h, nil
			}
			h, err := m.HashTextFile(ctx, path)
			seen[path] = h
			return h, err
		}}
	}},
	{"hash ignores the context", "HashTextFile(" + q(inMem("hash/changes.txt")) + ") with a cancelled context", func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, hash: func(ctx context.Context, path string) (string, error) {
			return m.HashTextFile(context.WithoutCancel(ctx), path)
		}}
	}},
	{"stat accepts relative paths", "stat: Stat(" + q(filepath.FromSlash("stat/file.txt")) + ")", func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, stat: func(ctx context.Context, path string) (fsruntime.FileInfo, error) {
			if !filepath.IsAbs(path) && path != "" {
				path = filepath.Join(memDir, path)
			}
			return m.Stat(ctx, path)
		}}
	}},
	// The kit writes the unclean path with the OS's separator.
	{"remove accepts unclean paths", "Remove(" + q(memDir+string(filepath.Separator)+filepath.FromSlash("x/../rm/stay.txt")), func(m *fsruntimetest.ExtMemFS) *extFuncs {
		return &extFuncs{m: m, remove: func(ctx context.Context, path string, recursive bool) error {
			if filepath.IsAbs(path) && !strings.Contains(path, "\x00") {
				path = filepath.Clean(path)
			}
			return m.Remove(ctx, path, recursive)
		}}
	}},
}

// TestBrokenExt tests the kit: each broken FS must fail, and the report
// must mention what broke.
func TestBrokenExt(t *testing.T) {
	for _, tc := range brokenExts {
		t.Run(tc.name, func(t *testing.T) {
			err := fsruntimetest.TestFSExt(t.Context(), tc.fs(fsruntimetest.NewExtMemFS()), memDir)
			if err == nil {
				t.Fatal("TestFSExt found no problem")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("TestFSExt did not mention %q:\n%v", tc.want, err)
			}
			t.Logf("%v", err)
		})
	}
}

func TestBrokenRootsExt(t *testing.T) {
	outside := ostest.HostPath("/work/outside.txt")
	rooted := func() *fsruntimetest.ExtMemFS {
		m := fsruntimetest.NewExtMemFS()
		m.Roots = []string{memDir}
		return m
	}
	for _, tc := range []struct {
		name string
		want string
		fs   func() fsruntime.FS
	}{
		{"no roots", "outside roots: Stat(" + q(outside) + ") succeeded", func() fsruntime.FS {
			m := fsruntimetest.NewExtMemFS()
			m.Set(outside, "x")
			return m
		}},
		{"walk outside", "outside roots: Walk(", func() fsruntime.FS {
			m := rooted()
			return &extFuncs{m: m, walk: func(ctx context.Context, root string, fn fsruntime.WalkFunc) error {
				return fn(root, fsruntime.FileInfo{Name: filepath.Base(root), Path: root, Type: fsruntime.TypeFile}, nil)
			}}
		}},
		{"removes a root", "root itself: Remove(" + q(memDir) + ", recursive=true) succeeded", func() fsruntime.FS {
			m := rooted()
			return &extFuncs{m: m, remove: func(ctx context.Context, path string, recursive bool) error {
				if path == memDir && recursive {
					return nil // pretend
				}
				return m.Remove(ctx, path, recursive)
			}}
		}},
		{"moves onto a root", "root itself: Move(" + q(inMem("rootsext/in.txt")) + ", " + q(memDir) + ", overwrite=true) succeeded", func() fsruntime.FS {
			m := rooted()
			return &extFuncs{m: m, move: func(ctx context.Context, src, dst string, overwrite bool) error {
				if dst == memDir {
					return nil // pretend
				}
				return m.Move(ctx, src, dst, overwrite)
			}}
		}},
		{"moves out", "outside roots: Move(" + q(inMem("rootsext/in.txt")) + ", " + q(outside) + ", overwrite=false)", func() fsruntime.FS {
			m := rooted()
			return &extFuncs{m: m, move: func(ctx context.Context, src, dst string, overwrite bool) error {
				if dst == outside {
					return m.Remove(ctx, src, false)
				}
				return m.Move(ctx, src, dst, overwrite)
			}}
		}},
		{"plain permission error", "fsruntime.ErrOutsideRoots", func() fsruntime.FS {
			m := rooted()
			return &extFuncs{m: m, hash: func(ctx context.Context, path string) (string, error) {
				h, err := m.HashTextFile(ctx, path)
				if errors.Is(err, fsruntime.ErrOutsideRoots) {
					err = &fs.PathError{Op: "hash", Path: path, Err: fs.ErrPermission}
				}
				return h, err
			}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := fsruntimetest.TestRootsExt(t.Context(), tc.fs(), memDir, outside)
			if err == nil {
				t.Fatal("TestRootsExt found no problem")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("TestRootsExt did not mention %q:\n%v", tc.want, err)
			}
			t.Logf("%v", err)
		})
	}
}

func TestExtMemFSMethods(t *testing.T) {
	ctx := t.Context()
	m := fsruntimetest.NewExtMemFS()
	m.Set(ostest.HostPath("/p/a.txt"), "a\n")
	m.Set(ostest.HostPath("/p/bin"), "\xff\x00")
	if b, err := m.ReadFile(ctx, ostest.HostPath("/p/bin"), 0); err != nil || string(b) != "\xff\x00" {
		t.Errorf("ReadFile of planted binary = %q, %v", b, err)
	}
	if _, err := m.HashTextFile(ctx, ostest.HostPath("/p/bin")); !errors.Is(err, fsruntime.ErrBinary) {
		t.Errorf("HashTextFile of binary: %v, want ErrBinary", err)
	}
	// The hash ignores Max, as the disk's does; ReadFile's default is Max.
	m.Max = 1
	if h, err := m.HashTextFile(ctx, ostest.HostPath("/p/a.txt")); err != nil || h != fsruntime.HashText("a\n") {
		t.Errorf("HashTextFile over Max = %q, %v", h, err)
	}
	if _, err := m.ReadFile(ctx, ostest.HostPath("/p/a.txt"), 0); !errors.Is(err, fsruntime.ErrTooLarge) {
		t.Errorf("ReadFile over Max: %v", err)
	}
	m.Max = 0
	// A directory emptied by a removal stays, as on disk.
	if err := m.Remove(ctx, ostest.HostPath("/p/a.txt"), false); err != nil {
		t.Fatal(err)
	}
	if err := m.Remove(ctx, ostest.HostPath("/p/bin"), false); err != nil {
		t.Fatal(err)
	}
	if fi, err := m.Stat(ctx, ostest.HostPath("/p")); err != nil || fi.Type != fsruntime.TypeDirectory {
		t.Errorf("Stat(/p) after emptying it = %+v, %v", fi, err)
	}
	// Plain MemFS methods see the explicit directories.
	if err := m.MkdirAll(ctx, ostest.HostPath("/p/q/r")); err != nil {
		t.Fatal(err)
	}
	if _, err := m.ReadTextFile(ctx, ostest.HostPath("/p/q"), 0, 0); !errors.Is(err, fsruntime.ErrNotRegular) {
		t.Errorf("ReadTextFile of a made directory: %v", err)
	}
	if err := m.WriteTextFile(ctx, ostest.HostPath("/p/q/r"), "x"); err == nil {
		t.Error("WriteTextFile over a made directory succeeded")
	}
	if got := fmt.Sprint(m.Paths()); got != "[]" {
		t.Errorf("Paths() = %s, want no files", got)
	}
}
