//go:build unix

package proxy

import (
	"os"
	"syscall"
)

// An agentTree is the agent's process group: the agent leads a group of
// its own, which whatever it starts joins unless it makes another (setsid,
// setpgid). Signals go to the whole group.
type agentTree struct{ pgid int }

// treeAttr starts the agent as the leader of a new process group, and where
// the system can, has it killed should the proxy die (dieWithProxy).
func treeAttr() *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setpgid: true}
	dieWithProxy(attr)
	return attr
}

// newAgentTree returns the group that p leads: its id is p's pid (Setpgid
// with Pgid 0), which it keeps while any member lives.
func newAgentTree(p *os.Process) (*agentTree, error) { return &agentTree{p.Pid}, nil }

// interrupt sends the group SIGTERM.
func (t *agentTree) interrupt() { syscall.Kill(-t.pgid, syscall.SIGTERM) }

// kill sends the group SIGKILL; once every member is gone it finds none
// (ESRCH).
func (t *agentTree) kill() { syscall.Kill(-t.pgid, syscall.SIGKILL) }

// release has nothing to let go: a group ends with its last member.
func (t *agentTree) release() {}
