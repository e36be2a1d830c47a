package fsruntime_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/mcp-acpfs/mcp-acpfs/capabilities"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
)

func TestDiskExtConformance(t *testing.T) {
	dir := realTempDir(t)
	d := openDisk(t, fsruntime.DiskOptions{}, dir)
	if err := fsruntimetest.TestFSExt(t.Context(), d, filepath.Join(dir, "ext")); err != nil {
		t.Fatal(err)
	}
	t.Run("symlinks", func(t *testing.T) {
		ostest.NeedSymlinks(t, dir)
		if err := fsruntimetest.TestSymlinks(t.Context(), d, filepath.Join(dir, "links"), os.Symlink); err != nil {
			t.Fatal(err)
		}
	})
	base := realTempDir(t)
	writeFile(t, filepath.Join(base, "root/keep"), "")
	writeFile(t, filepath.Join(base, "outside/secret.txt"), "secret\n")
	r := openDisk(t, fsruntime.DiskOptions{}, filepath.Join(base, "root"))
	for _, outside := range []string{filepath.Join(base, "root_sibling/out.txt"), filepath.Join(base, "outside/secret.txt"), filepath.Join(base, "outside"), ostest.HostPath("/etc/passwd")} {
		if err := fsruntimetest.TestRootsExt(t.Context(), r, filepath.Join(base, "root"), outside); err != nil {
			t.Errorf("outside %s: %v", outside, err)
		}
	}
}

// mirrorToDisk makes the fake editor behave as Zed does with files on
// disk: it saves each write to disk too, and opens a file from disk into a
// buffer when it is asked to read one it has no buffer for. So the
// disk-only operations of a Router see what was written through the
// editor route, and the editor sees files made on disk.
func mirrorToDisk(ed *fsruntimetest.Editor, d *fsruntime.Disk) {
	ed.Fail = func(method string, params json.RawMessage) *jsonrpc2.Error {
		var p struct{ Path, Content string }
		if err := json.Unmarshal(params, &p); err != nil {
			return nil
		}
		switch method {
		case fsruntime.MethodWriteTextFile:
			if err := d.WriteTextFile(context.Background(), p.Path, p.Content); err != nil {
				return fsruntimetest.ZedError(p.Path, 0, err)
			}
		case fsruntime.MethodReadTextFile:
			if _, ok := ed.Buffers.Get(p.Path); !ok {
				if text, err := d.ReadTextFile(context.Background(), p.Path, 0, 0); err == nil {
					ed.Buffers.Set(p.Path, text)
				}
			}
		}
		return nil
	}
}

func TestRouterExtConformance(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		read, write bool
	}{{"editor", true, true}, {"disk", false, false}} {
		t.Run(tc.name, func(t *testing.T) {
			base := realTempDir(t)
			dir := filepath.Join(base, "root")
			writeFile(t, filepath.Join(dir, "keep"), "")
			ed := &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS()}
			d := openDisk(t, fsruntime.DiskOptions{}, dir)
			mirrorToDisk(ed, d)
			var client capabilities.Client
			client.FS.ReadTextFile, client.FS.WriteTextFile = tc.read, tc.write
			r := fsruntime.NewRouter(fsruntime.RouterOptions{
				Disk:   d,
				Editor: fsruntime.NewEditor(dialFakeEditor(t, ed), fsruntime.EditorOptions{SessionID: fixedSession("s")}),
				Client: client,
			})
			if err := fsruntimetest.TestFSExt(t.Context(), r, filepath.Join(dir, "ext")); err != nil {
				t.Fatal(err)
			}
			t.Run("symlinks", func(t *testing.T) {
				ostest.NeedSymlinks(t, dir)
				if err := fsruntimetest.TestSymlinks(t.Context(), r, filepath.Join(dir, "links"), os.Symlink); err != nil {
					t.Fatal(err)
				}
			})
			if err := fsruntimetest.TestRootsExt(t.Context(), r, dir, filepath.Join(base, "outside.txt")); err != nil {
				t.Fatal(err)
			}
			hashes := 0
			for _, c := range ed.Requests() {
				if c.Method == fsruntime.MethodReadTextFile {
					hashes++
				}
			}
			if tc.read && hashes == 0 {
				t.Error("with an editor route, HashTextFile never read through the editor")
			}
			if !tc.read && len(ed.Requests()) != 0 {
				t.Errorf("without an editor route, the editor was sent %d requests", len(ed.Requests()))
			}
		})
	}
}

func TestDiskStat(t *testing.T) {
	dir := realTempDir(t)
	d := openDisk(t, fsruntime.DiskOptions{}, dir)
	stat := func(t *testing.T, name string, want fsruntime.FileInfo) {
		t.Helper()
		got, err := d.Stat(t.Context(), filepath.Join(dir, name))
		if err != nil {
			t.Errorf("Stat(%s): %v", name, err)
			return
		}
		if want.ModTime.IsZero() {
			want.ModTime = got.ModTime
		}
		if !got.ModTime.Equal(want.ModTime) {
			t.Errorf("Stat(%s).ModTime = %v, want %v", name, got.ModTime, want.ModTime)
		}
		got.ModTime, want.ModTime = time.Time{}, time.Time{}
		if got != want {
			t.Errorf("Stat(%s) = %+v, want %+v", name, got, want)
		}
	}
	f := filepath.Join(dir, "f.txt")
	writeFile(t, f, "12345")
	perm := ostest.ChmodKept(t, f, 0o640)
	mtime := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(f, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	stat(t, "f.txt", fsruntime.FileInfo{Name: "f.txt", Path: f, Type: fsruntime.TypeFile, Size: 5, ModTime: mtime, Mode: perm})
	t.Run("symlink", func(t *testing.T) {
		ostest.NeedSymlinks(t, dir)
		if err := os.Symlink("f.txt", filepath.Join(dir, "link")); err != nil {
			t.Fatal(err)
		}
		stat(t, "link", fsruntime.FileInfo{Name: "link", Path: filepath.Join(dir, "link"), Type: fsruntime.TypeSymlink, Size: 5, Mode: fs.ModeSymlink | 0o777})
	})
	t.Run("fifo", func(t *testing.T) {
		mkfifo(t, filepath.Join(dir, "fifo"))
		stat(t, "fifo", fsruntime.FileInfo{Name: "fifo", Path: filepath.Join(dir, "fifo"), Type: fsruntime.TypeOther, Mode: fs.ModeNamedPipe | 0o600})
	})
	// The root itself, by both of its names.
	if got, err := d.Stat(t.Context(), dir); err != nil || got.Type != fsruntime.TypeDirectory || got.Name != filepath.Base(dir) {
		t.Errorf("Stat(root) = %+v, %v", got, err)
	}
	_, err := d.Stat(t.Context(), filepath.Join(dir, "missing"))
	if want := "stat " + filepath.Join(dir, "missing") + ": file does not exist"; err == nil || err.Error() != want {
		t.Errorf("Stat(missing) = %v, want %q", err, want)
	}
}

func TestDiskReadDirCapsWithHeap(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	d := openDisk(t, fsruntime.DiskOptions{}, dir)
	const n = 2100 // three chunks of names
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("e%05d", (i*7919)%n) // created out of order
		if err := os.WriteFile(filepath.Join(dir, names[i]), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(names)
	for _, max := range []int{1, 10, 1023, 1024, 1025, n - 1, n, n + 1, 0} {
		entries, truncated, err := d.ReadDir(t.Context(), dir, max)
		if err != nil {
			t.Fatalf("ReadDir(max=%d): %v", max, err)
		}
		want := names
		if max > 0 && max < n {
			want = names[:max]
		}
		got := make([]string, len(entries))
		for i, e := range entries {
			got[i] = e.Name
		}
		if !slices.Equal(got, want) {
			t.Errorf("ReadDir(max=%d) returned %d entries, not the %d smallest names in order", max, len(got), len(want))
		}
		if truncated != (len(want) < n) {
			t.Errorf("ReadDir(max=%d): truncated = %t", max, truncated)
		}
	}
}

func TestDiskReadDirRefusesWhatIsNotADirectory(t *testing.T) {
	dir := realTempDir(t)
	d := openDisk(t, fsruntime.DiskOptions{}, dir)
	refused := func(t *testing.T, name string) {
		t.Helper()
		done := make(chan error, 1)
		go func() {
			_, _, err := d.ReadDir(context.Background(), filepath.Join(dir, name), 0)
			done <- err
		}()
		select {
		case err := <-done:
			if want := "readdir " + filepath.Join(dir, name) + ": not a directory"; err == nil || err.Error() != want || !errors.Is(err, fs.ErrInvalid) {
				t.Errorf("ReadDir(%s) = %v, want %q", name, err, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("ReadDir(%s) hung", name)
		}
	}
	writeFile(t, filepath.Join(dir, "f.txt"), "x")
	refused(t, "f.txt")
	t.Run("fifo", func(t *testing.T) {
		mkfifo(t, filepath.Join(dir, "fifo"))
		refused(t, "fifo")
	})
	// A parent that is a file: the path does not exist.
	if _, _, err := d.ReadDir(t.Context(), filepath.Join(dir, "f.txt/sub"), 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadDir under a file = %v, want fs.ErrNotExist", err)
	}
}

func TestDiskMkdirAll(t *testing.T) {
	dir := realTempDir(t)
	d := openDisk(t, fsruntime.DiskOptions{}, dir)
	writeFile(t, filepath.Join(dir, "f.txt"), "x")
	writeFile(t, filepath.Join(dir, "real/keep"), "")
	made := func(t *testing.T, paths ...string) {
		t.Helper()
		for _, p := range paths {
			if err := d.MkdirAll(t.Context(), p); err != nil {
				t.Errorf("MkdirAll(%s): %v", p, err)
			}
		}
	}
	inTheWay := func(t *testing.T, paths ...string) {
		t.Helper()
		for _, p := range paths {
			err := d.MkdirAll(t.Context(), p)
			if want := "mkdir " + p + ": a file that is not a directory is in the way"; err == nil || err.Error() != want || !errors.Is(err, fs.ErrExist) {
				t.Errorf("MkdirAll(%s) = %v, want %q", p, err, want)
			}
		}
	}
	made(t, dir, filepath.Join(dir, "a/b/c"), filepath.Join(dir, "a/b/c"))
	inTheWay(t, filepath.Join(dir, "f.txt"), filepath.Join(dir, "f.txt/sub"))
	t.Run("symlinks", func(t *testing.T) {
		ostest.NeedSymlinks(t, dir)
		if err := os.Symlink("real", filepath.Join(dir, "to-dir")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("nowhere", filepath.Join(dir, "dangling")); err != nil {
			t.Fatal(err)
		}
		made(t, filepath.Join(dir, "to-dir"), filepath.Join(dir, "to-dir/new"))
		if info, err := os.Stat(filepath.Join(dir, "real/new")); err != nil || !info.IsDir() {
			t.Errorf("MkdirAll through a link to a directory made nothing in its target: %v", err)
		}
		inTheWay(t, filepath.Join(dir, "dangling"))
		if _, err := os.Lstat(filepath.Join(dir, "nowhere")); !errors.Is(err, fs.ErrNotExist) {
			t.Error("MkdirAll of a dangling link made its target")
		}
	})
}

func TestDiskWalkDoesNotOpenSpecialFiles(t *testing.T) {
	dir := realTempDir(t)
	d := openDisk(t, fsruntime.DiskOptions{}, dir)
	writeFile(t, filepath.Join(dir, "a.txt"), "a")
	mkfifo(t, filepath.Join(dir, "fifo"))
	done := make(chan []string, 1)
	go func() {
		var got []string
		d.Walk(context.Background(), dir, func(path string, info fsruntime.FileInfo, err error) error {
			got = append(got, fmt.Sprintf("%s:%s:%v", filepath.Base(path), info.Type, err))
			return nil
		})
		d.Walk(context.Background(), filepath.Join(dir, "fifo"), func(path string, info fsruntime.FileInfo, err error) error {
			got = append(got, fmt.Sprintf("root %s:%s:%v", filepath.Base(path), info.Type, err))
			return nil
		})
		done <- got
	}()
	select {
	case got := <-done:
		want := []string{filepath.Base(dir) + ":directory:<nil>", "a.txt:file:<nil>", "fifo:other:<nil>", "root fifo:other:<nil>"}
		if !slices.Equal(got, want) {
			t.Errorf("walk = %q, want %q", got, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("walking a FIFO hung")
	}
}

// TestDiskWalkNotFooledBySwap swaps a directory for a symlink between the
// moment the walk describes it and the moment it reads it: the walk must
// not read through the link, whether it leads inside or out.
func TestDiskWalkNotFooledBySwap(t *testing.T) {
	base, root := linkAttackFixture(t)
	d := openDisk(t, fsruntime.DiskOptions{}, root)
	writeFile(t, filepath.Join(root, "w/swap/in.txt"), "in")
	writeFile(t, filepath.Join(root, "w/swap2/in.txt"), "in")
	writeFile(t, filepath.Join(root, "elsewhere/other.txt"), "other")
	swaps := map[string]string{filepath.Join(root, "w/swap"): filepath.Join(root, "elsewhere"), filepath.Join(root, "w/swap2"): filepath.Join(base, "outside")}
	var got []string
	err := d.Walk(t.Context(), filepath.Join(root, "w"), func(path string, info fsruntime.FileInfo, err error) error {
		if target, ok := swaps[path]; ok && err == nil {
			if err := os.Rename(path, path+".moved"); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
		}
		got = append(got, slashRel(root, path))
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fsruntime.ErrOutsideRoots) {
				t.Errorf("%s: err = %v", path, err)
			}
			return nil
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Each swapped directory is reported twice (described, then the
	// error), and nothing below it is.
	if want := []string{"w", "w/swap", "w/swap", "w/swap2", "w/swap2"}; !slices.Equal(got, want) {
		t.Errorf("walk visited %q, want %q", got, want)
	}
}

func TestDiskWalkFollowsRootLinkOnlyInside(t *testing.T) {
	_, root := linkAttackFixture(t)
	d := openDisk(t, fsruntime.DiskOptions{}, root)
	if err := os.Symlink("sub", filepath.Join(root, "sub_link")); err != nil {
		t.Fatal(err)
	}
	var got []string
	err := d.Walk(t.Context(), filepath.Join(root, "sub_link"), func(path string, info fsruntime.FileInfo, err error) error {
		got = append(got, fmt.Sprintf("%s(%s)", slashRel(root, path), info.Type))
		return err
	})
	if want := []string{"sub_link(directory)", "sub_link/ok.txt(file)", "sub_link/up_ok(symlink)"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("walk of a link inside = %q, %v; want %q", got, err, want)
	}
	for _, p := range []string{filepath.Join(root, "link_dir"), filepath.Join(root, "chain1"), filepath.Join(root, "proc_root"), filepath.Join(root, "parent_link")} {
		calls := 0
		err := d.Walk(t.Context(), p, func(path string, info fsruntime.FileInfo, err error) error {
			calls++
			if err == nil {
				t.Errorf("walk of %s: fn got %s with no error", p, path)
			}
			return err
		})
		if !errors.Is(err, fsruntime.ErrOutsideRoots) || calls != 1 {
			t.Errorf("walk of %s = %v after %d calls, want ErrOutsideRoots after 1", p, err, calls)
		}
	}
}

func TestDiskMoveAcrossRoots(t *testing.T) {
	a, b := realTempDir(t), realTempDir(t)
	d := openDisk(t, fsruntime.DiskOptions{}, a, b)
	// Windows has no rename between two directory handles: a directory
	// or a link moves between roots only where the OS has one.
	renamesAcrossRoots := runtime.GOOS != "windows"
	// move moves src to dst, and reports whether it did; where the OS
	// cannot, it checks that the move was refused, and src kept.
	move := func(t *testing.T, src, dst string) bool {
		t.Helper()
		err := d.Move(t.Context(), src, dst, false)
		if renamesAcrossRoots || src == filepath.Join(a, "f.txt") {
			if err != nil {
				t.Fatalf("Move(%s, %s): %v", src, dst, err)
			}
			return true
		}
		if !errors.Is(err, errors.ErrUnsupported) || !strings.Contains(err.Error(), src) ||
			!strings.Contains(err.Error(), "create the destination and move what is in it") {
			t.Errorf("Move(%s, %s) between roots = %v, want errors.ErrUnsupported naming it and the way to move a directory", src, dst, err)
		}
		if _, err := os.Lstat(src); err != nil {
			t.Errorf("refused move lost %s: %v", src, err)
		}
		return false
	}
	writeFile(t, filepath.Join(a, "f.txt"), "file\n")
	move(t, filepath.Join(a, "f.txt"), filepath.Join(b, "new/f.txt"))
	if got := readFile(t, filepath.Join(b, "new/f.txt")); got != "file\n" {
		t.Errorf("moved file = %q", got)
	}
	t.Run("directory", func(t *testing.T) {
		writeFile(t, filepath.Join(a, "dir/x.txt"), "x\n")
		if !move(t, filepath.Join(a, "dir"), filepath.Join(b, "dir")) {
			return
		}
		if got := readFile(t, filepath.Join(b, "dir/x.txt")); got != "x\n" {
			t.Errorf("moved directory holds %q", got)
		}
	})
	t.Run("symlink", func(t *testing.T) {
		ostest.NeedSymlinks(t, a)
		if err := os.Symlink("f.txt", filepath.Join(a, "link")); err != nil {
			t.Fatal(err)
		}
		if !move(t, filepath.Join(a, "link"), filepath.Join(b, "link")) {
			return
		}
		if target, err := os.Readlink(filepath.Join(b, "link")); err != nil || target != "f.txt" {
			t.Errorf("moved link = %q, %v; want the same link", target, err)
		}
	})
	// Back, over an existing file only with overwrite.
	writeFile(t, filepath.Join(a, "f.txt"), "old\n")
	if err := d.Move(t.Context(), filepath.Join(b, "new/f.txt"), filepath.Join(a, "f.txt"), false); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Move over an existing file in another root = %v, want fs.ErrExist", err)
	}
	if err := d.Move(t.Context(), filepath.Join(b, "new/f.txt"), filepath.Join(a, "f.txt"), true); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(a, "f.txt")); got != "file\n" {
		t.Errorf("overwritten file = %q", got)
	}
}

func TestDiskMoveAcrossFileSystems(t *testing.T) {
	a := realTempDir(t)
	b := ostest.OtherFileSystemDir(t, a)
	d := openDisk(t, fsruntime.DiskOptions{}, a, b)
	writeFile(t, filepath.Join(a, "f.txt"), "file\n")
	if err := os.Chmod(filepath.Join(a, "f.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(a, "dir/x.txt"), "x\n")
	if err := os.Symlink("f.txt", filepath.Join(a, "link")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(b, "taken.txt"), "taken\n")

	// A regular file is copied, then removed.
	if err := d.Move(t.Context(), filepath.Join(a, "f.txt"), filepath.Join(b, "sub/f.txt"), false); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(b, "sub/f.txt")); got != "file\n" {
		t.Errorf("copied file = %q", got)
	}
	if info, err := os.Stat(filepath.Join(b, "sub/f.txt")); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("copied file mode = %v, %v; want 0600", info, err)
	}
	if _, err := os.Lstat(filepath.Join(a, "f.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the source remains after a move across file systems: %v", err)
	}
	// The rule about an existing destination holds, and nothing is left
	// behind.
	writeFile(t, filepath.Join(a, "g.txt"), "g\n")
	if err := d.Move(t.Context(), filepath.Join(a, "g.txt"), filepath.Join(b, "taken.txt"), false); !errors.Is(err, fs.ErrExist) {
		t.Errorf("copy over an existing file = %v, want fs.ErrExist", err)
	}
	if got := readFile(t, filepath.Join(b, "taken.txt")); got != "taken\n" {
		t.Errorf("refused copy changed the destination: %q", got)
	}
	if got := readFile(t, filepath.Join(a, "g.txt")); got != "g\n" {
		t.Errorf("refused copy changed the source: %q", got)
	}
	if entries, _ := os.ReadDir(b); len(entries) != 2 {
		t.Errorf("refused copy left files behind: %v", entries)
	}
	if err := d.Move(t.Context(), filepath.Join(a, "g.txt"), filepath.Join(b, "taken.txt"), true); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(b, "taken.txt")); got != "g\n" {
		t.Errorf("overwriting copy = %q", got)
	}
	// A directory or a link is refused, with what to do for a directory
	// (as overlayfs refuses a directory from its lower layer).
	for _, src := range []string{filepath.Join(a, "dir"), filepath.Join(a, "link")} {
		err := d.Move(t.Context(), src, filepath.Join(b, filepath.Base(src)), false)
		if !errors.Is(err, errors.ErrUnsupported) || !strings.Contains(err.Error(), src) {
			t.Errorf("Move(%s) across file systems = %v, want errors.ErrUnsupported naming it", src, err)
		}
		if err != nil && !strings.Contains(err.Error(), "create the destination and move what is in it") {
			t.Errorf("Move(%s) across file systems = %v, want the way to move a directory", src, err)
		}
		if _, err := os.Lstat(src); err != nil {
			t.Errorf("refused move lost %s: %v", src, err)
		}
	}
}

func TestDiskMoveAndRemoveGuardNestedRoots(t *testing.T) {
	dir := realTempDir(t)
	writeFile(t, filepath.Join(dir, "a/b/inner/keep.txt"), "keep")
	writeFile(t, filepath.Join(dir, "other/x.txt"), "x")
	links := ostest.NoSymlinks(t, dir)
	if links == nil {
		if err := os.Symlink("a", filepath.Join(dir, "alias")); err != nil {
			t.Fatal(err)
		}
	}
	d := openDisk(t, fsruntime.DiskOptions{}, dir, filepath.Join(dir, "a/b/inner"))
	guarded := func(t *testing.T, paths ...string) {
		t.Helper()
		for _, p := range paths {
			for _, recursive := range []bool{false, true} {
				if err := d.Remove(t.Context(), p, recursive); !errors.Is(err, fs.ErrPermission) {
					t.Errorf("Remove(%s, %t) = %v, want fs.ErrPermission", p, recursive, err)
				}
			}
			if err := d.Move(t.Context(), p, filepath.Join(dir, "moved"), false); !errors.Is(err, fs.ErrPermission) {
				t.Errorf("Move(%s) = %v, want fs.ErrPermission", p, err)
			}
		}
	}
	guarded(t, filepath.Join(dir, "a"), filepath.Join(dir, "a/b"), filepath.Join(dir, "a/b/inner"))
	t.Run("through a symlink", func(t *testing.T) {
		ostest.SkipWithoutSymlinks(t, links)
		guarded(t, filepath.Join(dir, "alias/b"), filepath.Join(dir, "alias/b/inner"))
	})
	// An empty directory cannot be moved over the nested root either.
	if err := os.Remove(filepath.Join(dir, "a/b/inner/keep.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := d.Move(t.Context(), filepath.Join(dir, "empty"), filepath.Join(dir, "a/b/inner"), true); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("Move over a nested root = %v, want fs.ErrPermission", err)
	}
	t.Run("over it through a symlink", func(t *testing.T) {
		ostest.SkipWithoutSymlinks(t, links)
		if err := d.Move(t.Context(), filepath.Join(dir, "empty"), filepath.Join(dir, "alias/b/inner"), true); !errors.Is(err, fs.ErrPermission) {
			t.Errorf("Move over a nested root through an alias = %v, want fs.ErrPermission", err)
		}
	})
	if _, err := os.Stat(filepath.Join(dir, "a/b/inner")); err != nil {
		t.Errorf("the nested root is gone: %v", err)
	}
	// Elsewhere, moves and removals work.
	if err := d.Move(t.Context(), filepath.Join(dir, "other"), filepath.Join(dir, "a/other"), false); err != nil {
		t.Error(err)
	}
	if err := d.Remove(t.Context(), filepath.Join(dir, "a/other"), true); err != nil {
		t.Error(err)
	}
}

func TestDiskRemoveMessages(t *testing.T) {
	dir := realTempDir(t)
	d := openDisk(t, fsruntime.DiskOptions{}, dir)
	writeFile(t, filepath.Join(dir, "d/f.txt"), "x")
	for _, tc := range []struct {
		path      string
		recursive bool
		want      string
		is        error
	}{
		{filepath.Join(dir, "d"), false, "remove " + filepath.Join(dir, "d") + ": the directory is not empty (set recursive to remove it with its contents)", fs.ErrExist},
		{dir, true, "remove " + dir + ": it is one of the session's roots, which cannot be moved, replaced or removed", fs.ErrPermission},
		{filepath.Join(dir, "missing"), true, "remove " + filepath.Join(dir, "missing") + ": file does not exist", fs.ErrNotExist},
	} {
		err := d.Remove(t.Context(), tc.path, tc.recursive)
		if err == nil || err.Error() != tc.want || !errors.Is(err, tc.is) {
			t.Errorf("Remove(%s, %t) = %v, want %q", tc.path, tc.recursive, err, tc.want)
		}
	}
}

func TestDiskReadFile(t *testing.T) {
	dir := realTempDir(t)
	d := openDisk(t, fsruntime.DiskOptions{MaxFileSize: 100}, dir)
	bin := []byte{0xff, 0xfe, 0, 1, 2, '\n', 0x80}
	if err := os.WriteFile(filepath.Join(dir, "bin"), bin, 0o644); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "big"), strings.Repeat("x", 101))
	if got, err := d.ReadFile(t.Context(), filepath.Join(dir, "bin"), 0); err != nil || !bytes.Equal(got, bin) {
		t.Errorf("ReadFile(bin) = %q, %v", got, err)
	}
	// max <= 0 is the Disk's limit; a larger max is the caller's to give.
	_, err := d.ReadFile(t.Context(), filepath.Join(dir, "big"), 0)
	if tl, ok := errors.AsType[*fsruntime.TooLargeError](err); !ok || tl.Limit != 100 || tl.Size != 101 || tl.Read {
		t.Errorf("ReadFile(big, 0) = %#v, want a TooLargeError of 101 over 100", err)
	}
	for _, max := range []int64{101, math.MaxInt64} {
		if got, err := d.ReadFile(t.Context(), filepath.Join(dir, "big"), max); err != nil || len(got) != 101 {
			t.Errorf("ReadFile(big, %d) = %d bytes, %v", max, len(got), err)
		}
	}
	t.Run("fifo", func(t *testing.T) {
		mkfifo(t, filepath.Join(dir, "fifo"))
		done := make(chan error, 1)
		go func() { _, err := d.ReadFile(context.Background(), filepath.Join(dir, "fifo"), 0); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, fsruntime.ErrNotRegular) || !strings.Contains(err.Error(), "named pipe") {
				t.Errorf("ReadFile(fifo) = %v, want ErrNotRegular naming a named pipe", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("ReadFile of a FIFO hung")
		}
	})
}

func TestDiskHashTextFile(t *testing.T) {
	dir := realTempDir(t)
	d := openDisk(t, fsruntime.DiskOptions{MaxFileSize: 4096}, dir)
	big := strings.Repeat("línea de texto ✓\n", 1000) // over the limit
	writeFile(t, filepath.Join(dir, "big.txt"), big)
	if _, err := d.ReadTextFile(t.Context(), filepath.Join(dir, "big.txt"), 0, 0); !errors.Is(err, fsruntime.ErrTooLarge) {
		t.Fatalf("whole read of big.txt = %v, want ErrTooLarge", err)
	}
	if got, err := d.HashTextFile(t.Context(), filepath.Join(dir, "big.txt")); err != nil || got != fsruntime.HashText(big) {
		t.Errorf("HashTextFile over the size limit = %q, %v; want the hash of the whole file", got, err)
	}
	// Binary by the read's rule: a late NUL is text, late invalid UTF-8
	// is not.
	lateNUL := strings.Repeat("x", 9000) + "\x00\n"
	lateBad := strings.Repeat("x", 9000) + "\xff\n"
	writeFile(t, filepath.Join(dir, "late-nul.txt"), lateNUL)
	writeFile(t, filepath.Join(dir, "late-bad.txt"), lateBad)
	writeFile(t, filepath.Join(dir, "early-nul.txt"), "a\x00b")
	if got, err := d.HashTextFile(t.Context(), filepath.Join(dir, "late-nul.txt")); err != nil || got != fsruntime.HashText(lateNUL) {
		t.Errorf("HashTextFile(late-nul) = %q, %v", got, err)
	}
	for _, name := range []string{"late-bad.txt", "early-nul.txt"} {
		if _, err := d.HashTextFile(t.Context(), filepath.Join(dir, name)); !errors.Is(err, fsruntime.ErrBinary) {
			t.Errorf("HashTextFile(%s) = %v, want ErrBinary", name, err)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := d.HashTextFile(ctx, filepath.Join(dir, "big.txt")); !errors.Is(err, context.Canceled) {
		t.Errorf("HashTextFile with a cancelled context = %v", err)
	}
}

// readers cut what they read in every way the hash must not notice.
var readers = map[string]func(io.Reader) io.Reader{
	"whole":    func(r io.Reader) io.Reader { return r },
	"one byte": iotest.OneByteReader,
	"halves":   iotest.HalfReader,
	"data+EOF": iotest.DataErrReader,
}

// FuzzHashTextMatchesRead checks that the streaming hash refuses exactly
// what a whole read refuses as binary, and otherwise hashes what it
// returns, however its input is cut.
func FuzzHashTextMatchesRead(f *testing.F) {
	for _, s := range []string{"", "a\n", "日本語✓", "\xe6\x97", "\xe6\x97\xa5", "a\x00b", "\xff", "\xf0\x9f\x99\x82x", "\xed\xa0\x80", "\xc0\xaf",
		strings.Repeat("✓", 3000) + "\xe2\x9c", strings.Repeat("x", 9000) + "\x00", strings.Repeat("é", 5000) + "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		text, rerr := fsruntime.ReadLines(strings.NewReader(content), 0, 0, 1<<30, int64(len(content)))
		for name, wrap := range readers {
			sum, herr := fsruntime.HashTextReader(wrap(strings.NewReader(content)))
			if errors.Is(rerr, fsruntime.ErrBinary) != errors.Is(herr, fsruntime.ErrBinary) {
				t.Fatalf("%s: read error %v, hash error %v, for %q", name, rerr, herr, content)
			}
			if rerr == nil && sum != fsruntime.HashText(text) {
				t.Fatalf("%s: hash %s, want the hash of the read text, for %q", name, sum, content)
			}
		}
	})
}

func TestHashTextLargeRandom(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	runes := []string{"a", "é", "✓", "🙂", "\n", "\r\n"}
	for range 12 {
		var b strings.Builder
		for b.Len() < 150<<10 { // more than the read buffer
			b.WriteString(runes[rng.IntN(len(runes))])
		}
		s := b.String()
		if rng.IntN(2) == 0 {
			i := 8<<10 + rng.IntN(len(s)-8<<10)
			s = s[:i] + "\x80" + s[i:] // a stray continuation byte
		}
		text, rerr := fsruntime.ReadLines(strings.NewReader(s), 0, 0, 1<<30, -1)
		for name, wrap := range readers {
			if name == "one byte" {
				continue // slow at this size; the fuzz test cuts byte by byte
			}
			sum, herr := fsruntime.HashTextReader(wrap(strings.NewReader(s)))
			if (rerr == nil) != (herr == nil) || rerr == nil && sum != fsruntime.HashText(text) {
				t.Fatalf("%s: read %v, hash %q, %v", name, rerr, sum, herr)
			}
		}
	}
}

func TestRouterHashFollowsReadRoute(t *testing.T) {
	f := newRouterFixture(t)
	p := filepath.Join(f.dir, "main.go")
	disk, buffer := fsruntime.HashText("package main // on disk\n"), fsruntime.HashText("package main // unsaved buffer\n")
	for _, tc := range []struct {
		name        string
		read, write bool
		policy      capabilities.Policy
		want        string
		wantErr     error
	}{
		{"editor reads", true, false, capabilities.PolicyAuto, buffer, nil},
		{"disk reads", false, true, capabilities.PolicyAuto, disk, nil},
		{"policy disk", true, true, capabilities.PolicyDisk, disk, nil},
		{"policy editor, not advertised", false, false, capabilities.PolicyEditor, "", fsruntime.ErrNotAdvertised},
	} {
		r := f.router(t, tc.read, tc.write, tc.policy)
		got, err := r.HashTextFile(t.Context(), p)
		if got != tc.want || !errors.Is(err, tc.wantErr) {
			t.Errorf("%s: HashTextFile = %q, %v; want %q, %v", tc.name, got, err, tc.want, tc.wantErr)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "hash "+p+": ") {
			t.Errorf("%s: error %q does not name the operation and path", tc.name, err)
		}
		// The hash is the hash of what a read returns.
		if text, err := r.ReadTextFile(t.Context(), p, 0, 0); err == nil && fsruntime.HashText(text) != got {
			t.Errorf("%s: HashTextFile disagrees with ReadTextFile", tc.name)
		}
	}
	// An editor that does not serve reads after all: the hash falls back
	// with the read.
	f.ed.Fail = func(string, json.RawMessage) *jsonrpc2.Error {
		return &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "Method not found"}
	}
	r := f.router(t, true, true, capabilities.PolicyAuto)
	if got, err := r.HashTextFile(t.Context(), p); err != nil || got != disk {
		t.Errorf("after method not found: HashTextFile = %q, %v; want the disk's", got, err)
	}
}

func TestRouterExtOperationsGoToDisk(t *testing.T) {
	f := newRouterFixture(t)
	r := f.router(t, true, true, capabilities.PolicyAuto)
	ctx := t.Context()
	writeFile(t, filepath.Join(f.dir, "d/x.txt"), "x\n")
	if info, err := r.Stat(ctx, filepath.Join(f.dir, "main.go")); err != nil || info.Size != int64(len("package main // on disk\n")) {
		t.Errorf("Stat = %+v, %v; want the disk's size", info, err)
	}
	if entries, _, err := r.ReadDir(ctx, f.dir, 0); err != nil || len(entries) != 2 {
		t.Errorf("ReadDir = %v, %v", entries, err)
	}
	if b, err := r.ReadFile(ctx, filepath.Join(f.dir, "main.go"), 0); err != nil || string(b) != "package main // on disk\n" {
		t.Errorf("ReadFile = %q, %v; want the disk's bytes", b, err)
	}
	walked := 0
	if err := r.Walk(ctx, f.dir, func(string, fsruntime.FileInfo, error) error { walked++; return nil }); err != nil || walked != 4 {
		t.Errorf("Walk visited %d, %v", walked, err)
	}
	if err := r.MkdirAll(ctx, filepath.Join(f.dir, "e/f")); err != nil {
		t.Error(err)
	}
	if err := r.Move(ctx, filepath.Join(f.dir, "d/x.txt"), filepath.Join(f.dir, "e/f/x.txt"), false); err != nil {
		t.Error(err)
	}
	if err := r.Remove(ctx, filepath.Join(f.dir, "e"), true); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "e")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Remove through the router left %s: %v", filepath.Join(f.dir, "e"), err)
	}
	if calls := f.ed.Requests(); len(calls) != 0 {
		t.Errorf("the editor was sent %v", calls)
	}
}

// BenchmarkReadDirCapped lists 100 entries of a directory of 100,000,
// which ReadDir does in memory for the 100 and not the 100,000.
func BenchmarkReadDirCapped(b *testing.B) {
	dir := b.TempDir()
	for i := range 100_000 {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("f%06d", (i*7919)%100_000)))
		if err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	d, err := fsruntime.OpenDisk([]string{dir}, fsruntime.DiskOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	for b.Loop() {
		entries, truncated, err := d.ReadDir(b.Context(), dir, 100)
		if err != nil || len(entries) != 100 || !truncated || entries[0].Name != "f000000" {
			b.Fatalf("ReadDir = %d entries, %t, %v", len(entries), truncated, err)
		}
	}
	reportMaxRSS(b)
}

// BenchmarkReadDir1000 lists a directory of 1,000 files, as list_directory
// does: the names, then one lookup per entry.
func BenchmarkReadDir1000(b *testing.B) {
	dir := b.TempDir()
	sub := filepath.Join(dir, "d")
	if err := os.Mkdir(sub, 0o755); err != nil {
		b.Fatal(err)
	}
	for i := range 1000 {
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%04d.txt", i)), []byte("x"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	d, err := fsruntime.OpenDisk([]string{dir}, fsruntime.DiskOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	for b.Loop() {
		entries, _, err := d.ReadDir(b.Context(), sub, 1000)
		if err != nil || len(entries) != 1000 {
			b.Fatalf("ReadDir: %d entries, %v", len(entries), err)
		}
	}
}
