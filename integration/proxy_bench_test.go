package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/testagent"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
)

// leanEditor is the editor's end of the proxy for benchmarks: it answers
// fs/read_text_file from a map and does as little else as it can, so that
// what is measured is the proxy.
type leanEditor struct {
	out     io.Writer
	buffers map[string]string
	notes   func(wire.Message) // called on the read loop

	mu      sync.Mutex
	nextID  int
	pending map[string]chan wire.Message
}

func newLeanEditor(in io.Reader, out io.Writer, buffers map[string]string, notes func(wire.Message)) *leanEditor {
	e := &leanEditor{out: out, buffers: buffers, notes: notes, pending: map[string]chan wire.Message{}}
	go e.run(wire.NewReader(in, wire.ReaderOptions{}))
	return e
}

func (e *leanEditor) write(line []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.out.Write(append(line, '\n'))
}

func (e *leanEditor) run(r *wire.Reader) {
	for {
		m, err := r.Next()
		if err != nil {
			return
		}
		switch m.Kind() {
		case wire.KindNotification:
			e.notes(m)
		case wire.KindResponse:
			e.mu.Lock()
			c := e.pending[string(m.ID)]
			delete(e.pending, string(m.ID))
			e.mu.Unlock()
			if c != nil {
				c <- m
			}
		case wire.KindRequest:
			var p struct{ Path string }
			json.Unmarshal(m.Params, &p)
			content, ok := e.buffers[p.Path]
			if m.Method != "fs/read_text_file" || !ok {
				e.write(wire.ErrorResponse(m.ID, wire.CodeResourceNotFound, "Resource not found", nil))
				continue
			}
			res, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]string{"content": content}})
			e.write(res)
		}
	}
}

func (e *leanEditor) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	e.mu.Lock()
	id := strconv.Itoa(e.nextID)
	e.nextID++
	c := make(chan wire.Message, 1)
	e.pending[id] = c
	e.mu.Unlock()
	line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": e.nextID - 1, "method": method, "params": params})
	e.write(line)
	select {
	case m := <-c:
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, m.Error)
		}
		return json.RawMessage(m.Result), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// benchProxy runs the proxy in front of the test agent (http mode) with a
// lean editor, which advertises fs methods if editorFS, and opens a session
// whose cwd holds main.go, on disk and, with other content, in the editor.
// It returns the editor, the session id and the session's MCP entry.
func benchProxy(b *testing.B, editorFS bool, notes func(wire.Message)) (*leanEditor, string, mcpEntry) {
	b.Helper()
	cwd, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	os.WriteFile(filepath.Join(cwd, "main.go"), []byte("package main // disk\n"), 0o644)

	cmd := exec.Command(binPath, "proxy", "--log-level", "error", "--", testAgentPath, "-http")
	cmd.Env = childEnv()
	cmd.Stderr = io.Discard
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	var entry mcpEntry
	gotEntry := make(chan struct{})
	var once sync.Once
	ed := newLeanEditor(stdout, stdin, map[string]string{filepath.Join(cwd, "main.go"): "package main // buffer\n"},
		func(m wire.Message) {
			if bytes.Contains(m.Params, []byte(`\"mcpServers\"`)) {
				var p struct {
					Update struct {
						Content struct{ Text string }
					}
				}
				json.Unmarshal(m.Params, &p)
				var rep testagent.Report
				json.Unmarshal([]byte(p.Update.Content.Text), &rep)
				for _, raw := range rep.MCPServers {
					var e mcpEntry
					if json.Unmarshal(raw, &e) == nil && e.Name == "acpfs" {
						once.Do(func() { entry = e; close(gotEntry) })
					}
				}
			}
			if notes != nil {
				notes(m)
			}
		})
	ctx, cancel := context.WithTimeout(b.Context(), 30*time.Second)
	defer cancel()
	fsCaps := map[string]bool{"readTextFile": editorFS, "writeTextFile": editorFS}
	if _, err := ed.call(ctx, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{"fs": fsCaps}}); err != nil {
		b.Fatal(err)
	}
	res, err := ed.call(ctx, "session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}})
	if err != nil {
		b.Fatal(err)
	}
	var sess struct{ SessionID string }
	json.Unmarshal(res, &sess)
	select {
	case <-gotEntry:
	case <-ctx.Done():
		b.Fatal("the agent reported no acpfs entry")
	}
	return ed, sess.SessionID, entry
}

// BenchmarkProxyRead measures a read_text_file call end to end: an MCP
// client → the proxy's session endpoint → the editor over ACP ("editor")
// or the disk ("disk") → back. The difference of the two p50s is what the
// editor route adds.
func BenchmarkProxyRead(b *testing.B) {
	for _, route := range []struct {
		name     string
		editorFS bool
		want     string
	}{{"disk", false, "package main // disk\n"}, {"editor", true, "package main // buffer\n"}} {
		b.Run(route.name, func(b *testing.B) {
			_, _, entry := benchProxy(b, route.editorFS, nil)
			c, err := client.NewStreamableHttpClient(entry.URL, transport.WithHTTPHeaders(map[string]string{
				"Authorization": entry.value(entry.Headers, "Authorization"),
			}))
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			c.Start(b.Context())
			init := mcp.InitializeRequest{}
			init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
			if _, err := c.Initialize(b.Context(), init); err != nil {
				b.Fatal(err)
			}
			req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"path": "main.go"}}}
			var lat []time.Duration
			for b.Loop() {
				start := time.Now()
				res, err := c.CallTool(b.Context(), req)
				lat = append(lat, time.Since(start))
				if err != nil || res.IsError || res.Content[0].(mcp.TextContent).Text != route.want {
					b.Fatalf("read = %+v, %v", res, err)
				}
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}

// BenchmarkProxyNotifications measures how many session/update
// notifications per second the proxy passes from the agent to the editor:
// the agent writes bursts of numbered updates, and the editor checks that
// each arrives once and in order.
func BenchmarkProxyNotifications(b *testing.B) {
	const burst = 50000
	var (
		mu   sync.Mutex
		next = 1
		bad  error
		last = make(chan struct{}, 1)
	)
	marker := []byte(`\"kind\":\"flood\"`)
	numAt := []byte(`\"n\":`)
	ed, id, _ := benchProxy(b, true, func(m wire.Message) {
		if !bytes.Contains(m.Params, marker) {
			return
		}
		i := bytes.Index(m.Params, numAt) + len(numAt)
		j := i
		for j < len(m.Params) && m.Params[j] >= '0' && m.Params[j] <= '9' {
			j++
		}
		n, _ := strconv.Atoi(string(m.Params[i:j]))
		mu.Lock()
		defer mu.Unlock()
		if n != next && bad == nil {
			bad = fmt.Errorf("update %d arrived where %d was due", n, next)
		}
		next++
		if n == burst {
			next = 1
			last <- struct{}{}
		}
	})
	script, _ := json.Marshal([]testagent.Step{{Burst: burst}})
	prompt := map[string]any{"sessionId": id, "prompt": []any{map[string]any{"type": "text", "text": string(script)}}}
	start := time.Now()
	for b.Loop() {
		if _, err := ed.call(b.Context(), "session/prompt", prompt); err != nil {
			b.Fatal(err)
		}
		// The prompt's answer follows its updates, so they are all in.
		select {
		case <-last:
		default:
			b.Fatal("the prompt was answered before its last update arrived")
		}
	}
	elapsed := time.Since(start)
	mu.Lock()
	defer mu.Unlock()
	if bad != nil {
		b.Fatal(bad)
	}
	b.ReportMetric(float64(burst*b.N)/elapsed.Seconds(), "notifications/s")
}
