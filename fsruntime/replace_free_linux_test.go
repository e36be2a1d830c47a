//go:build linux && !acpfs_portable

package fsruntime

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
)

// TestWriteFreesReplacedFileAfter: a write holds the file it replaces
// across its rename, so that the rename only takes its name, and lets it
// go after the call. At the directory's sync, just after the rename, the
// old file has lost its name and this process still holds it; once the
// Disk is closed, which waits for the files being freed, nothing does.
func TestWriteFreesReplacedFileAfter(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(target, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := ostest.StatOf(t, target)
	var syncs int
	var renamed, held bool
	sync := syncDir
	syncDir = func(fd int) error {
		syncs++
		var st unix.Stat_t
		renamed = unix.Stat(target, &st) == nil && st.Ino != old.Ino
		held = ostest.Holds(t, old)
		return sync(fd)
	}
	t.Cleanup(func() { syncDir = sync })

	d, err := OpenDisk([]string{dir}, DiskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.WriteTextFile(t.Context(), target, "new\n"); err != nil {
		t.Fatal(err)
	}
	if syncs != 1 || !renamed || !held {
		t.Errorf("at the directory's sync (%d): new file in place %v, old file held %v; want one sync, both true", syncs, renamed, held)
	}
	closedFreed(t, d, old, target, "new\n")
}

// closedFreed closes d and checks that nothing then holds old, the file
// replaced, and that path holds want.
func closedFreed(t *testing.T, d *Disk, old unix.Stat_t, path, want string) {
	t.Helper()
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if ostest.Holds(t, old) {
		t.Error("the closed Disk still holds the file replaced")
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != want {
		t.Errorf("read back %q, %v; want %q", b, err, want)
	}
}

// TestMoveFreesReplacedFileAfter: a rename that overwrites a file holds it
// across the rename and gives the caller what lets it go, as a write does;
// one that replaces nothing, or fails, holds nothing after. Disk.Move then
// frees the file after the call, and Close waits for it.
func TestMoveFreesReplacedFileAfter(t *testing.T) {
	dir := t.TempDir()
	ostest.WriteFiles(t, dir, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n", "full/x": "x\n"})
	stat := func(name string) unix.Stat_t { return ostest.StatOf(t, filepath.Join(dir, name)) }
	d, err := OpenDisk([]string{dir}, DiskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := d.begin(t.Context(), "move", dir)
	if err != nil {
		t.Fatal(err)
	}

	old := stat("b.txt")
	free, err := renameIn(r, "a.txt", r, "b.txt", true)
	if err != nil || free == nil || !ostest.Holds(t, old) {
		t.Fatalf("rename over a file: %v, free %v, old file held %v; want no error, a free, held", err, free != nil, ostest.Holds(t, old))
	}
	free()
	if ostest.Holds(t, old) {
		t.Error("the replaced file is held after free")
	}
	if free, err := renameIn(r, "b.txt", r, "new.txt", true); err != nil || free != nil {
		t.Errorf("rename to a new name: %v, free %v; want no error, no free", err, free != nil)
	}
	full := stat("full")
	if free, err := renameIn(r, "c.txt", r, "full", true); err == nil || free != nil || ostest.Holds(t, full) {
		t.Errorf("rename over a full directory: %v, free %v, directory held %v; want an error and nothing held", err, free != nil, ostest.Holds(t, full))
	}

	old = stat("new.txt")
	if err := d.Move(t.Context(), filepath.Join(dir, "c.txt"), filepath.Join(dir, "new.txt"), true); err != nil {
		t.Fatal(err)
	}
	closedFreed(t, d, old, filepath.Join(dir, "new.txt"), "c\n")
}

// TestMoveAcrossFreesReplacedFile: a move to another file system, which
// copies the file and renames the copy over the destination, lets the
// file it replaced go too, by Close at the latest.
func TestMoveAcrossFreesReplacedFile(t *testing.T) {
	dir := t.TempDir()
	other := ostest.OtherFileSystemDir(t, dir)
	ostest.WriteFiles(t, dir, map[string]string{"a.txt": "a\n"})
	ostest.WriteFiles(t, other, map[string]string{"b.txt": "b\n"})
	old := ostest.StatOf(t, filepath.Join(other, "b.txt"))
	d, err := OpenDisk([]string{dir, other}, DiskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Move(t.Context(), filepath.Join(dir, "a.txt"), filepath.Join(other, "b.txt"), true); err != nil {
		t.Fatal(err)
	}
	closedFreed(t, d, old, filepath.Join(other, "b.txt"), "a\n")
}
