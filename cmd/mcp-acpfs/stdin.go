package main

import "os"

// polledStdin returns standard input as a file that Go's network poller
// reads, when it is a pipe or a socket (as a host that starts the command
// gives it), and a function that puts it back as it was: blocking.
//
// A plain os.Stdin is read by a blocking read(2) that holds a thread, and
// the scheduler's processor with it, until the next message arrives; the
// request the last message started, handed to a worker, waits in that
// processor's queue until another steals it. Through the poller the
// reading goroutine parks instead. With 8 calls in flight a 4 KiB read's
// throughput rose by about a quarter (bench/peerbench, BENCHMARKS.md).
//
// O_NONBLOCK belongs to the open file, which the host may share: restore
// clears it again before the process exits. Terminals, regular files and
// a standard input given non-blocking are left as they are. Where the
// system's poller cannot take it (Windows), or under the acpfs_portable
// tag, standard input is read as it is given, by plain blocking reads.
func polledStdin() (stdin *os.File, restore func()) {
	return polled(os.Stdin)
}
