package integration

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
)

// alive reports whether pid names a live process of this test's binaries
// (the agent, its children, relays): not gone, not a zombie waiting for a
// parent that may never reap it, and not a process that got the pid of one
// that is gone.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	proc := "/proc/" + strconv.Itoa(pid)
	stat, err := os.ReadFile(proc + "/stat")
	if errors.Is(err, os.ErrNotExist) {
		return false
	}
	// pid (comm) state ...; comm may contain spaces and parentheses.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
		return false
	}
	exe, err := os.Readlink(proc + "/exe")
	return err != nil || exe == testAgentPath || exe == binPath
}
