package integration

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The helpers here, with those of internal/ostest, let the tests run on
// every OS the binary runs on, in the host's path syntax: paths are joined
// with filepath.Join, and what needs symbolic links, hard links, named
// pipes or unix sockets in the file system, which Windows may not give a
// process (and Wine does not give at all), is checked where a probe finds
// them, and skipped, saying why, where not (ostest.NeedSymlinks,
// ostest.NoUnixSockets). Without unix sockets the proxy's stdio relay
// runs over loopback TCP, and its tests with it.

// errCannotSignal is what sendSignal returns for a signal the system
// cannot send to a process: the test that asks for it is skipped.
var errCannotSignal = errors.New("the system cannot send this signal")

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
