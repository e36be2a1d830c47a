//go:build !linux || acpfs_portable

package fsruntime

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRenameInCaseOnly: without overwrite, the portable rename refuses an
// existing dst, but not when dst is the source itself under a name that
// differs only in case, as on a file system that ignores case. A case-
// sensitive one stands in with a hard link, the only way to make two such
// names one file there.
func TestRenameInCaseOnly(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x"), 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "A.txt")); err != nil { // names are case-sensitive here
		if err := os.Link(filepath.Join(dir, "a.txt"), filepath.Join(dir, "A.txt")); err != nil {
			t.Skip("no hard links here:", err)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "b.txt")); err == nil {
		t.Skip("this file system ignores case")
	}
	if err := os.WriteFile(filepath.Join(dir, "b.txt"), []byte("y"), 0o666); err != nil {
		t.Fatal(err)
	}
	d, err := OpenDisk([]string{dir}, DiskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	r, _, err := d.begin(t.Context(), "move", filepath.Join(dir, "a.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := renameIn(r, "a.txt", r, "A.txt", false); err != nil {
		t.Errorf("case-only rename: %v, want success", err)
	}
	if _, err := renameIn(r, "a.txt", r, "b.txt", false); err == nil {
		t.Error("rename over another file without overwrite succeeded")
	}
}
