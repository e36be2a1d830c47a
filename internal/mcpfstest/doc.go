// Package mcpfstest has the fixtures that the tests of mcpfs and
// mcptransport share: a file server on a temporary directory, and MCP
// clients connected to it in process or over stdio.
package mcpfstest
