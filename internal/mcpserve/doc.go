// Package mcpserve is what an MCP server's handlers and the transports that
// serve it agree on, and what both rely on of mcp-go's exact behaviour.
//
// [Options] are the transport options a server asks for; [ReportError]
// records the JSON-RPC error a handler's request must get, which the
// transport puts in; [CallStreamFrom] gives the stream a handler may ask the
// client's roots on. mcpgo.go holds every assumption about mcp-go v1.2.1,
// and its tests hold them to mcp-go.
package mcpserve
