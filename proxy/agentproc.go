package proxy

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// An agentProcess is the ACP agent that the proxy runs as its child, with
// whatever it starts (some agents relaunch themselves in a grandchild) in
// an agentTree, so that stopping it stops them all.
type agentProcess struct {
	cmd   *exec.Cmd
	tree  *agentTree
	stdin io.WriteCloser
	// stdout is the read end of the agent's standard output. It is ours,
	// not exec's: Wait would close a StdoutPipe as soon as the agent
	// exits, losing whatever it wrote last and the proxy had not read yet.
	// It reads to EOF once the agent and everything that inherited its
	// stdout are gone; closeStdout ends a read early.
	stdout *os.File
	exited chan struct{} // closed when the process has been waited for
	err    error         // its exit status; read after exited
}

// startAgent starts argv with the proxy's environment, plus env, and its working
// directory. Its stderr goes to stderr.
func startAgent(argv, env []string, stderr io.Writer) (*agentProcess, error) {
	if len(argv) == 0 {
		return nil, errors.New("no agent command given")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...) // the last of a name wins
	}
	cmd.Stderr = stderr
	cmd.SysProcAttr = treeAttr()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, w, err := os.Pipe()
	if err != nil {
		stdin.Close()
		return nil, err
	}
	cmd.Stdout = w
	err = cmd.Start()
	w.Close() // the agent has its own copy
	if err != nil {
		stdin.Close()
		stdout.Close()
		return nil, fmt.Errorf("start agent %q: %w", argv[0], err)
	}
	tree, err := newAgentTree(cmd.Process)
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		stdin.Close()
		stdout.Close()
		return nil, fmt.Errorf("start agent %q: %w", argv[0], err)
	}
	a := &agentProcess{cmd: cmd, tree: tree, stdin: stdin, stdout: stdout, exited: make(chan struct{})}
	go func() {
		a.err = cmd.Wait()
		close(a.exited)
	}()
	return a, nil
}

// stop ends the agent: it closes its stdin, which is how an ACP agent is
// told to finish, waits up to grace, then interrupts the tree (SIGTERM,
// or CTRL_BREAK on Windows), waits a little more, and then kills it. After
// the agent has exited, anything left in its tree is killed too, and the
// tree is let go. stop returns the agent's exit status.
func (a *agentProcess) stop(grace time.Duration) error {
	a.stdin.Close()
	if !a.waitFor(grace) {
		a.tree.interrupt()
		if !a.waitFor(grace/2 + 100*time.Millisecond) {
			a.tree.kill()
			<-a.exited
		}
	}
	a.tree.kill() // orphans in the tree, if any
	a.tree.release()
	return a.err
}

// killTree kills the agent and everything in its tree at once.
func (a *agentProcess) killTree() { a.tree.kill() }

// closeStdout closes the read end of the agent's stdout, which ends a
// read that something outside the agent's process group holds open.
func (a *agentProcess) closeStdout() { a.stdout.Close() }

func (a *agentProcess) waitFor(d time.Duration) bool {
	select {
	case <-a.exited:
		return true
	default:
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-a.exited:
		return true
	case <-t.C:
		return false
	}
}

// exitCode is the agent's exit status as a process exit code: its own code,
// or 128+signal when a signal ended it, or 1.
func exitCode(err error) int {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		if err == nil {
			return 0
		}
		return 1
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	if c := ee.ExitCode(); c > 0 {
		return c
	}
	return 1
}
