package bridge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
)

// eras are the two protocol eras mcp-go speaks: the initialize handshake,
// and the stateless core of 2026-07-28 (server/discover).
var eras = []struct {
	name    string
	version string
}{
	{"legacy", mcp.LATEST_LEGACY_PROTOCOL_VERSION},
	{"stateless", mcp.LATEST_PROTOCOL_VERSION},
}

// testMaxFileSize is the size limit of the test servers, small enough to
// write a file over it.
const testMaxFileSize = 1 << 10

// fixture is a server on a Disk confined to a temporary directory.
type fixture struct {
	dir  string // the root, also the working directory
	disk *fsruntime.Disk
	srv  *server.MCPServer
	logs *syncBuffer
}

// newFixture returns a fixture whose roots are roots, relative to its
// directory (created), or the directory itself.
func newFixture(t *testing.T, readOnly bool, roots ...string) *fixture {
	t.Helper()
	dir := t.TempDir()
	// The temporary directory may be reached through a symlink (macOS);
	// the tests compare paths, so use its real path.
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	abs := []string{dir}
	if len(roots) > 0 {
		abs = abs[:0]
		for _, r := range roots {
			p := filepath.Join(dir, r)
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			abs = append(abs, p)
		}
	}
	disk, err := fsruntime.OpenDisk(abs, fsruntime.DiskOptions{MaxFileSize: testMaxFileSize})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { disk.Close() })
	logs := &syncBuffer{}
	srv, err := bridge.NewServer(bridge.DiskFiles(disk, readOnly), bridge.Options{
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{dir: dir, disk: disk, srv: srv, logs: logs}
}

// path returns the absolute path of rel in the fixture's directory.
func (f *fixture) path(rel string) string { return filepath.Join(f.dir, filepath.FromSlash(rel)) }

// writeFile creates rel with content, and any parent directories.
func (f *fixture) writeFile(t *testing.T, rel, content string) {
	t.Helper()
	p := f.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// connect returns an initialized in-process client of srv speaking version.
func connect(t *testing.T, srv *server.MCPServer, version string, opts ...client.ClientOption) *client.Client {
	t.Helper()
	c, err := client.NewInProcessClientWithOptions(srv, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx := t.Context()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var req mcp.InitializeRequest
	req.Params.ProtocolVersion = version
	req.Params.ClientInfo = mcp.Implementation{Name: "bridge-test", Version: "0"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize at %s: %v", version, err)
	}
	if got := c.ProtocolVersion(); got != version {
		t.Fatalf("negotiated protocol version %q, want %q", got, version)
	}
	return c
}

// call calls a tool and fails the test on a protocol error: file failures
// must come back as results.
func call(t *testing.T, c *client.Client, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(t.Context(), req)
	if err != nil {
		t.Fatalf("%s %v: protocol error %v, want a tool result", name, args, err)
	}
	return res
}

// text returns the one text content of res.
func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("result has %d contents, want 1: %+v", len(res.Content), res.Content)
	}
	tc, ok := mcp.AsTextContent(res.Content[0])
	if !ok {
		t.Fatalf("result content is %T, want text", res.Content[0])
	}
	return tc.Text
}

// wantOK checks that res succeeded and returns its text.
func wantOK(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	s := text(t, res)
	if res.IsError {
		t.Fatalf("tool failed: %s", s)
	}
	return s
}

// wantError checks that res failed with a text containing every one of
// parts.
func wantError(t *testing.T, res *mcp.CallToolResult, parts ...string) string {
	t.Helper()
	s := text(t, res)
	if !res.IsError {
		t.Fatalf("tool succeeded with %q, want an error", s)
	}
	for _, p := range parts {
		if !strings.Contains(s, p) {
			t.Errorf("error %q does not contain %q", s, p)
		}
	}
	return s
}

// syncBuffer is a bytes.Buffer safe for concurrent use, for logs.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func TestNewServerRejectsBadSession(t *testing.T) {
	f := newFixture(t, false)
	if _, err := bridge.NewServer(bridge.Files{WorkDir: f.dir}, bridge.Options{}); err == nil {
		t.Error("NewServer with a nil FS: no error")
	}
	if _, err := bridge.NewServer(bridge.Files{WorkDir: "rel", FS: f.disk}, bridge.Options{}); err == nil {
		t.Error("NewServer with a relative WorkDir: no error")
	}
}

func TestListTools(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			f := newFixture(t, false)
			c := connect(t, f.srv, era.version)
			res, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
			if err != nil {
				t.Fatal(err)
			}
			tools := map[string]mcp.Tool{}
			for _, tool := range res.Tools {
				tools[tool.Name] = tool
			}
			if tools[bridge.ReadTextFile].Name == "" || tools[bridge.WriteTextFile].Name == "" {
				t.Fatalf("tools: %v, want read_text_file and write_text_file among them", res.Tools)
			}
			type hints struct{ readOnly, destructive, idempotent, openWorld bool }
			for name, want := range map[string]struct {
				hints    hints
				required []string
				props    map[string]string // name → type
			}{
				bridge.ReadTextFile: {
					hints{readOnly: true, destructive: false, idempotent: true, openWorld: false},
					[]string{"path"},
					map[string]string{"path": "string", "line": "integer", "limit": "integer"},
				},
				bridge.WriteTextFile: {
					hints{readOnly: false, destructive: true, idempotent: true, openWorld: false},
					[]string{"path", "content"},
					map[string]string{"path": "string", "content": "string", "expectedHash": "string"},
				},
			} {
				tool, ok := tools[name]
				if !ok {
					t.Errorf("no tool %s", name)
					continue
				}
				if tool.Title == "" || tool.Annotations.Title == "" {
					t.Errorf("%s: no title", name)
				}
				for _, phrase := range []string{"relative to the working directory", f.dir, "allowed roots", "1.0 KiB"} {
					if !strings.Contains(tool.Description, phrase) {
						t.Errorf("%s: description does not mention %q:\n%s", name, phrase, tool.Description)
					}
				}
				a := tool.Annotations
				if a.ReadOnlyHint == nil || a.DestructiveHint == nil || a.IdempotentHint == nil || a.OpenWorldHint == nil {
					t.Fatalf("%s: annotations not all set: %+v", name, a)
				}
				got := hints{*a.ReadOnlyHint, *a.DestructiveHint, *a.IdempotentHint, *a.OpenWorldHint}
				if got != want.hints {
					t.Errorf("%s: hints %+v, want %+v", name, got, want.hints)
				}

				var schema struct {
					Type                 string                    `json:"type"`
					Required             []string                  `json:"required"`
					Properties           map[string]map[string]any `json:"properties"`
					AdditionalProperties *bool                     `json:"additionalProperties"`
				}
				raw, err := json.Marshal(tool.InputSchema)
				if err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal(raw, &schema); err != nil {
					t.Fatal(err)
				}
				if schema.Type != "object" || schema.AdditionalProperties == nil || *schema.AdditionalProperties {
					t.Errorf("%s: schema %s, want an object without additional properties", name, raw)
				}
				if strings.Join(schema.Required, ",") != strings.Join(want.required, ",") {
					t.Errorf("%s: required %v, want %v", name, schema.Required, want.required)
				}
				if len(schema.Properties) != len(want.props) {
					t.Errorf("%s: properties %s, want %v", name, raw, want.props)
				}
				for p, typ := range want.props {
					if got := schema.Properties[p]["type"]; got != typ {
						t.Errorf("%s: property %s has type %v, want %s", name, p, got, typ)
					}
					if d, _ := schema.Properties[p]["description"].(string); d == "" {
						t.Errorf("%s: property %s has no description", name, p)
					}
				}
				if name == bridge.ReadTextFile {
					if m := schema.Properties["line"]["minimum"]; m != 0.0 {
						t.Errorf("line minimum %v, want 0", m)
					}
					if m := schema.Properties["limit"]["minimum"]; m != 1.0 {
						t.Errorf("limit minimum %v, want 1", m)
					}
				}
			}
		})
	}
}

func TestReadOnlyHidesWrite(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			f := newFixture(t, true)
			f.writeFile(t, "a.txt", "a\n")
			c := connect(t, f.srv, era.version)
			res, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
			if err != nil {
				t.Fatal(err)
			}
			for _, tool := range res.Tools {
				if a := tool.Annotations.ReadOnlyHint; a == nil || !*a {
					t.Errorf("read-only server lists %s, which is not read-only", tool.Name)
				}
			}
			if !slices.ContainsFunc(res.Tools, func(tool mcp.Tool) bool { return tool.Name == bridge.ReadTextFile }) {
				t.Fatalf("tools %v, want %s among them", res.Tools, bridge.ReadTextFile)
			}
			if got := wantOK(t, call(t, c, bridge.ReadTextFile, map[string]any{"path": "a.txt"})); got != "a\n" {
				t.Errorf("read %q", got)
			}
			var req mcp.CallToolRequest
			req.Params.Name = bridge.WriteTextFile
			req.Params.Arguments = map[string]any{"path": "a.txt", "content": "b"}
			if _, err := c.CallTool(t.Context(), req); err == nil {
				t.Error("calling write_text_file on a read-only server: no error")
			}
			if b, _ := os.ReadFile(f.path("a.txt")); string(b) != "a\n" {
				t.Errorf("a.txt changed to %q", b)
			}
		})
	}
}

func TestServerInfo(t *testing.T) {
	f := newFixture(t, false)
	c, err := client.NewInProcessClient(f.srv)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var req mcp.InitializeRequest
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	res, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.ServerInfo.Name != "mcp-acpfs" || res.Instructions == "" || res.Capabilities.Tools == nil {
		t.Errorf("initialize result %+v", res)
	}
}
