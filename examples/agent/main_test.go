package main

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"go.uber.org/goleak"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
)

// TestDocsShowThisAgent: docs/embedding.md shows this file, as it is.
func TestDocsShowThisAgent(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "embedding.md"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	const open, close = "<!-- examples/agent/main.go -->\n```go\n", "```\n"
	_, block, ok := strings.Cut(strings.ReplaceAll(string(doc), "\r\n", "\n"), open)
	if ok {
		block, _, ok = strings.Cut(block, close)
	}
	if !ok {
		t.Fatalf("docs/embedding.md has no code block after %q", open)
	}
	if want := strings.ReplaceAll(string(src), "\r\n", "\n"); block != want {
		t.Errorf("the code block in docs/embedding.md differs from examples/agent/main.go: copy the file into it")
	}
}

// TestAgentAtOnce runs the agent in process against a fake editor whose
// initialize is on the wire before the agent starts (under -race, the
// construction order of bridge and connection must hold), reads an
// unsaved buffer through a session's tools, and checks that the agent
// leaves no goroutine behind once the editor hangs up.
func TestAgentAtOnce(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cwd, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(cwd, "notes.txt")
	os.WriteFile(notes, []byte("saved\n"), 0o644)
	ed := &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS()}
	ed.Buffers.Set(notes, "unsaved\n")
	var mu sync.Mutex
	var chunks []string
	handler := func(ctx context.Context, c *jsonrpc2.Conn, r *jsonrpc2.Request) (any, error) {
		if r.Method == "session/update" {
			var p struct {
				Update struct {
					Content struct{ Text string }
				}
			}
			json.Unmarshal(*r.Params, &p)
			mu.Lock()
			chunks = append(chunks, p.Update.Content.Text)
			mu.Unlock()
			return nil, nil
		}
		return ed.Handle(ctx, c, r)
	}
	editorEnd, agentEnd := net.Pipe()
	ctx := context.WithoutCancel(t.Context())
	editor := jsonrpc2.NewConn(ctx, bridge.NewObjectStream(editorEnd, nil), jsonrpc2.AsyncHandler(jsonrpc2.HandlerWithError(handler)))
	initialized := make(chan error, 1)
	go func() {
		initialized <- editor.Call(ctx, "initialize", map[string]any{
			"protocolVersion":    1,
			"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}},
		}, nil)
	}()
	ran := make(chan struct{})
	go func() {
		run(ctx, agentEnd, "in-process", time.Minute)
		close(ran)
	}()
	if err := <-initialized; err != nil {
		t.Fatal(err)
	}
	var s struct{ SessionID string }
	if err := editor.Call(ctx, "session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}}, &s); err != nil {
		t.Fatal(err)
	}
	script := `[{"name":"read_text_file","arguments":{"path":"notes.txt"}}]`
	var res struct{ StopReason string }
	if err := editor.Call(ctx, "session/prompt", map[string]any{"sessionId": s.SessionID, "prompt": []any{map[string]any{"type": "text", "text": script}}}, &res); err != nil || res.StopReason != "end_turn" {
		t.Fatalf("prompt: %+v, %v", res, err)
	}
	// The update was sent before the answer, but the handler runs
	// notifications on goroutines of their own.
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		n := len(chunks)
		mu.Unlock()
		if n > 0 {
			break
		}
	}
	mu.Lock()
	if len(chunks) != 1 || !strings.Contains(chunks[0], `"text":"unsaved\n`) {
		t.Errorf("the agent reported %q, want the unsaved buffer", chunks)
	}
	mu.Unlock()
	editor.Close()
	select {
	case <-ran:
	case <-time.After(10 * time.Second):
		t.Fatal("the agent did not end when the editor hung up")
	}
}
