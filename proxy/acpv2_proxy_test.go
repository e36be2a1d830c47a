package proxy_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/capabilities"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
	"github.com/mcp-acpfs/mcp-acpfs/proxy"
)

func keys(m map[string]any) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ",")
}

// On version 2 the entry has v2's shape, on a transport the agent
// advertised in capabilities.session.mcp (acp, then http, then stdio);
// an agent that advertised none gets the session request as it was.
// session/new, session/resume and session/fork carry it; the rest of each
// request is as the editor sent it.
func TestProxyV2EntryPerTransport(t *testing.T) {
	for _, tc := range []struct {
		name string
		mcp  map[string]any
		keys string // of the entry; "" for none
		typ  string
	}{
		{"stdio", map[string]any{"stdio": map[string]any{}}, "args,command,env,name,type", "stdio"},
		{"http", map[string]any{"stdio": map[string]any{}, "http": map[string]any{}}, "headers,name,type,url", "http"},
		{"acp", map[string]any{"stdio": map[string]any{}, "http": map[string]any{}, "acp": map[string]any{}}, "name,serverId,type", "acp"},
		{"none", map[string]any{"stdio": nil, "http": true}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := startACPRig(t, proxy.ProxyOptions{}, v2Editor, v2Agent(tc.mcp), nil)
			if r.init.Error != nil {
				t.Fatalf("initialize: %s", r.init.Raw)
			}
			dir := r.tempDir()
			theirs := map[string]any{"type": "http", "name": "theirs", "url": "http://127.0.0.1:9/mcp", "headers": []any{}}
			for _, method := range []string{"session/new", "session/resume", "session/fork"} {
				sent := map[string]any{"cwd": dir, "systemPrompt": map[string]any{"append": "be brief"}, "_meta": map[string]any{"k": []any{1.5, "x"}}}
				if method != "session/new" {
					sent["sessionId"] = "sess-1"
				}
				if method != "session/fork" { // v2 lets mcpServers out
					sent["mcpServers"] = []any{theirs}
				}
				if m, err := r.editor.call(r.ctx, method, sent); err != nil || m.Error != nil {
					t.Fatalf("%s: %v %s", method, err, m.Raw)
				}
				got := (<-r.sessions).Params
				var params map[string]any
				json.Unmarshal(got, &params)
				es := entries(t, got)
				servers, _ := sent["mcpServers"].([]any)
				if tc.keys == "" {
					want, _ := json.Marshal(sent)
					if !jsonEqual(got, want) {
						t.Errorf("%s: the agent got %s, want %s", method, got, want)
					}
					continue
				}
				if len(es) != len(servers)+1 {
					t.Fatalf("%s: mcpServers %v", method, es)
				}
				ours := es[len(es)-1]
				if keys(ours) != tc.keys || ours["type"] != tc.typ || ours["name"] != "acpfs" {
					t.Errorf("%s: entry %v, want members %s of type %s", method, ours, tc.keys, tc.typ)
				}
				if tc.typ == "stdio" && !filepath.IsAbs(ours["command"].(string)) {
					t.Errorf("%s: command %v is not absolute", method, ours["command"])
				}
				delete(params, "mcpServers")
				delete(sent, "mcpServers")
				a, _ := json.Marshal(params)
				b, _ := json.Marshal(sent)
				if !jsonEqual(a, b) {
					t.Errorf("%s: the rest of the request changed: %s, want %s", method, a, b)
				}
			}
		})
	}
}

// On version 2 every message but the session requests' mcpServers passes
// as it was sent, in order: initialize both ways, a prompt, the agent's
// reports of calls to the file tools (which version 1 fills in) and its
// permission requests.
func TestProxyV2PassesThrough(t *testing.T) {
	agentInit := v2Agent(map[string]any{"acp": map[string]any{}})
	agentInit["authMethods"] = []any{}
	r := startACPRig(t, proxy.ProxyOptions{}, v2Editor, agentInit, nil)
	want, _ := json.Marshal(agentInit)
	if r.init.Error != nil || !jsonEqual(r.init.Result, want) {
		t.Errorf("the editor's initialize answer %s, want %s", r.init.Raw, want)
	}
	sentInit, _ := json.Marshal(v2Editor)
	if got := r.traced("to-agent"); len(got) == 0 || !jsonEqual(wireParams(t, got[0]), sentInit) {
		t.Errorf("the agent's initialize: %s", got)
	}
	sid, _, dir := r.newSession("")

	// From the agent, while a prompt is in flight.
	prompt := map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "hi"}}}
	answered := make(chan wire.Message, 1)
	go func() {
		m, _ := r.editor.call(r.ctx, "session/prompt", prompt)
		answered <- m
	}()
	pr := r.agent.nextRequest(r.ctx)
	wantPrompt, _ := json.Marshal(prompt)
	if pr.Method != "session/prompt" || !jsonEqual(pr.Params, wantPrompt) {
		t.Errorf("the agent's prompt: %s", pr.Raw)
	}
	update := map[string]any{"sessionId": sid, "update": map[string]any{"sessionUpdate": "tool_call", "toolCallId": "c1",
		"title": "mcp__acpfs__read_text_file", "status": "pending", "rawInput": map[string]any{"path": filepath.Join(dir, "a.go")}}}
	r.agent.send(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": update})
	perm := map[string]any{"sessionId": sid, "toolCall": map[string]any{"toolCallId": "c1", "title": "mcp__acpfs__write_text_file",
		"rawInput": map[string]any{"path": "b.go", "content": "x"}}, "options": []any{map[string]any{"optionId": "ok", "name": "OK", "kind": "allow_once"}}}
	permDone := make(chan wire.Message, 1)
	go func() {
		m, _ := r.agent.call(r.ctx, "session/request_permission", perm)
		permDone <- m
	}()
	gotPerm := r.editor.nextRequest(r.ctx)
	wantPerm, _ := json.Marshal(perm)
	if !jsonEqual(gotPerm.Params, wantPerm) {
		t.Errorf("the editor's permission request %s, want %s", gotPerm.Params, wantPerm)
	}
	r.editor.reply(gotPerm.ID, map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "ok"}})
	<-permDone
	gotUpdate := r.editor.nextNote(r.ctx, "session/update")
	wantUpdate, _ := json.Marshal(update)
	if !jsonEqual(gotUpdate.Params, wantUpdate) {
		t.Errorf("the editor's session/update %s, want %s", gotUpdate.Params, wantUpdate)
	}
	r.agent.reply(pr.ID, map[string]any{"messageId": "m-1"})
	if m := <-answered; !bytes.Equal(bytes.TrimSpace(m.Result), []byte(`{"messageId":"m-1"}`)) {
		t.Errorf("the prompt's answer: %s", m.Raw)
	}
}

func wireParams(t *testing.T, msg []byte) json.RawMessage {
	m, err := wire.Parse(msg)
	if err != nil {
		t.Fatal(err)
	}
	return m.Params
}

// On version 2 the tools are on disk and no fs/* goes to the editor, even
// one that also sent version 1's clientCapabilities.fs.
func TestProxyV2NoFS(t *testing.T) {
	editorInit := map[string]any{"protocolVersion": 2, "info": map[string]any{"name": "ed2", "version": "2"}, "capabilities": map[string]any{},
		"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}}}
	r := startACPRig(t, proxy.ProxyOptions{}, editorInit, v2Agent(map[string]any{"acp": map[string]any{}, "stdio": map[string]any{}}), nil)
	_, params, dir := r.newSession("")
	id := acpServerID(t, params)
	file := filepath.Join(dir, "a.txt")
	os.WriteFile(file, []byte("on disk\n"), 0o644)
	if text, isErr := toolText(t, r.mcpMessage(id, "r", "tools/call", map[string]any{"name": "read_text_file", "arguments": map[string]any{"path": file}})); isErr || !strings.Contains(text, "on disk") {
		t.Errorf("read: %q", text)
	}
	if _, isErr := toolText(t, r.mcpMessage(id, "w", "tools/call", map[string]any{"name": "write_text_file", "arguments": map[string]any{"path": file, "content": "new\n"}})); isErr {
		t.Error("write failed")
	}
	if b, _ := os.ReadFile(file); string(b) != "new\n" {
		t.Errorf("the file holds %q", b)
	}
	for _, msg := range r.traced("to-editor") {
		if bytes.Contains(msg, []byte(`"method":"fs/`)) {
			t.Errorf("the editor got %s", msg)
		}
	}
}

// The agent is never asked for a version the proxy does not speak: a
// newer one is lowered to 2, the rest of initialize as it was; 1 and 2
// pass as they are.
func TestProxyNegotiatesTheVersion(t *testing.T) {
	for _, tc := range []struct{ asked, sent float64 }{{1, 1}, {2, 2}, {3, 2}, {65535, 2}} {
		init := map[string]any{"protocolVersion": tc.asked, "info": map[string]any{"name": "ed", "version": "9"}, "capabilities": map[string]any{"x": 1.0}}
		r := startACPRig(t, proxy.ProxyOptions{}, init, v2Agent(map[string]any{"stdio": map[string]any{}}), nil)
		got := wireParams(t, r.traced("to-agent")[0])
		init["protocolVersion"] = tc.sent
		want, _ := json.Marshal(init)
		if !jsonEqual(got, want) {
			t.Errorf("asked %v: the agent got %s, want %s", tc.asked, got, want)
		}
	}
}

// A transport forced with --mcp-transport that the agent did not
// advertise fails the editor's initialize with an error that names the
// flag, the value and what the agent advertised, and every session
// request after it, which the agent never sees.
func TestProxyForcedTransportNotAdvertised(t *testing.T) {
	for _, tc := range []struct {
		name      string
		want      capabilities.Transport
		editor    any
		agent     any
		errorText string // "" for none
	}{
		{"v1 acp", capabilities.TransportACP, v1Editor, v1Agent(map[string]any{"http": true}), "--mcp-transport acp: the agent did not advertise the MCP transport acp (it advertised: stdio, http)"},
		{"v1 http", capabilities.TransportHTTP, v1Editor, v1Agent(map[string]any{"acp": true}), "--mcp-transport http: the agent did not advertise the MCP transport http (it advertised: stdio, acp)"},
		{"v2 stdio", capabilities.TransportStdio, v2Editor, v2Agent(map[string]any{"http": map[string]any{}}), "--mcp-transport stdio: the agent did not advertise the MCP transport stdio (it advertised: http)"},
		{"v1 stdio", capabilities.TransportStdio, v1Editor, v1Agent(map[string]any{}), ""},
		{"v2 acp", capabilities.TransportACP, v2Editor, v2Agent(map[string]any{"acp": map[string]any{}}), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := startACPRig(t, proxy.ProxyOptions{MCPTransport: tc.want}, tc.editor, tc.agent, nil)
			if tc.errorText == "" {
				if r.init.Error != nil {
					t.Fatalf("initialize: %s", r.init.Raw)
				}
				_, params, _ := r.newSession("")
				if es := entries(t, params); len(es) != 1 {
					t.Errorf("mcpServers %v", es)
				}
				return
			}
			if !bytes.Contains(r.init.Error, []byte(tc.errorText)) {
				t.Errorf("initialize answered %s, want an error with %q", r.init.Raw, tc.errorText)
			}
			m, err := r.editor.call(r.ctx, "session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{}})
			if err != nil || !bytes.Contains(m.Error, []byte(tc.errorText)) {
				t.Errorf("session/new answered %s (%v)", m.Raw, err)
			}
			for _, msg := range r.traced("to-agent") {
				if bytes.Contains(msg, []byte("session/new")) {
					t.Errorf("the agent got %s", msg)
				}
			}
		})
	}
}
