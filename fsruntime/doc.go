// Package fsruntime is the per-session file runtime of mcp-acpfs.
//
// An [FS] reads and writes text files by absolute path. Two backends
// implement it: [Disk], which confines every operation to a set of roots
// opened with [os.Root], and the editor backend, which forwards to the ACP
// client's fs/read_text_file and fs/write_text_file. A [Router] picks one of
// them per operation from what the client advertised.
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
//
// # Optional interfaces
//
// Optional interfaces ([StatFS], [DirFS], [WalkFS], [MoveFS], [BinaryFS],
// [HashFS]) extend an FS beyond what ACP's fs methods offer: metadata,
// listing, walking, moving, removing and binary reads, as io/fs's optional
// interfaces extend fs.FS. Callers test for them with a type assertion, as
// io/fs does for ReadFileFS. Disk implements them all within its roots; the
// Router sends them to disk (ACP has no method for any of them), except
// HashTextFile, which hashes what its read route sees. The editor backend
// implements none. The conformance kit checks them with
// fsruntimetest.TestFSExt.
//
// Their paths are absolute and clean, as for FS, and their errors are
// *fs.PathError values in the same vocabulary. A path argument is resolved
// as FS resolves it: a symlink on the way, the last component included, is
// followed as long as it stays inside the roots. The exceptions are named
// in their docs: Stat, Move and Remove act on a final symlink itself, and
// Walk and ReadDir never follow a symlink they find.
//
// # Paths
//
// Paths are resolved, in the running OS's syntax, by package fspath, and
// matched to the roots by whole names, never by a string prefix.
//
// # Search
//
// Package search finds files and lines over a [WalkFS]. Its fast path
// opens a directory once for the files in it, through [Disk.OpenDir],
// still within the Disk's os.Root.
package fsruntime
