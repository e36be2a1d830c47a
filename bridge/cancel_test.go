package bridge_test

import (
	"bytes"
	"context"
	"encoding/json"
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
	"github.com/sourcegraph/jsonrpc2"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
	"github.com/mcp-acpfs/mcp-acpfs/internal/sessiontest"
)

// stuckEditor is an editor that never answers an fs request, and reports
// each one it gets and the id of each $/cancel_request.
type stuckEditor struct {
	mu        sync.Mutex
	requested []string // ids of fs requests, as JSON
	asked     chan struct{}
	cancelled chan string // requestId of each $/cancel_request, as JSON
}

func newStuckEditor(t *testing.T) (*stuckEditor, *jsonrpc2.Conn) {
	ed := &stuckEditor{asked: make(chan struct{}, 8), cancelled: make(chan string, 8)}
	a, b := net.Pipe()
	ctx := context.WithoutCancel(t.Context())
	edConn := jsonrpc2.NewConn(ctx, bridge.NewObjectStream(a, nil), jsonrpc2.AsyncHandler(ed))
	// The agent's side: a plain *jsonrpc2.Conn, as the docs say.
	agent := jsonrpc2.NewConn(ctx, bridge.NewObjectStream(b, nil), jsonrpc2.AsyncHandler(jsonrpc2.HandlerWithError(
		func(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) (any, error) { return nil, nil })))
	t.Cleanup(func() { agent.Close(); edConn.Close() })
	return ed, agent
}

func (e *stuckEditor) Handle(_ context.Context, _ *jsonrpc2.Conn, r *jsonrpc2.Request) {
	if r.Method == "$/cancel_request" {
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		json.Unmarshal(*r.Params, &p)
		e.cancelled <- string(p.RequestID)
		return
	}
	if strings.HasPrefix(r.Method, "fs/") {
		id, _ := json.Marshal(r.ID)
		e.mu.Lock()
		e.requested = append(e.requested, string(id))
		e.mu.Unlock()
		e.asked <- struct{}{}
	}
}

// expectCancel waits for the editor to be sent $/cancel_request for the
// last fs request it got.
func (e *stuckEditor) expectCancel(t *testing.T) {
	t.Helper()
	select {
	case id := <-e.cancelled:
		e.mu.Lock()
		defer e.mu.Unlock()
		if last := e.requested[len(e.requested)-1]; id != last {
			t.Errorf("$/cancel_request names %s, want the fs request's id %s", id, last)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the editor was never sent $/cancel_request")
	}
}

// callReadAsync calls read_text_file on c under ctx, and returns a channel
// that receives the outcome, once the editor has been asked.
func callReadAsync(t *testing.T, ctx context.Context, c *client.Client, ed *stuckEditor) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{
			Name: "read_text_file", Arguments: map[string]any{"path": "main.go"}}})
		done <- err
	}()
	select {
	case <-ed.asked:
	case <-time.After(10 * time.Second):
		t.Fatal("the editor was never asked")
	}
	return done
}

// TestCancelRequestReachesTheEditor: with a plain *jsonrpc2.Conn as its
// editor connection, the bridge itself sends $/cancel_request for the fs
// request a tool call abandons: when EditorTimeout passes, when the tool
// call is cancelled (as an agent does on ACP session/cancel), and when
// the MCP client goes away, in process, over http and over the stdio
// relay.
func TestCancelRequestReachesTheEditor(t *testing.T) {
	open := func(t *testing.T, timeout time.Duration) (*stuckEditor, *bridge.Session) {
		ed, conn := newStuckEditor(t)
		b := bridge.NewBridge(conn, bridge.BridgeOptions{EditorTimeout: timeout})
		b.Initialize(json.RawMessage(sessiontest.FSCapabilities))
		dir, _ := filepath.EvalSymlinks(t.TempDir()) // removed after b.Close: Windows keeps open folders
		t.Cleanup(func() { b.Close() })
		os.WriteFile(filepath.Join(dir, "main.go"), []byte("x\n"), 0o644)
		s, err := b.OpenSession(bridge.SessionParams{Cwd: dir, SessionID: "sess_1"})
		if err != nil {
			t.Fatal(err)
		}
		return ed, s
	}
	inProcess := func(t *testing.T, s *bridge.Session) *client.Client {
		c, err := client.NewInProcessClient(s.MCPServer())
		if err != nil {
			t.Fatal(err)
		}
		initClient(t, c)
		return c
	}

	t.Run("timeout", func(t *testing.T) {
		ed, s := open(t, 200*time.Millisecond)
		c := inProcess(t, s)
		res, err := c.CallTool(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{
			Name: "read_text_file", Arguments: map[string]any{"path": "main.go"}}})
		if err != nil || !res.IsError || !strings.Contains(res.Content[0].(mcp.TextContent).Text, "did not answer") {
			t.Fatalf("a read the editor never answers: %+v, %v", res, err)
		}
		ed.expectCancel(t)
	})
	t.Run("tool call cancelled", func(t *testing.T) {
		ed, s := open(t, time.Minute)
		c := inProcess(t, s)
		ctx, cancel := context.WithCancel(t.Context())
		done := callReadAsync(t, ctx, c, ed)
		cancel() // the agent's turn ends: session/cancel
		ed.expectCancel(t)
		<-done
	})
	t.Run("http client aborts", func(t *testing.T) {
		ed, s := open(t, time.Minute)
		entry, err := s.HTTPEntry()
		if err != nil {
			t.Fatal(err)
		}
		c := httpClient(t, entry)
		ctx, cancel := context.WithCancel(t.Context())
		done := callReadAsync(t, ctx, c, ed)
		cancel()
		ed.expectCancel(t)
		<-done
	})
	t.Run("stdio tool call cancelled", func(t *testing.T) {
		ed, s := open(t, time.Minute)
		entry, err := s.StdioEntry()
		if err != nil {
			t.Fatal(err)
		}
		env := map[string]string{}
		for _, e := range entry.Env {
			env[e.Name] = e.Value
		}
		toRelay, clientOut := io.Pipe()
		clientIn, fromRelay := io.Pipe()
		relayed := make(chan error, 1)
		go func() {
			relayed <- bridge.Relay(context.Background(), toRelay, fromRelay, env[bridge.EnvRelaySocket], env[bridge.EnvRelaySecret])
			fromRelay.Close()
		}()
		c := client.NewClient(transport.NewIO(clientIn, clientOut, nil))
		initClient(t, c)
		ctx, cancel := context.WithCancel(t.Context())
		done := callReadAsync(t, ctx, c, ed)
		cancel() // the client sends notifications/cancelled through the relay
		ed.expectCancel(t)
		<-done
		clientOut.Close()
		if err := <-relayed; err != nil {
			t.Errorf("relay: %v", err)
		}
	})
}

// TestUnboundSessionFailsNamingBind: a tool call in a session that was
// never given its ACP session id fails within EditorTimeout, with an
// error that says how to give it, and the bridge logs it.
func TestUnboundSessionFailsNamingBind(t *testing.T) {
	ed, conn := newStuckEditor(t)
	var logs bytes.Buffer
	var logMu sync.Mutex
	b := bridge.NewBridge(conn, bridge.BridgeOptions{EditorTimeout: 200 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logs}, nil))})
	b.Initialize(json.RawMessage(sessiontest.FSCapabilities))
	dir, _ := filepath.EvalSymlinks(t.TempDir()) // removed after b.Close: Windows keeps open folders
	t.Cleanup(func() { b.Close() })
	s, err := b.OpenSession(bridge.SessionParams{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = s.Router().ReadTextFile(t.Context(), filepath.Join(dir, "main.go"), 0, 0)
	if err == nil || !strings.Contains(err.Error(), "Session.Bind") || !strings.Contains(err.Error(), "SessionParams.SessionID") {
		t.Fatalf("a read in a session without an id: %v, want an error naming Bind", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("it failed after %v, want about the EditorTimeout", d)
	}
	logMu.Lock()
	defer logMu.Unlock()
	if !strings.Contains(logs.String(), "Session.Bind") {
		t.Errorf("nothing logged:\n%s", logs.String())
	}
	ed.mu.Lock()
	defer ed.mu.Unlock()
	if len(ed.requested) != 0 {
		t.Errorf("the editor was asked: %v", ed.requested)
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

// TestAttachLater: a bridge made without a connection serves sessions at
// once; a tool call that needs the editor waits for Attach, and one that
// never comes fails within EditorTimeout naming Attach. A second Attach
// fails.
func TestAttachLater(t *testing.T) {
	ed, conn := newStuckEditor(t)
	b := bridge.NewBridge(nil, bridge.BridgeOptions{EditorTimeout: 200 * time.Millisecond})
	b.Initialize(json.RawMessage(sessiontest.FSCapabilities))
	dir, _ := filepath.EvalSymlinks(t.TempDir()) // removed after b.Close: Windows keeps open folders
	t.Cleanup(func() { b.Close() })
	s, err := b.OpenSession(bridge.SessionParams{Cwd: dir, SessionID: "sess_1"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Router().ReadTextFile(t.Context(), filepath.Join(dir, "main.go"), 0, 0)
	if err == nil || !strings.Contains(err.Error(), "Bridge.Attach") {
		t.Fatalf("a read before Attach: %v, want an error naming Attach", err)
	}
	if err := b.Attach(conn); err != nil {
		t.Fatal(err)
	}
	if err := b.Attach(conn); err == nil {
		t.Error("a second Attach succeeded")
	}
	s.Router().ReadTextFile(t.Context(), filepath.Join(dir, "main.go"), 0, 0)
	ed.mu.Lock()
	defer ed.mu.Unlock()
	if len(ed.requested) != 1 {
		t.Errorf("after Attach the editor got %v, want one request", ed.requested)
	}
}

// TestServerEntryNeedsInitializeAgent: without InitializeAgent,
// ServerEntry does not guess; the error names what to call.
func TestServerEntryNeedsInitializeAgent(t *testing.T) {
	_, conn := newStuckEditor(t)
	b := bridge.NewBridge(conn, bridge.BridgeOptions{})
	dir, _ := filepath.EvalSymlinks(t.TempDir()) // removed after b.Close: Windows keeps open folders
	t.Cleanup(func() { b.Close() })
	s, err := b.OpenSession(bridge.SessionParams{Cwd: dir, SessionID: "sess_1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ServerEntry(); err == nil || !strings.Contains(err.Error(), "InitializeAgent") {
		t.Fatalf("ServerEntry without InitializeAgent: %v", err)
	}
	b.InitializeAgent(json.RawMessage(`{"protocolVersion":1,"agentCapabilities":{"mcpCapabilities":{"http":true}}}`))
	if e, err := s.ServerEntry(); err != nil || e.Type != "http" {
		t.Fatalf("ServerEntry after InitializeAgent: %+v, %v", e, err)
	}
}

// TestMalformedCapabilitiesAreLogged: fs capabilities of the wrong type
// send every operation to disk, and the bridge says why.
func TestMalformedCapabilitiesAreLogged(t *testing.T) {
	var logs bytes.Buffer
	b := bridge.NewBridge(nil, bridge.BridgeOptions{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	defer b.Close()
	b.Initialize(json.RawMessage(`{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":"yes"}}}`))
	if !strings.Contains(logs.String(), "readTextFile") || !strings.Contains(logs.String(), "disk") {
		t.Errorf("log:\n%s\nwant a line naming readTextFile and the disk", logs.String())
	}
}
