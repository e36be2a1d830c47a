package mcpfs

// structuredTools are mcpfstest.Structured, which these tests cannot
// import (it imports this package).
var structuredTools = ToolOptions{StructuredContent: true, PageSize: -1}
