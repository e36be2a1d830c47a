package main

import "os"

// polledStdin returns standard input as a file that Go's network poller
// reads, when it is a pipe or a socket (as a host that starts the command
// gives it), and restore, which makes it blocking again; call restore
// before the process exits, as the host may share the open file.
// Terminals, regular files and a standard input given non-blocking are
// left as they are, as is any standard input on Windows or under the
// acpfs_portable tag. See DESIGN.md, "Polled standard input".
func polledStdin() (stdin *os.File, restore func()) {
	return polled(os.Stdin)
}
