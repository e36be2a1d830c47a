//go:build linux && !acpfs_portable

package fsruntime

// wantImpls are Linux's own mechanisms.
var wantImpls = [3]string{"O_TMPFILE", "getdents64", "renameat2"}
