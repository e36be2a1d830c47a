//go:build linux && !acpfs_portable

package fsruntime

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// dirent encodes one linux_dirent64 record, padded to 8 bytes as the
// kernel pads them.
func dirent(ino uint64, typ byte, name string) []byte {
	n := direntName + len(name) + 1
	n = (n + 7) &^ 7
	rec := make([]byte, n)
	binary.NativeEndian.PutUint64(rec, ino)
	binary.NativeEndian.PutUint16(rec[direntReclen:], uint16(n))
	rec[direntType] = typ
	copy(rec[direntName:], name)
	return rec
}

// TestParseDirents checks the decoding of getdents64 records: types from
// d_type, "." and ".." and deleted records skipped, the lookup asked only
// for DT_UNKNOWN, an entry it reports gone left out, and malformed
// records refused rather than read past.
func TestParseDirents(t *testing.T) {
	var buf []byte
	for _, r := range [][]byte{
		dirent(1, unix.DT_DIR, "."),
		dirent(2, unix.DT_DIR, ".."),
		dirent(3, unix.DT_REG, "file.txt"),
		dirent(4, unix.DT_DIR, "sub"),
		dirent(5, unix.DT_LNK, "link"),
		dirent(6, unix.DT_FIFO, "fifo"),
		dirent(7, unix.DT_SOCK, "sock"),
		dirent(0, unix.DT_REG, "deleted"),
		dirent(8, unix.DT_UNKNOWN, "unknown-dir"),
		dirent(9, unix.DT_UNKNOWN, "gone"),
		dirent(10, unix.DT_REG, strings.Repeat("n", 255)),
	} {
		buf = append(buf, r...)
	}
	var asked []string
	lookup := func(name string) (FileType, bool, error) {
		asked = append(asked, name)
		if name == "gone" {
			return "", false, nil
		}
		return TypeDirectory, true, nil
	}
	var got []DirEntry
	if err := parseDirents(buf, lookup, func(e DirEntry) { got = append(got, e) }); err != nil {
		t.Fatal(err)
	}
	want := []DirEntry{
		{"file.txt", TypeFile}, {"sub", TypeDirectory}, {"link", TypeSymlink}, {"fifo", TypeOther},
		{"sock", TypeOther}, {"unknown-dir", TypeDirectory}, {strings.Repeat("n", 255), TypeFile},
	}
	if !slices.Equal(got, want) {
		t.Errorf("entries = %v, want %v", got, want)
	}
	if want := []string{"unknown-dir", "gone"}; !slices.Equal(asked, want) {
		t.Errorf("lookup asked for %q, want %q", asked, want)
	}

	bad := dirent(3, unix.DT_REG, "file.txt")
	for name, b := range map[string][]byte{
		"short header":       bad[:direntName-1],
		"reclen past buffer": bad[:len(bad)-1],
		"reclen too small": func() []byte {
			c := slices.Clone(bad)
			binary.NativeEndian.PutUint16(c[direntReclen:], 4)
			return c
		}(),
	} {
		if err := parseDirents(b, lookup, func(DirEntry) {}); err == nil || !strings.Contains(err.Error(), "getdents64") {
			t.Errorf("%s: err = %v, want a getdents64 error", name, err)
		}
	}
}

// TestDirListerLookup checks the lookup ListDir uses where the file system
// records no type: it describes the entry in the listed directory itself,
// without following a symlink, even one that leads out of the roots.
func TestDirListerLookup(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	for _, d := range []string{"dir/sub"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "dir", "f.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "dir", "out")); err != nil {
		t.Fatal(err)
	}
	d, err := OpenDisk([]string{root}, DiskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	r, rel, err := d.begin(t.Context(), "readdir", filepath.Join(root, "dir"))
	if err != nil {
		t.Fatal(err)
	}
	l := &dirLister{r: r, rel: rel}
	defer l.close()
	for name, want := range map[string]FileType{"sub": TypeDirectory, "f.txt": TypeFile, "out": TypeSymlink} {
		typ, ok, err := l.lookup(name)
		if err != nil || !ok || typ != want {
			t.Errorf("lookup(%q) = %q, %t, %v; want %q", name, typ, ok, err, want)
		}
	}
	if _, ok, err := l.lookup("missing"); ok || err != nil {
		t.Errorf("lookup(missing) = ok %t, %v; want gone, no error", ok, err)
	}
}
