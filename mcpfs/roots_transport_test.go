package mcpfs_test

import (
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fspath"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpfstest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcptest"
	"github.com/mcp-acpfs/mcp-acpfs/mcptransport"
)

// Roots over stdio: the server asks for them after the handshake, which
// must not deadlock mcp-go's read loop.
func TestStdioRoots(t *testing.T) {
	f := newRootsFixture(t, 0, ".")
	toServer, fromServer, listened := mcpfstest.ServeStdio(t, f.Srv, mcptransport.Options{})
	roots := &clientRoots{}
	roots.set(fspath.FileURI(f.Path("a")))
	c := client.NewClient(transport.NewIO(fromServer, toServer, nil), client.WithRootsHandler(roots))
	mcptest.Initialize(t, c, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	if !canRead(t, c, f.Path("a/in.txt")) || canRead(t, c, f.Path("b/other.txt")) {
		t.Error("not narrowed to the client's root")
	}
	roots.set(fspath.FileURI(f.Path("b")))
	if err := c.RootListChanges(t.Context()); err != nil {
		t.Fatal(err)
	}
	// mcp-go's stdio transport handles a notification on its read loop
	// before it reads the next message, so this call waits for the fetch.
	if canRead(t, c, f.Path("a/in.txt")) {
		t.Error("after roots/list_changed: the old root is still readable")
	}
	if !canRead(t, c, f.Path("b/other.txt")) {
		t.Error("after roots/list_changed: the new root is refused")
	}
	c.Close()
	if err := <-listened; err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
}

// Over Streamable HTTP, a client that also listens on a GET stream gets
// its roots applied too.
func TestHTTPRoots(t *testing.T) {
	f := newRootsFixture(t, 0, ".")
	ts := httptest.NewServer(mcptransport.NewHTTPHandler(f.Srv, "", mcptransport.Options{}))
	defer ts.Close()
	tr, err := transport.NewStreamableHTTP(ts.URL+mcptransport.EndpointPath, transport.WithContinuousListening(),
		transport.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	roots := &clientRoots{}
	roots.set(fspath.FileURI(f.Path("a")))
	c := client.NewClient(tr, client.WithRootsHandler(roots))
	defer c.Close()
	mcptest.Initialize(t, c, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	if canRead(t, c, f.Path("b/other.txt")) || !canRead(t, c, f.Path("a/in.txt")) {
		t.Error("not narrowed to the client's root")
	}
}
