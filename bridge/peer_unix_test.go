//go:build unix

package bridge_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/sessiontest"
)

// TestRelayRefusesAnotherUser: a process of another user that reaches the
// relay socket, here opened to all, and presents the session's secret is
// refused, as the system names the peer's user; the same secret from this
// user is taken. It needs root, to run a process as another user.
func TestRelayRefusesAnotherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("running a process as another user needs root")
	}
	ed := &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS()}
	b := sessiontest.NewBridge(t, ed)
	s := sessiontest.OpenSession(t, b, sessiontest.Workspace(t, ed, "A"), "sess-A")
	socket, secret := relayEnv(t, s)
	for path, mode := range map[string]os.FileMode{filepath.Dir(socket): 0o755, socket: 0o777} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	}
	// This binary, where the other user can run it.
	dir, err := os.MkdirTemp("", "acpfs-peer-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	exe := filepath.Join(dir, "peer")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)

	hello := func(cred *syscall.Credential) string {
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), peerHelloEnv+"="+socket, peerSecretEnv+"="+secret)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("the relay as %+v: %v: %s", cred, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if got := hello(&syscall.Credential{Uid: 65534, Gid: 65534}); got != "error: the peer is another user" {
		t.Errorf("another user's relay with the secret: answer %q, want refused as another user", got)
	}
	if got := hello(nil); got != "ok" {
		t.Errorf("this user's relay with the secret: answer %q, want ok", got)
	}
}
