package mcptransport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/internal/lift"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpserve"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcptest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

func TestPlainToolCall(t *testing.T) {
	for _, tc := range []struct {
		line, name, args string
		ok               bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"a"}}}`, "read_text_file", `{"path":"a"}`, true},
		{`{"params" : { "arguments" : {} , "name" : "x" } , "id":1}`, "x", `{}`, true},
		{`{"params":{"name":"r\u0065ad","arguments":{"path":"a"}}}`, "read", `{"path":"a"}`, true},
		{`{"params":{"name":"read","arguments":{"path":"a"},"_meta":{"progressToken":1}}}`, "", "", false},
		{`{"params":{"_meta":{},"name":"read","arguments":{}}}`, "", "", false},
		{`{"params":{"name":"read","arguments":{},"task":{"ttl":1}}}`, "", "", false},
		{`{"params":{"name":"read","arguments":{},"inputResponses":{}}}`, "", "", false},
		{`{"params":{"name":"read","name":"write","arguments":{}}}`, "", "", false},
		{`{"params":{"name":"read","arguments":{},"arguments":{"path":"b"}}}`, "", "", false},
		{`{"params":{"name":"read"}}`, "", "", false},
		{`{"params":{"arguments":{}}}`, "", "", false},
		{`{"params":{"name":"read","arguments":null}}`, "", "", false},
		{`{"params":{"name":"read","arguments":["a"]}}`, "", "", false},
		{`{"params":{"name":7,"arguments":{}}}`, "", "", false},
		{`{"params":[]}`, "", "", false},
		{`{"id":1,"method":"tools/call"}`, "", "", false},
		{`{"params":{"name":"read","arguments":{}},"Params":{"name":"write","arguments":{}}}`, "", "", false},
		{`{"params":{"name":"read","arguments":{}},"params":{"name":"write","arguments":{}}}`, "", "", false},
		{`{"params":{"name":"read","arguments":{}},"extra":1}`, "", "", false},
		{`{"params":{"Name":"read","arguments":{}}}`, "", "", false},
	} {
		name, args, ok := plainToolCall([]byte(tc.line))
		if name != tc.name || string(args) != tc.args || ok != tc.ok {
			t.Errorf("plainToolCall(%s) = %q, %s, %v; want %q, %s, %v", tc.line, name, args, ok, tc.name, tc.args, tc.ok)
		}
	}
}

// callBothWays answers the tools/call request line once through
// conn.callTool and once through mcp-go's HandleMessage, as handle would,
// and returns both response lines, lifted texts spliced in.
func callBothWays(t *testing.T, c *conn, ctx context.Context, line string) (direct, viaMCPGo []byte, served bool) {
	t.Helper()
	lifted := func() (context.Context, *lift.Table, []byte) {
		lt := lift.NewTable(c.sess.liftPrefix)
		raw, err := lt.LiftArguments([]byte(line), nil, c.lifted) // takes the copy as its own
		if err != nil {
			t.Fatal(err)
		}
		return lift.WithTable(ctx, lt), lt, raw
	}
	join := func(lt *lift.Table, resp []byte) []byte {
		pieces, err := lt.SpliceResults(resp)
		if err != nil {
			t.Fatal(err)
		}
		return bytes.Join(pieces, nil)
	}
	id := json.RawMessage(`"call-1"`)
	cctx, lt, raw := lifted()
	resp, served := c.callTool(cctx, id, raw)
	if served {
		direct = join(lt, resp)
	}
	cctx, lt, raw = lifted()
	msg := c.srv.HandleMessage(cctx, raw)
	resp, err := mcpserve.EncodeMessage(msg)
	if err != nil {
		t.Fatal(err)
	}
	return direct, join(lt, resp), served
}

// A plain call served past mcp-go gets the response mcp-go gives the same
// call, value for value; a call that is not plain or not valid is left to
// mcp-go.
func TestToolCallAnswersAsHandleMessage(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("a line of text, long enough to be lifted past mcp-go\n", 200)
	srv := diskServer(t, dir, false, map[string]string{
		"small.txt":       "one\ntwo\nthree\n",
		"big.txt":         big,
		"binary.bin":      "\x00\x01\x02",
		"tree/a.go":       "package a // needle\n",
		"tree/b/c.go":     "package c\n",
		"tree/b/note.txt": "no match here\n",
	})
	c := testConn(srv)
	ctx := srv.WithContext(t.Context(), c.sess)

	call := func(tool string, args any) string {
		line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "call-1", "method": "tools/call",
			"params": map[string]any{"name": tool, "arguments": args}})
		if err != nil {
			t.Fatal(err)
		}
		return string(line)
	}
	p := func(name string) string { return filepath.Join(dir, name) }
	plain := []string{
		call(mcpfs.ReadTextFile, map[string]any{"path": p("small.txt")}),
		call(mcpfs.ReadTextFile, map[string]any{"path": "small.txt", "line": 2, "limit": 1}),
		call(mcpfs.ReadTextFile, map[string]any{"path": p("big.txt")}), // a lifted result
		call(mcpfs.ReadTextFile, map[string]any{"path": p("small.txt"), "line": 9}),
		call(mcpfs.ReadTextFile, map[string]any{"path": p("missing.txt")}),
		call(mcpfs.ReadTextFile, map[string]any{"path": p("binary.bin")}),
		call(mcpfs.ReadTextFile, map[string]any{"path": "/etc/passwd"}),
		call(mcpfs.WriteTextFile, map[string]any{"path": p("written.txt"), "content": big}), // a lifted argument
		call(mcpfs.WriteTextFile, map[string]any{"path": p("written.txt"), "content": big, "expectedHash": "0000"}),
		call(mcpfs.ListDirectory, map[string]any{"path": p("tree")}),
		call(mcpfs.GetFileInfo, map[string]any{"path": p("small.txt")}),
		call(mcpfs.Glob, map[string]any{"path": dir, "pattern": "**/*.go"}),
		call(mcpfs.Grep, map[string]any{"path": p("tree"), "pattern": "needle"}),
		call(mcpfs.DirectoryTree, map[string]any{"path": p("tree")}),
	}
	notPlain := []string{
		call(mcpfs.ReadTextFile, map[string]any{"path": p("small.txt"), "extra": true}), // invalid: mcp-go's message, rewritten
		call(mcpfs.ReadTextFile, map[string]any{}),
		call(mcpfs.ReadTextFile, map[string]any{"path": 7}),
		call(mcpfs.ReadTextFile, map[string]any{"path": p("small.txt"), "line": -1}),
		call("no_such_tool", map[string]any{}),
		`{"jsonrpc":"2.0","id":"call-1","method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"small.txt"},"_meta":{"progressToken":"p"}}}`,
	}
	for i, line := range append(plain, notPlain...) {
		direct, viaMCPGo, served := callBothWays(t, c, ctx, line)
		if want := i < len(plain); served != want {
			t.Errorf("%.150s: served past mcp-go %v, want %v", line, served, want)
			continue
		}
		if served {
			mcptest.WantSameJSON(t, line, direct, viaMCPGo)
		}
	}
}

// testConn returns a connection to srv, a server of mcpfs's, that lifts
// arguments and serves plain calls, and is not served.
func testConn(srv *server.MCPServer) *conn {
	opts := mcpfs.TransportOptions(mcpfs.Files{}, nil)
	return &conn{srv: srv, calls: &toolCalls{}, lifted: opts.Lift, log: slog.New(slog.DiscardHandler), sess: newStreamSession()}
}

// diskServer writes files (by slash-separated path) under dir and returns a
// server of mcpfs.NewServer's on a Disk rooted at dir.
func diskServer(tb testing.TB, dir string, readOnly bool, files map[string]string) *server.MCPServer {
	tb.Helper()
	ostest.WriteFiles(tb, dir, files)
	d, err := fsruntime.OpenDisk([]string{dir}, fsruntime.DiskOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { d.Close() })
	srv, err := mcpfs.NewServer(mcpfs.DiskFiles(d, readOnly), mcpfs.Options{Tools: structuredTools})
	if err != nil {
		tb.Fatal(err)
	}
	return srv
}

// panicFS panics on every read.
type panicFS struct{ mcptest.NopFS }

func (panicFS) ReadTextFile(context.Context, string, int, int) (string, error) {
	panic("the disk is on fire")
}

// A panicking handler is answered as mcp-go's recovery answers it.
func TestToolCallRecoversAsMCPGo(t *testing.T) {
	srv, err := mcpfs.NewServer(mcpfs.Files{WorkDir: ostest.HostPath("/w"), FS: panicFS{}}, mcpfs.Options{Tools: structuredTools})
	if err != nil {
		t.Fatal(err)
	}
	c := testConn(srv)
	direct, viaMCPGo, served := callBothWays(t, c, srv.WithContext(t.Context(), c.sess),
		`{"jsonrpc":"2.0","id":"call-1","method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"a.txt"}}}`)
	if !served {
		t.Fatal("the plain call was not served past mcp-go")
	}
	if !bytes.Contains(direct, []byte("the disk is on fire")) || !bytes.Equal(direct, viaMCPGo) {
		t.Errorf("past mcp-go: %s\nmcp-go:      %s", direct, viaMCPGo)
	}
}

// notifications/cancelled cancels a plain call in flight, which mcp-go,
// not serving it, could not: the handler sees its context end and the
// call is answered.
func TestServeConnCancelsPlainToolCall(t *testing.T) {
	fsys := blockingFS{started: make(chan struct{}, 1), cancelled: make(chan error, 1)}
	files := mcpfs.Files{WorkDir: ostest.HostPath("/w"), FS: fsys}
	srv, err := mcpfs.NewServer(files, mcpfs.Options{Tools: structuredTools})
	if err != nil {
		t.Fatal(err)
	}
	var logs mcptest.SyncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	in, toServer := io.Pipe()
	fromServer, out := io.Pipe()
	done := make(chan error, 1)
	calls := &toolCalls{}
	go func() {
		done <- serveConn(context.Background(), srv, in, out, connOptions{Options: mcpfs.TransportOptions(files, logger), calls: calls})
		out.Close()
	}()
	responses := make(chan string, 4)
	go func() {
		lines := bufioLines(fromServer)
		for l := range lines {
			responses <- l
		}
		close(responses)
	}()
	send := func(line string) {
		if _, err := io.WriteString(toServer, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	<-responses
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"a.txt"}}}`)
	guard := time.After(10 * time.Second) // a hang guard, not a timing
	select {
	case <-fsys.started:
	case <-guard:
		t.Fatal("the call never started")
	}
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow","reason":"the user gave up"}}`)
	select {
	case err := <-fsys.cancelled:
		if err != context.Canceled {
			t.Errorf("the handler's context ended with %v, want context.Canceled", err)
		}
	case <-guard:
		t.Fatal("notifications/cancelled did not reach the call")
	}
	select {
	case resp := <-responses:
		if !strings.HasPrefix(resp, `{"jsonrpc":"2.0","id":"slow",`) {
			t.Errorf("response %s, want the answer to the cancelled call", resp)
		}
	case <-guard:
		t.Fatal("the cancelled call was not answered")
	}
	toServer.Close()
	if err := <-done; err != nil {
		t.Errorf("serveConn: %v", err)
	}
	// Only a call served past mcp-go compiles the tool's schema here.
	calls.mu.RLock()
	_, served := calls.schemas[mcpfs.ReadTextFile]
	calls.mu.RUnlock()
	if !served {
		t.Error("the call was not served past mcp-go")
	}
	for _, want := range []string{"msg=mcp.tool mcp.tool.name=read_text_file", "msg=mcp.request mcp.method=tools/call"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log lacks %q, as mcp-go logs it:\n%s", want, logs.String())
		}
	}
}

// bufioLines sends the lines read from r, without their newlines, until r
// ends.
func bufioLines(r io.Reader) <-chan string {
	lines := make(chan string)
	go func() {
		defer close(lines)
		br := bufio.NewReader(r)
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				return
			}
			lines <- strings.TrimSuffix(l, "\n")
		}
	}()
	return lines
}

// A tool added to mcpfs.NewServer's server by its embedder, whose handler reads
// its arguments decoded (GetArguments, GetFloat) rather than binding them,
// sees them as mcp-go gives them, numbers as float64s, on either path.
func TestToolCallArgumentsAsMCPGo(t *testing.T) {
	srv := diskServer(t, t.TempDir(), false, nil)
	schema := `{"type":"object","properties":{"n":{"type":"number"},"list":{"type":"array","items":{"type":"integer"}},"s":{"type":"string"}},"required":["n"]}`
	srv.AddTool(mcp.NewToolWithRawSchema("embedded", "reads its arguments decoded", json.RawMessage(schema)),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			args := req.GetArguments()
			return mcp.NewToolResultText(fmt.Sprintf("%T %v / %T %v / %v / %q",
				args["n"], args["n"], args["list"], args["list"], req.GetFloat("n", -1), req.GetString("s", "none"))), nil
		})
	c := testConn(srv)
	ctx := srv.WithContext(t.Context(), c.sess)
	for _, args := range []string{
		`{"n":7}`,
		`{"n":2.5,"list":[1,2,3],"s":"x"}`,
		`{"n":1e3,"list":[]}`,
		`{"n":-0.000001}`,
	} {
		line := `{"jsonrpc":"2.0","id":"call-1","method":"tools/call","params":{"name":"embedded","arguments":` + args + `}}`
		direct, viaMCPGo, served := callBothWays(t, c, ctx, line)
		if !served {
			t.Errorf("%s: not served past mcp-go", args)
			continue
		}
		mcptest.WantSameJSON(t, line, direct, viaMCPGo)
		if !bytes.Contains(direct, []byte(`float64`)) {
			t.Errorf("%s: %s", args, direct)
		}
	}
}
