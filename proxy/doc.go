// Package proxy stands between an ACP editor and an ACP agent run as a
// child process, and gives every session of the agent the file tools.
//
// [RunProxy] forwards every message between editor and agent unchanged
// but for request ids (each hop numbers its own, so the proxy's fs requests
// never collide with the agent's) and the MCP server entry it adds to
// session/new, load, resume and fork; the sessions are a [bridge.Bridge]'s.
// For agents it knows (profile.go) it also steers their model to the tools
// in sessions whose files go through the editor (steer*.go), and fills in
// the kind and locations of the agent's reports of calls to them
// (toolcall_update.go). It answers the agent's mcp/message requests for
// sessions whose server it gave over ACP itself (mcpacp.go), and on the
// ACP v2 draft adds only the entry, in v2's shape (acpv2.go). For an agent
// that keeps one MCP server per directory (opencode), the sessions of a
// directory share one http entry, whose server gives each tool call to the
// session there that is prompting (shared_registry.go).
//
// # MCP over ACP
//
// A session whose agent advertised mcpCapabilities.acp gets the entry
// {type:"acp", name, serverId}, with a serverId of its own that no one can
// guess, and no endpoint is opened for it. The agent sends the inner MCP
// requests as mcp/message requests to the proxy, which answers those for
// its serverIds itself: each goes, with the caller's requestId as its id,
// to the session's MCP server served by [bridge.Session.ServeStream] (the
// transport of every stream, so the same tools, roots, limits, fast path
// and lifting), started at the first message. The inner protocol is MCP 2026-07-28 only,
// whose requests each carry their version and the client's capabilities
// in _meta (checked here as the SDK's Provider checks them).
//
// The outer result is {result} or {error}, the inner outcome. Outer errors
// are the binding's own: -32602 (bad envelope, a requestId already active),
// -33000 (too many active), -33001 (the session is closed), -32800 (the
// agent cancelled it with $/cancel_request, which cancels the inner
// request), -33002 (no valid answer). A notification the server sends for
// an active request (progress by its token, a subscription's by its id) goes
// to the agent as an mcp/message notification before the request's answer,
// since the server writes it first. An mcp/message for a serverId that is
// not the proxy's goes on to the editor like any other request.
//
// # Protocol versions
//
// The editor's initialize passes to the agent as it is, but for a version
// newer than any known here (capabilities.LatestProtocol), which is lowered
// to that: the proxy never has the two peers agree on a version it does not
// speak. The agent's answer passes back unchanged, and its protocolVersion
// is the version of the connection:
//
//   - 1 (or none): what the proxy always did. The session entry goes on the
//     transport --mcp-transport asks for: acp, http or stdio.
//   - 2, the draft without fs/*: the files are on disk (the editor serves no
//     fs), the entry goes in v2's shape ({type:"stdio"} included) on a
//     transport the agent advertised in capabilities.session.mcp, and every
//     other message passes as it is: no steering, no tool call fill-in.
//   - any other: the proxy adds nothing and changes nothing.
package proxy
