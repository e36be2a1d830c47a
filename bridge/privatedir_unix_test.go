//go:build unix

package bridge

import (
	"os"
	"testing"
)

// checkPrivateDir fails the test unless dir has mode 0700: only this user,
// its owner, can enter it.
func checkPrivateDir(t *testing.T, dir string) {
	t.Helper()
	if info, err := os.Stat(dir); err != nil {
		t.Error(err)
	} else if info.Mode().Perm() != 0o700 {
		t.Errorf("%s: mode %v, want 0700", dir, info.Mode().Perm())
	}
}

// privateDirUncheckable is "": a directory's mode is what it was given.
func privateDirUncheckable() string { return "" }
