// Package bridge gives every session of an ACP agent the MCP file tools:
// the API a Go agent embeds.
//
// A [Bridge] holds the connection to the editor and what the editor
// advertised at initialize. For each ACP session it opens a [Session]: a
// [fsruntime.Router] confined to the session's cwd, additional
// directories and configured roots, which sends each operation to the
// editor's fs methods where advertised and to disk otherwise, with its own
// MCP server (package mcpfs). A model reaches that server in process
// ([Session.MCPServer]) or over an [MCPServerEntry]: Streamable HTTP on a
// loopback listener shared by all sessions, or stdio through [Relay], which
// connects back over a unix socket in a private directory. Either way the
// request carries the session's secret, which selects the session; no
// secret reaches another session's files.
//
// Package proxy does the same for any ACP agent, run as a child process.
package bridge
