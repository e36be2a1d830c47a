package proxy

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
)

// appendMCPServer adds the session's entry to mcpServers, in the place of
// any entry of the same name, and keeps every other entry as it was.
func TestAppendMCPServer(t *testing.T) {
	entry := bridge.MCPServerEntry{Type: "http", Name: "acpfs", URL: "http://127.0.0.1:1/mcp/s"}
	ours, err := json.Marshal(entry)
	if err != nil {
		t.Fatal(err)
	}
	const other = `{"name":"git","command":"git-mcp","args":[],"env":[]}`
	const another = `{"type":"http","name":"web","url":"http://example.com","headers":[]}`
	const stale = `{"name":"acpfs","command":"mcp-acpfs","args":["serve"],"env":[]}`
	for _, tc := range []struct {
		name, servers string // servers is "" for none at all
		want          []string
		replaced      int
	}{
		{"no list", "", []string{string(ours)}, 0},
		{"null list", `null`, []string{string(ours)}, 0},
		{"empty list", `[]`, []string{string(ours)}, 0},
		{"others kept, in order", `[` + other + `,` + another + `]`, []string{other, another, string(ours)}, 0},
		{"one of the name replaced in place", `[` + other + `,` + stale + `,` + another + `]`, []string{other, string(ours), another}, 1},
		{"two of the name become ours", `[` + stale + `,` + other + `,` + stale + `]`, []string{string(ours), other}, 2},
		{"a name that is not a string is another", `[{"name":7}]`, []string{`{"name":7}`, string(ours)}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			params := `{"sessionId":"s1","cwd":"/w","_meta":{"x":[1,2]}`
			if tc.servers != "" {
				params += `,"mcpServers":` + tc.servers
			}
			msg := `{"jsonrpc":"2.0","id":3,"method":"session/new","params":` + params + `}}`
			out, replaced, err := appendMCPServer([]byte(msg), entry)
			if err != nil {
				t.Fatal(err)
			}
			if replaced != tc.replaced {
				t.Errorf("replaced %d, want %d", replaced, tc.replaced)
			}
			var got struct {
				JSONRPC string `json:"jsonrpc"`
				ID      int    `json:"id"`
				Method  string `json:"method"`
				Params  struct {
					SessionID  string            `json:"sessionId"`
					Cwd        string            `json:"cwd"`
					Meta       json.RawMessage   `json:"_meta"`
					MCPServers []json.RawMessage `json:"mcpServers"`
				} `json:"params"`
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%s: %v", out, err)
			}
			if got.JSONRPC != "2.0" || got.ID != 3 || got.Method != "session/new" || got.Params.SessionID != "s1" ||
				got.Params.Cwd != "/w" || string(got.Params.Meta) != `{"x":[1,2]}` {
				t.Errorf("the rest of the message changed: %s", out)
			}
			var servers []string
			for _, s := range got.Params.MCPServers {
				servers = append(servers, string(s))
			}
			if !reflect.DeepEqual(servers, tc.want) {
				t.Errorf("mcpServers:\n got %q\nwant %q", servers, tc.want)
			}
		})
	}
	if _, _, err := appendMCPServer([]byte(`{"jsonrpc":"2.0","id":3,"method":"session/new","params":{"mcpServers":{}}}`), entry); err == nil {
		t.Error("mcpServers that is not a list was taken")
	}
}
