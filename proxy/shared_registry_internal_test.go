package proxy

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
)

// sharedRegistryProfile recognises opencode by its agentInfo.name, or
// by its command line as the profiles do, and nothing else.
func TestSharedRegistryProfile(t *testing.T) {
	for _, tc := range []struct {
		name string
		argv []string
		want bool
	}{
		{"OpenCode", nil, true},
		{"", []string{"/usr/lib/node_modules/opencode-linux-x64/bin/opencode", "acp"}, true},
		{"", []string{`C:\tools\opencode.exe`, "acp"}, true},
		{"", []string{"npx", "opencode-ai@1.18.33", "acp"}, false}, // a bare word may be any flag's value
		{"", []string{"node", "/x/opencode"}, true},                // a path on the command line, as profiles take it
		{"", []string{"opencode-wrapper.sh"}, false},
		{"opencode", nil, false}, // agentInfo.name is OpenCode
		{"gemini-cli", []string{"opencode", "acp"}, false},
		{"Copilot", nil, false},
		{"", nil, false},
	} {
		if got := sharedRegistryProfile(tc.name, tc.argv) != nil; got != tc.want {
			t.Errorf("sharedRegistryProfile(%q, %q) = %v, want %v", tc.name, tc.argv, got, tc.want)
		}
	}
}

// --agent-profile opencode gives a wrapped opencode its shared entry,
// whatever it says at initialize; another profile takes it away.
func TestSharedRegistryForced(t *testing.T) {
	for _, tc := range []struct {
		profile         string
		argv            []string
		named, nameless bool // applies, after an agentInfo of another agent, and after none
	}{
		{"opencode", []string{"./my-agent.sh"}, true, true},
		{"copilot", []string{"opencode", "acp"}, false, false},
		{"none", []string{"opencode", "acp"}, false, true}, // not steering: how the agent works
		{"auto", []string{"./my-agent.sh"}, false, false},
	} {
		for _, init := range []struct {
			result string
			want   bool
		}{
			{`{"protocolVersion":1,"agentInfo":{"name":"someone"}}`, tc.named},
			{`{"protocolVersion":1}`, tc.nameless},
		} {
			ss := newSharedServers(ProxyOptions{AgentProfile: tc.profile}, tc.argv, slog.New(slog.DiscardHandler))
			ss.agentInitialized(json.RawMessage(init.result))
			if got := ss.applies(); got != init.want {
				t.Errorf("--agent-profile %s, %q, initialize %s: applies() = %v, want %v", tc.profile, tc.argv, init.result, got, init.want)
			}
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
