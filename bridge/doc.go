// Package bridge gives every session of an ACP agent the MCP file tools:
// the API a Go agent embeds.
//
// A [Bridge] holds the connection to the editor and what it advertised at
// initialize. For each ACP session it opens a [Session]: a
// [fsruntime.Router] over the session's roots, which sends each operation
// to the editor's fs methods where advertised and to disk otherwise, with
// its own MCP server (package mcpfs). A model reaches it in process
// ([Session.MCPServer]) or over an [MCPServerEntry]: loopback Streamable
// HTTP, or stdio through [Relay]; either way the session's secret selects
// it. [StartClient] turns an entry into a started mcp-go client. Package
// proxy does the same for any ACP agent, run as a child.
//
// An agent, in order:
//
//   - first thing in main, [RelayFromEnv], so that the binary serves as
//     its own stdio relay command;
//   - NewBridge(nil, opts), then its connection to the editor with a
//     handler that uses the Bridge, then [Bridge.Attach];
//   - at initialize, [Bridge.Initialize] with the editor's params and
//     [Bridge.InitializeAgent] with its own result;
//   - at session/new (load, resume, fork), [Bridge.OpenSession] with the
//     session id it answers with, so that no [Session.Bind] is needed;
//   - on session/cancel, cancel the prompt turn's context: the tool call
//     ends, and the editor is sent $/cancel_request for its fs request;
//   - [Session.Close] on session/close or when the session is replaced,
//     and [Bridge.Close] when the connection ends.
//
// A session takes what the editor advertised when it is opened. A tool
// call in a session without an id, or on a bridge without a connection,
// fails within [BridgeOptions.EditorTimeout] with an error that says
// which call is missing. docs/embedding.md in the repository shows a
// whole agent (examples/agent) and says what is taken when.
package bridge
