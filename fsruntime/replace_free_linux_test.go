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
	var old unix.Stat_t
	if err := unix.Stat(target, &old); err != nil {
		t.Fatal(err)
	}
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
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if ostest.Holds(t, old) {
		t.Error("the closed Disk still holds the replaced file")
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "new\n" {
		t.Errorf("read back %q, %v", b, err)
	}
}
