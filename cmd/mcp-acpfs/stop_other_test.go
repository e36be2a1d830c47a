//go:build !windows

package main

import (
	"os/exec"
	"syscall"
	"testing"
)

// stopSignal names what stop sends.
const stopSignal = "SIGTERM"

// stoppable prepares cmd, not yet started, for stop: nothing to do here.
func stoppable(*exec.Cmd) {}

// stop asks the running cmd to stop as a service manager or a terminal
// would: with SIGTERM.
func stop(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
}
