package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
)

// The notifications a tool sends while it runs reach the agent as
// mcp/message notifications of its serverId and requestId, and strictly
// before the answer, in the order sent; one tied to no active request
// (another progress token) is not sent at all.
func TestMCPOverACPNotificationsBeforeTheAnswer(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	b := bridge.NewBridge(nil, bridge.BridgeOptions{Logger: log})
	s, err := b.OpenSession(bridge.SessionParams{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	s.MCPServer().AddTool(mcp.NewTool("tick"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		srv := server.ServerFromContext(ctx)
		token := req.Params.Meta.ProgressToken
		for i := range 3 {
			srv.SendNotificationToClient(ctx, "notifications/progress", map[string]any{"progressToken": token, "progress": i})
		}
		srv.SendNotificationToClient(ctx, "notifications/progress", map[string]any{"progressToken": "someone else's", "progress": 9})
		return mcp.NewToolResultText("done"), nil
	})
	servers, entry, r := serveOverACP(t, b, s)

	const rounds = 50
	for round := range rounds {
		requestID := fmt.Sprintf("tick-%d", round)
		env, _ := json.Marshal(map[string]any{"serverId": entry.ServerID, "requestId": requestID, "method": "tools/call",
			"params": map[string]any{"name": "tick", "arguments": map[string]any{}, "_meta": map[string]any{
				"progressToken": requestID + "-token",
				"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
				"io.modelcontextprotocol/clientCapabilities": map[string]any{},
			}}})
		m, err := wire.Parse([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"mcp/message","params":%s}`, round, env)))
		if err != nil {
			t.Fatal(err)
		}
		if !servers.handle(m) {
			t.Fatal("the proxy did not take an mcp/message for its serverId")
		}
		for i := 0; ; i++ {
			got, err := r.Next()
			if err != nil {
				t.Fatal(err)
			}
			if got.Kind() == wire.KindResponse {
				if i != 3 || string(got.ID) != fmt.Sprint(round) || !json.Valid(got.Result) {
					t.Fatalf("round %d: the answer %s came after %d notifications, want 3", round, got.Raw, i)
				}
				var res struct {
					Result struct {
						Content []struct{ Text string } `json:"content"`
					} `json:"result"`
				}
				if json.Unmarshal(got.Result, &res) != nil || len(res.Result.Content) != 1 || res.Result.Content[0].Text != "done" {
					t.Fatalf("round %d: answer %s", round, got.Raw)
				}
				break
			}
			var n struct {
				ServerID  string `json:"serverId"`
				RequestID string `json:"requestId"`
				Method    string `json:"method"`
				Params    struct {
					ProgressToken string `json:"progressToken"`
					Progress      int    `json:"progress"`
				} `json:"params"`
			}
			if got.Method != "mcp/message" || json.Unmarshal(got.Params, &n) != nil || n.ServerID != entry.ServerID ||
				n.RequestID != requestID || n.Method != "notifications/progress" || n.Params.Progress != i || n.Params.ProgressToken != requestID+"-token" {
				t.Fatalf("round %d: message %d: %s", round, i, got.Raw)
			}
		}
	}
}

// An mcp/message for a serverId that is not the proxy's, or one that
// cannot be read, is not taken: the proxy forwards it.
func TestMCPOverACPTakesOnlyItsOwn(t *testing.T) {
	servers := newACPServers("acpfs", newHop("agent", io.Discard, nil), slog.New(slog.DiscardHandler))
	for _, params := range []string{`{"serverId":"other","requestId":"1","method":"tools/list"}`, `{"serverId":7}`, `[]`, `null`} {
		m, err := wire.Parse([]byte(`{"jsonrpc":"2.0","id":1,"method":"mcp/message","params":` + params + `}`))
		if err != nil {
			t.Fatal(err)
		}
		if servers.handle(m) {
			t.Errorf("took %s", params)
		}
	}
}

// At most maxActiveMCPOverACP requests of one serverId are active: the
// next gets -33000, and once one is answered there is room again.
func TestMCPOverACPActiveLimit(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	b := bridge.NewBridge(nil, bridge.BridgeOptions{Logger: log})
	s, err := b.OpenSession(bridge.SessionParams{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	s.MCPServer().AddTool(mcp.NewTool("wait"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return mcp.NewToolResultText("released"), nil
	})
	servers, entry, r := serveOverACP(t, b, s)
	send := func(id int, method string) {
		env, _ := json.Marshal(map[string]any{"serverId": entry.ServerID, "requestId": fmt.Sprint("r-", id), "method": method,
			"params": map[string]any{"name": "wait", "arguments": map[string]any{}, "_meta": map[string]any{
				"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
				"io.modelcontextprotocol/clientCapabilities": map[string]any{},
			}}})
		m, err := wire.Parse(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"mcp/message","params":%s}`, id, env))
		if err != nil || !servers.handle(m) {
			t.Fatalf("handle: %v", err)
		}
	}
	for i := range maxActiveMCPOverACP {
		send(i, "tools/call")
	}
	send(maxActiveMCPOverACP, "tools/call")
	m, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	if string(m.ID) != fmt.Sprint(maxActiveMCPOverACP) || !json.Valid(m.Error) || !bytes.Contains(m.Error, []byte(`"code":-33000`)) {
		t.Fatalf("request %d past the limit: %s", maxActiveMCPOverACP, m.Raw)
	}
	close(release)
	for range maxActiveMCPOverACP {
		if m, err := r.Next(); err != nil || m.Result == nil {
			t.Fatalf("a released call: %s %v", m.Raw, err)
		}
	}
	send(maxActiveMCPOverACP+1, "tools/call")
	if m, err := r.Next(); err != nil || m.Result == nil {
		t.Fatalf("after the released calls: %s %v", m.Raw, err)
	}
}

// serveOverACP gives the session s of b an MCP-over-ACP server that
// answers to a hop whose output the returned reader reads, as the agent
// would. All of it, b included, is closed when the test ends.
func serveOverACP(t *testing.T, b *bridge.Bridge, s *bridge.Session) (*acpServers, bridge.MCPServerEntry, *wire.Reader) {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	toAgent, fromProxy := io.Pipe()
	agent := newHop("agent", fromProxy, nil)
	written := goDone(func() { agent.out.run() })
	servers := newACPServers("acpfs", agent, log)
	entry := servers.add(s)
	t.Cleanup(func() {
		b.Close()
		servers.close()
		agent.out.close()
		toAgent.Close()
		<-written
	})
	return servers, entry, wire.NewReader(toAgent, wire.ReaderOptions{Logger: log})
}
