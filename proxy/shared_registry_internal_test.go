package proxy

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
)

// sharesRegistry recognises opencode by its agentInfo.name, or by the
// program its command line runs, and nothing else.
func TestSharesRegistry(t *testing.T) {
	for _, tc := range []struct {
		name string
		argv []string
		want bool
	}{
		{"OpenCode", nil, true},
		{"", []string{"/usr/lib/node_modules/opencode-linux-x64/bin/opencode", "acp"}, true},
		{"", []string{`C:\tools\opencode.exe`, "acp"}, true},
		{"", []string{"opencode-wrapper.sh"}, false},
		{"", []string{"node", "/x/opencode"}, false}, // only the program itself
		{"opencode", nil, false},                     // agentInfo.name is OpenCode
		{"gemini-cli", []string{"gemini", "--acp"}, false},
		{"", nil, false},
	} {
		if got := sharesRegistry(tc.name, tc.argv); got != tc.want {
			t.Errorf("sharesRegistry(%q, %q) = %v, want %v", tc.name, tc.argv, got, tc.want)
		}
	}
}

// A directory's server offers its model what the session's own server
// would: the same tools, as the same JSON, and the same instructions.
func TestSharedDirOffersTheSessionsTools(t *testing.T) {
	b := bridge.NewBridge(nil, bridge.BridgeOptions{})
	defer b.Close()
	s, err := b.OpenSession(bridge.SessionParams{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	d, err := newSharedServers(ProxyOptions{}, nil, slog.New(slog.DiscardHandler)).newDir(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
	} {
		own, err := json.Marshal(s.MCPServer().HandleMessage(context.Background(), json.RawMessage(msg)))
		if err != nil {
			t.Fatal(err)
		}
		dir, err := json.Marshal(d.mcp.HandleMessage(context.Background(), json.RawMessage(msg)))
		if err != nil {
			t.Fatal(err)
		}
		var o, g struct {
			Result struct {
				Tools        json.RawMessage `json:"tools"`
				Instructions string          `json:"instructions"`
				ServerInfo   json.RawMessage `json:"serverInfo"`
			} `json:"result"`
		}
		json.Unmarshal(own, &o)
		json.Unmarshal(dir, &g)
		if string(o.Result.Tools) != string(g.Result.Tools) || o.Result.Instructions != g.Result.Instructions ||
			string(o.Result.ServerInfo) != string(g.Result.ServerInfo) {
			t.Errorf("%s:\nthe session's server: %s\nthe directory's:      %s", msg, own, dir)
		}
	}
}
