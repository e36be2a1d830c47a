package fsruntime_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
)

// TestDiskNoSyncWrites: writes that skip fsync still create the file and
// its parents, replace it whole, keep its mode, follow a symlink inside the
// root, refuse a hard-linked file, and leave no temporary file behind; and
// a NoSync Disk passes the conformance kit. (That they skip the syncs is
// TestWriteSyncsFileThenDirectory's; that a kill never leaves a mix is
// TestWritesSurviveSIGKILL's, whose writers alternate the two modes.)
func TestDiskNoSyncWrites(t *testing.T) {
	dir := realTempDir(t)
	d := openDisk(t, fsruntime.DiskOptions{NoSync: true}, dir)
	p := filepath.Join(dir, "a/b/new.txt")
	if err := d.WriteTextFile(t.Context(), p, "hello\n"); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, p); got != "hello\n" {
		t.Errorf("new file: %q", got)
	}
	// A new file gets what os.WriteFile gives: 0666 less the umask.
	ref := filepath.Join(dir, "ref")
	if err := os.WriteFile(ref, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	if got, want := mode(t, p), mode(t, ref); got != want {
		t.Errorf("new file's mode %v, want %v", got, want)
	}
	perm := ostest.ChmodKept(t, p, 0o646)
	if err := d.WriteTextFile(t.Context(), p, "hi"); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, p); got != "hi" {
		t.Errorf("after a shorter write: %q", got)
	}
	if got := mode(t, p); got != perm {
		t.Errorf("replaced file's mode %v, want %v (0646: o+w, which the umask would drop)", got, perm)
	}

	listing := map[string]string{"a": "[b hard.txt]", "a/b": "[new.txt]"}
	t.Run("symlink", func(t *testing.T) {
		ostest.NeedSymlinks(t, dir)
		if err := os.Symlink("new.txt", filepath.Join(dir, "a/b/link.txt")); err != nil {
			t.Fatal(err)
		}
		listing["a/b"] = "[link.txt new.txt]"
		if err := d.WriteTextFile(t.Context(), filepath.Join(dir, "a/b/link.txt"), "through the link\n"); err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, p); got != "through the link\n" {
			t.Errorf("the link's target holds %q", got)
		}
		if info, err := os.Lstat(filepath.Join(dir, "a/b/link.txt")); err != nil || info.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("the link was replaced: %v, %v", info, err)
		}
	})
	before := readFile(t, p)

	if err := os.Link(p, filepath.Join(dir, "a/hard.txt")); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteTextFile(t.Context(), p, "changed\n"); !errors.Is(err, fsruntime.ErrHardLinked) {
		t.Errorf("write to a hard-linked file: %v, want ErrHardLinked", err)
	}
	if got := readFile(t, filepath.Join(dir, "a/hard.txt")); got != before {
		t.Errorf("the hard-linked file changed: %q", got)
	}

	for sub, want := range listing {
		entries, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if got := fmt.Sprint(names); got != want {
			t.Errorf("%s holds %s after the writes, want %s: no temporary file left", sub, got, want)
		}
	}

	kit := realTempDir(t)
	if err := fsruntimetest.TestFS(t.Context(), openDisk(t, fsruntime.DiskOptions{NoSync: true}, kit), kit); err != nil {
		t.Fatal(err)
	}
}

// mode returns the permission bits of the file at p.
func mode(t *testing.T, p string) fs.FileMode {
	t.Helper()
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return info.Mode().Perm()
}
