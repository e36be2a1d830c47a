package fsruntime

import "syscall"

var deniedErrnosOS = []syscall.Errno{syscall.ERROR_ACCESS_DENIED}
