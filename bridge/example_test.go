package bridge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/sourcegraph/jsonrpc2"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
)

// A Go ACP agent gives each of its sessions the file tools. Here the
// editor is a fake one with an unsaved buffer, connected over a pipe; a
// real agent has its connection to the editor on stdin and stdout.
func ExampleBridge() {
	ctx := context.Background()
	cwd, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(cwd)
	cwd, _ = filepath.EvalSymlinks(cwd)
	os.WriteFile(filepath.Join(cwd, "notes.txt"), []byte("saved on disk\n"), 0o644)

	// The editor side: its buffer of notes.txt has unsaved changes.
	ed := &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS()}
	ed.Buffers.Set(filepath.Join(cwd, "notes.txt"), "unsaved in the editor\n")
	editorEnd, agentEnd := net.Pipe()
	jsonrpc2.NewConn(ctx, bridge.NewObjectStream(editorEnd, nil),
		jsonrpc2.AsyncHandler(jsonrpc2.HandlerWithError(ed.Handle)))

	// The agent side. Its connection to the editor is the bridge's
	// route to the editor's fs methods.
	conn := jsonrpc2.NewConn(ctx, bridge.NewObjectStream(agentEnd, nil),
		jsonrpc2.AsyncHandler(jsonrpc2.HandlerWithError(func(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) (any, error) {
			return nil, nil // the agent's own ACP methods go here
		})))
	defer conn.Close()
	b := bridge.NewBridge(conn, bridge.BridgeOptions{})
	defer b.Close()

	// At initialize: what the editor advertised.
	b.Initialize(json.RawMessage(`{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true}}}`))

	// At session/new: the session's tools, bound to its id.
	sess, err := b.OpenSession(bridge.SessionParams{Cwd: cwd})
	if err != nil {
		fmt.Println(err)
		return
	}
	sess.Bind("sess_1")

	// The model's MCP client, in-process here; sess.ServerEntry() gives an
	// entry for an out-of-process one instead.
	c, _ := client.NewInProcessClient(sess.MCPServer())
	defer c.Close()
	c.Start(ctx)
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	c.Initialize(ctx, init)
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{
		Name: "read_text_file", Arguments: map[string]any{"path": "notes.txt"}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(res.Content[0].(mcp.TextContent).Text)
	// Output: unsaved in the editor
}
