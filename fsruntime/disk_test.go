package fsruntime_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fspath"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
)

// openDisk opens a Disk on dir and closes it when the test ends.
func openDisk(t *testing.T, opts fsruntime.DiskOptions, dirs ...string) *fsruntime.Disk {
	t.Helper()
	d, err := fsruntime.OpenDisk(dirs, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// realTempDir is t.TempDir with symlinks resolved, so tests can compare
// paths.
func realTempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestDiskReadLineRanges(t *testing.T) {
	dir := realTempDir(t)
	d := openDisk(t, fsruntime.DiskOptions{}, dir)
	writeFile(t, filepath.Join(dir, "four.txt"), "one\ntwo\nthree\nfour\n")
	writeFile(t, filepath.Join(dir, "crlf.txt"), "a\r\nb\r\nc")
	writeFile(t, filepath.Join(dir, "empty.txt"), "")
	tests := []struct {
		file        string
		line, limit int
		want        string
		wantErr     error
	}{
		{"four.txt", 0, 0, "one\ntwo\nthree\nfour\n", nil},
		{"four.txt", 1, 0, "one\ntwo\nthree\nfour\n", nil},
		{"four.txt", 2, 2, "two\nthree\n", nil},
		{"four.txt", 3, 0, "three\nfour\n", nil},
		{"four.txt", 0, 2, "one\ntwo\n", nil},
		{"four.txt", 4, 100, "four\n", nil},
		{"four.txt", 5, 0, "", fsruntime.ErrPastEnd},
		{"crlf.txt", 2, 1, "b\r\n", nil},
		{"crlf.txt", 3, 1, "c", nil},
		{"crlf.txt", 4, 1, "", fsruntime.ErrPastEnd},
		{"empty.txt", 0, 0, "", nil},
		{"empty.txt", 1, 5, "", nil},
		{"empty.txt", 2, 0, "", fsruntime.ErrPastEnd},
	}
	for _, tt := range tests {
		got, err := d.ReadTextFile(t.Context(), filepath.Join(dir, tt.file), tt.line, tt.limit)
		if !errors.Is(err, tt.wantErr) || got != tt.want {
			t.Errorf("read %s line=%d limit=%d = %q, %v; want %q, %v", tt.file, tt.line, tt.limit, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestDiskPastEndMessageCountsLines(t *testing.T) {
	dir := realTempDir(t)
	d := openDisk(t, fsruntime.DiskOptions{}, dir)
	writeFile(t, filepath.Join(dir, "f"), "one\ntwo\nthree\nfour\n")
	_, err := d.ReadTextFile(t.Context(), filepath.Join(dir, "f"), 7, 0)
	want := "read " + filepath.Join(dir, "f") + ": line 7 is past the end of the file (4 lines)"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("past end does not match fs.ErrInvalid")
	}
}

func TestDiskRefusesBinary(t *testing.T) {
	dir := realTempDir(t)
	d := openDisk(t, fsruntime.DiskOptions{}, dir)
	writeFile(t, filepath.Join(dir, "binary.bin"), "abc\x00def\n") // not nul.bin: Windows reserves NUL
	writeFile(t, filepath.Join(dir, "latin1.txt"), "caf\xe9\n")
	// Invalid UTF-8 after the sniffed window is still caught in what is
	// returned, and a range that avoids it still reads.
	writeFile(t, filepath.Join(dir, "late.txt"), strings.Repeat("x\n", 10000)+"\xff\n")
	for _, name := range []string{"binary.bin", "latin1.txt", "late.txt"} {
		_, err := d.ReadTextFile(t.Context(), filepath.Join(dir, name), 0, 0)
		if !errors.Is(err, fsruntime.ErrBinary) {
			t.Errorf("read %s: err = %v, want ErrBinary", name, err)
		}
		if err != nil && !strings.Contains(err.Error(), filepath.Join(dir, name)) {
			t.Errorf("error %q does not name the path", err)
		}
	}
	if got, err := d.ReadTextFile(t.Context(), filepath.Join(dir, "late.txt"), 1, 2); err != nil || got != "x\nx\n" {
		t.Errorf("range before the bad byte = %q, %v", got, err)
	}
	for _, content := range []string{"a\x00b", "\xff\xfe", "ok\n\xc3"} {
		err := d.WriteTextFile(t.Context(), filepath.Join(dir, "w.txt"), content)
		if !errors.Is(err, fsruntime.ErrBinary) {
			t.Errorf("write %q: err = %v, want ErrBinary", content, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "w.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused write left a file: %v", err)
	}
}

func TestDiskUTF8RuneAcrossSniffWindow(t *testing.T) {
	dir := realTempDir(t)
	d := openDisk(t, fsruntime.DiskOptions{}, dir)
	// A 3-byte rune straddles the 8 KiB sniff boundary.
	content := strings.Repeat("a", 8<<10-1) + "日本\n"
	writeFile(t, filepath.Join(dir, "f"), content)
	got, err := d.ReadTextFile(t.Context(), filepath.Join(dir, "f"), 0, 0)
	if err != nil || got != content {
		t.Fatalf("read = %d bytes, %v", len(got), err)
	}
}

func TestDiskSizeLimit(t *testing.T) {
	dir := realTempDir(t)
	d := openDisk(t, fsruntime.DiskOptions{MaxFileSize: 100}, dir)
	big := strings.Repeat("0123456789\n", 20) // 220 bytes, 20 lines
	writeFile(t, filepath.Join(dir, "big.txt"), big)
	_, err := d.ReadTextFile(t.Context(), filepath.Join(dir, "big.txt"), 0, 0)
	if !errors.Is(err, fsruntime.ErrTooLarge) {
		t.Fatalf("whole read of a big file: err = %v, want ErrTooLarge", err)
	}
	if !strings.Contains(err.Error(), "line and limit") {
		t.Errorf("too-large read error %q gives no hint about ranges", err)
	}
	if got, err := d.ReadTextFile(t.Context(), filepath.Join(dir, "big.txt"), 15, 2); err != nil || got != "0123456789\n0123456789\n" {
		t.Errorf("a range of a big file = %q, %v", got, err)
	}
	if _, err := d.ReadTextFile(t.Context(), filepath.Join(dir, "big.txt"), 2, 0); !errors.Is(err, fsruntime.ErrTooLarge) {
		t.Errorf("an open-ended range over the limit: err = %v, want ErrTooLarge", err)
	}
	if err := d.WriteTextFile(t.Context(), filepath.Join(dir, "w.txt"), big); !errors.Is(err, fsruntime.ErrTooLarge) {
		t.Errorf("write over the limit: err = %v, want ErrTooLarge", err)
	}
	if err := d.WriteTextFile(t.Context(), filepath.Join(dir, "w.txt"), big[:100]); err != nil {
		t.Errorf("write at the limit: %v", err)
	}
}

func TestDiskWriteCreatesParentsAndReplacesAtomically(t *testing.T) {
	dir := realTempDir(t)
	d := openDisk(t, fsruntime.DiskOptions{}, dir)
	p := filepath.Join(dir, "a/b/c/new.txt")
	if err := d.WriteTextFile(t.Context(), p, "hello\n"); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, p); got != "hello\n" {
		t.Fatalf("content = %q", got)
	}
	if err := d.WriteTextFile(t.Context(), p, "hi"); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, p); got != "hi" {
		t.Fatalf("after shorter overwrite = %q", got)
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries after writes, want 1 (no temp files left)", len(entries))
	}
}

func TestDiskWriteKeepsMode(t *testing.T) {
	dir := realTempDir(t)
	d := openDisk(t, fsruntime.DiskOptions{}, dir)
	p := filepath.Join(dir, "script.sh")
	writeFile(t, p, "#!/bin/sh\n")
	perm := ostest.ChmodKept(t, p, 0o751)
	if err := d.WriteTextFile(t.Context(), p, "#!/bin/sh\necho hi\n"); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != perm {
		t.Errorf("mode = %v, want %v (0751 as the OS keeps it)", info.Mode().Perm(), perm)
	}
}

func TestDiskWriteRefusesDirectory(t *testing.T) {
	dir := realTempDir(t)
	d := openDisk(t, fsruntime.DiskOptions{}, dir)
	writeFile(t, filepath.Join(dir, "d/child.txt"), "x")
	for _, p := range []string{filepath.Join(dir, "d"), dir} {
		err := d.WriteTextFile(t.Context(), p, "oops")
		if !errors.Is(err, fsruntime.ErrNotRegular) {
			t.Errorf("write %s: err = %v, want ErrNotRegular", p, err)
		}
	}
	if got := readFile(t, filepath.Join(dir, "d/child.txt")); got != "x" {
		t.Errorf("directory content changed: %q", got)
	}
}

func TestDiskWriteThroughSymlinkInsideRoot(t *testing.T) {
	dir := realTempDir(t)
	ostest.NeedSymlinks(t, dir)
	d := openDisk(t, fsruntime.DiskOptions{}, dir)
	writeFile(t, filepath.Join(dir, "real.txt"), "old")
	if err := os.Symlink("real.txt", filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteTextFile(t.Context(), filepath.Join(dir, "link.txt"), "new"); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dir, "real.txt")); got != "new" {
		t.Errorf("target = %q, want new", got)
	}
	if info, err := os.Lstat(filepath.Join(dir, "link.txt")); err != nil || info.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", info, err)
	}
}

func TestDiskRefusesSpecialFiles(t *testing.T) {
	dir := realTempDir(t)
	d := openDisk(t, fsruntime.DiskOptions{}, dir)
	mkfifo(t, filepath.Join(dir, "fifo"))
	done := make(chan error, 1)
	go func() {
		_, err := d.ReadTextFile(context.Background(), filepath.Join(dir, "fifo"), 0, 0)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, fsruntime.ErrNotRegular) || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("read fifo: err = %v, want ErrNotRegular naming a named pipe", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("reading a FIFO hung")
	}
	if err := d.WriteTextFile(t.Context(), filepath.Join(dir, "fifo"), "x"); !errors.Is(err, fsruntime.ErrNotRegular) {
		t.Errorf("write fifo: err = %v, want ErrNotRegular", err)
	}
	if _, err := d.ReadTextFile(t.Context(), dir, 0, 0); !errors.Is(err, fsruntime.ErrNotRegular) {
		t.Errorf("read root dir: err = %v, want ErrNotRegular", err)
	}
	// A device node, where this process may create one.
	if err := mkNullDevice(filepath.Join(dir, "null")); err == nil {
		if _, err := d.ReadTextFile(t.Context(), filepath.Join(dir, "null"), 0, 0); !errors.Is(err, fsruntime.ErrNotRegular) {
			t.Errorf("read device: err = %v, want ErrNotRegular", err)
		}
	}
}

func TestDiskCancelledContext(t *testing.T) {
	dir := realTempDir(t)
	d := openDisk(t, fsruntime.DiskOptions{}, dir)
	writeFile(t, filepath.Join(dir, "f"), "x\n")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := d.ReadTextFile(ctx, filepath.Join(dir, "f"), 0, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("read: err = %v, want context.Canceled", err)
	}
	if err := d.WriteTextFile(ctx, filepath.Join(dir, "f"), "y"); !errors.Is(err, context.Canceled) {
		t.Errorf("write: err = %v, want context.Canceled", err)
	}
	if got := readFile(t, filepath.Join(dir, "f")); got != "x\n" {
		t.Errorf("a cancelled write changed the file: %q", got)
	}
}

func TestDiskNestedAndMultipleRoots(t *testing.T) {
	a, b := realTempDir(t), realTempDir(t)
	writeFile(t, filepath.Join(a, "x.txt"), "a")
	writeFile(t, filepath.Join(b, "y.txt"), "b")
	d := openDisk(t, fsruntime.DiskOptions{}, a, b, a+string(filepath.Separator)+".") // a duplicate is dropped
	if got := d.Roots(); len(got) != 2 {
		t.Fatalf("roots = %v", got)
	}
	for p, want := range map[string]string{filepath.Join(a, "x.txt"): "a", filepath.Join(b, "y.txt"): "b"} {
		if got, err := d.ReadTextFile(t.Context(), p, 0, 0); err != nil || got != want {
			t.Errorf("read %s = %q, %v", p, got, err)
		}
	}
}

func TestDiskRootThroughSymlink(t *testing.T) {
	base := realTempDir(t)
	ostest.NeedSymlinks(t, base)
	writeFile(t, filepath.Join(base, "real/f.txt"), "via link")
	if err := os.Symlink(filepath.Join(base, "real"), filepath.Join(base, "alias")); err != nil {
		t.Fatal(err)
	}
	d := openDisk(t, fsruntime.DiskOptions{}, filepath.Join(base, "alias"))
	for _, p := range []string{filepath.Join(base, "alias/f.txt"), filepath.Join(base, "real/f.txt")} {
		if got, err := d.ReadTextFile(t.Context(), p, 0, 0); err != nil || got != "via link" {
			t.Errorf("read %s = %q, %v", p, got, err)
		}
	}
}

func TestOpenDiskErrors(t *testing.T) {
	dir := realTempDir(t)
	writeFile(t, filepath.Join(dir, "file"), "x")
	for _, root := range []string{filepath.Join(dir, "missing"), filepath.Join(dir, "file"), "", "a\x00b"} {
		if d, err := fsruntime.OpenDisk([]string{root}, fsruntime.DiskOptions{}); err == nil {
			d.Close()
			t.Errorf("OpenDisk(%q) succeeded", root)
		}
	}
}

func TestAbs(t *testing.T) {
	tests := []struct {
		wd, p, want string
		ok          bool
	}{
		{"/w", "a/b.txt", "/w/a/b.txt", true},
		{"/w", "/x/../y", "/y", true},
		{"/w", "../up", "/up", true},
		{"/w", "", "", false},
		{"/w", "a\x00b", "", false},
		{"", "rel", "", false},
	}
	for _, tt := range tests {
		// The fixtures are Unix paths; on Windows they are on drive C:.
		if tt.wd != "" {
			tt.wd = ostest.HostPath(tt.wd)
		}
		if tt.want != "" {
			tt.want = ostest.HostPath(tt.want)
		}
		tt.p = filepath.FromSlash(tt.p)
		got, err := fspath.Abs(tt.wd, tt.p)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("Abs(%q, %q) = %q, %v", tt.wd, tt.p, got, err)
		}
		if err != nil && !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("Abs(%q, %q) error %v does not match fs.ErrInvalid", tt.wd, tt.p, err)
		}
	}
}

func TestDiskNarrow(t *testing.T) {
	dir := realTempDir(t)
	writeFile(t, filepath.Join(dir, "proj/sub/in.txt"), "in")
	writeFile(t, filepath.Join(dir, "proj/other.txt"), "other")
	outside := realTempDir(t)
	writeFile(t, filepath.Join(outside, "secret.txt"), "secret")
	d := openDisk(t, fsruntime.DiskOptions{}, filepath.Join(dir, "proj"))

	n, err := d.Narrow([]string{filepath.Join(dir, "proj/sub"), outside, filepath.Join(dir, "proj/missing")})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if got := n.Roots(); len(got) != 1 || got[0] != filepath.Join(dir, "proj/sub") {
		t.Fatalf("narrowed roots = %v, want only proj/sub", got)
	}
	if _, err := n.ReadTextFile(t.Context(), filepath.Join(dir, "proj/sub/in.txt"), 0, 0); err != nil {
		t.Errorf("read inside the narrowed root: %v", err)
	}
	for _, p := range []string{filepath.Join(dir, "proj/other.txt"), filepath.Join(outside, "secret.txt")} {
		if _, err := n.ReadTextFile(t.Context(), p, 0, 0); !errors.Is(err, fsruntime.ErrOutsideRoots) {
			t.Errorf("read %s after narrowing: err = %v, want ErrOutsideRoots", p, err)
		}
	}
	// A client root that contains the configured one keeps it, no wider.
	w, err := d.Narrow([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if got := w.Roots(); len(got) != 1 || got[0] != filepath.Join(dir, "proj") {
		t.Errorf("a wider client root gave roots %v, want only proj", got)
	}
	// A symlink inside the root cannot become a root that leads out.
	t.Run("symlink", func(t *testing.T) {
		ostest.NeedSymlinks(t, dir)
		if err := os.Symlink(outside, filepath.Join(dir, "proj/escape")); err != nil {
			t.Fatal(err)
		}
		e, err := d.Narrow([]string{filepath.Join(dir, "proj/escape")})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if got := e.Roots(); len(got) != 0 {
			t.Errorf("narrowing to a symlink that leads out gave roots %v", got)
		}
		if _, err := e.ReadTextFile(t.Context(), filepath.Join(outside, "secret.txt"), 0, 0); !errors.Is(err, fsruntime.ErrOutsideRoots) {
			t.Errorf("read through escaped narrow: %v", err)
		}
	})
}

func TestDiskCheck(t *testing.T) {
	dir := realTempDir(t)
	outside := realTempDir(t)
	writeFile(t, filepath.Join(dir, "in.txt"), "x")
	d := openDisk(t, fsruntime.DiskOptions{}, dir)
	for _, p := range []string{filepath.Join(dir, "in.txt"), filepath.Join(dir, "new/deeper/file.txt"), dir} {
		if err := d.Check(p); err != nil {
			t.Errorf("Check(%s) = %v", p, err)
		}
	}
	outsiders := func(t *testing.T, paths ...string) {
		t.Helper()
		for _, p := range paths {
			if err := d.Check(p); !errors.Is(err, fsruntime.ErrOutsideRoots) {
				t.Errorf("Check(%s) = %v, want ErrOutsideRoots", p, err)
			}
		}
	}
	outsiders(t, filepath.Join(outside, "x"), filepath.Join(dir+"_sibling", "x"))
	t.Run("symlink", func(t *testing.T) {
		ostest.NeedSymlinks(t, dir)
		if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
			t.Fatal(err)
		}
		outsiders(t, filepath.Join(dir, "out/x"), filepath.Join(dir, "out"))
	})
}

func TestDiskConformance(t *testing.T) {
	dir := realTempDir(t)
	if err := fsruntimetest.TestFS(t.Context(), openDisk(t, fsruntime.DiskOptions{}, dir), dir); err != nil {
		t.Fatal(err)
	}
	limited := realTempDir(t)
	if err := fsruntimetest.TestLimits(t.Context(), openDisk(t, fsruntime.DiskOptions{MaxFileSize: 4096}, limited), limited, 4096); err != nil {
		t.Fatal(err)
	}
	base := realTempDir(t)
	writeFile(t, filepath.Join(base, "root/keep"), "")
	if err := fsruntimetest.TestRoots(t.Context(), openDisk(t, fsruntime.DiskOptions{}, filepath.Join(base, "root")), filepath.Join(base, "root/in.txt"), filepath.Join(base, "root_sibling/out.txt")); err != nil {
		t.Fatal(err)
	}
}

func TestDiskMissingFileMessage(t *testing.T) {
	dir := realTempDir(t)
	d := openDisk(t, fsruntime.DiskOptions{}, dir)
	_, err := d.ReadTextFile(t.Context(), filepath.Join(dir, "nope.txt"), 0, 0)
	if want := "read " + filepath.Join(dir, "nope.txt") + ": file does not exist"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}
