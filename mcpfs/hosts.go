package mcpfs

import (
	"context"
	"strings"

	"github.com/mark3labs/mcp-go/server"
)

// A host is what the tools know of one MCP client's way of showing its
// model a tool result (docs/proxy.md, "What the model sees", has the
// measurements behind each entry).
type host struct {
	name string // a word of the clientInfo name, in lower case
	// page is the most a read without a limit returns, in bytes: under
	// the size at which the host cuts, spills or truncates a result.
	page int
	// numbers says that the host's own read numbers its lines, so its
	// model expects them.
	numbers bool
}

// hosts are the MCP clients whose limits were measured, by a word of the
// name they give at initialize.
var hosts = []host{
	// Claude Code 2.1.83 spills a result over 100,000 characters
	// (maxResultSizeChars) to a file the model cannot open without its
	// Read, and caps MCP output at 25,000 tokens (MAX_MCP_OUTPUT_TOKENS).
	// Its Read numbers lines.
	{name: "claude", page: 32 << 10, numbers: true},
	// codex keeps 48 KB of a result, as JSON: room for the escapes.
	{name: "codex", page: 24 << 10},
	// gemini cuts nothing; its own read_file shows 2,000 lines.
	{name: "gemini", page: 48 << 10},
	// opencode truncates a result after 50 KB or 2,000 lines.
	{name: "opencode", page: 40 << 10},
	// Copilot CLI spills a result somewhere between 14.5 KB and 28.3 KB.
	{name: "copilot", page: DefaultPageSize},
	// Qwen Code keeps 200 KB.
	{name: "qwen", page: 48 << 10},
}

// maxPageLines bounds a page in lines, as the native reads of Claude Code
// and gemini do.
const maxPageLines = 2000

// maxPageLine is the longest line a page shows whole; a longer one is cut,
// and the page says how to read it all.
const maxPageLine = 2000

// hostOf returns the host of the MCP client of ctx, or the zero host if it
// gave no name that hosts know.
func hostOf(ctx context.Context) host {
	s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo)
	if !ok {
		return host{}
	}
	name := strings.ToLower(s.GetClientInfo().Name)
	for _, h := range hosts {
		if strings.Contains(name, h.name) {
			return h
		}
	}
	return host{}
}

// page returns the page size of a read for the client host h: the
// configured one, or the host's; <= 0 means no page.
func (b *binding) page(h host) int {
	if b.tools.PageSize != 0 {
		return b.tools.PageSize
	}
	if h.page > 0 {
		return h.page
	}
	return DefaultPageSize
}

// numbered says whether a read for the client host h numbers its lines
// when the call does not say.
func (b *binding) numbered(h host) bool {
	switch b.tools.LineNumbers {
	case ToggleOn:
		return true
	case ToggleOff:
		return false
	}
	return h.numbers
}
