//go:build !linux

package main

import (
	"os"
	"path/filepath"
	"runtime"
)

// replaceSteps describes replaceFile for the report.
func replaceSteps(sync bool) string {
	if sync {
		return "lstat, create a temporary file, write, fsync, rename, fsync the directory"
	}
	return "lstat, create a temporary file, write, rename"
}

// replaceFile replaces the file at p with content through a named
// temporary file beside it, synced and renamed over it, and syncs the
// directory (not on Windows, which cannot). The bench runs on Linux (it
// reads /proc); this is the portable shape of the same replace.
func replaceFile(p string, content []byte, sync bool) error {
	info, err := os.Lstat(p)
	if err != nil {
		return err
	}
	dir := filepath.Dir(p)
	tmp := filepath.Join(dir, tmpName(p))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, info.Mode().Perm())
	if err != nil {
		return err
	}
	_, err = f.Write(content)
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, p)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	if sync && runtime.GOOS != "windows" {
		d, err := os.Open(dir)
		if err != nil {
			return err
		}
		defer d.Close()
		return d.Sync()
	}
	return nil
}
