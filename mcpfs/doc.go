// Package mcpfs is the MCP file server: one session's files as MCP tools,
// resources and roots.
//
// [NewServer] builds an mcp-go server for a [Files]: read_text_file,
// write_text_file and edit_text_file go through the session's
// [fsruntime.FS], and so through the editor where it serves them; the
// other tools (read_media_file, get_file_info, list_directory,
// directory_tree, create_directory, move_file, delete_file, glob, grep)
// and the file:// resources work on disk. A read-only session has no tool
// that changes files. A file failure is a tool result with isError set
// (errors.go), never a JSON-RPC error. A client's MCP roots only narrow
// what it may touch (roots.go). [TransportOptions] says how package
// mcptransport serves the server fastest.
package mcpfs
