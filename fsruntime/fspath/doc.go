// Package fspath resolves a model's path argument in the running OS's syntax.
//
// Its functions are pure: they never touch the file system. [Abs] resolves
// a path argument for a session:
//
//   - A file URI with no host or the host localhost (file:///abs,
//     file://localhost/abs, file:/abs) stands for its percent-decoded
//     path; on Windows one with another host for a share on it
//     (file://server/share/a is \\server\share\a). One with another host
//     elsewhere, user information, a query or a fragment, or without an
//     absolute path, is refused. In a plain path % is just a character.
//     [FileURI] writes a path's URI.
//   - An absolute path is cleaned; a relative one is joined to the working
//     directory. A trailing separator is dropped with the cleaning.
//   - The result is absolute, clean, free of NUL bytes, with no name longer
//     than 255 bytes (NAME_MAX) or that the OS would not keep as written,
//     and shorter than 4096 bytes (PATH_MAX). Anything else is a
//     *fs.PathError (op "resolve", the path as given) that wraps
//     fs.ErrInvalid and names the cause.
//
// [AbsFile] also refuses a path that names a directory; a leading ~ is a
// name until [ExpandHome] expands it. The file system (package fsruntime),
// not Abs, checks the roots, matching a path to a root by whole names with
// [Within], ignoring case on macOS and Windows.
//
// The syntax of every OS (Unix, macOS, Windows) is a value of one type, so
// the rules of all three are tested on any OS; the running OS picks one.
package fspath
