// Package realagents runs the real ACP agents behind the built
// `mcp-acpfs proxy`, each against a scripted model server on loopback
// (package internal/modelserver) that speaks its model API, with
// internal/fakeeditor as the editor, whose unsaved buffers differ from the
// disk: codex-acp (OpenAI Responses), gemini-cli --acp (Gemini
// generateContent) and claude-agent-acp (Anthropic Messages), and opencode,
// Copilot CLI and Qwen Code (OpenAI Chat Completions), pinned in
// package.json.
//
// The scripted model reads a file through the acpfs tools, writes it, and
// ends its turn. The tests check what the model was offered (its tools,
// against those the agent offers without the proxy, and its instructions),
// what it got back (the editor's buffer, not the disk), where the write
// landed (the editor), what the editor was told about the tool calls (kind
// and locations filled in, nothing else changed, in the shapes recorded in
// testdata), and that no process or file of a run is left behind.
//
// TestModelView, for all six agents, checks what the model receives from
// the tools as the agent hands it on: a file's exact text, an image, a big
// file as one page under the agent's limits that says where to go on, and
// writes that the read guard refuses.
//
// They need node_modules here (`npm ci --no-audit --no-fund`, linux-x64
// only; it brings Node 22). Without it they skip, unless
// MCP_ACPFS_REQUIRE_NODE=1 is set, which makes them fail instead. No API
// key and no network beyond loopback are used.
package realagents
