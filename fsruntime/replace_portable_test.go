//go:build !linux || acpfs_portable

package fsruntime

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// windowsLike opens a Disk on dir that writes by Windows's rules, its
// renames given by rename (nil: the real one).
func windowsLike(t *testing.T, dir string, rename func(root *os.Root, from, to string) error) *Disk {
	t.Helper()
	d, err := OpenDisk([]string{dir}, DiskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	d.rules = replaceRules{refuseReadOnly: true, inUse: windowsInUse, rename: rename}
	return d
}

// names lists dir.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// TestPortableWriteWindowsRules runs the portable write with Windows's
// rules: a read-only file is refused and kept; a file that another
// process holds is retried, then refused with ErrInUse naming the path,
// and the temporary file is removed; one freed in time is replaced; mode
// bits are not carried over; and only the file is synced.
func TestPortableWriteWindowsRules(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "a.txt")
	write := func(content string, mode os.FileMode) {
		t.Helper()
		os.Chmod(target, 0o600) // a read-only file cannot be rewritten on Windows
		if err := os.WriteFile(target, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(target, mode); err != nil {
			t.Fatal(err)
		}
	}
	check := func(what, want string) {
		t.Helper()
		if b, err := os.ReadFile(target); err != nil || string(b) != want {
			t.Errorf("%s: the file holds %q, %v; want %q", what, b, err, want)
		}
		if got := names(t, dir); !slices.Equal(got, []string{"a.txt"}) {
			t.Errorf("%s: the directory holds %v, want only a.txt (no temporary file left)", what, got)
		}
	}

	write("old", 0o444)
	err := windowsLike(t, dir, nil).WriteTextFile(t.Context(), target, "new")
	if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), target) {
		t.Errorf("read-only file: %v, want ErrReadOnly naming %s", err, target)
	}
	check("read-only file", "old")

	write("old", 0o640)
	renames := 0
	held := func(root *os.Root, from, to string) error {
		renames++
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: errorSharingViolation}
	}
	err = windowsLike(t, dir, held).WriteTextFile(t.Context(), target, "new")
	if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), "write "+target+": the file is in use by another process") || renames != 10 {
		t.Errorf("held file: %v after %d renames, want ErrInUse naming %s after 10", err, renames, target)
	}
	check("held file", "old")

	renames = 0
	freed := func(root *os.Root, from, to string) error {
		if renames++; renames < 3 {
			return held(root, from, to)
		}
		return root.Rename(from, to)
	}
	calls := countSyncs(t, target)
	if err := windowsLike(t, dir, freed).WriteTextFile(t.Context(), target, "new"); err != nil || renames != 3 {
		t.Errorf("file freed on the third try: %v after %d renames", err, renames)
	}
	check("freed file", "new")
	if got := fmt.Sprint(*calls); len(*calls) != 1 || (*calls)[0].dir {
		t.Errorf("syncs %s, want the file's alone (no directory sync on Windows)", got)
	}
	ref := filepath.Join(t.TempDir(), "ref")
	if err := os.WriteFile(ref, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	if got, want := mustStat(t, target).Mode().Perm(), mustStat(t, ref).Mode().Perm(); got != want {
		t.Errorf("the replaced file's mode is %v, want a new file's %v: the old 0640 is not carried over", got, want)
	}
}

// TestPortableLinksByHandle: where lstat gives no link count (Windows),
// the write path counts the names on the file opened in its directory.
func TestPortableLinksByHandle(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")); err != nil {
		t.Fatal(err)
	}
	p := openTestParent(t, dir)
	n, err := p.lstat("a.txt")
	if err != nil {
		t.Fatal(err)
	}
	n.links, n.counted = 0, false
	if got, err := p.links("a.txt", n); got != 2 || err != nil {
		t.Errorf("links of a file with two names, uncounted by lstat: %d, %v", got, err)
	}
}
