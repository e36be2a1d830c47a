package fsruntime

import "syscall"

// renamesAcrossRoots says that renameBetween can move a directory or a
// symlink from one root to another: not here.
const renamesAcrossRoots = false

// renameBetween cannot rename between two roots here: os.Root's Rename
// stays in one root, and Windows has no rename between two directory
// handles in its public API. A regular file is copied across instead
// (moveAcross).
func renameBetween(*diskRoot, string, *diskRoot, string) error { return syscall.EXDEV }
