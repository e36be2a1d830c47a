package ostest

import (
	"os"
	"path/filepath"
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
