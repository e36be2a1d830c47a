// Package mcptest has the helpers that the tests of several packages
// share: initialized MCP clients, fake file systems, test texts and call
// lines, JSON comparison, and Signal, a wait on events that replaces
// polling. It imports none of the module's packages, so any test may.
package mcptest
