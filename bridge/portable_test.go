package bridge_test

import (
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
	"github.com/mcp-acpfs/mcp-acpfs/internal/sessiontest"
)

// The helpers here, with those of internal/ostest, let the tests run on
// every OS the bridge builds for: fixtures in the running OS's path syntax
// (ostest.HostPath), sessions closed before their directories are removed,
// and the relay's tests run on loopback TCP alone where the system has no
// unix sockets (relayBridge, ostest.NeedUnixSockets).

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
