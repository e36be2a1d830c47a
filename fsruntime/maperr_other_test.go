//go:build !windows

package fsruntime

import "syscall"

var deniedErrnosOS []syscall.Errno
