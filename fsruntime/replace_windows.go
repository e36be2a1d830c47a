package fsruntime

// hostRules: Windows's rename cannot replace a read-only file, keeps no
// Unix permission bits (a new file takes the directory's ACLs), cannot
// sync a directory, and fails on a file that another process holds.
func hostRules() replaceRules {
	return replaceRules{refuseReadOnly: true, inUse: windowsInUse}
}
