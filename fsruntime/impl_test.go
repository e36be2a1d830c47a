package fsruntime

import (
	"os"
	"testing"
)

// TestImplementations: the build runs the implementation of each
// platform mechanism that its OS and tags call for (wantImpls): Linux's
// own, or with the acpfs_portable tag (and off Linux) the portable ones
// that macOS, Windows and the BSDs run.
func TestImplementations(t *testing.T) {
	got := [3]string{tmpImpl, direntImpl, renameImpl}
	t.Logf("temporary files: %s; directory reading: %s; renames: %s", got[0], got[1], got[2])
	if got != wantImpls {
		t.Errorf("this build runs %v, want %v", got, wantImpls)
	}
}

// openTestParent opens dir as the parent directory of a write, through a
// root of its own; the test's cleanup closes both.
func openTestParent(t testing.TB, dir string) *parentDir {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	p, err := openParent(root, ".")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.close)
	return p
}
