// Package mcpserve is the contract between an MCP server's handlers and
// the transports that serve it: the transport options a server asks for,
// the JSON-RPC error a handler reports for its request, the call stream a
// handler may ask the client's roots on, and the log level of mcp-go's
// per-request lines.
package mcpserve
