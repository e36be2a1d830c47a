// Package mcptransport serves an MCP server over stdio, any byte stream,
// and loopback Streamable HTTP.
//
// [ServeStdio] and [ServeStream] speak newline-delimited JSON-RPC, handle
// requests concurrently and notifications in order, and answer a message
// over the size limit instead of dropping it. [NewHTTPHandler] puts
// mcp-go's Streamable HTTP behind [GuardHTTP], a body limit and bounded
// sessions. The transport knows nothing of files: what a server's
// handlers support (lifted strings, plain tool calls served past mcp-go,
// its message limit) comes in [Options].
package mcptransport
