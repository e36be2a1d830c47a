package ostest_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
)

// verdict is a testing.TB that records a skip or a failure instead of
// ending the test.
type verdict struct {
	testing.TB
	skipped, failed string
}

func (v *verdict) Helper()                      {}
func (v *verdict) Skipf(f string, args ...any)  { v.skipped = fmt.Sprintf(f, args...) }
func (v *verdict) Fatalf(f string, args ...any) { v.failed = fmt.Sprintf(f, args...) }

// TestSkipWithoutSymlinks: a system that cannot make links skips the test;
// a probe that failed otherwise, or made a link that works wrong, fails it.
func TestSkipWithoutSymlinks(t *testing.T) {
	for _, tc := range []struct {
		name       string
		err        error
		skip, fail bool
	}{
		{"links work", nil, false, false},
		{"none can be made", fmt.Errorf("%w: %w", ostest.ErrNoSymlinks, errors.ErrUnsupported), true, false},
		{"a link works wrong", errors.New("the link reads back as x"), false, true},
	} {
		v := &verdict{TB: t}
		ostest.SkipWithoutSymlinks(v, tc.err)
		if (v.skipped != "") != tc.skip || (v.failed != "") != tc.fail {
			t.Errorf("%s: skipped %q, failed %q; want skip %t, fail %t", tc.name, v.skipped, v.failed, tc.skip, tc.fail)
		}
	}
}

// TestSymlinkErr: the probe works where links work, says so where none can
// be made, leaves nothing behind, and fails otherwise, as in a directory
// that does not exist.
func TestSymlinkErr(t *testing.T) {
	dir := t.TempDir()
	err := ostest.SymlinkErr(dir)
	if err != nil && (runtime.GOOS != "windows" || !errors.Is(err, ostest.ErrNoSymlinks)) {
		t.Errorf("SymlinkErr in a new directory: %v", err)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("the probe left %v, %v", entries, err)
	}
	if err := ostest.SymlinkErr(filepath.Join(dir, "missing")); err == nil || errors.Is(err, ostest.ErrNoSymlinks) {
		t.Errorf("SymlinkErr in a missing directory: %v, want an error other than ErrNoSymlinks", err)
	}
	v := &verdict{TB: t}
	if err := ostest.NoSymlinks(v, filepath.Join(dir, "missing")); err == nil || v.failed == "" {
		t.Errorf("NoSymlinks in a missing directory: %v, failed %q; want it to fail", err, v.failed)
	}
}

// TestUnixSocketsErr: Unix has unix sockets; Windows may lack them, and
// then says so.
func TestUnixSocketsErr(t *testing.T) {
	err := ostest.UnixSocketsErr()
	if err != nil && (runtime.GOOS != "windows" || !errors.Is(err, ostest.ErrNoUnixSockets)) {
		t.Errorf("UnixSocketsErr: %v", err)
	}
	if got := ostest.NoUnixSockets(t); got != err {
		t.Errorf("NoUnixSockets: %v, want %v", got, err)
	}
}

func TestHostPath(t *testing.T) {
	want := "/w/a.txt"
	if runtime.GOOS == "windows" {
		want = `C:\w\a.txt`
	}
	if got := ostest.HostPath("/w/a.txt"); got != want || !filepath.IsAbs(got) {
		t.Errorf("HostPath(/w/a.txt) = %q, want %q, absolute", got, want)
	}
}
