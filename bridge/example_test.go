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
	editor := jsonrpc2.NewConn(ctx, bridge.NewObjectStream(editorEnd, nil),
		jsonrpc2.AsyncHandler(jsonrpc2.HandlerWithError(ed.Handle)))
	defer editor.Close()

	// The agent side: the bridge first, then the connection whose
	// handler uses it, then the connection attached to the bridge, its
	// route to the editor's fs methods. examples/agent is a whole agent.
	b := bridge.NewBridge(nil, bridge.BridgeOptions{})
	defer b.Close()
	conn := jsonrpc2.NewConn(ctx, bridge.NewObjectStream(agentEnd, nil),
		jsonrpc2.AsyncHandler(jsonrpc2.HandlerWithError(func(_ context.Context, _ *jsonrpc2.Conn, r *jsonrpc2.Request) (any, error) {
			if r.Method != "initialize" {
				return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: r.Method}
			}
			b.Initialize(*r.Params) // what the editor advertised
			result := json.RawMessage(`{"protocolVersion":1,"agentCapabilities":{}}`)
			b.InitializeAgent(result) // what the agent advertises
			return result, nil
		})))
	defer conn.Close()
	b.Attach(conn)

	// The editor initializes the agent.
	editor.Call(ctx, "initialize", json.RawMessage(`{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true}}}`), nil)

	// At session/new: the session's tools, with the id the agent gives it.
	sess, err := b.OpenSession(bridge.SessionParams{Cwd: cwd, SessionID: "sess_1"})
	if err != nil {
		fmt.Println(err)
		return
	}

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
