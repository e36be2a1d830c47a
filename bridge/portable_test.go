package bridge_test

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
	"github.com/mcp-acpfs/mcp-acpfs/internal/sessiontest"
)

// The helpers here let the tests run on every OS the bridge builds for:
// fixtures in the running OS's path syntax, sessions closed before their
// directories are removed, and the relay's tests skipped where the system
// has no unix sockets.

// hostPath returns the absolute path that slash, a slash-separated
// absolute fixture such as "/w" that names nothing on disk, stands for in
// this OS's syntax: itself on Unix, and on drive C: on Windows (C:\w),
// where a path without a drive is not absolute.
func hostPath(slash string) string {
	if runtime.GOOS == "windows" {
		return "C:" + filepath.FromSlash(slash)
	}
	return slash
}

// openSession opens a session as sessiontest.OpenSession does, and closes
// it when the test ends. Cleanups run last in, first out, so the session,
// opened after its cwd was made with t.TempDir, is closed before that
// directory is removed: on Windows the session's open roots would keep
// the removal from succeeding (a sharing violation), and the bridge's own
// Close comes too late, as its cleanup is registered before the
// workspaces are made.
func openSession(t *testing.T, b *bridge.Bridge, cwd, id string) *bridge.Session {
	t.Helper()
	s := sessiontest.OpenSession(t, b, cwd, id)
	t.Cleanup(func() { s.Close() })
	return s
}

// errNoAFUnix is the error Windows gives for a socket of an address family
// it does not have: WSAEAFNOSUPPORT.
const errNoAFUnix = syscall.Errno(10047)

// unixSocketErr is why a unix socket cannot be listened on here, or nil:
// found once, by listening on one in a new directory.
var unixSocketErr = sync.OnceValue(func() error {
	dir, err := os.MkdirTemp("", "acpfs-probe-") // short: a socket path is at most 108 bytes
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ln, err := net.Listen("unix", filepath.Join(dir, "probe.sock"))
	if err != nil {
		return err
	}
	return ln.Close()
})

// haveUnixSockets reports whether the system has unix sockets (AF_UNIX),
// which the relay socket is: Windows has them from Windows 10 1803 on, and
// Wine has none. A probe that fails for any other reason fails the test.
func haveUnixSockets(t *testing.T) bool {
	t.Helper()
	err := unixSocketErr()
	if err == nil {
		return true
	}
	if runtime.GOOS == "windows" && errors.Is(err, errNoAFUnix) {
		return false
	}
	t.Fatalf("listen on a unix socket: %v", err)
	return false
}

// needUnixSockets skips the test, saying why, where the system has no unix
// sockets (haveUnixSockets).
func needUnixSockets(t *testing.T) {
	t.Helper()
	if !haveUnixSockets(t) {
		t.Skipf("the relay socket is a unix socket, and this system has none (Wine has no AF_UNIX; Windows has it from Windows 10 1803 on): %v", unixSocketErr())
	}
}
