// Package search finds files by glob and lines by regular expression over an fsruntime.WalkFS.
//
// [Glob] and [Grep] walk a WalkFS in its lexical order and never follow a
// symlink they find: a link may match a glob as an entry, but is not
// descended into, and grep never reads through one. The directory or file
// to search is resolved as any path argument is: a symlink given as the
// path is followed, within the roots. Results come in walk order, which is
// sorted by path component by component (a directory's entries come right
// after the directory, so "a/b" sorts before "a.txt").
//
// Grep reads files through the fastest interface the file system offers:
// a [DirOpenFS] (a Disk or a Router) holds each directory open through the
// Disk's os.Root and opens its files by name; an [OpenFS] opens each file
// by path; any other [fsruntime.FS] is read with ReadTextFile.
package search
