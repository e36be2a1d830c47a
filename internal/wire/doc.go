// Package wire is the newline-delimited JSON-RPC 2.0 codec of the ACP
// hops (editor ↔ mcp-acpfs ↔ agent) and the MCP stream transport.
//
// A [Reader] splits the input into lines and parses each envelope into a
// [Message] that keeps the original bytes, so a proxy forwards a message
// verbatim and decodes only what it needs; a malformed line is logged and
// skipped, an overlong one reported ([OverlongError]) so that it can still
// be answered. [SetID] rewrites ids by splicing bytes, [Writer] writes whole
// lines, [ErrorResponse] and the Code table build error replies, and
// [ObjectStream] adapts all this to sourcegraph/jsonrpc2. DESIGN.md says why.
package wire
