package fsruntime

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// syncCall is one sync a write made, with what the test saw at that moment.
type syncCall struct {
	dir     bool   // the directory's sync, or the file's
	size    int64  // the size of what was synced
	current string // what the target held
	temp    bool   // a temporary file was named beside the target
}

// tempNamed reports whether a temporary file of a write to target has a
// name in its directory.
func tempNamed(t *testing.T, target string) bool {
	entries, err := os.ReadDir(filepath.Dir(target))
	if err != nil {
		t.Error(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "."+filepath.Base(target)+".tmp-") {
			return true
		}
	}
	return false
}

// TestWriteSyncsFileThenDirectory: by default a write syncs the new file,
// whole and before it replaces the old one, and then the directory, after
// the rename (not on Windows, which cannot). The temporary file has no
// name when it is synced where O_TMPFILE is used, and one otherwise. A
// Disk with NoSync, and one narrowed from it, syncs nothing.
func TestWriteSyncsFileThenDirectory(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "sub", "f.txt")
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	calls := countSyncs(t, target)

	d, err := OpenDisk([]string{dir}, DiskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	const content = "the new content\n"
	if err := d.WriteTextFile(t.Context(), target, content); err != nil {
		t.Fatal(err)
	}
	want := []syncCall{
		{dir: false, size: int64(len(content)), current: "old\n", temp: !unnamedTemps(t, filepath.Dir(target))},
		{dir: true, current: content},
	}
	if !hostRules().syncDir { // Windows: a directory cannot be synced
		want = want[:1]
	}
	got := *calls
	if len(got) != len(want) || got[0] != want[0] || len(got) > 1 && (got[1].dir != want[1].dir || got[1].current != want[1].current || got[1].temp) {
		t.Fatalf("a write (named temporary file: %t) made the syncs %+v, want the file's (all its bytes, before the rename) and then, where the OS can, the directory's (after): %+v", want[0].temp, got, want)
	}

	for _, opts := range []DiskOptions{{NoSync: true}, {NoSync: true, AllowHardLinks: true}} {
		*calls = nil
		nd, err := OpenDisk([]string{dir}, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer nd.Close()
		narrowed, err := nd.Narrow([]string{filepath.Dir(target)})
		if err != nil {
			t.Fatal(err)
		}
		defer narrowed.Close()
		for i, w := range []*Disk{nd, narrowed} {
			if err := w.WriteTextFile(t.Context(), target, content[:i+1]); err != nil {
				t.Fatal(err)
			}
		}
		if len(*calls) != 0 {
			t.Errorf("%+v: writes made the syncs %+v, want none", opts, *calls)
		}
		if b, err := os.ReadFile(target); err != nil || string(b) != content[:2] {
			t.Errorf("%+v: the file holds %q, %v", opts, b, err)
		}
	}
}
