package fsruntime

// ReadLines exposes the streaming line reader to the external tests.
var ReadLines = readLines

// TmpImpl names how this build makes a write's temporary file: "O_TMPFILE"
// (unnamed until complete) or "named" (named from the start).
const TmpImpl = tmpImpl

// MatchText exposes the streaming comparison with the disk to the
// external tests.
var MatchText = matchText

// DiskCompares returns how many reads r compared with the disk.
func DiskCompares(r *Router) int64 { return r.compared.Load() }
