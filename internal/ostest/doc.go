// Package ostest has the operating-system seams that tests share: killing
// and reaping a process, named pipes, CPU time and peak memory, writing a
// tree of files, permission bits as the OS keeps them (ChmodKept), a
// directory on a second file system, which files the process holds open
// (Linux), absolute fixture paths in the running OS's syntax (HostPath),
// and probes for what a system may lack, which skip a test where it is
// missing and fail it where the probe fails otherwise: working symbolic
// links (SymlinkErr, NoSymlinks, NeedSymlinks, SkipWithoutSymlinks) and
// unix sockets (UnixSocketsErr, NoUnixSockets, NeedUnixSockets).
package ostest
