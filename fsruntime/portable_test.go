package fsruntime_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fspath"
)

// The helpers here let the tests run in the syntax and on the file
// systems of every OS: a fixture written as a Unix path means the same
// path on drive C: on Windows, and what needs symbolic links, or the
// permission bits that Windows does not keep, is checked where the
// platform has them.

// hostPath returns the absolute path that slash, a slash-separated
// absolute fixture such as "/w/a.txt" that names nothing on disk, stands
// for in this OS's syntax: itself on Unix, and on drive C: on Windows
// (C:\w\a.txt), where a path without a drive is not absolute.
func hostPath(slash string) string {
	if runtime.GOOS == "windows" {
		return "C:" + filepath.FromSlash(slash)
	}
	return slash
}

// hostURI returns uri, a file URI written for a Unix path (file:///w/a,
// file://localhost/w/a, file:/w/a), with its path moved to drive C: on
// Windows as hostPath does (file:///C:/w/a). A URI with no path or with
// another host, or on Unix, is returned as it is.
func hostURI(uri string) string {
	const scheme = "file:"
	if runtime.GOOS != "windows" || !strings.EqualFold(uri[:min(len(uri), len(scheme))], scheme) {
		return uri
	}
	i := len(scheme) // the path's start
	if strings.HasPrefix(uri[i:], "//") {
		host, _, ok := strings.Cut(uri[i+2:], "/")
		if !ok || host != "" && !strings.EqualFold(host, "localhost") {
			return uri // no path, or a share's (file://server/share/a)
		}
		i += 2 + len(host)
	}
	if !strings.HasPrefix(uri[i:], "/") {
		return uri
	}
	return uri[:i] + "/C:" + uri[i:]
}

// uriPath returns the path part of the file URI of the absolute path p, as
// it follows "file://": p itself on Unix (/tmp/x), /C:/tmp/x on Windows. A
// test appends to it what a URI's path may hold (%2e%2e, /..) and puts a
// scheme and host of its choosing before it.
func uriPath(p string) string {
	return strings.TrimPrefix(fspath.FileURI(p), "file://")
}

// slashRel returns p without the leading root and separator, in slashes:
// the key a test gives a path it found under root. p that is not below
// root is returned as it is.
func slashRel(root, p string) string {
	return filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
}

// symlinkErr reports why a working symbolic link cannot be made in dir, or
// nil if one can. It makes a link to a file and one to a directory in a
// new directory in dir, reads each back and follows it, and removes what
// it made. On Windows a process may lack the right to make links, and
// under Wine os.Symlink reports success but leaves no usable link.
func symlinkErr(dir string) error {
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

// needSymlinks skips the test, saying why, unless a working symbolic link
// can be made in dir.
func needSymlinks(t testing.TB, dir string) {
	t.Helper()
	skipWithoutSymlinks(t, symlinkErr(dir))
}

// skipWithoutSymlinks skips the test if err, what symlinkErr found, says
// that no working symbolic link can be made.
func skipWithoutSymlinks(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Skipf("this needs symbolic links, and no working one can be made here: %v", err)
	}
}

// chmodKept sets the permission bits of the file at p to perm, and returns
// the bits the file then has as far as the OS keeps them: perm itself, but
// on Windows, which keeps only a read-only attribute (0444 or 0666), what
// os.Stat then says.
func chmodKept(t *testing.T, p string, perm fs.FileMode) fs.FileMode {
	t.Helper()
	if err := os.Chmod(p, perm); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "windows" {
		return mode(t, p)
	}
	return perm
}
