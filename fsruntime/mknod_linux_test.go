package fsruntime_test

import "golang.org/x/sys/unix"

// mkNullDevice makes a character device like /dev/null (1, 3) at path,
// where this process may.
func mkNullDevice(path string) error {
	return unix.Mknod(path, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3)))
}
