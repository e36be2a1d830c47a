package fspath_test

import (
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fspath"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
)

func TestNamesDir(t *testing.T) {
	for p, want := range map[string]bool{
		"file.txt/":           true,
		"sub/file.txt//":      true,
		"dir/.":               true,
		"/":                   true,
		"file:///x/f.txt/":    true,
		"file:///x/f.txt%2F":  true, // decoded, the path ends in /
		"file:///x/f.txt/.":   true,
		"FILE://localhost/x/": true,
		"file.txt":            false,
		".":                   false, // the working directory: a directory anyway
		"dir/..":              false, // cleaned to dir's parent, a directory anyway
		"dir/.hidden":         false,
		"file.txt%2F":         false, // in a plain path % is just a character
		"file:///x/f.txt":     false,
		// The root of the share \\host\x on Windows; elsewhere Abs
		// refuses a URI on another host.
		"file://host/x/": hostHasShares,
	} {
		if got := fspath.NamesDir(p); got != want {
			t.Errorf("NamesDir(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestIsFileURI(t *testing.T) {
	for p, want := range map[string]bool{
		"file:///x":   true,
		"FILE:///x":   true,
		"File://h/x":  true,
		"file:/x":     false,
		"/x/file://y": false,
		"":            false,
	} {
		if got := fspath.IsFileURI(p); got != want {
			t.Errorf("IsFileURI(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestAbsFileRefusesADirectorysPath(t *testing.T) {
	wd := ostest.HostPath("/w") // an absolute working directory on the running OS
	for _, p := range []string{"file.txt/", "sub/file.txt//", "file.txt/.", "/w/file.txt/", "/", "file:///w/file.txt/", "file:///w/file.txt%2F"} {
		_, err := fspath.AbsFile(wd, p)
		pe, ok := errors.AsType[*fs.PathError](err)
		if !ok || pe.Path != p || !errors.Is(err, fspath.ErrNamesDir) || !strings.Contains(err.Error(), "names a directory") {
			t.Errorf("AbsFile(%q) = %v; want ErrNamesDir saying the path names a directory", p, err)
		}
		// Abs itself drops the separator, for the tools that take a
		// directory.
		if _, err := fspath.Abs(wd, p); err != nil {
			t.Errorf("Abs(%q) = %v", p, err)
		}
	}
	// On Windows, /x is x at the root of the working directory's drive.
	want := map[string]string{"file.txt": ostest.HostPath("/w/file.txt"), ".": wd, "a/./b": ostest.HostPath("/w/a/b"), "file:///x/y.txt": ostest.HostPath("/x/y.txt")}
	refused := []string{"", "a\x00b", "file://u@localhost/x"}
	if hostHasShares {
		want["file://host/x"] = `\\host\x`
	} else {
		refused = append(refused, "file://host/x")
	}
	for p, want := range want {
		if got, err := fspath.AbsFile(wd, p); err != nil || got != want {
			t.Errorf("AbsFile(%q) = %q, %v; want %q", p, got, err, want)
		}
	}
	for _, p := range refused {
		if _, err := fspath.AbsFile(wd, p); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("AbsFile(%q) = %v; want fs.ErrInvalid as Abs", p, err)
		}
	}
}
