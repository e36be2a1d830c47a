package mcptransport_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpfstest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcptest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
	"github.com/mcp-acpfs/mcp-acpfs/mcptransport"
)

func TestStdio(t *testing.T) {
	for _, era := range mcpfstest.Eras {
		for _, sv := range mcpfstest.Servings {
			t.Run(era.Name+"/"+sv.Name, func(t *testing.T) {
				f := mcpfstest.NewFixture(t, false)
				f.WriteFile(t, "a.txt", "a\r\nb\n")
				toServer, fromServer, listened := mcpfstest.ServeStdio(t, f.Srv, sv.Transport(t, f))

				c := client.NewClient(transport.NewIO(fromServer, toServer, nil))
				mcptest.Initialize(t, c, era.Version)
				if got := c.ProtocolVersion(); got != era.Version {
					t.Fatalf("protocol version %q, want %q", got, era.Version)
				}
				tools, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
				if err != nil || len(tools.Tools) < 2 {
					t.Fatalf("tools/list: %v, %v", tools, err)
				}
				if got := mcpfstest.WantOK(t, mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": "a.txt", "line": 2})); got != "b\n" {
					t.Errorf("read %q", got)
				}
				mcpfstest.WantOK(t, mcpfstest.Call(t, c, mcpfs.WriteTextFile, map[string]any{"path": "new/b.txt", "content": "x"}))
				mcpfstest.WantError(t, mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": "missing.txt"}), f.Path("missing.txt"))
				mcpfstest.WantError(t, mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": "a.txt", "line": -1}), "line must be at least 0")

				// The end of input ends the server, without an error.
				c.Close()
				if err := <-listened; err != nil {
					t.Errorf("ServeStdio: %v", err)
				}
			})
		}
	}
}

// The bytes on stdout are JSON-RPC messages, one a line, and nothing else.
func TestStdioWritesOnlyProtocol(t *testing.T) {
	f := mcpfstest.NewFixture(t, false)
	f.WriteFile(t, "a.txt", "a\n")
	toServer, fromServer, listened := mcpfstest.ServeStdio(t, f.Srv, f.Transport(t))
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
	if results[3]["isError"] != true || !strings.Contains(string(must(json.Marshal(results[3]))), jsonText(f.Path("nope"))) {
		t.Errorf("missing file result %v", results[3])
	}
	toServer.Close()
	if err := <-listened; err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
}

// jsonText returns s as it is written in a JSON string, without the
// quotes: a \ in a path (Windows) is doubled.
func jsonText(s string) string {
	q := must(json.Marshal(s))
	return string(q[1 : len(q)-1])
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
	work, b := ostest.HostPath("/w"), ostest.HostPath("/b.txt")
	files := mcpfs.Files{WorkDir: work, FS: fsys}
	srv, err := mcpfs.NewServer(files, mcpfs.Options{Tools: mcpfstest.Structured})
	if err != nil {
		t.Fatal(err)
	}
	in := &eofReader{r: strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"two","method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"a.txt"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"` + jsonText(b) + `"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"c.txt"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}`,
	}, "\n") + "\n"), eof: make(chan struct{})}
	var out mcptest.SyncBuffer
	done := make(chan error, 1)
	go func() {
		done <- mcptransport.ServeStdio(t.Context(), srv, in, &out, mcpfs.TransportOptions(files, nil))
	}()
	<-in.eof
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("ServeStdio: %v", err)
	}
	got := out.String()
	for _, want := range []string{
		`"id":1,"result"`,
		`"id":"two","result":{"content":[{"type":"text","text":"content of ` + jsonText(filepath.Join(work, "a.txt")) + `"}]`,
		`"id":3,"result":{"content":[{"type":"text","text":"content of ` + jsonText(b) + `"}]`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %s:\n%s", want, got)
		}
	}
}
