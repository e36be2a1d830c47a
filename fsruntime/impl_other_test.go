//go:build !linux || acpfs_portable

package fsruntime

// wantImpls are the portable mechanisms.
var wantImpls = [3]string{"named", "Readdirnames", "os.Root.Rename"}
