package main

import "github.com/mcp-acpfs/mcp-acpfs/mcpfs"

// The clientInfo names the hosts send in the MCP initialize request, which
// the server may size its pages and number its lines by. Copilot's and
// Qwen's are not confirmed.
const (
	clientClaude   = "claude-code"
	clientCodex    = "codex-mcp-client"
	clientGemini   = "gemini-cli-mcp-client"
	clientOpenCode = "opencode"
	clientCopilot  = "github-copilot-developer" // unconfirmed
	clientQwen     = "qwen-code-mcp-client"     // unconfirmed

	// clientNeutral names no host.
	clientNeutral = "mcp-acpfs-modelview"
)

// A Host is an agent whose model view is measured.
type Host struct {
	Name   string   // as the table's column shows it
	Client string   // its clientInfo name
	Render Renderer // its rule
	// Tools are the acpfs tools its profile in the proxy offers (see
	// proxy/profile.go), for the definitions' row; nil means all of them.
	Tools []string
}

// hosts are the six, in the table's order.
var hosts = []Host{
	{Name: "claude", Client: clientClaude, Render: Claude,
		Tools: []string{mcpfs.ReadTextFile, mcpfs.ReadMediaFile, mcpfs.WriteTextFile, mcpfs.EditTextFile}},
	{Name: "codex", Client: clientCodex, Render: Codex,
		Tools: []string{mcpfs.ReadTextFile, mcpfs.WriteTextFile, mcpfs.EditTextFile}},
	{Name: "gemini", Client: clientGemini, Render: Gemini,
		Tools: []string{mcpfs.ReadTextFile, mcpfs.ReadMediaFile}},
	{Name: "opencode", Client: clientOpenCode, Render: OpenCode},
	{Name: "Copilot", Client: clientCopilot, Render: Copilot},
	{Name: "Qwen", Client: clientQwen, Render: Qwen},
}
