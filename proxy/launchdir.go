package proxy

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// launchDirPrefix starts the name of a directory that holds the files a
// profile writes for one run of an agent (see launchKind), followed by
// the process id of the proxy that owns it.
const launchDirPrefix = "mcp-acpfs-agent-"

// launchLockName is the file in a launch directory that its proxy holds
// locked (see lockHeld) for as long as it runs.
const launchLockName = "owner.lock"

// A launchDir is a directory for the files of one run of an agent. Its
// owner holds its lock file while it lives, so that the next proxy to
// start can tell that a directory left behind by one killed with SIGKILL
// (no exit handler runs then) is stale, and remove it.
type launchDir struct {
	path string
	lock *os.File
}

// newLaunchDir removes the stale launch directories in the temporary
// directory, then makes a new one and takes its lock.
func newLaunchDir() (*launchDir, error) {
	removeStaleLaunchDirs(os.TempDir())
	dir, err := os.MkdirTemp("", launchDirPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return nil, fmt.Errorf("make the agent's launch directory: %w", err)
	}
	lock, err := holdLock(filepath.Join(dir, launchLockName))
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("lock the agent's launch directory %s: %w", dir, err)
	}
	return &launchDir{path: dir, lock: lock}, nil
}

// remove releases the lock and removes the directory.
func (d *launchDir) remove() {
	d.lock.Close()
	os.RemoveAll(d.path)
}

// staleUnlocked is how old a launch directory without a lock file must be
// to count as stale: its owner takes the lock right after making it.
const staleUnlocked = time.Minute

// removeStaleLaunchDirs removes the launch directories in tmp whose owner
// is provably gone: its lock file is not held (lockHeld), or it has none
// and is older than staleUnlocked. Errors are ignored: a directory that
// cannot be removed now will be tried again at the next start.
func removeStaleLaunchDirs(tmp string) {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), launchDirPrefix) {
			continue
		}
		dir := filepath.Join(tmp, e.Name())
		lock := filepath.Join(dir, launchLockName)
		if _, err := os.Stat(lock); err != nil {
			info, err := e.Info()
			if err != nil || time.Since(info.ModTime()) < staleUnlocked {
				continue
			}
		} else if lockHeld(lock) {
			continue
		}
		os.RemoveAll(dir)
	}
}
