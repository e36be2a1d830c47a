module github.com/mcp-acpfs/mcp-acpfs

go 1.26

require (
	github.com/mark3labs/mcp-go v1.2.1 // indirect
	github.com/sourcegraph/jsonrpc2 v0.2.3 // indirect
)
