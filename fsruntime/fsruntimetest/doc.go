// Package fsruntimetest supports testing implementations of [fsruntime.FS].
//
// It supports testing implementations and users of [fsruntime.FS], as
// testing/fstest does for io/fs.
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
// [MemFS] is an in-memory reference implementation of [fsruntime.FS], and
// [SliceLines] the reference implementation of the line semantics on a
// string. [ExtMemFS] adds the optional interfaces to a MemFS; MemFS alone
// has none of them, so that callers' fallbacks can be tested too.
//
// # Optional interfaces
//
// [TestFSExt] checks the optional interfaces of package fsruntime (StatFS,
// DirFS, WalkFS, MoveFS, BinaryFS, HashFS) that an FS implements, skipping
// the others. [TestSymlinks] checks how they treat symbolic links, given a
// way to make one, and [TestRootsExt] checks that they keep to the roots
// and never move or remove a root itself.
//
// TestFSExt checks:
//
//   - [fsruntime.StatFS]: a file and a directory are described with their
//     name, path, type, size, mode and modification time; a missing path
//     wraps fs.ErrNotExist;
//   - [fsruntime.DirFS]: ReadDir sorts by name in byte order, caps at max
//     and says when it truncated, and refuses a file with fs.ErrInvalid;
//     ListDir names the same entries, with the same types, cap and errors;
//     MkdirAll makes parents, accepts an existing directory and refuses a
//     file in the way with fs.ErrExist;
//   - [fsruntime.WalkFS]: lexical order, absolute entry paths, fs.SkipDir
//     from a directory and from a file, fs.SkipAll, an error from fn, a
//     missing root reported to fn, and the context ended during a walk;
//   - [fsruntime.MoveFS]: a move of a file and of a directory, with and
//     without overwrite, into missing parents, never over a non-empty
//     directory nor into itself; removal of a file, of an empty and of a
//     non-empty directory, with and without recursive;
//   - [fsruntime.BinaryFS]: bytes come back exactly, up to max and not
//     over it;
//   - [fsruntime.HashFS]: the hash is [fsruntime.HashText] of what
//     ReadTextFile returns for the whole file, and binary content is
//     refused as a read refuses it.
//
// Every operation is also given relative, unclean and NUL paths, and a
// cancelled context, and must then fail and change nothing; every error
// must be a *fs.PathError naming the path at fault. The effects of a move
// or a removal are observed through the optional interfaces themselves
// where the FS has them (Stat, ReadDir, ReadFile), and through ReadTextFile
// otherwise.
//
// TestSymlinks checks that:
//
//   - Stat and ReadDir describe a link as TypeSymlink, whose Size is the
//     length of its target, dangling or not;
//   - Walk reports a link found below its root and never goes through
//     it, but walks a root that is a link to a directory;
//   - ReadDir, ReadFile and HashTextFile follow a link given as their
//     path, as ReadTextFile does, and MkdirAll accepts a link to a
//     directory;
//   - Move moves a link as a link and replaces a link, not its target;
//     Remove removes a link, never its target.
package fsruntimetest
