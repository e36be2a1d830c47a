package ostest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// HostPath returns the absolute path that slash, a slash-separated
// absolute fixture such as "/w/a.txt", stands for in this OS's syntax:
// itself on Unix, and on drive C: on Windows (C:\w\a.txt), where a path
// without a drive is not absolute. It names nothing on disk: it is for
// in-memory file systems and for paths that must be refused.
func HostPath(slash string) string {
	if runtime.GOOS == "windows" {
		return "C:" + filepath.FromSlash(slash)
	}
	return slash
}

// SymlinkErr reports why no working symbolic link can be made in dir, or
// nil if one can. It makes a link to a file and one to a directory in a
// new directory in dir, reads each back and follows it, and removes what
// it made. On Windows a process may lack the right to make links, and
// under Wine os.Symlink fails (ERROR_NOT_SUPPORTED) or reports success but
// leaves no usable link.
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
			return err
		}
		if got, err := os.Readlink(link); err != nil {
			return fmt.Errorf("os.Symlink(%q, %q) reported success, but the link cannot be read back: %w", target, link, err)
		} else if got != target {
			return fmt.Errorf("the link %s to %q reads back as %q", link, target, got)
		}
		if info, err := os.Lstat(link); err != nil || info.Mode()&fs.ModeSymlink == 0 {
			return fmt.Errorf("the link %s is not described as a link: %v, %v", link, info, err)
		}
		info, err := os.Stat(link)
		if err != nil {
			return fmt.Errorf("the link %s cannot be followed: %w", link, err)
		}
		if info.IsDir() != (target == "dir") {
			return fmt.Errorf("the link %s to the %s %q leads to a %v", link, target, target, info.Mode().Type())
		}
	}
	return nil
}

// NeedSymlinks skips the test, saying why, unless a working symbolic link
// can be made in dir.
func NeedSymlinks(tb testing.TB, dir string) {
	tb.Helper()
	SkipWithoutSymlinks(tb, SymlinkErr(dir))
}

// SkipWithoutSymlinks skips the test if err, what SymlinkErr found, says
// that no working symbolic link can be made.
func SkipWithoutSymlinks(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Skipf("this needs symbolic links, and no working one can be made here: %v", err)
	}
}

// ErrNoFifos is MkfifoErr's error where the file system has no named
// pipes (Windows).
var ErrNoFifos = errors.New("no named pipes in the file system on " + runtime.GOOS)
