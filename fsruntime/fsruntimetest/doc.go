// Package fsruntimetest implements support for testing implementations and
// users of [fsruntime.FS], as testing/fstest does for io/fs.
//
// [TestFS] is the conformance kit every backend runs: the disk, the editor
// (through a fake editor), the router and [MemFS] itself. It creates all of
// its fixtures through the FS under test, never through the os package, so
// it also works for a backend that does not share the local disk. It checks
// the semantics documented in package fsruntime:
//
//   - writes round-trip byte for byte: UTF-8, a byte order mark, "\r\n" and
//     mixed line endings, a missing final newline, an empty file, and very
//     long lines; a shorter write shrinks the file; missing parent
//     directories are created;
//   - line ranges follow Zed's fs/read_text_file: line is 1-based and 0
//     means 1, limit <= 0 means to the end, whole lines come back with
//     their terminators, and a start line past the end is an error
//     wrapping [fsruntime.ErrPastEnd];
//   - errors are *fs.PathError values naming the requested path and
//     matching the right sentinel: fs.ErrNotExist for a missing file,
//     fs.ErrInvalid (or fs.ErrPermission) for a relative, unclean or NUL
//     path, [fsruntime.ErrBinary] for content that is not text,
//     [fsruntime.ErrNotRegular] for a directory, and the context's error for
//     a cancelled call;
//   - concurrent reads agree and concurrent writes all land.
//
// [TestLimits] checks a size limit and [TestRoots] checks confinement to
// roots; they are separate because only some backends have them, and the
// caller knows the limit and which paths lie outside.
//
// [TestFSExt] checks the optional interfaces of package fsruntime (StatFS,
// DirFS, WalkFS, MoveFS, BinaryFS, HashFS) that an FS implements, skipping
// the others. [TestSymlinks] checks how they treat symbolic links, given a
// way to make one, and [TestRootsExt] checks that they keep to the roots
// and never move or remove a root itself.
//
// [MemFS] is an in-memory reference implementation of [fsruntime.FS], and
// [SliceLines] the reference implementation of the line semantics on a
// string. [ExtMemFS] adds the optional interfaces to a MemFS; MemFS alone
// has none of them, so that callers' fallbacks can be tested too.
package fsruntimetest
