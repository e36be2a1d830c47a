// Package bridge is the MCP side of mcp-acpfs: it serves one session's files
// to a model as MCP tools.
//
// [NewServer] builds an mcp-go server for a [Files] with two tools,
// read_text_file and write_text_file (the latter left out for a read-only
// session). Tool arguments are checked against their input schemas by
// mcp-go; relative paths resolve against the session's working directory
// with [runtime.Abs]; the reads and writes go to the session's
// [runtime.FS]. A file failure is an MCP tool result with isError set, never
// a JSON-RPC error; errors.go is the one place that turns Go errors into
// tool results.
//
// MCP roots can only narrow what a session may touch: when a client
// (protocol 2025-11-25 and earlier) declares the roots capability, the
// server asks for its roots after the handshake and whenever they change,
// and confines that client's tool calls to the intersection of the client's
// roots and the session's own (see [Files.Narrow]).
//
// [ServeStdio] serves a server on a pair of streams, answering the requests
// in flight before it returns at the end of its input. [GuardHTTP] protects
// a loopback HTTP endpoint against DNS rebinding and cross-origin requests
// and checks a bearer token; [NewHTTPHandler] puts it in front of mcp-go's
// Streamable HTTP transport.
package bridge
