// Package ostest has the operating-system seams that tests share: killing
// and reaping a process, named pipes, CPU time and peak memory, writing a
// tree of files, a directory on a second file system, which files the
// process holds open (Linux), absolute fixture paths in the running OS's
// syntax, and whether working symbolic links can be made.
package ostest
