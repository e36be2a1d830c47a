package integration

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/windows"

	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/testagent"
)

// exeSuffix ends the name of a binary that go build makes.
const exeSuffix = ".exe"

// stopSignal is how a terminal asks a process to stop: Windows has no
// SIGTERM to send, and os.Interrupt is sent as CTRL_BREAK_EVENT
// (sendSignal).
var stopSignal os.Signal = os.Interrupt

// signalable prepares cmd, not yet started, for sendSignal: it becomes a
// console process group of its own, which a console control event can be
// sent to without reaching this process.
func signalable(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_NEW_PROCESS_GROUP
}

// sendSignal sends sig to p, a process started after signalable. Windows
// sends a process no signal but a kill (os.Process.Signal supports only
// os.Kill): os.Interrupt is sent as a console CTRL_BREAK_EVENT, which
// reaches Go's signal handlers as os.Interrupt, and which the binary
// takes as it takes SIGINT or SIGTERM elsewhere. Another signal, or an
// interrupt where ctrlBreakErr finds that none reaches a process, is
// errCannotSignal, and nothing is sent.
func sendSignal(p *os.Process, sig os.Signal) error {
	if sig != os.Interrupt {
		err := p.Signal(sig)
		if errors.Is(err, syscall.EWINDOWS) {
			return fmt.Errorf("%w: Windows sends a process no %v (%v); os.Interrupt, sent as CTRL_BREAK_EVENT, is how one is asked to stop", errCannotSignal, sig, err)
		}
		return err
	}
	if err := ctrlBreakErr(); err != nil {
		return fmt.Errorf("%w: %v", errCannotSignal, err)
	}
	return windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(p.Pid))
}

// ctrlBreakErr reports why a CTRL_BREAK_EVENT cannot be sent to a process
// this one starts, or nil if one can: it needs a console that both share,
// and under Wine none reaches the process even where the call succeeds. It
// sends one to the test agent awaiting it (testagent.InterruptArg).
var ctrlBreakErr = sync.OnceValue(func() error {
	const wait = 5 * time.Second
	cmd := exec.Command(testAgentPath, testagent.InterruptArg)
	signalable(cmd)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	ready := make(chan bool, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		ready <- strings.TrimSpace(line) == testagent.InterruptReady
		io.Copy(io.Discard, out)
		exited <- cmd.Wait()
	}()
	fail := func(why string, args ...any) error {
		cmd.Process.Kill()
		<-exited
		return fmt.Errorf("a CTRL_BREAK_EVENT, how os.Interrupt is sent on Windows, does not reach a process here (as under Wine, or without a console this process shares with it): "+why, args...)
	}
	select {
	case ok := <-ready:
		if !ok {
			return fail("the probe %s %s did not start", testAgentPath, testagent.InterruptArg)
		}
	case <-time.After(wait):
		return fail("the probe %s %s did not start in %v", testAgentPath, testagent.InterruptArg, wait)
	}
	if err := windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(cmd.Process.Pid)); err != nil {
		return fail("GenerateConsoleCtrlEvent: %v", err)
	}
	select {
	case err := <-exited:
		if err != nil {
			return fmt.Errorf("a CTRL_BREAK_EVENT, how os.Interrupt is sent on Windows, does not reach a process here: the probe ended with %v", err)
		}
		return nil
	case <-time.After(wait):
		return fail("the probe did not get it in %v", wait)
	}
})

// killPID kills pid.
func killPID(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}

// mkfifo fails: Windows has no named pipes in the file system.
func mkfifo(string) error { return errors.ErrUnsupported }

// peakRSS returns 0: Windows does not report an exited process's memory.
func peakRSS(*proc) int64 { return 0 }

// alive reports whether pid names a process that has not exited.
func alive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) != nil || code == 259 // STILL_ACTIVE
}

// waitGone waits until pid is gone or deadline passes, and reports
// whether it is gone.
func waitGone(pid int, deadline time.Time) bool { return pollGone(pid, deadline) }
