// Package ostest has the operating-system seams that tests share: killing
// and reaping a process, named pipes, CPU time and peak memory, and
// writing a tree of files.
package ostest
