package fsruntime

// ReadLines exposes the streaming line reader to the external tests.
var ReadLines = readLines

// UnnamedTemps reports whether a write in dir makes its temporary file
// with no name until it is complete (O_TMPFILE), or a named one.
var UnnamedTemps = unnamedTemps

// MatchText exposes the streaming comparison with the disk to the
// external tests.
var MatchText = matchText

// DiskCompares returns how many reads r compared with the disk.
func DiskCompares(r *Router) int64 { return r.compared.Load() }
