package bridge_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
)

// serveStdio runs ServeStdio over pipes and returns the client's ends. The
// server's end of stdout is closed when ServeStdio returns, and its error is
// sent on served. mcp-go's stdio session is a package-level singleton: run
// one at a time.
func serveStdio(t *testing.T, srv *server.MCPServer) (toServer io.WriteCloser, fromServer io.ReadCloser, served <-chan error) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	logger := slog.New(slog.NewTextHandler(t.Output(), nil))
	errc := make(chan error, 1)
	go func() {
		err := bridge.ServeStdio(t.Context(), srv, inR, outW, logger)
		outW.Close()
		errc <- err
	}()
	t.Cleanup(func() { inW.Close() })
	return inW, outR, errc
}

func TestStdio(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			f := newFixture(t, false)
			f.writeFile(t, "a.txt", "a\r\nb\n")
			toServer, fromServer, listened := serveStdio(t, f.srv)

			c := client.NewClient(transport.NewIO(fromServer, toServer, nil))
			if err := c.Start(t.Context()); err != nil {
				t.Fatal(err)
			}
			var req mcp.InitializeRequest
			req.Params.ProtocolVersion = era.version
			if _, err := c.Initialize(t.Context(), req); err != nil {
				t.Fatal(err)
			}
			if got := c.ProtocolVersion(); got != era.version {
				t.Fatalf("protocol version %q, want %q", got, era.version)
			}
			tools, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
			if err != nil || len(tools.Tools) < 2 {
				t.Fatalf("tools/list: %v, %v", tools, err)
			}
			if got := wantOK(t, call(t, c, bridge.ReadTextFile, map[string]any{"path": "a.txt", "line": 2})); got != "b\n" {
				t.Errorf("read %q", got)
			}
			wantOK(t, call(t, c, bridge.WriteTextFile, map[string]any{"path": "new/b.txt", "content": "x"}))
			wantError(t, call(t, c, bridge.ReadTextFile, map[string]any{"path": "missing.txt"}), f.path("missing.txt"))
			wantError(t, call(t, c, bridge.ReadTextFile, map[string]any{"path": "a.txt", "line": -1}), "line must be at least 0")

			// The end of input ends the server, without an error.
			c.Close()
			if err := <-listened; err != nil {
				t.Errorf("ServeStdio: %v", err)
			}
		})
	}
}

// Roots over stdio: the server asks for them after the handshake, which
// must not deadlock mcp-go's read loop.
func TestStdioRoots(t *testing.T) {
	f := newRootsFixture(t, 0, ".")
	toServer, fromServer, listened := serveStdio(t, f.srv)
	roots := &clientRoots{}
	roots.set(fileURI(f.path("a")))
	c := client.NewClient(transport.NewIO(fromServer, toServer, nil), client.WithRootsHandler(roots))
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	var req mcp.InitializeRequest
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	if _, err := c.Initialize(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if !canRead(t, c, f.path("a/in.txt")) || canRead(t, c, f.path("b/other.txt")) {
		t.Error("not narrowed to the client's root")
	}
	roots.set(fileURI(f.path("b")))
	if err := c.RootListChanges(t.Context()); err != nil {
		t.Fatal(err)
	}
	// mcp-go's stdio transport handles a notification on its read loop
	// before it reads the next message, so this call waits for the fetch.
	if canRead(t, c, f.path("a/in.txt")) {
		t.Error("after roots/list_changed: the old root is still readable")
	}
	if !canRead(t, c, f.path("b/other.txt")) {
		t.Error("after roots/list_changed: the new root is refused")
	}
	c.Close()
	if err := <-listened; err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
}

// The bytes on stdout are JSON-RPC messages, one a line, and nothing else.
func TestStdioWritesOnlyProtocol(t *testing.T) {
	f := newFixture(t, false)
	f.writeFile(t, "a.txt", "a\n")
	toServer, fromServer, listened := serveStdio(t, f.srv)
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"a.txt"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"nope"}}}`,
	}
	go func() {
		for _, l := range lines {
			io.WriteString(toServer, l+"\n")
		}
	}()
	results := map[float64]map[string]any{}
	sc := bufio.NewScanner(fromServer)
	for len(results) < 3 && sc.Scan() {
		var msg struct {
			ID     float64        `json:"id"`
			Result map[string]any `json:"result"`
			Error  any            `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
			t.Fatalf("stdout line %q: %v", sc.Bytes(), err)
		}
		if msg.Error != nil {
			t.Errorf("message %v: error %v", msg.ID, msg.Error)
		}
		results[msg.ID] = msg.Result
	}
	if got, _ := json.Marshal(results[2]["content"]); string(got) != `[{"text":"a\n","type":"text"}]` {
		t.Errorf("read result content %s", got)
	}
	if results[3]["isError"] != true || !strings.Contains(string(must(json.Marshal(results[3]))), f.path("nope")) {
		t.Errorf("missing file result %v", results[3])
	}
	toServer.Close()
	if err := <-listened; err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// funcFS is an FS made of funcs.
type funcFS struct {
	read  func(ctx context.Context, path string, line, limit int) (string, error)
	write func(ctx context.Context, path, content string) error
}

func (f funcFS) ReadTextFile(ctx context.Context, path string, line, limit int) (string, error) {
	return f.read(ctx, path, line, limit)
}

func (f funcFS) WriteTextFile(ctx context.Context, path, content string) error {
	return f.write(ctx, path, content)
}

// eofReader closes eof when r has returned io.EOF.
type eofReader struct {
	r    io.Reader
	once sync.Once
	eof  chan struct{}
}

func (r *eofReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err == io.EOF {
		r.once.Do(func() { close(r.eof) })
	}
	return n, err
}

// A client may write its requests and close its end at once: ServeStdio
// answers them all before it returns.
func TestServeStdioAnswersBeforeInputEnds(t *testing.T) {
	release := make(chan struct{})
	fsys := funcFS{read: func(ctx context.Context, path string, _, _ int) (string, error) {
		select {
		case <-release:
			return "content of " + path, nil
		case <-ctx.Done():
			return "", &fs.PathError{Op: "read", Path: path, Err: ctx.Err()}
		}
	}}
	srv, err := bridge.NewServer(bridge.Files{WorkDir: "/w", FS: fsys}, bridge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := &eofReader{r: strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"two","method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"a.txt"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/b.txt"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"c.txt"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}`,
	}, "\n") + "\n"), eof: make(chan struct{})}
	var out syncBuffer
	done := make(chan error, 1)
	go func() { done <- bridge.ServeStdio(t.Context(), srv, in, &out, nil) }()
	<-in.eof
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("ServeStdio: %v", err)
	}
	got := out.String()
	for _, want := range []string{`"id":1,"result"`, `"id":"two","result":{"content":[{"type":"text","text":"content of /w/a.txt"}]`, `"id":3,"result":{"content":[{"type":"text","text":"content of /b.txt"}]`} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %s:\n%s", want, got)
		}
	}
}
