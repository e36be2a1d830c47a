package bridge_test

import (
	"encoding/json"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
)

// Each kind of entry encodes in the shape its ACP schema requires, with
// every required member: v1's stdio without a type, v2's with one, http,
// and acp (MCP over ACP) with its serverId and nothing else.
func TestMCPServerEntryShapes(t *testing.T) {
	for _, tc := range []struct {
		entry bridge.MCPServerEntry
		want  string
	}{
		{bridge.MCPServerEntry{Name: "acpfs", Command: "/bin/relay", Args: []string{"relay"}},
			`{"name":"acpfs","command":"/bin/relay","args":["relay"],"env":[]}`},
		{bridge.MCPServerEntry{Type: "stdio", Name: "acpfs", Command: "/bin/relay", Env: []bridge.NameValue{{Name: "K", Value: "v"}}},
			`{"type":"stdio","name":"acpfs","command":"/bin/relay","args":[],"env":[{"name":"K","value":"v"}]}`},
		{bridge.MCPServerEntry{Type: "http", Name: "acpfs", URL: "http://127.0.0.1:1/mcp"},
			`{"type":"http","name":"acpfs","url":"http://127.0.0.1:1/mcp","headers":[]}`},
		{bridge.MCPServerEntry{Type: "acp", Name: "acpfs", ServerID: "acpfs-1", URL: "ignored", Command: "ignored"},
			`{"type":"acp","name":"acpfs","serverId":"acpfs-1"}`},
	} {
		got, err := json.Marshal(tc.entry)
		if err != nil || string(got) != tc.want {
			t.Errorf("%+v encodes as %s (%v), want %s", tc.entry, got, err, tc.want)
		}
	}
}
