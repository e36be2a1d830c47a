package proxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"go.uber.org/goleak"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcptest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
	"github.com/mcp-acpfs/mcp-acpfs/proxy"
)

// registryAgent is a test agent that keeps its MCP servers as opencode
// does: one registry per directory, keyed by the server's name, where the
// entry of the latest session request wins for every session there.
type registryAgent struct {
	mu       sync.Mutex
	registry map[string]map[string]json.RawMessage // cwd → name → entry
	nextID   int
}

func (a *registryAgent) sessionNew(m wire.Message) any {
	var p struct {
		Cwd        string            `json:"cwd"`
		MCPServers []json.RawMessage `json:"mcpServers"`
	}
	json.Unmarshal(m.Params, &p)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.registry[p.Cwd] == nil {
		a.registry[p.Cwd] = map[string]json.RawMessage{}
	}
	for _, e := range p.MCPServers {
		var named struct {
			Name string `json:"name"`
		}
		json.Unmarshal(e, &named)
		a.registry[p.Cwd][named.Name] = e
	}
	if m.Method == "session/load" {
		return map[string]any{}
	}
	a.nextID++
	return map[string]any{"sessionId": fmt.Sprintf("sess-%d", a.nextID)}
}

// entry returns the directory's acpfs entry, as the registry has it now.
func (a *registryAgent) entry(cwd string) (url string, headers map[string]string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var e struct {
		Type    string `json:"type"`
		URL     string `json:"url"`
		Headers []struct {
			Name, Value string
		} `json:"headers"`
	}
	json.Unmarshal(a.registry[cwd]["acpfs"], &e)
	headers = map[string]string{}
	for _, h := range e.Headers {
		headers[h.Name] = h.Value
	}
	return e.URL, headers
}

// TestProxySharedRegistry runs the proxy in front of an agent that keeps
// one MCP server per directory and name, as opencode does, and names
// itself OpenCode. Two sessions in one directory each reach their own
// session's editor buffers through the one entry the directory keeps, by
// the session that is prompting; a call with no session prompting, or with
// two at once, fails with a tool error that says so; once one session is
// closed, the other keeps working, and goes on when loaded again; a
// session in another directory gets an entry of its own.
func TestProxySharedRegistry(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, leaks) })
	ctx, cancel := context.WithTimeout(t.Context(), hangGuard)
	defer cancel()
	ln, exe := listenFaultAgent(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	other, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(file, []byte("on disk\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Saved long ago: a read that differs from the disk is not taken for
	// an editor's reload still to come, which the Router would wait for.
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(file, old, old); err != nil {
		t.Fatal(err)
	}

	logs := &logRecords{}
	edTest, edProxy := net.Pipe()
	exited := make(chan int, 1)
	go func() {
		code, err := proxy.RunProxy(context.Background(), edProxy, []string{exe},
			proxy.ProxyOptions{Bridge: bridge.BridgeOptions{Logger: slog.New(logs)}, AgentStderr: io.Discard})
		if err != nil {
			t.Errorf("RunProxy: %v", err)
		}
		exited <- code
	}()
	var wmu sync.Mutex
	writes := map[string]string{} // session id → content written to the editor
	buffers := map[string]string{"sess-1": "the buffer of session 1\n", "sess-2": "the buffer of session 2\n"}
	editor := newFaultPeer(t, "editor", edTest, map[string]func(wire.Message) any{
		"fs/read_text_file": func(m wire.Message) any {
			var p struct{ SessionID, Path string }
			json.Unmarshal(m.Params, &p)
			return map[string]any{"content": buffers[p.SessionID]}
		},
		"fs/write_text_file": func(m wire.Message) any {
			var p struct{ SessionID, Path, Content string }
			json.Unmarshal(m.Params, &p)
			wmu.Lock()
			writes[p.SessionID] = p.Content
			wmu.Unlock()
			return nil
		},
	})
	pid, agentConn := acceptFaultAgent(t, ln)
	ra := &registryAgent{registry: map[string]map[string]json.RawMessage{}}
	agent := newFaultPeer(t, "agent", agentConn, map[string]func(wire.Message) any{
		"initialize": func(wire.Message) any {
			return map[string]any{"protocolVersion": 1,
				"agentCapabilities": map[string]any{"mcpCapabilities": map[string]any{"http": true, "sse": true},
					"sessionCapabilities": map[string]any{"close": map[string]any{}}},
				"agentInfo": map[string]any{"name": "OpenCode", "version": "1.18.33"}}
		},
		"session/new":   ra.sessionNew,
		"session/load":  ra.sessionNew,
		"session/close": func(wire.Message) any { return map[string]any{} },
	})
	defer func() {
		editor.rwc.Close()
		agent.rwc.Close()
		<-exited
		if !ostest.ProcessGone(pid) {
			t.Errorf("the agent (pid %d) is still there after the proxy exited", pid)
		}
	}()

	call := func(method string, params any) wire.Message {
		t.Helper()
		m, err := editor.call(ctx, method, params)
		if err != nil || m.Error != nil {
			t.Fatalf("%s: %v %s", method, err, m.Raw)
		}
		return m
	}
	call("initialize", map[string]any{"protocolVersion": 1,
		"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}}})
	call("session/new", map[string]any{"cwd": dir, "mcpServers": []any{}})
	urlA, headersA := ra.entry(dir)
	call("session/new", map[string]any{"cwd": dir, "mcpServers": []any{}})
	url, headers := ra.entry(dir)
	if url != urlA || headers["Authorization"] != headersA["Authorization"] || url == "" {
		t.Errorf("the two sessions of a directory got different entries: %s %v, then %s %v", urlA, headersA, url, headers)
	}
	call("session/new", map[string]any{"cwd": other, "mcpServers": []any{}})
	if _, h := ra.entry(other); h["Authorization"] == headers["Authorization"] {
		t.Error("a session in another directory got the same secret")
	}

	// The agent's one client for the directory, as opencode has it.
	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPHeaders(headers))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	mcptest.Initialize(t, c, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	tool := func(name string, args map[string]any) (string, bool) {
		t.Helper()
		res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
		if err != nil {
			return err.Error(), true
		}
		var texts []string
		for _, ct := range res.Content {
			if tc, ok := ct.(mcp.TextContent); ok {
				texts = append(texts, tc.Text)
			}
		}
		return strings.Join(texts, "\n"), res.IsError
	}
	read := func() (string, bool) { return tool(mcpfs.ReadTextFile, map[string]any{"path": file}) }

	// prompt starts a prompt of session id, which the agent holds until
	// the returned func answers it.
	prompt := func(id string) func() {
		t.Helper()
		rid := fmt.Sprintf("%q", "prompt-"+id)
		answered := editor.expect(rid)
		editor.send(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(rid), "method": "session/prompt",
			"params": map[string]any{"sessionId": id, "prompt": []any{map[string]any{"type": "text", "text": "go"}}}})
		m := agent.nextRequest(ctx)
		if m.Method != "session/prompt" {
			t.Fatalf("the agent got %s, want session/prompt", m.Raw)
		}
		return func() {
			t.Helper()
			agent.reply(m.ID, map[string]any{"stopReason": "end_turn"})
			if _, err := editor.await(ctx, rid, answered); err != nil {
				t.Fatal(err)
			}
		}
	}

	if text, failed := read(); !failed || !strings.Contains(text, "no session in "+dir+" is prompting") {
		t.Errorf("a call with no session prompting: %q (failed %v), want the error that says so", text, failed)
	}
	for _, id := range []string{"sess-1", "sess-2"} {
		end := prompt(id)
		if text, failed := read(); failed || !strings.Contains(text, buffers[id]) {
			t.Errorf("a read while %s prompts: %q (failed %v), want its buffer %q", id, text, failed, buffers[id])
		}
		if text, failed := tool(mcpfs.WriteTextFile, map[string]any{"path": file, "content": "by " + id}); failed {
			t.Errorf("a write while %s prompts: %q", id, text)
		}
		end()
	}
	wmu.Lock()
	if writes["sess-1"] != "by sess-1" || writes["sess-2"] != "by sess-2" || len(writes) != 2 {
		t.Errorf("the editor's writes by session: %v", writes)
	}
	wmu.Unlock()

	// report has the agent report a call of read_text_file of session
	// id, as opencode does before it makes the call, and waits until the
	// proxy has passed the report on.
	report := func(id, callID string, args map[string]any) {
		t.Helper()
		agent.send(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{
			"sessionId": id, "update": map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": callID,
				"status": "in_progress", "kind": "other", "title": "acpfs_read_text_file", "rawInput": args}}})
		editor.nextNote(ctx, "session/update")
	}
	end1, end2 := prompt("sess-1"), prompt("sess-2")
	// Both prompt: each call goes to the session that reported it, the
	// report before the call or after it.
	report("sess-1", "call-1", map[string]any{"path": file})
	report("sess-2", "call-1", map[string]any{"path": file, "limit": 1})
	if text, failed := read(); failed || !strings.Contains(text, buffers["sess-1"]) {
		t.Errorf("a call that session 1 reported, while both prompt: %q (failed %v)", text, failed)
	}
	second := make(chan string, 1)
	go func() {
		text, _ := tool(mcpfs.ReadTextFile, map[string]any{"path": file, "limit": 1})
		second <- text
	}()
	if text := <-second; !strings.Contains(text, buffers["sess-2"]) {
		t.Errorf("a call that session 2 reported, while both prompt: %q", text)
	}
	reportLate := make(chan string, 1)
	go func() {
		text, _ := tool(mcpfs.ReadTextFile, map[string]any{"path": file, "lineNumbers": true})
		reportLate <- text
	}()
	report("sess-2", "call-2", map[string]any{"path": file, "lineNumbers": true})
	if text := <-reportLate; !strings.Contains(text, strings.TrimSpace(buffers["sess-2"])) {
		t.Errorf("a call that session 2 reported after it came, while both prompt: %q", text)
	}
	// The same call reported by both: it cannot be tied to one.
	report("sess-1", "call-3", map[string]any{"path": file, "line": 1})
	report("sess-2", "call-3", map[string]any{"path": file, "line": 1})
	if text, failed := tool(mcpfs.ReadTextFile, map[string]any{"path": file, "line": 1}); !failed ||
		!strings.Contains(text, "2 sessions in "+dir+" are prompting at once (") ||
		!strings.Contains(text, "more than one of them reported a call of acpfs_read_text_file with these arguments") {
		t.Errorf("a call that both sessions reported: %q (failed %v), want the error that says so", text, failed)
	}
	end1()
	end2()

	call("session/close", map[string]any{"sessionId": "sess-2"})
	end := prompt("sess-1")
	if text, failed := read(); failed || !strings.Contains(text, buffers["sess-1"]) {
		t.Errorf("a read of session 1 after session 2 closed: %q (failed %v)", text, failed)
	}
	end()
	// Loaded again while open, session 1 has two bridge sessions: the
	// later one serves it.
	call("session/load", map[string]any{"sessionId": "sess-1", "cwd": dir, "mcpServers": []any{}})
	end = prompt("sess-1")
	if text, failed := read(); failed || !strings.Contains(text, buffers["sess-1"]) {
		t.Errorf("a read of session 1 after it was loaded again: %q (failed %v)", text, failed)
	}
	end()
	if n := logs.count("refused a call to a directory's shared MCP server"); n != 2 {
		t.Errorf("%d refusals logged, want 2", n)
	}
}
