//go:build darwin || freebsd

package main

import (
	"os/exec"
	"testing"
	"time"
)

// TestWatchExit: the watch reports a process's exit, and stops without
// reporting one that lives on.
func TestWatchExit(t *testing.T) {
	start := func() *exec.Cmd {
		cmd := exec.Command("sleep", "60")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}

	cmd := start()
	exited := make(chan struct{})
	stop := watchExit(cmd.Process.Pid, func() { close(exited) })
	defer stop()
	cmd.Process.Kill()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the exit of a killed process was not reported")
	}

	cmd = start()
	called := false
	stop = watchExit(cmd.Process.Pid, func() { called = true })
	stop() // returns once the watch has ended
	if called {
		t.Error("a live process was reported gone")
	}
}
