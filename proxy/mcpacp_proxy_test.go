package proxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcp-acpfs/mcp-acpfs/capabilities"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fspath"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcptest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
	"github.com/mcp-acpfs/mcp-acpfs/proxy"
)

// An acpRig is a proxy run in this process between a test editor and the
// fault tests' agent process, with the initialize of each given by the
// test. The agent answers initialize and every session request; the
// editor answers what its handlers answer.
type acpRig struct {
	t        *testing.T
	ctx      context.Context
	editor   *faultPeer
	agent    *faultPeer
	logs     *logRecords
	trace    *mcptest.SyncBuffer
	exited   chan int
	sessions chan wire.Message // session requests as the agent got them
	init     wire.Message      // the editor's answer to initialize
	nextSess int
	mu       sync.Mutex
}

// v1Editor is the initialize params of a version 1 editor that serves fs.
var v1Editor = map[string]any{"protocolVersion": 1, "clientInfo": map[string]any{"name": "ed", "version": "1"},
	"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}}}

// v2Editor is the initialize params of a version 2 editor: no fs.
var v2Editor = map[string]any{"protocolVersion": 2, "info": map[string]any{"name": "ed2", "version": "2"}, "capabilities": map[string]any{}}

// v1Agent returns the initialize result of a version 1 agent with
// mcpCapabilities mcp.
func v1Agent(mcp map[string]any) map[string]any {
	return map[string]any{"protocolVersion": 1, "agentCapabilities": map[string]any{"mcpCapabilities": mcp},
		"agentInfo": map[string]any{"name": "test-agent", "version": "1"}}
}

// v2Agent returns the initialize result of a version 2 agent with
// capabilities.session.mcp mcp.
func v2Agent(mcp map[string]any) map[string]any {
	return map[string]any{"protocolVersion": 2, "info": map[string]any{"name": "test-agent", "version": "2"},
		"capabilities": map[string]any{"session": map[string]any{"mcp": mcp}}}
}

func startACPRig(t *testing.T, opts proxy.ProxyOptions, editorInit any, agentInit any, editorHandlers map[string]func(wire.Message) any) *acpRig {
	leaks := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, leaks) })
	ctx, cancel := context.WithTimeout(t.Context(), hangGuard)
	t.Cleanup(cancel)

	ln, exe := listenFaultAgent(t)
	r := &acpRig{t: t, ctx: ctx, logs: &logRecords{}, trace: &mcptest.SyncBuffer{}, exited: make(chan int, 1), sessions: make(chan wire.Message, 16)}
	opts.Bridge.Logger = slog.New(r.logs)
	opts.AgentStderr = io.Discard
	opts.Trace = r.trace
	edTest, edProxy := net.Pipe()
	go func() {
		code, err := proxy.RunProxy(context.Background(), edProxy, []string{exe}, opts)
		if err != nil {
			t.Errorf("RunProxy: %v", err)
		}
		r.exited <- code
	}()
	r.editor = newFaultPeer(t, "editor", edTest, editorHandlers)
	t.Cleanup(r.stop)
	_, agentConn := acceptFaultAgent(t, ln)
	session := func(m wire.Message) any {
		r.sessions <- m
		if m.Method != "session/new" && m.Method != "session/fork" {
			return map[string]any{}
		}
		r.mu.Lock()
		r.nextSess++
		id := fmt.Sprintf("sess-%d", r.nextSess)
		r.mu.Unlock()
		return map[string]any{"sessionId": id}
	}
	r.agent = newFaultPeer(t, "agent", agentConn, map[string]func(wire.Message) any{
		"initialize":     func(wire.Message) any { return agentInit },
		"session/new":    session,
		"session/load":   session,
		"session/resume": session,
		"session/fork":   session,
		"session/close":  func(wire.Message) any { return map[string]any{} },
	})
	t.Cleanup(func() { r.agent.rwc.Close() })
	var err error
	if r.init, err = r.editor.call(ctx, "initialize", editorInit); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return r
}

// stop closes the editor's end and waits for the proxy to exit, which
// closes its sessions. A later stop waits for nothing.
func (r *acpRig) stop() {
	r.editor.rwc.Close()
	select {
	case code := <-r.exited:
		r.exited <- code // for a later stop
	case <-time.After(hangGuard):
		r.t.Error("the proxy did not exit")
	}
}

// tempDir returns a new directory for a session's cwd. It is removed when
// the test ends, after the proxy has stopped: on Windows a session's open
// roots would keep the directory from being removed (a sharing
// violation), and the cleanup startACPRig registers for that comes too
// late, as cleanups run last in, first out.
func (r *acpRig) tempDir() string {
	r.t.Helper()
	dir, err := filepath.EvalSymlinks(r.t.TempDir())
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(r.stop)
	return dir
}

// newSession opens a session with cwd dir (a new directory if ""), and
// returns the session id, its params as the agent got them, and dir.
func (r *acpRig) newSession(dir string) (string, json.RawMessage, string) {
	r.t.Helper()
	if dir == "" {
		dir = r.tempDir()
	}
	m, err := r.editor.call(r.ctx, "session/new", map[string]any{"cwd": dir, "mcpServers": []any{}})
	if err != nil || m.Error != nil {
		r.t.Fatalf("session/new: %v %s", err, m.Raw)
	}
	var res struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(m.Result, &res)
	return res.SessionID, (<-r.sessions).Params, dir
}

// traced returns the messages of the trace that went in direction dir, in
// order.
func (r *acpRig) traced(dir string) []json.RawMessage {
	var out []json.RawMessage
	for _, line := range strings.Split(r.trace.String(), "\n") {
		var tl struct {
			Dir string          `json:"dir"`
			Msg json.RawMessage `json:"msg"`
		}
		if json.Unmarshal([]byte(line), &tl) == nil && tl.Dir == dir {
			out = append(out, tl.Msg)
		}
	}
	return out
}

// entries returns the mcpServers of session params.
func entries(t *testing.T, params json.RawMessage) []map[string]any {
	t.Helper()
	var p struct {
		MCPServers []map[string]any `json:"mcpServers"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		t.Fatalf("%s: %v", params, err)
	}
	return p.MCPServers
}

// acpServerID returns the serverId of the one acp entry of params.
func acpServerID(t *testing.T, params json.RawMessage) string {
	t.Helper()
	es := entries(t, params)
	if len(es) != 1 || es[0]["type"] != "acp" {
		t.Fatalf("mcpServers = %v, want one acp entry", es)
	}
	id, _ := es[0]["serverId"].(string)
	return id
}

// innerMeta is the _meta of an MCP 2026-07-28 request.
var innerMeta = map[string]any{
	"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
	"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "test-agent", "version": "1"},
}

// mcpMessage sends an mcp/message request from the agent and returns the
// proxy's answer.
func (r *acpRig) mcpMessage(serverID, requestID, method string, params map[string]any) wire.Message {
	r.t.Helper()
	m, err := r.agent.call(r.ctx, "mcp/message", r.envelope(serverID, requestID, method, params))
	if err != nil {
		r.t.Fatalf("mcp/message %s: %v", method, err)
	}
	return m
}

func (r *acpRig) envelope(serverID, requestID, method string, params map[string]any) map[string]any {
	if params == nil {
		params = map[string]any{}
	}
	if _, ok := params["_meta"]; !ok {
		params["_meta"] = innerMeta
	}
	return map[string]any{"serverId": serverID, "requestId": requestID, "method": method, "params": params}
}

// toolText returns the text of the inner tool result in an outer answer,
// and whether it is a tool error.
func toolText(t *testing.T, m wire.Message) (string, bool) {
	t.Helper()
	var res struct {
		Result *struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	if m.Error != nil || json.Unmarshal(m.Result, &res) != nil || res.Result == nil || len(res.Result.Content) == 0 {
		t.Fatalf("not a tool result: %s", m.Raw)
	}
	return res.Result.Content[0].Text, res.Result.IsError
}

// errorCode returns the outer error code of m, or 0.
func errorCode(m wire.Message) int64 {
	var e struct {
		Code int64 `json:"code"`
	}
	if m.Error == nil || json.Unmarshal(m.Error, &e) != nil {
		return 0
	}
	return e.Code
}

var serverIDPattern = regexp.MustCompile(`^acpfs-[0-9a-f]{64}$`)

// An agent that advertises mcpCapabilities.acp gets an acp entry with a
// serverId of its own per session, and no endpoint is opened: no HTTP
// listener, no relay socket. Through mcp/message it reads the editor's
// unsaved buffer and writes into the editor, with the session's id on the
// fs requests.
func TestProxyMCPOverACPUsesTheEditor(t *testing.T) {
	var mu sync.Mutex
	var fsCalls []string
	r := startACPRig(t, proxy.ProxyOptions{}, v1Editor, v1Agent(map[string]any{"acp": true, "http": true}), map[string]func(wire.Message) any{
		"fs/read_text_file": func(m wire.Message) any {
			mu.Lock()
			fsCalls = append(fsCalls, "read "+string(m.Params))
			mu.Unlock()
			return map[string]any{"content": "unsaved buffer\n"}
		},
		"fs/write_text_file": func(m wire.Message) any {
			mu.Lock()
			fsCalls = append(fsCalls, "write "+string(m.Params))
			mu.Unlock()
			return map[string]any{}
		},
	})
	if r.init.Error != nil {
		t.Fatalf("initialize: %s", r.init.Raw)
	}
	sid, params, dir := r.newSession("")
	es := entries(t, params)
	if len(es) != 1 || len(es[0]) != 3 || es[0]["type"] != "acp" || es[0]["name"] != "acpfs" {
		t.Fatalf("mcpServers = %v, want exactly {type:acp, name:acpfs, serverId}", es)
	}
	serverID := es[0]["serverId"].(string)
	if !serverIDPattern.MatchString(serverID) {
		t.Errorf("serverId %q is not acpfs- and 256 random bits", serverID)
	}
	_, params2, _ := r.newSession("")
	if id2 := acpServerID(t, params2); id2 == serverID {
		t.Errorf("two sessions share the serverId %s", id2)
	}

	disc := r.mcpMessage(serverID, "d-1", "server/discover", nil)
	if disc.Error != nil || !bytes.Contains(disc.Result, []byte(`"result":{`)) || !bytes.Contains(disc.Result, []byte(`2026-07-28`)) {
		t.Fatalf("server/discover: %s", disc.Raw)
	}
	file := filepath.Join(dir, "main.go")
	os.WriteFile(file, []byte("on disk\n"), 0o644)
	read := r.mcpMessage(serverID, "r-1", "tools/call", map[string]any{"name": "read_text_file", "arguments": map[string]any{"path": file}})
	if text, isErr := toolText(t, read); isErr || !strings.Contains(text, "unsaved buffer") {
		t.Errorf("read_text_file over mcp/message: %s", read.Raw)
	}
	write := r.mcpMessage(serverID, "w-1", "tools/call", map[string]any{"name": "write_text_file", "arguments": map[string]any{"path": file, "content": "from the agent\n"}})
	if _, isErr := toolText(t, write); isErr {
		t.Errorf("write_text_file over mcp/message: %s", write.Raw)
	}
	mu.Lock()
	calls := strings.Join(fsCalls, "\n")
	mu.Unlock()
	fileJSON, _ := json.Marshal(file)
	for _, want := range []string{`read {"sessionId":"` + sid + `","path":` + string(fileJSON) + `}`, `"content":"from the agent\n"`} {
		if !strings.Contains(calls, want) {
			t.Errorf("the editor's fs calls %s lack %s", calls, want)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != "on disk\n" {
		t.Errorf("the write went to disk: %q", b)
	}
	// Nothing of the binding reached the editor.
	for _, msg := range r.traced("to-editor") {
		if bytes.Contains(msg, []byte("mcp/message")) || bytes.Contains(msg, []byte("server/discover")) {
			t.Errorf("the editor got %s", msg)
		}
	}
	for _, log := range []string{"serving session MCP endpoints", "serving the relay endpoint"} {
		if n := r.logs.count(log); n != 0 {
			t.Errorf("the proxy logged %q %d times: an endpoint was opened", log, n)
		}
	}
}

// The proof of the above: forced to stdio, or on http, the same agent's
// sessions do open their endpoint (and the log says so).
func TestProxyTransportFlagOpensTheEndpoint(t *testing.T) {
	for _, tc := range []struct {
		want capabilities.Transport
		typ  string
		log  string
	}{
		{capabilities.TransportStdio, "", "serving the relay endpoint"},
		{capabilities.TransportHTTP, "http", "serving session MCP endpoints"},
	} {
		t.Run(tc.want.String(), func(t *testing.T) {
			r := startACPRig(t, proxy.ProxyOptions{MCPTransport: tc.want}, v1Editor, v1Agent(map[string]any{"acp": true, "http": true}), nil)
			_, params, _ := r.newSession("")
			es := entries(t, params)
			if typ, _ := es[0]["type"].(string); len(es) != 1 || typ != tc.typ {
				t.Fatalf("mcpServers = %v, want type %q", es, tc.typ)
			}
			if r.logs.count(tc.log) != 1 {
				t.Errorf("the proxy did not log %q", tc.log)
			}
		})
	}
}

// Two sessions stay apart: each serverId reaches its own session's roots
// (disk route here: the editor serves no fs), and not the other's.
func TestProxyMCPOverACPSessionsApart(t *testing.T) {
	r := startACPRig(t, proxy.ProxyOptions{}, map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}},
		v1Agent(map[string]any{"acp": true}), nil)
	_, p1, dir1 := r.newSession("")
	_, p2, dir2 := r.newSession("")
	os.WriteFile(filepath.Join(dir1, "a.txt"), []byte("one\n"), 0o644)
	os.WriteFile(filepath.Join(dir2, "a.txt"), []byte("two\n"), 0o644)
	id1, id2 := acpServerID(t, p1), acpServerID(t, p2)
	read := func(id, path string) (string, bool) {
		return toolText(t, r.mcpMessage(id, "same-id", "tools/call", map[string]any{"name": "read_text_file", "arguments": map[string]any{"path": path}}))
	}
	if text, isErr := read(id1, "a.txt"); isErr || !strings.Contains(text, "one") {
		t.Errorf("session 1 reads a.txt as %q", text)
	}
	if text, isErr := read(id2, "a.txt"); isErr || !strings.Contains(text, "two") {
		t.Errorf("session 2 reads a.txt as %q", text)
	}
	if text, isErr := read(id1, filepath.Join(dir2, "a.txt")); !isErr || strings.Contains(text, "two") {
		t.Errorf("session 1 reads session 2's file: %q", text)
	}
}

// An mcp/message for a serverId that is not the proxy's goes to the editor
// as it was sent, and the editor's answer back as it was sent, error
// included: the editor may serve acp servers of its own.
func TestProxyMCPOverACPForwardsOtherServers(t *testing.T) {
	r := startACPRig(t, proxy.ProxyOptions{}, v1Editor, v1Agent(map[string]any{"acp": true}), map[string]func(wire.Message) any{})
	r.newSession("")
	envelope := r.envelope("editor-tools", "q-1", "tools/list", map[string]any{"cursor": "x"})
	answered := make(chan wire.Message, 1)
	go func() {
		m, err := r.agent.call(r.ctx, "mcp/message", envelope)
		if err != nil {
			t.Error(err)
		}
		answered <- m
	}()
	got := r.editor.nextRequest(r.ctx)
	want, _ := json.Marshal(envelope)
	if got.Method != "mcp/message" || !jsonEqual(got.Params, want) {
		t.Fatalf("the editor got %s, want params %s", got.Raw, want)
	}
	r.editor.send(map[string]any{"jsonrpc": "2.0", "id": got.ID, "error": map[string]any{"code": -33001, "message": "MCP server registration unavailable", "data": map[string]any{"serverId": "editor-tools"}}})
	m := <-answered
	if errorCode(m) != -33001 || !bytes.Contains(m.Error, []byte(`"serverId":"editor-tools"`)) {
		t.Errorf("the agent got %s", m.Raw)
	}
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// The binding's errors: a request without the 2026-07-28 _meta, or of
// another version, gets the inner MCP error in a successful outer answer;
// a requestId already active is invalid params; the serverId of a closed
// session is unavailable (-33001), and is not forwarded to the editor.
func TestProxyMCPOverACPBindingErrors(t *testing.T) {
	reads := make(chan wire.Message, 4)
	r := startACPRig(t, proxy.ProxyOptions{}, v1Editor, v1Agent(map[string]any{"acp": true}), nil)
	go func() {
		for {
			select {
			case m := <-r.editor.requests:
				reads <- m
			case <-r.editor.done:
				return
			}
		}
	}()
	sid, params, dir := r.newSession("")
	id := acpServerID(t, params)

	m := r.mcpMessage(id, "m-1", "tools/list", map[string]any{"_meta": map[string]any{}})
	if m.Error != nil || !bytes.Contains(m.Result, []byte(`"error":{"code":-32602`)) || !bytes.Contains(m.Result, []byte("io.modelcontextprotocol/protocolVersion")) {
		t.Errorf("no protocol version: %s", m.Raw)
	}
	old := map[string]any{"io.modelcontextprotocol/protocolVersion": "2025-11-25", "io.modelcontextprotocol/clientCapabilities": map[string]any{}}
	m = r.mcpMessage(id, "m-2", "tools/list", map[string]any{"_meta": old})
	if m.Error != nil || !jsonEqual(m.Result, []byte(`{"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2025-11-25"}}}`)) {
		t.Errorf("protocol 2025-11-25: %s", m.Raw)
	}
	m = r.mcpMessage(id, "m-3", "tools/nonesuch", nil)
	if m.Error != nil || !bytes.Contains(m.Result, []byte(`"error":{"code":-32601`)) {
		t.Errorf("unknown inner method: %s", m.Raw)
	}
	m, _ = r.agent.call(r.ctx, "mcp/message", map[string]any{"serverId": id, "requestId": 7, "method": "tools/list"})
	if errorCode(m) != -32602 {
		t.Errorf("a requestId that is not a string: %s", m.Raw)
	}

	// A read held by the editor keeps m-4 active.
	file := filepath.Join(dir, "held.txt")
	held := make(chan wire.Message, 1)
	go func() {
		m, _ := r.agent.call(r.ctx, "mcp/message", r.envelope(id, "m-4", "tools/call", map[string]any{"name": "read_text_file", "arguments": map[string]any{"path": file}}))
		held <- m
	}()
	fsReq := <-reads
	m = r.mcpMessage(id, "m-4", "tools/list", nil)
	if errorCode(m) != -32602 || !bytes.Contains(m.Error, []byte(`"requestId":"m-4"`)) {
		t.Errorf("a duplicate active requestId: %s", m.Raw)
	}
	r.editor.reply(fsReq.ID, map[string]any{"content": "held\n"})
	if text, _ := toolText(t, <-held); !strings.Contains(text, "held") {
		t.Errorf("the held read: %q", text)
	}

	if m, err := r.editor.call(r.ctx, "session/close", map[string]any{"sessionId": sid}); err != nil || m.Error != nil {
		t.Fatalf("session/close: %v %s", err, m.Raw)
	}
	m = r.mcpMessage(id, "m-5", "tools/list", nil)
	if errorCode(m) != -33001 || !bytes.Contains(m.Error, []byte(id)) {
		t.Errorf("after session/close: %s", m.Raw)
	}
	for _, msg := range r.traced("to-editor") {
		if bytes.Contains(msg, []byte("mcp/message")) {
			t.Errorf("the editor got %s", msg)
		}
	}
}

// $/cancel_request on the outer request cancels the inner one: its wait
// for the editor ends (the editor is told with $/cancel_request too), and
// the answer is -32800.
func TestProxyMCPOverACPCancel(t *testing.T) {
	r := startACPRig(t, proxy.ProxyOptions{}, v1Editor, v1Agent(map[string]any{"acp": true}), nil)
	_, params, dir := r.newSession("")
	id := acpServerID(t, params)
	const outer = `"agent-cancel-1"`
	c := r.agent.expect(outer)
	env := r.envelope(id, "slow", "tools/call", map[string]any{"name": "read_text_file", "arguments": map[string]any{"path": filepath.Join(dir, "a.txt")}})
	r.agent.send(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(outer), "method": "mcp/message", "params": env})
	fsReq := r.editor.nextRequest(r.ctx) // never answered
	if fsReq.Method != "fs/read_text_file" {
		t.Fatalf("the editor got %s", fsReq.Raw)
	}
	r.agent.send(map[string]any{"jsonrpc": "2.0", "method": "$/cancel_request", "params": map[string]any{"requestId": json.RawMessage(outer)}})
	m, err := r.agent.await(r.ctx, outer, c)
	if err != nil {
		t.Fatal(err)
	}
	if errorCode(m) != -32800 {
		t.Errorf("the cancelled request's answer: %s", m.Raw)
	}
	cancel := r.editor.nextNote(r.ctx, "$/cancel_request")
	if !bytes.Contains(cancel.Params, fsReq.ID) {
		t.Errorf("the editor's $/cancel_request %s does not name %s", cancel.Params, fsReq.ID)
	}
	// The requestId is free again.
	os.WriteFile(filepath.Join(dir, "b.txt"), nil, 0o644)
	if m := r.mcpMessage(id, "slow", "tools/list", nil); m.Error != nil {
		t.Errorf("slow again: %s", m.Raw)
	}
}

// A subscriptions/listen over mcp/message: its acknowledgement and the
// change of the file it watches reach the agent as mcp/message
// notifications of its requestId, before the answer, which comes once the
// agent cancels the stream.
func TestProxyMCPOverACPListen(t *testing.T) {
	r := startACPRig(t, proxy.ProxyOptions{}, v1Editor, v1Agent(map[string]any{"acp": true}), nil)
	_, params, dir := r.newSession("")
	id := acpServerID(t, params)
	file := filepath.Join(dir, "watched.txt")
	os.WriteFile(file, []byte("1\n"), 0o644)
	const outer = `"listen-1"`
	c := r.agent.expect(outer)
	env := r.envelope(id, "listen", "subscriptions/listen", map[string]any{"notifications": map[string]any{"resourceSubscriptions": []any{fspath.FileURI(file)}}})
	r.agent.send(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(outer), "method": "mcp/message", "params": env})
	note := func(method string) {
		t.Helper()
		n := r.agent.nextNote(r.ctx, "mcp/message")
		var p struct {
			ServerID, RequestID, Method string
		}
		if json.Unmarshal(n.Params, &p) != nil || p.ServerID != id || p.RequestID != "listen" || p.Method != method {
			t.Fatalf("got %s, want an mcp/message %s for requestId listen", n.Raw, method)
		}
	}
	note("notifications/subscriptions/acknowledged")
	os.WriteFile(file, []byte("2\n"), 0o644)
	note("notifications/resources/updated")
	r.agent.send(map[string]any{"jsonrpc": "2.0", "method": "$/cancel_request", "params": map[string]any{"requestId": json.RawMessage(outer)}})
	m, err := r.agent.await(r.ctx, outer, c)
	if err != nil {
		t.Fatal(err)
	}
	if m.Error != nil && errorCode(m) != -32800 {
		t.Errorf("the stream's answer: %s", m.Raw)
	}
	// On the wire, every notification of the stream came before its answer.
	seenAnswer := false
	for _, msg := range r.traced("to-agent") {
		if bytes.Contains(msg, []byte(`"id":`+outer)) {
			seenAnswer = true
		} else if seenAnswer && bytes.Contains(msg, []byte(`"requestId":"listen"`)) {
			t.Errorf("after the answer: %s", msg)
		}
	}
	if !seenAnswer {
		t.Error("no answer in the trace")
	}
}

// An mcp/message too long to read is answered as a stream transport
// answers a line too long: for the proxy's server, a tools/call gets a
// tool error that names the tool and the sizes, any other request the
// inner error; for another server, the outer error. Nothing reaches the
// editor, and the connection goes on.
func TestProxyMCPOverACPOverlong(t *testing.T) {
	r := startACPRig(t, proxy.ProxyOptions{MaxLineSize: 64 << 10}, v1Editor, v1Agent(map[string]any{"acp": true}), nil)
	_, params, dir := r.newSession("")
	id := acpServerID(t, params)
	big := strings.Repeat("x", 100<<10)
	write := r.mcpMessage(id, "big-1", "tools/call", map[string]any{"name": "write_text_file", "arguments": map[string]any{"path": filepath.Join(dir, "a.txt"), "content": big}})
	if text, isErr := toolText(t, write); !isErr || !strings.Contains(text, "write_text_file: the call of 100.") || !strings.Contains(text, "64.0 KiB limit") {
		t.Errorf("an overlong tools/call: %s", write.Raw)
	}
	other := r.mcpMessage(id, "big-2", "resources/read", map[string]any{"uri": "file:///" + big})
	if other.Error != nil || !bytes.Contains(other.Result, []byte(`"error":{"code":-32600`)) || !bytes.Contains(other.Result, []byte("64.0 KiB limit")) {
		t.Errorf("an overlong resources/read: %s", other.Raw)
	}
	theirs, err := r.agent.call(r.ctx, "mcp/message", r.envelope("editor-tools", "big-3", "tools/call", map[string]any{"name": "x", "arguments": map[string]any{"a": big}}))
	if err != nil || errorCode(theirs) != -32600 {
		t.Errorf("an overlong mcp/message for another server: %s (%v)", theirs.Raw, err)
	}
	if m := r.mcpMessage(id, "after", "tools/list", nil); m.Error != nil || !bytes.Contains(m.Result, []byte("read_text_file")) {
		t.Errorf("after: %s", m.Raw)
	}
	for _, msg := range r.traced("to-editor") {
		if bytes.Contains(msg, []byte("mcp/message")) {
			t.Errorf("the editor got %s", msg)
		}
	}
}
