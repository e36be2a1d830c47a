package sessiontest

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

// EditorConn connects to a fake editor over an in-process pipe with the
// real codec and returns the agent's side of the connection.
func EditorConn(t testing.TB, ed *fsruntimetest.Editor) *jsonrpc2.Conn {
	t.Helper()
	a, b := net.Pipe()
	ctx := context.WithoutCancel(t.Context())
	edConn := jsonrpc2.NewConn(ctx, wire.NewObjectStream(a, wire.ReaderOptions{}),
		jsonrpc2.AsyncHandler(jsonrpc2.HandlerWithError(ed.Handle)))
	agent := jsonrpc2.NewConn(ctx, wire.NewObjectStream(b, wire.ReaderOptions{}),
		jsonrpc2.HandlerWithError(func(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) (any, error) {
			return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "not served"}
		}))
	t.Cleanup(func() { agent.Close(); edConn.Close() })
	return agent
}

// Workspace makes a session cwd whose disk content differs from the editor's
// buffers.
func Workspace(t testing.TB, ed *fsruntimetest.Editor, name string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("// "+name+" on disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Saved an hour ago: the buffer has unsaved changes, and no reload
	// of the file is pending.
	saved := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "main.go"), saved, saved); err != nil {
		t.Fatal(err)
	}
	ed.Buffers.Set(filepath.Join(dir, "main.go"), "// "+name+" unsaved\n")
	return dir
}

// FSCapabilities is an initialize response whose client serves fs reads
// and writes.
const FSCapabilities = `{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true}}}`

// NewBridge returns a bridge to ed, initialized with fs capabilities.
func NewBridge(t testing.TB, ed *fsruntimetest.Editor) *bridge.Bridge {
	t.Helper()
	b := bridge.NewBridge(EditorConn(t, ed), bridge.BridgeOptions{Tools: mcpfs.ToolOptions{StructuredContent: true, PageSize: -1}})
	b.Initialize(json.RawMessage(FSCapabilities))
	t.Cleanup(func() { b.Close() })
	return b
}

// OpenSession opens a session of b in cwd, bound to id, and closes it
// when the test ends. The cleanup runs before those registered earlier:
// before the removal of a cwd that Workspace made after NewBridge, which
// Windows refuses while the session holds the directory open.
func OpenSession(t testing.TB, b *bridge.Bridge, cwd, id string) *bridge.Session {
	t.Helper()
	s, err := b.OpenSession(bridge.SessionParams{Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	s.Bind(id)
	return s
}
