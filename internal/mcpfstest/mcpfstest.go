package mcpfstest

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fspath"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcptest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
	"github.com/mcp-acpfs/mcp-acpfs/mcptransport"
)

// Eras are the two protocol eras mcp-go speaks: the initialize handshake,
// and the stateless core of 2026-07-28 (server/discover).
var Eras = []struct {
	Name    string
	Version string
}{
	{"legacy", mcp.LATEST_LEGACY_PROTOCOL_VERSION},
	{"stateless", mcp.LATEST_PROTOCOL_VERSION},
}

// Structured are the tool options of the tests that read the tools'
// structured results: as a program that embeds the tools would set them,
// with structured content and without pages.
var Structured = mcpfs.ToolOptions{StructuredContent: true, PageSize: -1}

// TestMaxFileSize is the size limit of NewFixture's servers, small enough
// to write a file over it.
const TestMaxFileSize = 1 << 10

// A Fixture is a server on a Disk confined to a temporary directory.
type Fixture struct {
	Dir   string // the root, also the working directory
	Disk  *fsruntime.Disk
	Files mcpfs.Files
	Srv   *server.MCPServer
	Logs  *mcptest.SyncBuffer // the server's log, at debug level

	linkProbe sync.Once
	linkErr   error // why no working symlink can be made in Dir
}

// NewFixture returns a fixture whose roots are roots, relative to its
// directory (created), or the directory itself; its size limit is
// TestMaxFileSize.
func NewFixture(t testing.TB, readOnly bool, roots ...string) *Fixture {
	t.Helper()
	return newFixture(t, readOnly, TestMaxFileSize, roots...)
}

// NewFixtureMax is NewFixture with a size limit of max, writable.
func NewFixtureMax(t testing.TB, max int64) *Fixture {
	t.Helper()
	return newFixture(t, false, max)
}

// NewFixtureWith is NewFixture, writable, with the server built with opts
// (its Logger is the fixture's).
func NewFixtureWith(t testing.TB, opts mcpfs.Options) *Fixture {
	t.Helper()
	return newFixtureOpts(t, false, TestMaxFileSize, opts)
}

func newFixture(t testing.TB, readOnly bool, max int64, roots ...string) *Fixture {
	t.Helper()
	return newFixtureOpts(t, readOnly, max, mcpfs.Options{Tools: Structured}, roots...)
}

func newFixtureOpts(t testing.TB, readOnly bool, max int64, opts mcpfs.Options, roots ...string) *Fixture {
	t.Helper()
	// The temporary directory may be reached through a symlink (macOS);
	// the tests compare paths, so use its real path.
	dir, err := filepath.EvalSymlinks(t.TempDir())
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
	disk, err := fsruntime.OpenDisk(abs, fsruntime.DiskOptions{MaxFileSize: max})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { disk.Close() })
	logs := &mcptest.SyncBuffer{}
	files := mcpfs.DiskFiles(disk, readOnly)
	opts.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv, err := mcpfs.NewServer(files, opts)
	if err != nil {
		t.Fatal(err)
	}
	return &Fixture{Dir: dir, Disk: disk, Files: files, Srv: srv, Logs: logs}
}

// Path returns the absolute path of rel in the fixture's directory.
func (f *Fixture) Path(rel string) string { return filepath.Join(f.Dir, filepath.FromSlash(rel)) }

// URIPath returns the path part of the file URI of the absolute path p, as
// it follows "file://": p itself, percent-encoded, on Unix (/tmp/x),
// /C:/tmp/x on Windows. A test puts a scheme and host of its choosing
// before it ("file://localhost"+URIPath(p)).
func URIPath(p string) string { return strings.TrimPrefix(fspath.FileURI(p), "file://") }

// WriteFile creates rel with content, and any parent directories.
func (f *Fixture) WriteFile(t testing.TB, rel, content string) {
	t.Helper()
	ostest.WriteFile(t, f.Path(rel), content)
}

// MustExist fails the test unless rel exists (without following a final
// symlink); with content, a file must hold it.
func (f *Fixture) MustExist(t testing.TB, rel string, content ...string) {
	t.Helper()
	if _, err := os.Lstat(f.Path(rel)); err != nil {
		t.Errorf("%s: %v", rel, err)
		return
	}
	if len(content) > 0 {
		b, err := os.ReadFile(f.Path(rel))
		if err != nil || string(b) != content[0] {
			t.Errorf("%s has %q (%v), want %q", rel, b, err, content[0])
		}
	}
}

// MustNotExist fails the test if rel exists.
func (f *Fixture) MustNotExist(t testing.TB, rel string) {
	t.Helper()
	if _, err := os.Lstat(f.Path(rel)); err == nil {
		t.Errorf("%s exists", rel)
	}
}

func (f *Fixture) Mkdir(t testing.TB, rel string) {
	t.Helper()
	if err := os.MkdirAll(f.Path(rel), 0o755); err != nil {
		t.Fatal(err)
	}
}

// Symlink makes rel a symbolic link to target (slash-separated if
// relative). The test skips, saying why, if no working link can be made in
// the fixture's directory ([Fixture.SymlinkErr]): call it in the subtest
// that needs the link.
func (f *Fixture) Symlink(t testing.TB, target, rel string) {
	t.Helper()
	ostest.SkipWithoutSymlinks(t, f.SymlinkErr())
	if err := os.Symlink(filepath.FromSlash(target), f.Path(rel)); err != nil {
		t.Fatal(err)
	}
}

// SymlinkErr reports why no working symbolic link can be made in the
// fixture's directory, or nil if one can ([ostest.SymlinkErr], probed
// once): on Windows the process may lack the right, and under Wine links
// do not work.
func (f *Fixture) SymlinkErr() error {
	f.linkProbe.Do(func() { f.linkErr = ostest.SymlinkErr(f.Dir) })
	return f.linkErr
}

// Symlinks reports whether working symbolic links can be made in the
// fixture's directory. If not, a subtest "symlinks" of t is skipped,
// saying why, to show that t leaves out what needs them.
func (f *Fixture) Symlinks(t *testing.T) bool {
	t.Helper()
	err := f.SymlinkErr()
	if err != nil {
		t.Run("symlinks", func(t *testing.T) { ostest.SkipWithoutSymlinks(t, err) })
	}
	return err == nil
}

// Transport returns the options that serve the fixture's server, logging
// to t.
func (f *Fixture) Transport(t testing.TB) mcptransport.Options {
	return mcpfs.TransportOptions(f.Files, slog.New(slog.NewTextHandler(t.Output(), nil)))
}

// A Serving is one way for a stream transport to serve a file server.
type Serving struct {
	Name       string
	Lift       bool // large strings lifted past mcp-go
	PlainCalls bool // plain tool calls served past mcp-go
}

// Servings are the four: with both fast paths (the default), with each
// alone, and as stock mcp-go serves.
var Servings = []Serving{
	{"fast", true, true},
	{"lift-only", true, false},
	{"plain-only", false, true},
	{"stock", false, false},
}

// Transport returns the options of serving s for the fixture.
func (s Serving) Transport(t testing.TB, f *Fixture) mcptransport.Options {
	opts := f.Transport(t)
	if !s.Lift {
		opts.Lift = nil
	}
	opts.PlainCalls = s.PlainCalls
	return opts
}

// Connect returns an initialized in-process client of srv speaking
// version.
func Connect(t testing.TB, srv *server.MCPServer, version string, opts ...client.ClientOption) *client.Client {
	t.Helper()
	c, err := newInProcessClient(srv, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	mcptest.Initialize(t, c, version)
	return c
}

// inProcess is when the last in-process client was made, by the wall
// clock in nanoseconds.
var inProcess struct {
	sync.Mutex
	last int64
}

// newInProcessClient makes an in-process client of srv with a session id
// of its own. mcp-go names an in-process session by the wall clock in
// nanoseconds (server.GenerateInProcessSessionID), which on Windows moves
// in steps of up to milliseconds: two clients made in a row would get the
// same id, and the second could not register with the server ("session
// already exists"). So each waits until the clock has moved on since the
// last one was made.
func newInProcessClient(srv *server.MCPServer, opts ...client.ClientOption) (*client.Client, error) {
	inProcess.Lock()
	defer inProcess.Unlock()
	for time.Now().UnixNano() == inProcess.last {
		time.Sleep(50 * time.Microsecond)
	}
	c, err := client.NewInProcessClientWithOptions(srv, opts...)
	inProcess.last = time.Now().UnixNano()
	return c, err
}

// Tools returns the tools c's server lists, by name.
func Tools(t testing.TB, c *client.Client) map[string]mcp.Tool {
	t.Helper()
	res, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	tools := make(map[string]mcp.Tool, len(res.Tools))
	for _, tool := range res.Tools {
		tools[tool.Name] = tool
	}
	return tools
}

// ServeStdio runs mcptransport.ServeStdio over pipes and returns the
// client's ends. The server's end of stdout is closed when ServeStdio
// returns, and its error is sent on served.
func ServeStdio(t testing.TB, srv *server.MCPServer, opts mcptransport.Options) (toServer io.WriteCloser, fromServer io.ReadCloser, served <-chan error) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(t.Output(), nil))
	}
	errc := make(chan error, 1)
	go func() {
		err := mcptransport.ServeStdio(t.Context(), srv, inR, outW, opts)
		outW.Close()
		errc <- err
	}()
	t.Cleanup(func() { inW.Close() })
	return inW, outR, errc
}

// StdioClient connects an initialized MCP client to srv over ServeStdio.
func StdioClient(t testing.TB, srv *server.MCPServer, opts mcptransport.Options, version string) *client.Client {
	t.Helper()
	toServer, fromServer, served := ServeStdio(t, srv, opts)
	c := client.NewClient(transport.NewIO(fromServer, toServer, nil))
	mcptest.Initialize(t, c, version)
	t.Cleanup(func() {
		c.Close()
		if err := <-served; err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
	})
	return c
}

// RawStdio serves srv on pipes for a client that writes raw lines, and
// initializes it.
func RawStdio(t testing.TB, srv *server.MCPServer, opts mcptransport.Options) (io.WriteCloser, *bufio.Reader) {
	t.Helper()
	toServer, fromServer, served := ServeStdio(t, srv, opts)
	t.Cleanup(func() {
		toServer.Close()
		io.Copy(io.Discard, fromServer)
		if err := <-served; err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
	})
	io.WriteString(toServer, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`+"\n")
	r := bufio.NewReaderSize(fromServer, 1<<20)
	if _, err := r.ReadBytes('\n'); err != nil {
		t.Fatal(err)
	}
	io.WriteString(toServer, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	return toServer, r
}

// ResponseID reads the next response and returns its id and the line.
func ResponseID(t testing.TB, r *bufio.Reader) (string, string) {
	t.Helper()
	line, err := r.ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("%v: %.200s", err, line)
	}
	return string(m.ID), string(line)
}

// Call calls a tool and fails the test on a protocol error: file failures
// must come back as results.
func Call(t testing.TB, c *client.Client, name string, args map[string]any) *mcp.CallToolResult {
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

// Text returns the one text content of res.
func Text(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	n := len(res.Content)
	if n == 2 && Status(res) != "" {
		n = 1 // a read's text, then its status
	}
	if n != 1 {
		t.Fatalf("result has %d contents, want 1: %+v", len(res.Content), res.Content)
	}
	tc, ok := mcp.AsTextContent(res.Content[0])
	if !ok {
		t.Fatalf("result content is %T, want text", res.Content[0])
	}
	return tc.Text
}

// Status returns the status line that follows the text of a read (where
// it stands, how to go on, where it came from), or "" if it has none.
func Status(res *mcp.CallToolResult) string {
	if len(res.Content) < 2 {
		return ""
	}
	tc, ok := mcp.AsTextContent(res.Content[len(res.Content)-1])
	if !ok || !strings.HasPrefix(tc.Text, "[") || !strings.HasSuffix(tc.Text, "]") {
		return ""
	}
	return tc.Text
}

// WantOK checks that res succeeded and returns its text.
func WantOK(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	s := Text(t, res)
	if res.IsError {
		t.Fatalf("tool failed: %s", s)
	}
	return s
}

// WantError checks that res failed with a text containing every one of
// parts.
func WantError(t testing.TB, res *mcp.CallToolResult, parts ...string) string {
	t.Helper()
	s := Text(t, res)
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

// An HTTPReply is the status and JSON-RPC error code of an answer.
type HTTPReply struct {
	Status int
	Code   int    // the JSON-RPC error's, 0 if none
	Msg    string // the JSON-RPC error's message
	SID    string // the Mcp-Session-Id header
}

// Post sends body to url with the headers of auth and extra, and reads the
// answer (a JSON body, or the first event of a stream).
func Post(t testing.TB, method, url, body string, hdr map[string]string) HTTPReply {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := HTTPReply{Status: resp.StatusCode, SID: resp.Header.Get("Mcp-Session-Id")}
	if method == http.MethodGet && resp.StatusCode == http.StatusOK {
		return r // a stream: its status is the answer
	}
	b, _ := io.ReadAll(resp.Body)
	s := string(b)
	if i := strings.Index(s, "data: "); i >= 0 {
		s = strings.SplitN(s[i+len("data: "):], "\n", 2)[0]
	}
	var m struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(s), &m) == nil && m.Error != nil {
		r.Code, r.Msg = m.Error.Code, m.Error.Message
	}
	return r
}

// InitializeBody is an initialize request of the 2025-11-25 era.
const InitializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
