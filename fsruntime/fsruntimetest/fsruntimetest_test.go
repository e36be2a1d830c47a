package fsruntimetest_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
)

// memDir is the test directory used with a MemFS; nothing touches the disk.
var memDir = ostest.HostPath("/work/runtimetest")

func TestMemFS(t *testing.T) {
	if err := fsruntimetest.TestFS(t.Context(), fsruntimetest.NewMemFS(), memDir); err != nil {
		t.Fatal(err)
	}
}

func TestZeroMemFS(t *testing.T) {
	var m fsruntimetest.MemFS
	if err := fsruntimetest.TestFS(t.Context(), &m, memDir); err != nil {
		t.Fatal(err)
	}
}

func TestMemFSWithLimitAndRoots(t *testing.T) {
	m := fsruntimetest.NewMemFS()
	m.Max = 2 << 20
	m.Roots = []string{ostest.HostPath("/elsewhere"), memDir}
	if err := fsruntimetest.TestFS(t.Context(), m, memDir); err != nil {
		t.Fatal(err)
	}
}

func TestMemFSLimits(t *testing.T) {
	for _, max := range []int64{1, 2, 17, 1000, 1 << 20} {
		m := fsruntimetest.NewMemFS()
		m.Max = max
		if err := fsruntimetest.TestLimits(t.Context(), m, memDir, max); err != nil {
			t.Errorf("max %d: %v", max, err)
		}
	}
}

func TestMemFSRoots(t *testing.T) {
	m := fsruntimetest.NewMemFS()
	m.Roots = []string{memDir}
	for _, outside := range []string{"/work/outside.txt", "/work/runtimetest-sibling/a.txt", "/etc/passwd", "/"} {
		outside = ostest.HostPath(outside)
		if err := fsruntimetest.TestRoots(t.Context(), m, inMem("in.txt"), outside); err != nil {
			t.Errorf("outside %q: %v", outside, err)
		}
	}
}

// TestOSFS runs the kit on a small disk FS, to show that it does not rely
// on anything particular to MemFS.
func TestOSFS(t *testing.T) {
	dir := t.TempDir()
	if err := fsruntimetest.TestFS(t.Context(), osFS{}, dir); err != nil {
		t.Fatal(err)
	}
}

func TestArgs(t *testing.T) {
	ctx := t.Context()
	m := fsruntimetest.NewMemFS()
	for _, dir := range badArgs() {
		if fsruntimetest.TestFS(ctx, m, dir) == nil {
			t.Errorf("TestFS with dir %q: nil error", dir)
		}
		if fsruntimetest.TestLimits(ctx, m, dir, 10) == nil {
			t.Errorf("TestLimits with dir %q: nil error", dir)
		}
		if fsruntimetest.TestRoots(ctx, m, dir, ostest.HostPath("/outside.txt")) == nil {
			t.Errorf("TestRoots with inside %q: nil error", dir)
		}
		if fsruntimetest.TestRoots(ctx, m, ostest.HostPath("/inside.txt"), dir) == nil {
			t.Errorf("TestRoots with outside %q: nil error", dir)
		}
	}
	if fsruntimetest.TestLimits(ctx, m, memDir, 0) == nil {
		t.Error("TestLimits with max 0: nil error")
	}
}

// funcFS is an FS made of two functions.
type funcFS struct {
	read  func(ctx context.Context, path string, line, limit int) (string, error)
	write func(ctx context.Context, path, content string) error
}

func (f funcFS) ReadTextFile(ctx context.Context, path string, line, limit int) (string, error) {
	return f.read(ctx, path, line, limit)
}

func (f funcFS) WriteTextFile(ctx context.Context, path, content string) error {
	return f.write(ctx, path, content)
}

// breakRead wraps m with a broken read.
func breakRead(m *fsruntimetest.MemFS, read func(ctx context.Context, path string, line, limit int) (string, error)) fsruntime.FS {
	return funcFS{read: read, write: m.WriteTextFile}
}

// breakWrite wraps m with a broken write.
func breakWrite(m *fsruntimetest.MemFS, write func(ctx context.Context, path, content string) error) fsruntime.FS {
	return funcFS{read: m.ReadTextFile, write: write}
}

// mapErr wraps m, changing the errors of both methods with f.
func mapErr(m *fsruntimetest.MemFS, f func(err error) error) fsruntime.FS {
	return funcFS{
		read: func(ctx context.Context, path string, line, limit int) (string, error) {
			s, err := m.ReadTextFile(ctx, path, line, limit)
			if err != nil {
				err = f(err)
			}
			return s, err
		},
		write: func(ctx context.Context, path, content string) error {
			err := m.WriteTextFile(ctx, path, content)
			if err != nil {
				err = f(err)
			}
			return err
		},
	}
}

// brokenFSes each break one behaviour of a MemFS; want is the name of the
// check that must notice.
var brokenFSes = []struct {
	name string
	want string
	fs   func(m *fsruntimetest.MemFS) fsruntime.FS
}{
	{"drops the final newline", "round trip", func(m *fsruntimetest.MemFS) fsruntime.FS {
		return breakRead(m, func(ctx context.Context, path string, line, limit int) (string, error) {
			s, err := m.ReadTextFile(ctx, path, line, limit)
			return strings.TrimSuffix(s, "\n"), err
		})
	}},
	{"ignores limit", "line range", func(m *fsruntimetest.MemFS) fsruntime.FS {
		return breakRead(m, func(ctx context.Context, path string, line, limit int) (string, error) {
			return m.ReadTextFile(ctx, path, line, 0)
		})
	}},
	{"treats line as 0-based", "line range", func(m *fsruntimetest.MemFS) fsruntime.FS {
		return breakRead(m, func(ctx context.Context, path string, line, limit int) (string, error) {
			return m.ReadTextFile(ctx, path, line+1, limit)
		})
	}},
	{"returns nil past the end", "past end", func(m *fsruntimetest.MemFS) fsruntime.FS {
		return breakRead(m, func(ctx context.Context, path string, line, limit int) (string, error) {
			s, err := m.ReadTextFile(ctx, path, line, limit)
			if errors.Is(err, fsruntime.ErrPastEnd) {
				return "", nil
			}
			return s, err
		})
	}},
	{"miscounts lines past the end", "*fsruntime.PastEndError{Line: 5, Lines: 5}", func(m *fsruntimetest.MemFS) fsruntime.FS {
		return mapErr(m, func(err error) error {
			if pe, ok := errors.AsType[*fsruntime.PastEndError](err); ok {
				return &fs.PathError{Op: "read", Path: err.(*fs.PathError).Path, Err: &fsruntime.PastEndError{Line: pe.Line, Lines: pe.Lines + 1}}
			}
			return err
		})
	}},
	{"returns plain errors", "want a *fs.PathError", func(m *fsruntimetest.MemFS) fsruntime.FS {
		return mapErr(m, func(err error) error {
			return fmt.Errorf("failed: %w", err.(*fs.PathError).Err)
		})
	}},
	{"names another path", "that names path", func(m *fsruntimetest.MemFS) fsruntime.FS {
		return mapErr(m, func(err error) error {
			pe := err.(*fs.PathError)
			return &fs.PathError{Op: pe.Op, Path: filepath.Base(pe.Path), Err: pe.Err}
		})
	}},
	{"wrong sentinel for a missing file", "missing file", func(m *fsruntimetest.MemFS) fsruntime.FS {
		return mapErr(m, func(err error) error {
			if pe := err.(*fs.PathError); errors.Is(err, fs.ErrNotExist) {
				return &fs.PathError{Op: pe.Op, Path: pe.Path, Err: fs.ErrPermission}
			}
			return err
		})
	}},
	{"ignores the context", "cancelled context", func(m *fsruntimetest.MemFS) fsruntime.FS {
		return funcFS{
			read: func(ctx context.Context, path string, line, limit int) (string, error) {
				return m.ReadTextFile(context.Background(), path, line, limit)
			},
			write: func(ctx context.Context, path, content string) error {
				return m.WriteTextFile(context.Background(), path, content)
			},
		}
	}},
	{"writes despite a cancelled context", "cancelled context", func(m *fsruntimetest.MemFS) fsruntime.FS {
		return breakWrite(m, func(ctx context.Context, path, content string) error {
			err := m.WriteTextFile(context.Background(), path, content)
			if err == nil && ctx.Err() != nil {
				return &fs.PathError{Op: "write", Path: path, Err: ctx.Err()}
			}
			return err
		})
	}},
	{"strips CRLF", "CRLF", func(m *fsruntimetest.MemFS) fsruntime.FS {
		return breakWrite(m, func(ctx context.Context, path, content string) error {
			return m.WriteTextFile(ctx, path, strings.ReplaceAll(content, "\r\n", "\n"))
		})
	}},
	{"strips the BOM", "BOM", func(m *fsruntimetest.MemFS) fsruntime.FS {
		return breakWrite(m, func(ctx context.Context, path, content string) error {
			return m.WriteTextFile(ctx, path, strings.TrimPrefix(content, "\uFEFF"))
		})
	}},
	{"does not shrink", "shrink", func(m *fsruntimetest.MemFS) fsruntime.FS {
		return breakWrite(m, func(ctx context.Context, path, content string) error {
			if old, ok := m.Get(path); ok && len(old) > len(content) {
				content += old[len(content):]
			}
			return m.WriteTextFile(ctx, path, content)
		})
	}},
	{"refuses empty content", "empty file", func(m *fsruntimetest.MemFS) fsruntime.FS {
		return breakWrite(m, func(ctx context.Context, path, content string) error {
			if content == "" {
				return &fs.PathError{Op: "write", Path: path, Err: fs.ErrInvalid}
			}
			return m.WriteTextFile(ctx, path, content)
		})
	}},
	{"truncates long lines", "long line", func(m *fsruntimetest.MemFS) fsruntime.FS {
		return breakRead(m, func(ctx context.Context, path string, line, limit int) (string, error) {
			s, err := m.ReadTextFile(ctx, path, line, limit)
			return s[:min(len(s), 64<<10)], err
		})
	}},
	{"does not create parents", "parent directories", func(m *fsruntimetest.MemFS) fsruntime.FS {
		return breakWrite(m, func(ctx context.Context, path, content string) error {
			parent := filepath.Dir(path)
			if _, err := m.ReadTextFile(ctx, parent, 0, 0); parent != memDir && !errors.Is(err, fsruntime.ErrNotRegular) {
				return &fs.PathError{Op: "write", Path: path, Err: fs.ErrNotExist}
			}
			return m.WriteTextFile(ctx, path, content)
		})
	}},
	{"resolves relative paths", "relative path", func(m *fsruntimetest.MemFS) fsruntime.FS {
		abs := func(p string) string {
			if !filepath.IsAbs(p) {
				p = filepath.Join(memDir, p)
			}
			return p
		}
		return funcFS{
			read: func(ctx context.Context, path string, line, limit int) (string, error) {
				return m.ReadTextFile(ctx, abs(path), line, limit)
			},
			write: func(ctx context.Context, path, content string) error {
				return m.WriteTextFile(ctx, abs(path), content)
			},
		}
	}},
	{"cleans paths", "unclean path", func(m *fsruntimetest.MemFS) fsruntime.FS {
		return funcFS{
			read: func(ctx context.Context, path string, line, limit int) (string, error) {
				if strings.IndexByte(path, 0) < 0 && filepath.IsAbs(path) {
					path = filepath.Clean(path)
				}
				return m.ReadTextFile(ctx, path, line, limit)
			},
			write: func(ctx context.Context, path, content string) error {
				if strings.IndexByte(path, 0) < 0 && filepath.IsAbs(path) {
					path = filepath.Clean(path)
				}
				return m.WriteTextFile(ctx, path, content)
			},
		}
	}},
	{"accepts NUL in paths", "NUL in path", func(m *fsruntimetest.MemFS) fsruntime.FS {
		clean := func(p string) string { return strings.ReplaceAll(p, "\x00", "") }
		return funcFS{
			read: func(ctx context.Context, path string, line, limit int) (string, error) {
				s, err := m.ReadTextFile(ctx, clean(path), line, limit)
				if pe, ok := err.(*fs.PathError); ok {
					pe.Path = path
				}
				return s, err
			},
			write: func(ctx context.Context, path, content string) error {
				return m.WriteTextFile(ctx, clean(path), content)
			},
		}
	}},
	{"reads directories as empty", "directory", func(m *fsruntimetest.MemFS) fsruntime.FS {
		return breakRead(m, func(ctx context.Context, path string, line, limit int) (string, error) {
			s, err := m.ReadTextFile(ctx, path, line, limit)
			if errors.Is(err, fsruntime.ErrNotRegular) {
				return "", nil
			}
			return s, err
		})
	}},
	{"overwrites directories", "directory", func(m *fsruntimetest.MemFS) fsruntime.FS {
		return breakWrite(m, func(ctx context.Context, path, content string) error {
			err := m.WriteTextFile(ctx, path, content)
			if errors.Is(err, fsruntime.ErrNotRegular) {
				for _, p := range m.Paths() {
					if strings.HasPrefix(p, path+string(filepath.Separator)) {
						m.Delete(p)
					}
				}
				m.Set(path, content)
				return nil
			}
			return err
		})
	}},
	{"accepts invalid UTF-8", "binary", func(m *fsruntimetest.MemFS) fsruntime.FS {
		return breakWrite(m, func(ctx context.Context, path, content string) error {
			err := m.WriteTextFile(ctx, path, content)
			if errors.Is(err, fsruntime.ErrBinary) {
				m.Set(path, content)
				return nil
			}
			return err
		})
	}},
	{"reads binary", "binary", func(m *fsruntimetest.MemFS) fsruntime.FS {
		return funcFS{
			read: func(ctx context.Context, path string, line, limit int) (string, error) {
				if s, ok := m.Get(path); ok {
					return fsruntimetest.SliceLines(s, line, limit)
				}
				return m.ReadTextFile(ctx, path, line, limit)
			},
			write: func(ctx context.Context, path, content string) error {
				if !strings.Contains(content, "\x00") {
					return m.WriteTextFile(ctx, path, content)
				}
				m.Set(path, content)
				return nil
			},
		}
	}},
	{"loses concurrent writes", "concurrent writes", func(m *fsruntimetest.MemFS) fsruntime.FS {
		// One shared slot for the pending write. The first of the
		// concurrent writes waits until a second has filled the slot, and
		// then writes what the slot holds: its own content is lost.
		var mu sync.Mutex
		var slot [2]string
		arrived := 0
		second := make(chan struct{})
		concurrent := string(filepath.Separator) + "concurrent" + string(filepath.Separator)
		return breakWrite(m, func(ctx context.Context, path, content string) error {
			if !strings.Contains(path, concurrent) {
				return m.WriteTextFile(ctx, path, content)
			}
			mu.Lock()
			slot = [2]string{path, content}
			arrived++
			n := arrived
			mu.Unlock()
			switch n {
			case 1:
				select {
				case <-second:
				case <-ctx.Done():
					return ctx.Err()
				}
			case 2:
				close(second)
			}
			mu.Lock()
			path, content = slot[0], slot[1]
			mu.Unlock()
			return m.WriteTextFile(ctx, path, content)
		})
	}},
	{"mixes concurrent reads", "concurrent reads", func(m *fsruntimetest.MemFS) fsruntime.FS {
		var mu sync.Mutex
		var calls int
		return breakRead(m, func(ctx context.Context, path string, line, limit int) (string, error) {
			mu.Lock()
			calls++
			odd := calls%7 == 0
			mu.Unlock()
			if odd && strings.Contains(path, "concurrent") {
				line++
			}
			return m.ReadTextFile(ctx, path, line, limit)
		})
	}},
}

// TestBrokenFS tests the tester: each broken FS must fail, and the check
// that should notice must be named.
func TestBrokenFS(t *testing.T) {
	for _, tc := range brokenFSes {
		t.Run(tc.name, func(t *testing.T) {
			err := fsruntimetest.TestFS(t.Context(), tc.fs(fsruntimetest.NewMemFS()), memDir)
			if err == nil {
				t.Fatal("TestFS found no problem")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("TestFS did not mention %q:\n%v", tc.want, err)
			}
			t.Logf("%v", err)
		})
	}
}

func TestBrokenLimits(t *testing.T) {
	const max = 100
	for _, tc := range []struct {
		name string
		want string
		fs   func() fsruntime.FS
	}{
		{"no limit", "fsruntime.ErrTooLarge", func() fsruntime.FS { return fsruntimetest.NewMemFS() }},
		{"limit too low", "limit-exact.txt", func() fsruntime.FS {
			m := fsruntimetest.NewMemFS()
			m.Max = max - 1
			return m
		}},
		{"wrong limit in error", "has Limit 200", func() fsruntime.FS {
			m := fsruntimetest.NewMemFS()
			m.Max = max
			return mapErr(m, func(err error) error {
				pe := err.(*fs.PathError)
				if errors.Is(err, fsruntime.ErrTooLarge) {
					return &fs.PathError{Op: pe.Op, Path: pe.Path, Err: &fsruntime.TooLargeError{Size: max + 1, Limit: 2 * max}}
				}
				return err
			})
		}},
		{"leaves a partial file", "limit-over.txt", func() fsruntime.FS {
			m := fsruntimetest.NewMemFS()
			m.Max = max
			return breakWrite(m, func(ctx context.Context, path, content string) error {
				err := m.WriteTextFile(ctx, path, content)
				if errors.Is(err, fsruntime.ErrTooLarge) {
					m.Set(path, content[:max])
				}
				return err
			})
		}},
		{"plain error", "want a *fs.PathError", func() fsruntime.FS {
			m := fsruntimetest.NewMemFS()
			m.Max = max
			return breakWrite(m, func(ctx context.Context, path, content string) error {
				if len(content) > max {
					return fsruntime.ErrTooLarge
				}
				return m.WriteTextFile(ctx, path, content)
			})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := fsruntimetest.TestLimits(t.Context(), tc.fs(), memDir, max)
			if err == nil {
				t.Fatal("TestLimits found no problem")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("TestLimits did not mention %q:\n%v", tc.want, err)
			}
			t.Logf("%v", err)
		})
	}
}

func TestBrokenRoots(t *testing.T) {
	inside, outside := inMem("in.txt"), ostest.HostPath("/work/outside.txt")
	for _, tc := range []struct {
		name string
		want string
		fs   func() fsruntime.FS
	}{
		{"no roots", "outside roots", func() fsruntime.FS { return fsruntimetest.NewMemFS() }},
		{"inside refused", "inside roots", func() fsruntime.FS {
			m := fsruntimetest.NewMemFS()
			m.Roots = []string{ostest.HostPath("/elsewhere")}
			return m
		}},
		{"string prefix", "outside roots", func() fsruntime.FS {
			m := fsruntimetest.NewMemFS()
			m.Roots = []string{ostest.HostPath("/work")}
			return m
		}},
		{"plain permission error", "fsruntime.ErrOutsideRoots", func() fsruntime.FS {
			m := fsruntimetest.NewMemFS()
			m.Roots = []string{memDir}
			return mapErr(m, func(err error) error {
				pe := err.(*fs.PathError)
				if errors.Is(err, fsruntime.ErrOutsideRoots) {
					return &fs.PathError{Op: pe.Op, Path: pe.Path, Err: fs.ErrPermission}
				}
				return err
			})
		}},
		{"not-exist before roots", "fsruntime.ErrOutsideRoots", func() fsruntime.FS {
			m := fsruntimetest.NewMemFS()
			m.Roots = []string{memDir}
			return breakRead(m, func(ctx context.Context, path string, line, limit int) (string, error) {
				if !strings.HasPrefix(path, memDir+string(filepath.Separator)) {
					return "", &fs.PathError{Op: "read", Path: path, Err: fs.ErrNotExist}
				}
				return m.ReadTextFile(ctx, path, line, limit)
			})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := fsruntimetest.TestRoots(t.Context(), tc.fs(), inside, outside)
			if err == nil {
				t.Fatal("TestRoots found no problem")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("TestRoots did not mention %q:\n%v", tc.want, err)
			}
			t.Logf("%v", err)
		})
	}
}

func TestMemFSMethods(t *testing.T) {
	ctx := t.Context()
	m := fsruntimetest.NewMemFS()
	m.Set(ostest.HostPath("/p/a.txt"), "a\n")
	m.Set(ostest.HostPath("/p/q/b.txt"), "b\x00")
	if got, ok := m.Get(ostest.HostPath("/p/a.txt")); !ok || got != "a\n" {
		t.Errorf("Get(/p/a.txt) = %q, %v", got, ok)
	}
	if _, ok := m.Get(ostest.HostPath("/p")); ok {
		t.Error("Get(/p) found a directory")
	}
	if got, want := m.Paths(), []string{ostest.HostPath("/p/a.txt"), ostest.HostPath("/p/q/b.txt")}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Paths() = %q, want %q", got, want)
	}
	// Planted binary content is refused on read.
	if _, err := m.ReadTextFile(ctx, ostest.HostPath("/p/q/b.txt"), 0, 0); !errors.Is(err, fsruntime.ErrBinary) {
		t.Errorf("read of binary: %v, want ErrBinary", err)
	}
	for _, dir := range []string{ostest.HostPath("/"), ostest.HostPath("/p"), ostest.HostPath("/p/q")} {
		if _, err := m.ReadTextFile(ctx, dir, 0, 0); !errors.Is(err, fsruntime.ErrNotRegular) {
			t.Errorf("read of %s: %v, want ErrNotRegular", dir, err)
		}
	}
	// "/p/q.txt" shares a prefix with "/p/q" but is no directory.
	if _, err := m.ReadTextFile(ctx, ostest.HostPath("/p/q.txt"), 0, 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("read of /p/q.txt: %v, want ErrNotExist", err)
	}
	if !m.Delete(ostest.HostPath("/p/q/b.txt")) || m.Delete(ostest.HostPath("/p/q/b.txt")) {
		t.Error("Delete did not report the file once")
	}
	if _, err := m.ReadTextFile(ctx, ostest.HostPath("/p/q"), 0, 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("read of /p/q after the delete: %v, want ErrNotExist", err)
	}
	// Set bypasses the limit.
	m.Max = 4
	m.Set(ostest.HostPath("/p/big.txt"), "0123456789\n")
	if _, err := m.ReadTextFile(ctx, ostest.HostPath("/p/big.txt"), 0, 0); !errors.Is(err, fsruntime.ErrTooLarge) {
		t.Errorf("read over Max: %v, want ErrTooLarge", err)
	} else if tl, ok := errors.AsType[*fsruntime.TooLargeError](err); !ok || !tl.Read {
		t.Errorf("read over Max: %#v, want a *fsruntime.TooLargeError with Read set", err)
	}
	for _, bad := range []string{"", "rel", ostest.HostPath("/a/../b"), ostest.HostPath("/a\x00"), ostest.HostPath("/p")} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Set(%q) did not panic", bad)
				}
			}()
			m.Set(bad, "x")
		}()
	}
}

func TestSliceLines(t *testing.T) {
	const four = "one\ntwo\nthree\nfour\n"
	for _, tc := range []struct {
		content     string
		line, limit int
		want        string
		pastEnd     int // if not 0, want a PastEndError with this many lines, less one
	}{
		{"", 0, 0, "", 0},
		{"", 1, 0, "", 0},
		{"", 1, 3, "", 0},
		{"", -3, 0, "", 0},
		{"", 2, 0, "", 1},
		{"", 9, 1, "", 1},
		{four, 0, 0, four, 0},
		{four, 1, 0, four, 0},
		{four, -1, 1, "one\n", 0},
		{four, 2, 2, "two\nthree\n", 0},
		{four, 3, 0, "three\nfour\n", 0},
		{four, 0, 2, "one\ntwo\n", 0},
		{four, 4, 10, "four\n", 0},
		{four, 2, -5, "two\nthree\nfour\n", 0},
		{four, 5, 0, "", 5},
		{four, 9, 0, "", 5},
		{"a\nb", 2, 0, "b", 0},
		{"a\nb", 1, 1, "a\n", 0},
		{"a\nb", 3, 0, "", 3},
		{"x", 1, 1, "x", 0},
		{"x", 2, 0, "", 2},
		{"\n", 1, 0, "\n", 0},
		{"\n", 2, 0, "", 2},
		{"\n\n", 2, 1, "\n", 0},
		{"\n\n", 3, 0, "", 3},
		{"a\r\nb\r\nc\r\n", 2, 1, "b\r\n", 0},
		{"a\r\nb\nc\r\nd", 2, 2, "b\nc\r\n", 0},
		{"a\rb\nc", 1, 1, "a\rb\n", 0},
		{"a\rb\nc", 3, 0, "", 3},
		{four, 1, int(^uint(0) >> 1), four, 0},
		{four, int(^uint(0) >> 1), 1, "", 5},
	} {
		got, err := fsruntimetest.SliceLines(tc.content, tc.line, tc.limit)
		if tc.pastEnd == 0 {
			if err != nil || got != tc.want {
				t.Errorf("SliceLines(%q, %d, %d) = %q, %v; want %q", tc.content, tc.line, tc.limit, got, err, tc.want)
			}
			continue
		}
		pe, ok := errors.AsType[*fsruntime.PastEndError](err)
		if !ok || got != "" || pe.Line != tc.line || pe.Lines != tc.pastEnd-1 {
			t.Errorf("SliceLines(%q, %d, %d) = %q, %v; want a *fsruntime.PastEndError{Line: %d, Lines: %d}",
				tc.content, tc.line, tc.limit, got, err, tc.line, tc.pastEnd-1)
		}
		if !errors.Is(err, fsruntime.ErrPastEnd) || !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("SliceLines(%q, %d, %d): %v does not match ErrPastEnd and fs.ErrInvalid", tc.content, tc.line, tc.limit, err)
		}
	}
}

// naiveSliceLines is SliceLines written the obvious way.
func naiveSliceLines(content string, line, limit int) (string, int, bool) {
	lines := strings.SplitAfter(content, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	line = max(line, 1)
	if line > len(lines) {
		if len(lines) == 0 && line == 1 {
			return "", 0, true
		}
		return "", len(lines), false
	}
	end := len(lines)
	if limit > 0 && limit < end-(line-1) {
		end = line - 1 + limit
	}
	return strings.Join(lines[line-1:end], ""), len(lines), true
}

func FuzzSliceLines(f *testing.F) {
	for _, s := range []string{"", "\n", "a", "a\nb", "one\ntwo\nthree\nfour\n", "a\r\nb\r\n", "\n\n\r\n"} {
		for line := -1; line <= 6; line++ {
			for limit := -1; limit <= 3; limit++ {
				f.Add(s, line, limit)
			}
		}
	}
	f.Fuzz(func(t *testing.T, content string, line, limit int) {
		got, err := fsruntimetest.SliceLines(content, line, limit)
		want, lines, ok := naiveSliceLines(content, line, limit)
		if ok {
			if err != nil || got != want {
				t.Fatalf("SliceLines(%q, %d, %d) = %q, %v; want %q", content, line, limit, got, err, want)
			}
			return
		}
		pe, isPE := errors.AsType[*fsruntime.PastEndError](err)
		if !isPE || pe.Lines != lines || got != "" {
			t.Fatalf("SliceLines(%q, %d, %d) = %q, %v; want past the end of %d lines", content, line, limit, got, err, lines)
		}
	})
}

// osFS is a minimal disk FS with the runtime's semantics: no roots, no
// limit, not atomic.
type osFS struct{}

func (osFS) ReadTextFile(ctx context.Context, path string, line, limit int) (string, error) {
	if err := osCheck(ctx, path); err != nil {
		return "", &fs.PathError{Op: "read", Path: path, Err: err}
	}
	if info, err := os.Stat(path); err == nil && !info.Mode().IsRegular() {
		return "", &fs.PathError{Op: "read", Path: path, Err: fsruntime.ErrNotRegular}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", osErr("read", path, err)
	}
	if strings.IndexByte(string(b), 0) >= 0 || !isUTF8(b) {
		return "", &fs.PathError{Op: "read", Path: path, Err: fsruntime.ErrBinary}
	}
	s, err := fsruntimetest.SliceLines(string(b), line, limit)
	if err != nil {
		return "", &fs.PathError{Op: "read", Path: path, Err: err}
	}
	return s, nil
}

func (osFS) WriteTextFile(ctx context.Context, path, content string) error {
	if err := osCheck(ctx, path); err != nil {
		return &fs.PathError{Op: "write", Path: path, Err: err}
	}
	if strings.IndexByte(content, 0) >= 0 || !isUTF8([]byte(content)) {
		return &fs.PathError{Op: "write", Path: path, Err: fsruntime.ErrBinary}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return osErr("write", path, err)
	}
	return osErr("write", path, os.WriteFile(path, []byte(content), 0o666))
}

func osCheck(ctx context.Context, path string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if path == "" || strings.IndexByte(path, 0) >= 0 || !filepath.IsAbs(path) || filepath.Clean(path) != path {
		return fs.ErrInvalid
	}
	return nil
}

// osErr renames the path in an error from os to the caller's.
func osErr(op, path string, err error) error {
	if err == nil {
		return nil
	}
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		err = pe.Err
	}
	return &fs.PathError{Op: op, Path: path, Err: err}
}

func isUTF8(b []byte) bool { return utf8.Valid(b) }
