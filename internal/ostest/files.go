package ostest

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// WriteFile writes content to path, creating its missing parent
// directories, and fails the test if it cannot.
func WriteFile(tb testing.TB, path, content string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// WriteFiles writes files (slash-separated path relative to dir →
// content) under dir, as WriteFile does.
func WriteFiles(tb testing.TB, dir string, files map[string]string) {
	tb.Helper()
	for name, content := range files {
		WriteFile(tb, filepath.Join(dir, filepath.FromSlash(name)), content)
	}
}

// ChmodKept sets the permission bits of the file at p to perm, and returns
// the bits the file then has as far as the OS keeps them: perm itself
// (anything else fails the test), but on Windows, which keeps only a
// read-only attribute (0444 or 0666), what os.Stat then says.
func ChmodKept(tb testing.TB, p string, perm fs.FileMode) fs.FileMode {
	tb.Helper()
	if err := os.Chmod(p, perm); err != nil {
		tb.Fatal(err)
	}
	info, err := os.Stat(p)
	if err != nil {
		tb.Fatal(err)
	}
	if got := info.Mode().Perm(); got != perm && runtime.GOOS != "windows" {
		tb.Fatalf("chmod %s %v left the mode %v", p, perm, got)
	}
	return info.Mode().Perm()
}
