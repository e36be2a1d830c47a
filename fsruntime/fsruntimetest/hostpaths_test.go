package fsruntimetest_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// hostAbs returns p, an absolute path in Unix syntax, as an absolute path
// in the running OS's syntax, which the kit and MemFS ask for: p itself
// where / starts an absolute path, else p on drive C: (C:\work\runtimetest
// for /work/runtimetest on Windows).
func hostAbs(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return "C:" + filepath.FromSlash(p)
}

// inMem returns rel, written with /, in memDir, as the kit names it.
func inMem(rel string) string { return filepath.Join(memDir, filepath.FromSlash(rel)) }

// q quotes p as the kit's reports do (%q).
func q(p string) string { return strconv.Quote(p) }

// badArgs are paths the kit refuses as a directory or a root: empty,
// relative or unclean in the running OS's syntax, and, where that is not
// Unix syntax, the Unix absolute paths, which are not absolute there.
func badArgs() []string {
	bad := []string{"", "rel", hostAbs("/a/../b"), hostAbs("/a/")}
	for _, p := range []string{"/a/../b", "/a/", "/a"} {
		if hostAbs(p) != p {
			bad = append(bad, p)
		}
	}
	return bad
}

// symlinkUnsupported returns why os.Symlink cannot make a working symlink
// here, or "" if it can, which it finds out by making one in a temporary
// directory: Windows refuses without the privilege to (or developer
// mode), and Wine 10 answers CreateSymbolicLinkW with success but makes
// nothing (its CreateSymbolicLinkW is a stub). A link that is made but
// does not work as one fails the test.
func symlinkUnsupported(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "target.txt"), []byte("target\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("target.txt", link); err != nil {
		return fmt.Sprintf("os.Symlink cannot make a symlink here: %v", err)
	}
	fi, err := os.Lstat(link)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Sprintf("os.Symlink reports success but makes no symlink here (Lstat: %v), as under Wine, whose CreateSymbolicLinkW is a stub", err)
	}
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("os.Symlink made %s, which Lstat describes as %v, %v; want a symlink", link, fi, err)
	}
	if b, err := os.ReadFile(link); err != nil || string(b) != "target\n" {
		t.Fatalf("the symlink %s to target.txt reads %q, %v", link, b, err)
	}
	return ""
}
