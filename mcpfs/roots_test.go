package mcpfs_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fspath"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpfstest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcptest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
	"github.com/mcp-acpfs/mcp-acpfs/mcptransport"
)

// rootsFixture is a server over a directory with a/in.txt and b/other.txt,
// which counts the narrowed FSes it opens and closes.
type rootsFixture struct {
	Dir  string
	Srv  *server.MCPServer
	Logs *mcptest.SyncBuffer

	mu             sync.Mutex
	opened, closed int
	hold           chan struct{}  // if not nil, reads of narrowed FSes wait for it
	changed        mcptest.Signal // raised when a count changes
}

// newRootsFixture configures the roots rel (relative to the fixture's
// directory; "." for itself).
func newRootsFixture(t *testing.T, timeout time.Duration, rel ...string) *rootsFixture {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &rootsFixture{Dir: dir, Logs: &mcptest.SyncBuffer{}}
	ostest.WriteFiles(t, dir, map[string]string{"a/in.txt": "in\n", "b/other.txt": "other\n"})
	var roots []string
	for _, r := range rel {
		roots = append(roots, f.Path(r))
	}
	disk, err := fsruntime.OpenDisk(roots, fsruntime.DiskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { disk.Close() })
	sess := mcpfs.DiskFiles(disk, false)
	narrow := sess.Narrow
	sess.Narrow = func(dirs []string) (fsruntime.FS, error) {
		fsys, err := narrow(dirs)
		if err != nil {
			return nil, err
		}
		f.mu.Lock()
		f.opened++
		f.mu.Unlock()
		f.changed.Raise()
		return &countedDisk{fsys.(*fsruntime.Disk), f}, nil
	}
	f.Srv, err = mcpfs.NewServer(sess, mcpfs.Options{
		Logger:       slog.New(slog.NewTextHandler(f.Logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		RootsTimeout: timeout,
	})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *rootsFixture) Path(rel string) string { return filepath.Join(f.Dir, filepath.FromSlash(rel)) }

// counts returns how many narrowed FSes were opened and closed.
func (f *rootsFixture) counts() (opened, closed int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.opened, f.closed
}

// countedDisk is a narrowed Disk that counts its Close.
type countedDisk struct {
	*fsruntime.Disk
	f *rootsFixture
}

func (d *countedDisk) ReadTextFile(ctx context.Context, path string, line, limit int) (string, error) {
	d.wait()
	return d.Disk.ReadTextFile(ctx, path, line, limit)
}

func (d *countedDisk) ReadTextFileSource(ctx context.Context, path string, line, limit int) (fsruntime.TextRead, error) {
	d.wait()
	return d.Disk.ReadTextFileSource(ctx, path, line, limit)
}

// wait holds a read while the fixture says so.
func (d *countedDisk) wait() {
	d.f.mu.Lock()
	hold := d.f.hold
	d.f.mu.Unlock()
	if hold != nil {
		<-hold
	}
}

func (d *countedDisk) Close() error {
	d.f.mu.Lock()
	d.f.closed++
	d.f.mu.Unlock()
	d.f.changed.Raise()
	return d.Disk.Close()
}

// clientRoots answers roots/list with a list that the test can change.
type clientRoots struct {
	mu    sync.Mutex
	uris  []string
	calls int
	block chan struct{}  // if not nil, a request waits for it
	asked mcptest.Signal // raised by each request
}

func (r *clientRoots) set(uris ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.uris = uris
}

func (r *clientRoots) ListRoots(ctx context.Context, _ mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	r.mu.Lock()
	r.calls++
	block := r.block
	r.mu.Unlock()
	r.asked.Raise()
	if block != nil {
		<-block
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	res := &mcp.ListRootsResult{Roots: []mcp.Root{}}
	for _, u := range r.uris {
		res.Roots = append(res.Roots, mcp.Root{URI: u, Name: filepath.Base(u)})
	}
	return res, nil
}

func (r *clientRoots) callCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls
}

// connectWithRoots connects a legacy client that declares roots.
func connectWithRoots(t *testing.T, f *rootsFixture, roots *clientRoots) *client.Client {
	t.Helper()
	return mcpfstest.Connect(t, f.Srv, mcp.LATEST_LEGACY_PROTOCOL_VERSION, client.WithRootsHandler(roots))
}

// canRead reports whether read_text_file of p succeeds; a failure must
// name p and say it is outside the roots.
func canRead(t *testing.T, c *client.Client, p string) bool {
	t.Helper()
	res := mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": p})
	if res.IsError {
		mcpfstest.WantError(t, res, p, "outside the allowed roots")
	}
	return !res.IsError
}

func TestClientRootsNarrow(t *testing.T) {
	f := newRootsFixture(t, 0, ".")
	roots := &clientRoots{}
	roots.set(fspath.FileURI(f.Path("a")))
	c := connectWithRoots(t, f, roots)

	if !canRead(t, c, f.Path("a/in.txt")) {
		t.Error("a file inside the client's root is refused")
	}
	if !canRead(t, c, "a/in.txt") {
		t.Error("a relative path inside the client's root is refused")
	}
	if canRead(t, c, f.Path("b/other.txt")) {
		t.Error("a file outside the client's root is readable")
	}
	res := mcpfstest.Call(t, c, mcpfs.WriteTextFile, map[string]any{"path": "b/new.txt", "content": "x"})
	mcpfstest.WantError(t, res, f.Path("b/new.txt"), "outside the allowed roots ("+f.Path("a")+")")
	if _, err := os.Stat(f.Path("b/new.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused write created the file: %v", err)
	}
	if n := roots.callCount(); n != 1 {
		t.Errorf("roots/list asked %d times, want 1", n)
	}
}

func TestClientRootsCannotWiden(t *testing.T) {
	f := newRootsFixture(t, 0, "a")
	roots := &clientRoots{}
	roots.set(fspath.FileURI(f.Dir)) // the parent of the configured root
	c := connectWithRoots(t, f, roots)

	if !canRead(t, c, f.Path("a/in.txt")) {
		t.Error("a file inside the configured root is refused")
	}
	if canRead(t, c, f.Path("b/other.txt")) {
		t.Error("the client's wider root made a file outside the configured root readable")
	}
}

func TestClientRootsOutsideRefuseEverything(t *testing.T) {
	f := newRootsFixture(t, 0, "a")
	roots := &clientRoots{}
	roots.set(fspath.FileURI(f.Path("b")), fspath.FileURI(filepath.Join(f.Dir, "elsewhere")))
	c := connectWithRoots(t, f, roots)

	if canRead(t, c, f.Path("a/in.txt")) {
		t.Error("a client whose roots lie outside the configured ones can still read")
	}
	if canRead(t, c, f.Path("b/other.txt")) {
		t.Error("a client root outside the configured ones was used")
	}
	logs := f.Logs.String()
	// The text log quotes the roots: a \ in a path (Windows) is doubled.
	logged := strings.Trim(strconv.Quote(f.Path("b")), `"`)
	if !strings.Contains(logs, "level=WARN") || !strings.Contains(logs, "every path is refused") || !strings.Contains(logs, logged) {
		t.Errorf("no warning naming the client's roots:\n%s", logs)
	}
}

func TestClientRootsNonFileIgnored(t *testing.T) {
	f := newRootsFixture(t, 0, ".")
	roots := &clientRoots{}
	// A file URI on another host is no local path; on Windows, where
	// another host names a share (RFC 8089), one with a port is none.
	otherHost := "file://otherhost"
	if runtime.GOOS == "windows" {
		otherHost += ":8080"
	}
	roots.set("https://example.com/repo", otherHost+mcpfstest.URIPath(f.Path("a")), "not a uri\x7f")
	c := connectWithRoots(t, f, roots)

	if !canRead(t, c, f.Path("b/other.txt")) {
		t.Error("roots that are not local file URIs narrowed the session")
	}
	if opened, _ := f.counts(); opened != 0 {
		t.Errorf("%d narrowed FSes opened, want none", opened)
	}
}

func TestClientRootsListChanged(t *testing.T) {
	f := newRootsFixture(t, 0, ".")
	roots := &clientRoots{}
	roots.set(fspath.FileURI(f.Path("a")))
	c := connectWithRoots(t, f, roots)
	if canRead(t, c, f.Path("b/other.txt")) {
		t.Fatal("not narrowed to a")
	}

	roots.set(fspath.FileURI(f.Path("b")))
	if err := c.RootListChanges(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !canRead(t, c, f.Path("b/other.txt")) {
		t.Error("after roots/list_changed: the new root is refused")
	}
	if canRead(t, c, f.Path("a/in.txt")) {
		t.Error("after roots/list_changed: the old root is still readable")
	}

	// An empty list lifts the narrowing: the configured roots are back.
	roots.set()
	if err := c.RootListChanges(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !canRead(t, c, f.Path("a/in.txt")) || !canRead(t, c, f.Path("b/other.txt")) {
		t.Error("after an empty roots list: the configured roots are not back")
	}

}

func TestClientRootsClosedOnlyWhenUnused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newRootsFixture(t, 0, ".")
		roots := &clientRoots{}
		roots.set(fspath.FileURI(f.Path("a")))
		c := connectWithRoots(t, f, roots)
		synctest.Wait()
		if opened, closed := f.counts(); opened != 1 || closed != 0 {
			t.Errorf("after the handshake: %d opened, %d closed, want 1 and 0", opened, closed)
		}

		// A read is in flight on the FS narrowed to a when the roots change.
		hold := make(chan struct{})
		f.mu.Lock()
		f.hold = hold
		f.mu.Unlock()
		done := make(chan *mcp.CallToolResult)
		go func() { done <- mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": "a/in.txt"}) }()
		synctest.Wait()
		roots.set(fspath.FileURI(f.Path("b")))
		if err := c.RootListChanges(t.Context()); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if opened, closed := f.counts(); opened != 2 || closed != 0 {
			t.Errorf("with a read in flight: %d opened, %d closed, want 2 and 0", opened, closed)
		}
		close(hold)
		if got := mcpfstest.WantOK(t, <-done); got != "in\n" {
			t.Errorf("the read in flight returned %q", got)
		}
		synctest.Wait()
		if opened, closed := f.counts(); opened != 2 || closed != 1 {
			t.Errorf("after the read: %d opened, %d closed, want 2 and 1", opened, closed)
		}

		c.Close()
		synctest.Wait()
		if opened, closed := f.counts(); opened != 2 || closed != 2 {
			t.Errorf("after the client left: %d opened, %d closed, want 2 and 2", opened, closed)
		}
	})
}

func TestToolCallWaitsForRoots(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newRootsFixture(t, 0, ".")
		roots := &clientRoots{block: make(chan struct{})}
		roots.set(fspath.FileURI(f.Path("a")))
		c := connectWithRoots(t, f, roots)

		done := make(chan *mcp.CallToolResult)
		go func() {
			done <- mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": "b/other.txt"})
		}()
		synctest.Wait()
		select {
		case <-done:
			t.Fatal("the tool call did not wait for the roots in flight")
		default:
		}
		close(roots.block)
		mcpfstest.WantError(t, <-done, f.Path("b/other.txt"), "outside the allowed roots")
	})
}

func TestToolCallRootsTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const timeout = 2 * time.Second
		f := newRootsFixture(t, timeout, ".")
		roots := &clientRoots{block: make(chan struct{})}
		roots.set(fspath.FileURI(f.Path("a")))
		c := connectWithRoots(t, f, roots)
		defer close(roots.block) // the client never answers until the test ends

		start := time.Now()
		mcpfstest.WantOK(t, mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": "b/other.txt"}))
		if waited := time.Since(start); waited != timeout {
			t.Errorf("the tool call waited %v, want %v", waited, timeout)
		}
		if logs := f.Logs.String(); !strings.Contains(logs, "did not arrive in time") {
			t.Errorf("no log of the timeout:\n%s", logs)
		}
	})
}

func TestClientWithoutRootsIsNotAsked(t *testing.T) {
	for _, era := range mcpfstest.Eras {
		t.Run(era.Name, func(t *testing.T) {
			f := newRootsFixture(t, 0, ".")
			c := mcpfstest.Connect(t, f.Srv, era.Version)
			if !canRead(t, c, f.Path("b/other.txt")) {
				t.Error("a client without roots is narrowed")
			}
		})
	}
}

// The stateless protocol has no sessions and no server-to-client requests:
// a client that declares roots is asked for them in each tool call, with an
// input_required result, and its retry runs narrowed to them, for that call
// only.
func TestStatelessClientRoots(t *testing.T) {
	for _, tc := range []struct {
		name    string
		connect func(*testing.T, *rootsFixture, *clientRoots) *client.Client
	}{
		{"in process", func(t *testing.T, f *rootsFixture, roots *clientRoots) *client.Client {
			return mcpfstest.Connect(t, f.Srv, mcp.LATEST_PROTOCOL_VERSION, client.WithRootsHandler(roots))
		}},
		{"http", func(t *testing.T, f *rootsFixture, roots *clientRoots) *client.Client {
			return connectHTTPWithRoots(t, f, mcp.LATEST_PROTOCOL_VERSION, roots)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newRootsFixture(t, 0, ".")
			roots := &clientRoots{}
			roots.set(fspath.FileURI(f.Path("a")))
			c := tc.connect(t, f, roots)

			if canRead(t, c, f.Path("b/other.txt")) || !canRead(t, c, f.Path("a/in.txt")) {
				t.Error("a stateless client is not narrowed to its roots")
			}
			if n := roots.callCount(); n != 2 {
				t.Errorf("roots asked %d times in 2 calls, want 2", n)
			}
			// The roots a call carries are the ones it uses: no
			// list_changed needed.
			roots.set(fspath.FileURI(f.Path("b")))
			if !canRead(t, c, f.Path("b/other.txt")) || canRead(t, c, f.Path("a/in.txt")) {
				t.Error("a stateless client's new roots are not used")
			}
			roots.set()
			if !canRead(t, c, f.Path("a/in.txt")) || !canRead(t, c, f.Path("b/other.txt")) {
				t.Error("no roots: the configured roots are not back")
			}
			if opened, closed := f.counts(); opened != 4 || closed != 4 {
				t.Errorf("%d narrowed FSes opened and %d closed, want 4 and 4 (one per narrowed call)", opened, closed)
			}
		})
	}
}

// connectHTTPWithRoots connects a Streamable HTTP client, at protocol
// version, of f's server behind mcptransport.NewHTTPHandler, which answers
// roots/list from roots.
func connectHTTPWithRoots(t *testing.T, f *rootsFixture, version string, roots client.RootsHandler, opts ...transport.StreamableHTTPCOption) *client.Client {
	t.Helper()
	ts := httptest.NewServer(mcptransport.NewHTTPHandler(f.Srv, "", mcptransport.Options{}))
	t.Cleanup(ts.Close)
	tr, err := transport.NewStreamableHTTP(ts.URL+mcptransport.EndpointPath,
		append(opts, transport.WithLogger(slog.New(slog.DiscardHandler)))...)
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, client.WithRootsHandler(roots))
	t.Cleanup(func() { c.Close() })
	mcptest.Initialize(t, c, version)
	return c
}

// noRootsStall checks that no tool call waited for roots that could not
// come, and that no fetch outlived its session.
func noRootsStall(t *testing.T, f *rootsFixture) {
	t.Helper()
	logs := f.Logs.String()
	for _, bad := range []string{"did not arrive in time", "could not get the MCP client's roots", "outlives its MCP session"} {
		if strings.Contains(logs, bad) {
			t.Errorf("the log says %q:\n%s", bad, logs)
		}
	}
}

// Over Streamable HTTP the server asks for the roots in the client's first
// tool call (and the first after list_changed), on that call's response
// stream: it reaches a client with no GET stream, and never waits for one.
func TestHTTPClientRootsInToolCall(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []transport.StreamableHTTPCOption
	}{
		{"without GET stream", nil},
		{"with GET stream", []transport.StreamableHTTPCOption{transport.WithContinuousListening()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newRootsFixture(t, 0, ".")
			roots := &clientRoots{}
			roots.set(fspath.FileURI(f.Path("a")))
			c := connectHTTPWithRoots(t, f, mcp.LATEST_LEGACY_PROTOCOL_VERSION, roots, tc.opts...)

			if canRead(t, c, f.Path("b/other.txt")) {
				t.Error("the first call is not narrowed to the client's root")
			}
			if !canRead(t, c, f.Path("a/in.txt")) || !canRead(t, c, "a/in.txt") {
				t.Error("a file inside the client's root is refused")
			}
			if n := roots.callCount(); n != 1 {
				t.Errorf("roots asked %d times, want 1", n)
			}

			roots.set(fspath.FileURI(f.Path("b")))
			if err := c.RootListChanges(t.Context()); err != nil {
				t.Fatal(err)
			}
			if !canRead(t, c, f.Path("b/other.txt")) || canRead(t, c, f.Path("a/in.txt")) {
				t.Error("after roots/list_changed: not narrowed to the new root")
			}
			if n := roots.callCount(); n != 2 {
				t.Errorf("roots asked %d times, want 2", n)
			}
			c.Close()
			f.changed.WaitFor(t, "the narrowed FSes are closed", func() bool {
				opened, closed := f.counts()
				return opened == 2 && closed == 2
			})
			noRootsStall(t, f)
		})
	}
}

// failingRoots answers roots/list with an error.
type failingRoots struct{ clientRoots }

func (r *failingRoots) ListRoots(ctx context.Context, req mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	r.clientRoots.ListRoots(ctx, req)
	return nil, errors.New("no roots today")
}

// A client that answers roots/list with an error keeps the roots in force,
// and is not asked again until its roots change.
func TestHTTPClientRootsError(t *testing.T) {
	f := newRootsFixture(t, 0, ".")
	roots := &failingRoots{}
	c := connectHTTPWithRoots(t, f, mcp.LATEST_LEGACY_PROTOCOL_VERSION, roots)
	if !canRead(t, c, f.Path("b/other.txt")) || !canRead(t, c, f.Path("a/in.txt")) {
		t.Error("a failed roots request narrowed the session")
	}
	if n := roots.callCount(); n != 1 {
		t.Errorf("roots asked %d times, want 1", n)
	}
	if logs := f.Logs.String(); !strings.Contains(logs, "could not get the MCP client's roots") || !strings.Contains(logs, "no roots today") {
		t.Errorf("no warning with the client's error:\n%s", logs)
	}
}

// A client that does not answer holds its first call for the roots timeout,
// and no other.
func TestHTTPClientRootsNoAnswer(t *testing.T) {
	const timeout = 200 * time.Millisecond
	f := newRootsFixture(t, timeout, ".")
	roots := &clientRoots{block: make(chan struct{})}
	defer close(roots.block)
	roots.set(fspath.FileURI(f.Path("a")))
	c := connectHTTPWithRoots(t, f, mcp.LATEST_LEGACY_PROTOCOL_VERSION, roots)

	start := time.Now()
	if !canRead(t, c, f.Path("b/other.txt")) {
		t.Error("roots that never came narrowed the session")
	}
	if waited := time.Since(start); waited < timeout {
		t.Errorf("the first call took %v, less than the roots timeout %v", waited, timeout)
	}
	if !canRead(t, c, f.Path("b/other.txt")) {
		t.Error("roots that never came narrowed the session")
	}
	if n := roots.callCount(); n != 1 {
		t.Errorf("roots asked %d times, want 1", n)
	}
	if logs := f.Logs.String(); !strings.Contains(logs, "could not get the MCP client's roots") {
		t.Errorf("no warning:\n%s", logs)
	}
}

// A tool call that ends before the roots come leaves them due: the next
// call asks again.
func TestHTTPClientRootsCallCancelled(t *testing.T) {
	f := newRootsFixture(t, 0, ".")
	block := make(chan struct{})
	roots := &clientRoots{block: block}
	roots.set(fspath.FileURI(f.Path("a")))
	c := connectHTTPWithRoots(t, f, mcp.LATEST_LEGACY_PROTOCOL_VERSION, roots)

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() {
		var req mcp.CallToolRequest
		req.Params.Name = mcpfs.ReadTextFile
		req.Params.Arguments = map[string]any{"path": f.Path("b/other.txt")}
		_, err := c.CallTool(ctx, req)
		done <- err
	}()
	roots.asked.WaitFor(t, "the server asks for the roots", func() bool { return roots.callCount() == 1 })
	cancel()
	if err := <-done; err == nil {
		t.Error("the cancelled call succeeded")
	}
	roots.mu.Lock()
	roots.block = nil
	roots.mu.Unlock()
	close(block)

	if canRead(t, c, f.Path("b/other.txt")) || !canRead(t, c, f.Path("a/in.txt")) {
		t.Error("the call after the cancelled one is not narrowed")
	}
	if n := roots.callCount(); n != 2 {
		t.Errorf("roots asked %d times, want 2", n)
	}
	noRootsStall(t, f)
}

// A session that ends while its roots are asked for ends the fetch.
func TestHTTPClientRootsSessionEnds(t *testing.T) {
	f := newRootsFixture(t, 0, ".")
	roots := &clientRoots{block: make(chan struct{})}
	defer close(roots.block)
	roots.set(fspath.FileURI(f.Path("a")))
	c := connectHTTPWithRoots(t, f, mcp.LATEST_LEGACY_PROTOCOL_VERSION, roots)

	done := make(chan struct{})
	go func() {
		defer close(done)
		var req mcp.CallToolRequest
		req.Params.Name = mcpfs.ReadTextFile
		req.Params.Arguments = map[string]any{"path": f.Path("b/other.txt")}
		c.CallTool(t.Context(), req)
	}()
	roots.asked.WaitFor(t, "the server asks for the roots", func() bool { return roots.callCount() == 1 })
	c.Close() // DELETE ends the session
	<-done
	if opened, _ := f.counts(); opened != 0 {
		t.Errorf("%d narrowed FSes opened after the session ended", opened)
	}
	noRootsStall(t, f)
}

// The server's request for the roots shares the tool call's response stream
// with mcp-go's notifications: on a stream mcp-go started for a
// notification, and on a stream started for the request, with mcp-go's
// notification and response after it.
func TestHTTPClientRootsWithNotifications(t *testing.T) {
	f := newRootsFixture(t, 0, ".")
	var mu sync.Mutex
	var got []string
	var arrived mcptest.Signal
	received := func(what string) bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.Contains(got, what)
	}
	// notify sends a notification on the tool call's stream and waits
	// until the client has it. (mcp-go v1.2.1 may lose a notification sent
	// as a response is written, so none is sent then.)
	notify := func(ctx context.Context, what string) {
		if err := f.Srv.SendNotificationToClient(ctx, "notifications/message", map[string]any{"level": "info", "data": what}); err != nil {
			t.Errorf("notification %s: %v", what, err)
			return
		}
		if !arrived.Wait(func() bool { return received(what) }) { // on a handler's goroutine: no Fatal
			t.Errorf("the client did not get notification %s", what)
		}
	}
	var phase atomic.Value // "before", "after" or ""
	phase.Store("")
	f.Srv.Use(func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if phase.Load() == "before" {
				notify(ctx, "before")
			}
			res, err := next(ctx, req)
			if phase.Load() == "after" {
				notify(ctx, "after")
			}
			return res, err
		}
	})
	roots := &clientRoots{}
	roots.set(fspath.FileURI(f.Path("a")))
	c := connectHTTPWithRoots(t, f, mcp.LATEST_LEGACY_PROTOCOL_VERSION, roots)
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, fmt.Sprint(n.Params.AdditionalFields["data"]))
		arrived.Raise()
	})

	phase.Store("before")
	if canRead(t, c, f.Path("b/other.txt")) {
		t.Error("not narrowed to the client's root")
	}
	phase.Store("")
	roots.set(fspath.FileURI(f.Path("b")))
	if err := c.RootListChanges(t.Context()); err != nil {
		t.Fatal(err)
	}
	phase.Store("after")
	if got := mcpfstest.WantOK(t, mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": "b/other.txt"})); got != "other\n" {
		t.Errorf("read %q", got)
	}
	phase.Store("")
	if canRead(t, c, f.Path("a/in.txt")) {
		t.Error("not narrowed to the client's new root")
	}
	if n := roots.callCount(); n != 2 {
		t.Errorf("roots asked %d times, want 2", n)
	}
	noRootsStall(t, f)
}

// A client that gives no file roots is the usual case: it is logged at
// debug level, not once per session at info.
func TestClientWithNoRootsLoggedAtDebug(t *testing.T) {
	f := newRootsFixture(t, 0, ".")
	c := connectWithRoots(t, f, &clientRoots{})
	if !canRead(t, c, f.Path("b/other.txt")) {
		t.Fatal("a client with no roots is narrowed")
	}
	logs := f.Logs.String()
	if !strings.Contains(logs, `level=DEBUG msg="the MCP client gave no file roots`) ||
		strings.Contains(logs, `level=INFO msg="the MCP client gave no file roots`) {
		t.Errorf("logs:\n%s", logs)
	}
}
