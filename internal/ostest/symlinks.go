package ostest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// ErrNoSymlinks is wrapped by SymlinkErr's error where no symbolic link
// can be made at all.
var ErrNoSymlinks = errors.New("no symbolic links can be made here")

// SymlinkErr reports why no working symbolic link can be made in dir, or
// nil if one can. It makes a link to a file and one to a directory in a
// new directory in dir, reads each back and follows it, and removes what
// it made. Its error wraps ErrNoSymlinks where os.Symlink fails (on
// Windows a process may lack the right; Wine may answer
// ERROR_NOT_SUPPORTED) or reports success but leaves nothing (Wine). Any
// other error says that the probe failed, or that the link it made does
// not work as one.
func SymlinkErr(dir string) error {
	probe, err := os.MkdirTemp(dir, "symlink-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(probe)
	if err := os.WriteFile(filepath.Join(probe, "file"), []byte("x"), 0o644); err != nil {
		return err
	}
	if err := os.Mkdir(filepath.Join(probe, "dir"), 0o755); err != nil {
		return err
	}
	for _, target := range []string{"file", "dir"} {
		link := filepath.Join(probe, target+"-link")
		if err := os.Symlink(target, link); err != nil {
			return fmt.Errorf("%w: %w", ErrNoSymlinks, err)
		}
		info, err := os.Lstat(link)
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: os.Symlink(%q, %q) reported success but made nothing (Lstat: %w)", ErrNoSymlinks, target, link, err)
		}
		if err != nil || info.Mode()&fs.ModeSymlink == 0 {
			return fmt.Errorf("os.Symlink(%q, %q) made what Lstat describes as %v, %v; want a link", target, link, info, err)
		}
		if got, err := os.Readlink(link); err != nil {
			return fmt.Errorf("the link %s cannot be read back: %w", link, err)
		} else if got != target {
			return fmt.Errorf("the link %s to %q reads back as %q", link, target, got)
		}
		info, err = os.Stat(link)
		if err != nil {
			return fmt.Errorf("the link %s cannot be followed: %w", link, err)
		}
		if info.IsDir() != (target == "dir") {
			return fmt.Errorf("the link %s to the %s %q leads to a %v", link, target, target, info.Mode().Type())
		}
		if target == "file" {
			if b, err := os.ReadFile(link); err != nil || string(b) != "x" {
				return fmt.Errorf("the link %s to the file %q reads %q, %v; want %q", link, target, b, err, "x")
			}
		}
	}
	return nil
}

// NoSymlinks returns SymlinkErr(dir) where it says that no symbolic link
// can be made here (ErrNoSymlinks), or nil where working ones can, for a
// test that goes on without links; any other error fails the test.
func NoSymlinks(tb testing.TB, dir string) error {
	tb.Helper()
	err := SymlinkErr(dir)
	if err != nil && !errors.Is(err, ErrNoSymlinks) {
		failSymlinks(tb, err)
	}
	return err
}

// NeedSymlinks skips the test, saying why, unless a working symbolic link
// can be made in dir, as SkipWithoutSymlinks.
func NeedSymlinks(tb testing.TB, dir string) {
	tb.Helper()
	SkipWithoutSymlinks(tb, SymlinkErr(dir))
}

// SkipWithoutSymlinks skips the test if err, what SymlinkErr found, says
// that no symbolic link can be made here (ErrNoSymlinks), and fails it if
// err says that the probe failed or that a link works wrong.
func SkipWithoutSymlinks(tb testing.TB, err error) {
	tb.Helper()
	switch {
	case err == nil:
	case errors.Is(err, ErrNoSymlinks):
		tb.Skipf("this needs symbolic links: %v", err)
	default:
		failSymlinks(tb, err)
	}
}

// failSymlinks fails the test with err, from a probe for symbolic links
// that failed or made a link that works wrong.
func failSymlinks(tb testing.TB, err error) {
	tb.Helper()
	tb.Fatalf("the probe for working symbolic links failed: %v", err)
}
