//go:build !windows

package fsruntime

// hostRules: a rename here replaces any file it may, keeps the permission
// bits it is given, and the directory is synced after it.
func hostRules() replaceRules {
	return replaceRules{keepMode: true, syncDir: true}
}
