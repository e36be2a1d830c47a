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
// ACP v2 draft adds only the entry, in v2's shape (acpv2.go).
package proxy
