// Package bridge serves a session's files to a model as MCP tools, and
// stands between an ACP editor and an ACP agent to give every session of the
// agent those tools.
//
// # MCP tools
//
// [NewServer] builds an mcp-go server for a [Files]: the tools
// read_text_file, write_text_file and edit_text_file (tools.go,
// tools_edit.go), which go through the session's [fsruntime.FS] and so
// through the editor where it serves them; read_media_file, get_file_info,
// list_directory, directory_tree, create_directory, move_file and
// delete_file (tools_files.go) and glob and grep (tools_search.go), which
// use the FS's optional interfaces (see runtime/fsext.go) on disk; and the
// files as file:// resources with change notifications (resources.go,
// watch.go). A read-only session has no tool that changes files. Every tool
// has an output schema and fills structuredContent. Tool arguments are
// checked against their input schemas by mcp-go; relative paths resolve
// against the session's working directory with [fsruntime.Abs]. A file
// failure is an MCP tool result with isError set, never a JSON-RPC error;
// errors.go is the one place that turns Go errors into tool results.
//
// MCP roots can only narrow what a session may touch: when a client
// declares the roots capability, its tool calls are confined to the
// intersection of its file:// roots and the session's own (see
// [Files.Narrow]). roots.go asks for them wherever the transport can carry
// the request: after the handshake on stdio and in process, on a tool
// call's own response stream over Streamable HTTP ([RequestScopedRoots]),
// and as an input request for stateless 2026-07-28 clients.
//
// [ServeStdio] serves a server on a pair of streams, answering the requests
// in flight before it returns at the end of its input; [ServeStream] serves
// one of many concurrent stream clients. [GuardHTTP] protects a loopback
// HTTP endpoint against DNS rebinding and cross-origin requests and checks
// a bearer token; [NewHTTPHandler] puts it in front of mcp-go's Streamable
// HTTP transport.
//
// # Sessions of an ACP agent
//
// A [Bridge] holds the connection to the editor and what the editor
// advertised at initialize. For each ACP session it opens a [Session]: a
// [fsruntime.Router] confined to the session's cwd, additional directories
// and configured roots, which sends each operation to the editor's
// fs/read_text_file or fs/write_text_file where advertised and to disk
// otherwise, with its own MCP server. A model reaches that server
// in-process, or over an [MCPServerEntry]: Streamable HTTP on a loopback
// listener shared by all sessions, or stdio through [Relay], which connects
// back over a unix socket in a private directory. Either way the request
// must carry the session's secret, which selects the session; no secret
// reaches another session's files or id.
//
// A Go ACP agent embeds a Bridge directly (see the example). [RunProxy] does
// the same for any ACP agent, run as a child process: it forwards every
// message between editor and agent unchanged but for request ids (each hop
// has its own, so the proxy's own fs requests to the editor never collide
// with the agent's) and the MCP server entry it adds to session/new, load,
// resume and fork. For agents it knows (profile.go), it also steers their
// model to the tools in sessions whose files go through the editor
// (steer.go, steer_launch.go), and it fills in the kind and locations of
// the agent's reports of calls to them (toolcall_update.go).
package bridge
