package main

import (
	"fmt"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// replaceSteps describes replaceFile for the report.
func replaceSteps(fo floorOpts) string {
	rename := "rename"
	if fo.hold {
		rename = "open the file (O_PATH), rename"
	}
	steps := "open the directory, lstat, O_TMPFILE, fchmod, write, linkat, " + rename
	if fo.sync {
		steps = "open the directory, lstat, O_TMPFILE, fchmod, write, fdatasync, linkat, " + rename + ", fsync the directory"
	}
	if fo.hold {
		steps += ", then close the old file on another goroutine"
	}
	return steps
}

// replaceHeld replaces the file at p with content by the system calls of
// mcp-acpfs's own write on Linux (fsruntime's parentDir.replace), as
// replaceSteps lists them: an unnamed file (O_TMPFILE; named from the
// start where the file system has none) with the old file's permission
// bits, written, its data synced, named and renamed over the file, and the
// directory synced; without fo.sync, no syncs. With fo.hold the old file
// is opened before the rename and free closes it (holdReplaced); without,
// the rename frees it and free is nil.
func replaceHeld(p string, content []byte, fo floorOpts) (free func(), err error) {
	dir, name := filepath.Split(p)
	dfd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	defer unix.Close(dfd)
	var st unix.Stat_t
	if err := unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, fmt.Errorf("lstat %s: %w", p, err)
	}
	perm := st.Mode & 0o777
	tmp := tmpName(name)
	named := false
	fd, err := unix.Openat(dfd, ".", unix.O_WRONLY|unix.O_TMPFILE|unix.O_CLOEXEC, perm)
	if err != nil {
		named = true
		if fd, err = unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, perm); err != nil {
			return nil, fmt.Errorf("create a temporary file in %s: %w", dir, err)
		}
	}
	fail := func(what string, err error) error {
		unix.Close(fd)
		if named {
			unix.Unlinkat(dfd, tmp, 0)
		}
		return fmt.Errorf("%s %s: %w", what, p, err)
	}
	if err := unix.Fchmod(fd, perm); err != nil {
		return nil, fail("chmod the temporary file of", err)
	}
	for b := content; len(b) > 0; {
		n, err := unix.Write(fd, b)
		if err != nil && err != unix.EINTR {
			return nil, fail("write", err)
		}
		b = b[max(n, 0):]
	}
	if fo.sync {
		if err := unix.Fdatasync(fd); err != nil {
			return nil, fail("sync", err)
		}
	}
	if !named {
		if err := unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), dfd, tmp, unix.AT_SYMLINK_FOLLOW); err != nil {
			return nil, fail("link the temporary file of", err)
		}
		named = true
	}
	if err := unix.Close(fd); err != nil {
		unix.Unlinkat(dfd, tmp, 0)
		return nil, fmt.Errorf("close the temporary file of %s: %w", p, err)
	}
	old := -1
	if fo.hold {
		if fd, err := unix.Openat(dfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err == nil {
			old = fd
		}
	}
	if err := unix.Renameat(dfd, tmp, dfd, name); err != nil {
		unix.Unlinkat(dfd, tmp, 0)
		if old >= 0 {
			unix.Close(old)
		}
		return nil, fmt.Errorf("rename over %s: %w", p, err)
	}
	if old >= 0 {
		free = func() { unix.Close(old) }
	}
	if fo.sync {
		if err := unix.Fsync(dfd); err != nil {
			return free, fmt.Errorf("sync the directory of %s: %w", p, err)
		}
	}
	return free, nil
}
