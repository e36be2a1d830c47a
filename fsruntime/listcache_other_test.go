//go:build !linux || acpfs_portable

package fsruntime

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestListingsNotKeptHere: where a directory's stat carries no trusted
// inode and change time (the portable code), no listing is kept however
// old the directory, and each listing shows the entries of the moment.
func TestListingsNotKeptHere(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := OpenDisk([]string{dir}, DiskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	d.now = func() time.Time { return time.Now().Add(time.Hour) } // old enough to keep on Linux

	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if _, keep := dirStamp(f, info, d.now()); keep {
		t.Fatal("dirStamp lets a listing be kept")
	}
	for i, want := range [][]DirEntry{
		{{"a.txt", TypeFile}},
		{{"a.txt", TypeFile}, {"b", TypeDirectory}},
	} {
		if i == 1 {
			if err := os.Mkdir(filepath.Join(dir, "b"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		got, _, err := d.ListDir(t.Context(), dir, 0)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("listing %d: %v, %v; want %v", i, got, err, want)
		}
		if len(d.listings.m) != 0 {
			t.Errorf("listing %d was kept: %v", i, d.listings.m)
		}
	}
}
