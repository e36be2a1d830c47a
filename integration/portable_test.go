package integration

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// The helpers here let the tests run on every OS the binary runs on, in
// the host's path syntax: paths are joined with filepath.Join, and what
// needs symbolic links, hard links, named pipes or unix sockets, which
// Windows may not give a process (and Wine does not give at all), is
// checked where a probe finds them, and skipped, saying why, where not.

// errCannotSignal is what sendSignal returns for a signal the system
// cannot send to a process: the test that asks for it is skipped.
var errCannotSignal = errors.New("the system cannot send this signal")

// unixSocketErr reports why no AF_UNIX socket can be listened on here, or
// nil if one can: the stdio entry the proxy injects reaches it through a
// relay over such a socket. Windows has them since 10 (1803); Wine does
// not (WSAEAFNOSUPPORT).
var unixSocketErr = sync.OnceValue(func() error {
	dir, err := os.MkdirTemp("", "mcp-acpfs-unix-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ln, err := net.Listen("unix", filepath.Join(dir, "probe.sock"))
	if err != nil {
		return err
	}
	return ln.Close()
})

// needUnixSockets skips the test, saying why, unless AF_UNIX sockets can
// be listened on here (unixSocketErr).
func needUnixSockets(t testing.TB) {
	t.Helper()
	if err := unixSocketErr(); err != nil {
		t.Skipf("this needs the stdio relay, which runs over an AF_UNIX socket, and this system has none (as Wine, or Windows before 10 1803): %v", err)
	}
}

// symlinkErr reports why no working symbolic link can be made in dir, or
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

// needSymlinks skips the test, saying why, unless working symbolic links
// can be made in dir.
func needSymlinks(t testing.TB, dir string) {
	t.Helper()
	skipWithout(t, "symbolic links", symlinkErr(dir))
}

// skipWithout skips the test if err, what a probe for what found, says
// that it cannot be had here.
func skipWithout(t testing.TB, what string, err error) {
	t.Helper()
	if err != nil {
		t.Skipf("this needs %s, and none can be made here: %v", what, err)
	}
}

// hardLinkErr reports why no hard link can be made in dir, or nil if one
// can: it links a new file, checks that both names are the one file (a
// write through one is read through the other), and removes what it made.
// A file system without hard links (FAT, some network shares) refuses.
func hardLinkErr(dir string) error {
	probe, err := os.MkdirTemp(dir, "hardlink-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(probe)
	a, b := filepath.Join(probe, "a"), filepath.Join(probe, "b")
	if err := os.WriteFile(a, []byte("before"), 0o644); err != nil {
		return err
	}
	if err := os.Link(a, b); err != nil {
		return err
	}
	if err := os.WriteFile(a, []byte("after"), 0o644); err != nil {
		return err
	}
	if got, err := os.ReadFile(b); err != nil || string(got) != "after" {
		return fmt.Errorf("os.Link(%q, %q) reported success, but the names are not one file: %q, %v", a, b, got, err)
	}
	return nil
}

// fifoErr reports why no named pipe can be made at path (mkfifo), after
// making one there if it can: an error only where the system has no named
// pipes in the file system (Windows); any other failure fails the test.
func fifoErr(t testing.TB, path string) error {
	t.Helper()
	err := mkfifo(path)
	if errors.Is(err, errors.ErrUnsupported) {
		return fmt.Errorf("no named pipes in the file system here: %w", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return nil
}

// fileURI returns the file:// URI of p, an absolute path in the host's
// syntax: file:///tmp/x on Unix, file:///C:/tmp/x on Windows (RFC 8089).
func fileURI(p string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(p)}
	if !strings.HasPrefix(u.Path, "/") {
		u.Path = "/" + u.Path
	}
	return u.String()
}

// uriPath returns the path part of fileURI(p), as it follows "file://":
// p itself on Unix (/tmp/x), /C:/tmp/x on Windows, unescaped, for a test
// that writes a URI of its own around it.
func uriPath(p string) string {
	p = filepath.ToSlash(p)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return p
}

// hostAbs returns the absolute, clean path that p stands for in the
// directory workDir, in the host's syntax: p itself if absolute, p on
// workDir's volume if it is rooted without one (\x or /x on Windows), else
// p joined to workDir. A leading ~ is a name here.
func hostAbs(workDir, p string) string {
	switch {
	case filepath.IsAbs(p):
		return filepath.Clean(p)
	case p != "" && os.IsPathSeparator(p[0]):
		return filepath.Clean(filepath.VolumeName(workDir) + p)
	}
	return filepath.Join(workDir, p)
}

// isFSRoot reports whether p, absolute and clean, is the root of its
// volume (/ on Unix, C:\ on Windows).
func isFSRoot(p string) bool { return filepath.Dir(p) == p }

// namesFoldCase reports whether the binary compares the names of paths
// ignoring case, as it does on Windows and macOS (fspath.Within), so that
// a root written in another case is the root itself.
func namesFoldCase() bool {
	return runtime.GOOS == "windows" || runtime.GOOS == "darwin"
}

// chmodKept sets the permission bits of the file at p to perm, and returns
// the bits the file then has as far as the OS keeps them: perm itself
// (anything else fails the test), but on Windows, which keeps only a
// read-only attribute (0444 or 0666), what os.Stat then says.
func chmodKept(t *testing.T, p string, perm os.FileMode) os.FileMode {
	t.Helper()
	if err := os.Chmod(p, perm); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != perm && runtime.GOOS != "windows" {
		t.Fatalf("chmod %s %v left the mode %v", p, perm, got)
	}
	return fi.Mode().Perm()
}
