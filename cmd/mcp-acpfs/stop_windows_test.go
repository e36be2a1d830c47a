package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// stopSignal names what stop sends.
const stopSignal = "CTRL_BREAK_EVENT"

// stoppable prepares cmd, not yet started, for stop: it becomes a console
// process group of its own, which a console control event can be sent to
// without reaching this process.
func stoppable(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}

// stop asks the running cmd to stop as a terminal would. Windows has no
// SIGTERM to send to a process (os.Process.Signal supports only Kill
// there): a console program is stopped with a console control event, and
// CTRL_BREAK_EVENT, the one that can be sent to a process group alone,
// reaches Go's signal handlers as os.Interrupt. Where the event cannot
// reach a child (stopProbe), cmd is killed and the test skipped.
func stop(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := stopProbe(); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Skipf("a console control event cannot stop a child process here: %v", err)
	}
	if err := windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(cmd.Process.Pid)); err != nil {
		t.Fatal(err)
	}
}

// stopProbeEnv makes a run of this binary stopProbe's child.
const stopProbeEnv = "MCP_ACPFS_TEST_STOP_PROBE"

// stopProbeWait is how long the probe's child waits for the event, which
// Windows delivers at once.
const stopProbeWait = 5 * time.Second

func init() {
	if os.Getenv(stopProbeEnv) != "1" {
		return
	}
	// This binary is stopProbe's child: it says it is ready, and exits 0
	// when os.Interrupt comes, 1 if it does not.
	c := make(chan os.Signal, 1)
	signal.Notify(c, os.Interrupt)
	fmt.Println("ready")
	select {
	case <-c:
		os.Exit(0)
	case <-time.After(stopProbeWait):
		os.Exit(1)
	}
}

// stopProbe reports why a CTRL_BREAK_EVENT cannot reach a child process
// started as stoppable makes it, or nil if one did. The event needs a
// console that this process and the child share: a process without one
// (a service, or Wine run without a terminal) gets an error for it; under
// Wine 10 with a terminal the event is reported sent, and the child then
// hangs, neither getting it nor giving up.
func stopProbe() error {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), stopProbeEnv+"=1")
	stoppable(cmd)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ready\n" {
		cmd.Process.Kill()
		cmd.Wait()
		return fmt.Errorf("the probe's child did not start: %q, %v", line, err)
	}
	if err := windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(cmd.Process.Pid)); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return fmt.Errorf("GenerateConsoleCtrlEvent: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err = <-exited:
	case <-time.After(2 * stopProbeWait):
		cmd.Process.Kill()
		<-exited
		return errors.New("the event was sent, and the probe's child hung: it neither stopped nor gave up waiting")
	}
	if ee, ok := errors.AsType[*exec.ExitError](err); ok && ee.ExitCode() == 1 {
		return fmt.Errorf("the event was sent, and the probe's child got no os.Interrupt in %v", stopProbeWait)
	} else if err != nil {
		return fmt.Errorf("the probe's child: %w", err)
	}
	return nil
}
