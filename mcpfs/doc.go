// Package mcpfs is the MCP file server: one session's files as MCP tools,
// resources and roots.
//
// [NewServer] builds an mcp-go server for a [Files]: reads, writes and
// edits of text go through the session's [fsruntime.FS], and so through
// the editor where it serves them; the other tools and the file://
// resources work on disk. A file failure is a tool result with isError set
// (errors.go), never a JSON-RPC error; a client's MCP roots only narrow
// what it may touch. [TransportOptions] serves it fastest with mcptransport.
package mcpfs
