package proxy

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// An agentTree is a job object that holds the agent, and with it whatever
// the agent starts. The job kills them all when its last handle closes
// (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE): when the proxy releases it, or
// when the proxy dies in any way, since the system closes its handles.
//
// The agent is put in the job right after it starts, not created in it: a
// process it started in between would be outside the job. An agent must
// first load and run its code to start anything, which takes far longer.
type agentTree struct {
	job windows.Handle
	pid int
}

// treeAttr starts the agent in a console process group of its own, which
// CTRL_BREAK can reach without reaching the proxy.
func treeAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}

// newAgentTree makes a job that kills its processes on close and puts p in
// it.
func newAgentTree(p *os.Process) (*agentTree, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("create a job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{
			LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
		},
	}
	_, err = windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
	if err == nil {
		if herr := p.WithHandle(func(h uintptr) {
			err = windows.AssignProcessToJobObject(job, windows.Handle(h))
		}); herr != nil {
			err = herr
		}
	}
	if err != nil {
		windows.CloseHandle(job)
		return nil, fmt.Errorf("put the agent in a job object: %w", err)
	}
	return &agentTree{job: job, pid: p.Pid}, nil
}

// interrupt sends CTRL_BREAK to the agent's console process group. It
// reaches the agent only if it shares the proxy's console; if not, the
// grace period passes and kill follows.
func (t *agentTree) interrupt() {
	windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(t.pid))
}

// kill ends every process in the job, with exit status 1.
func (t *agentTree) kill() {
	if t.job != 0 {
		windows.TerminateJobObject(t.job, 1)
	}
}

// release closes the job, which kills what is left in it.
func (t *agentTree) release() {
	if t.job != 0 {
		windows.CloseHandle(t.job)
		t.job = 0
	}
}
