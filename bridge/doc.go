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
// it. Package proxy does the same for any ACP agent, run as a child.
package bridge
