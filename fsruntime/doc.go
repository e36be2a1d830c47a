// Package fsruntime is the per-session file runtime of mcp-acpfs.
//
// An [FS] reads and writes text files by absolute path. Two backends
// implement it: [Disk], which confines every operation to a set of roots
// opened with [os.Root], and the editor backend, which forwards to the ACP
// client's fs/read_text_file and fs/write_text_file. A [Router] picks one of
// them per operation from what the client advertised.
//
// Optional interfaces ([StatFS], [DirFS], [WalkFS], [MoveFS], [BinaryFS],
// [HashFS]) extend an FS with metadata, listing, walking, moving, removing
// and binary reads, as io/fs's optional interfaces extend fs.FS. Disk
// implements them all within its roots; the Router sends them to disk,
// except HashTextFile, which hashes what its read route sees.
//
// Both backends share one set of semantics, checked by the conformance kit in
// package fsruntimetest:
//
//   - line is 1-based; 0 means line 1. limit <= 0 means to the end of the file.
//   - Returned text is whole lines, each with its terminator exactly as
//     stored ("\n" or "\r\n"); the last line may have none.
//   - A start line past the end is an error wrapping [ErrPastEnd]; an empty
//     file reads as "".
//   - Content is UTF-8 text; anything else wraps [ErrBinary].
//
// Errors are *fs.PathError values whose Err is, or wraps, one of io/fs's
// sentinels (fs.ErrNotExist, fs.ErrPermission, fs.ErrInvalid),
// errors.ErrUnsupported, a context error, or one of this package's own
// sentinels, which themselves wrap the closest io/fs sentinel. Callers
// classify errors with errors.Is and never by message.
package fsruntime
