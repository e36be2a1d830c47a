package fspath_test

import (
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fspath"
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
		"file://host/x/":      false, // Abs refuses it
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
