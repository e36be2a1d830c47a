package fsruntimetest

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Tree records every entry under dir on disk, without following symlinks:
// its type, and a file's content or a link's target, keyed by path. Two
// Trees of the same directory are equal when nothing in it was changed, so
// an attack test takes one before and one after to show that the files it
// must not reach were left alone.
func Tree(t testing.TB, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		switch {
		case err != nil:
			m[p] = "error: " + err.Error()
		case e.Type().IsRegular():
			b, _ := os.ReadFile(p)
			m[p] = "file: " + string(b)
		case e.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			m[p] = "link: " + target
		default:
			m[p] = e.Type().String()
		}
		return nil
	})
	return m
}
