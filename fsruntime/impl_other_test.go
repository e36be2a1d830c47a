//go:build !linux || acpfs_portable

package fsruntime

import "testing"

// wantImpls are the portable mechanisms.
var wantImpls = [3]string{"named", "Readdirnames", "os.Root.Rename"}

// unnamedTemps reports whether a write in dir makes its temporary file
// with no name: never here.
func unnamedTemps(testing.TB, string) bool { return false }
