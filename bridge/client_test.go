package bridge_test

import (
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/sessiontest"
)

// TestStartClient: StartClient gives a started, initialized mcp-go client
// for an http entry and for a stdio entry whose command (this test binary,
// through RelayFromEnv in TestMain) relays; a stdio command that answers
// as an ACP agent instead fails with an error that says it does not speak
// the relay protocol.
func TestStartClient(t *testing.T) {
	ed := &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS()}
	b := relayBridge(t, ed, bridge.BridgeOptions{RelayCommand: []string{os.Args[0], "relay"}}, "")
	dir := sessiontest.Workspace(t, ed, "S")
	s := openSession(t, b, dir, "sess-S")
	var init mcp.InitializeRequest
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "0"}

	for _, kind := range []string{"http", "stdio"} {
		t.Run(kind, func(t *testing.T) {
			entry, err := s.HTTPEntry()
			if kind == "stdio" {
				entry, err = s.StdioEntry()
			}
			if err != nil {
				t.Fatal(err)
			}
			c, err := bridge.StartClient(t.Context(), entry, init)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if text, isErr := callRead(t, c, "main.go"); isErr || text != "// S unsaved\n" {
				t.Errorf("read = %q (error %v), want the buffer", text, isErr)
			}
		})
	}
	t.Run("not a relay", func(t *testing.T) {
		entry, err := s.StdioEntry()
		if err != nil {
			t.Fatal(err)
		}
		entry.Env = append(entry.Env, bridge.NameValue{Name: notRelayEnv, Value: "1"})
		c, err := bridge.StartClient(t.Context(), entry, init)
		if err == nil {
			c.Close()
			t.Fatal("a command that is no relay initialized")
		}
		for _, want := range []string{"does not speak the relay protocol", "bridge.RelayFromEnv", os.Args[0]} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
		}
	})
	t.Run("acp", func(t *testing.T) {
		if _, err := bridge.StartClient(t.Context(), bridge.MCPServerEntry{Type: "acp", Name: "acpfs"}, init); err == nil || !strings.Contains(err.Error(), "ACP connection") {
			t.Errorf("an acp entry: %v", err)
		}
	})
}

// TestNewBridgeInARelayProcess: a process started as a relay that makes a
// bridge instead (its main lacks RelayFromEnv) logs an error saying so.
func TestNewBridgeInARelayProcess(t *testing.T) {
	t.Setenv(bridge.EnvRelaySecret, "s")
	var logs strings.Builder
	b := bridge.NewBridge(nil, bridge.BridgeOptions{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	b.Close()
	if !strings.Contains(logs.String(), "level=ERROR") || !strings.Contains(logs.String(), "bridge.RelayFromEnv") {
		t.Errorf("log:\n%s\nwant an error naming bridge.RelayFromEnv", logs.String())
	}
}
