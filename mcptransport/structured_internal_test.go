package mcptransport

import "github.com/mcp-acpfs/mcp-acpfs/mcpfs"

// structuredTools are mcpfstest.Structured, which these tests cannot
// import (it imports this package).
var structuredTools = mcpfs.ToolOptions{StructuredContent: true, PageSize: -1}
