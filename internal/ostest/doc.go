// Package ostest has the operating-system seams that tests share: killing
// and reaping a process, named pipes, and CPU time.
package ostest
