// Package ostest has the operating-system seams that tests share: killing
// and reaping a process, named pipes, CPU time and peak memory, writing a
// tree of files, a directory on a second file system, and which files the
// process holds open (Linux).
package ostest
