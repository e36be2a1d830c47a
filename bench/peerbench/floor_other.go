//go:build !linux

package main

import (
	"os"
	"path/filepath"
	"runtime"
)

// replaceSteps describes replaceFile for the report.
func replaceSteps(fo floorOpts) string {
	steps := "lstat, create a temporary file, write, rename"
	if fo.sync {
		steps = "lstat, create a temporary file, write, fsync, rename, fsync the directory"
	}
	if fo.hold {
		steps += ", the old file held open across the rename and closed after"
	}
	return steps
}

// replaceHeld replaces the file at p with content through a named
// temporary file beside it, synced and renamed over it, and syncs the
// directory (not on Windows, which cannot); with fo.hold the old file is
// held open across the rename and free closes it. The bench runs on Linux
// (it reads /proc); this is the portable shape of the same replace.
func replaceHeld(p string, content []byte, fo floorOpts) (free func(), err error) {
	info, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(p)
	tmp := filepath.Join(dir, tmpName(p))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, info.Mode().Perm())
	if err != nil {
		return nil, err
	}
	_, err = f.Write(content)
	if err == nil && fo.sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	var old *os.File
	if err == nil {
		if fo.hold {
			old, _ = os.Open(p)
		}
		err = os.Rename(tmp, p)
	}
	if err != nil {
		os.Remove(tmp)
		if old != nil {
			old.Close()
		}
		return nil, err
	}
	if old != nil {
		free = func() { old.Close() }
	}
	if fo.sync && runtime.GOOS != "windows" {
		d, err := os.Open(dir)
		if err != nil {
			return free, err
		}
		defer d.Close()
		return free, d.Sync()
	}
	return free, nil
}
