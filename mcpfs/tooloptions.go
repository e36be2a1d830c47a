package mcpfs

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// ToolOptions shape what the tools offer a model and what they give it
// back. The zero value is what a model is served best by: text results
// only, reads in pages sized for the host, line numbers where the host's
// model expects them, and the read guard on.
type ToolOptions struct {
	// Only, if not nil, lists the tools offered, by name; the others are
	// left out. The writing tools stay out of a read-only session.
	Only []string

	// StructuredContent declares each tool's output schema and returns
	// its structured result beside the text, for programs that read the
	// fields. Hosts that show a model the structured result drop the text
	// then (see docs/proxy.md, "What the model sees"), so it is off by
	// default.
	StructuredContent bool

	// PageSize bounds, in bytes, what read_text_file returns without an
	// explicit limit; the rest is left for a later read, and the result
	// says where to go on. Zero sizes the page for the MCP client, by its
	// clientInfo (DefaultPageSize for a client not known); a negative
	// value reads to the end of the file.
	PageSize int

	// LineNumbers says whether read_text_file numbers the lines it
	// returns when the call does not say: on, off, or auto, for the
	// host's habit (its clientInfo).
	LineNumbers Toggle

	// NoReadGuard lets write_text_file and edit_text_file change a file
	// the session has not read, or that changed since it last did. By
	// default they refuse (see docs/tools.md, "Guards").
	NoReadGuard bool
}

// DefaultPageSize is the page of a read for an MCP client whose limits are
// not known: under the smallest limit on one tool result among the hosts
// measured (Copilot CLI's, about 14 KB).
const DefaultPageSize = 12 << 10

// A Toggle is on, off, or auto: decided case by case. The zero value is
// ToggleAuto.
type Toggle int

const (
	ToggleAuto Toggle = iota
	ToggleOn
	ToggleOff
)

// String returns "auto", "on" or "off".
func (t Toggle) String() string {
	switch t {
	case ToggleAuto:
		return "auto"
	case ToggleOn:
		return "on"
	case ToggleOff:
		return "off"
	}
	return fmt.Sprintf("Toggle(%d)", int(t))
}

// MarshalText returns the name, so a Toggle works with flag.TextVar.
func (t Toggle) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText accepts "auto", "on" or "off".
func (t *Toggle) UnmarshalText(b []byte) error {
	switch string(b) {
	case "auto":
		*t = ToggleAuto
	case "on":
		*t = ToggleOn
	case "off":
		*t = ToggleOff
	default:
		return fmt.Errorf("invalid value %q: want auto, on or off", b)
	}
	return nil
}

// ToolNames lists the names of every tool a session can have, the writing ones
// included.
var ToolNames = []string{
	ReadTextFile, ReadMediaFile, WriteTextFile, EditTextFile,
	GetFileInfo, ListDirectory, DirectoryTree, Glob, Grep,
	CreateDirectory, MoveFile, DeleteFile,
}

// check reports a name in Only that is no tool.
func (o ToolOptions) check() error {
	for _, name := range o.Only {
		if !slices.Contains(ToolNames, name) {
			return fmt.Errorf("mcpfs: ToolOptions.Only: %q is not a tool (the tools are %s)", name, strings.Join(ToolNames, ", "))
		}
	}
	return nil
}

// offers reports whether the session offers the tool name, as far as Only
// decides.
func (o ToolOptions) offers(name string) bool {
	return o.Only == nil || slices.Contains(o.Only, name)
}

// shapeTools applies b.tools to the tools registered: those that Only
// leaves out go, and without StructuredContent each tool loses its output
// schema and its results their structured content, which the hosts that
// show it show instead of the text.
func (b *binding) shapeTools() {
	for name, st := range b.srv.ListTools() {
		if !b.tools.offers(name) {
			b.srv.DeleteTools(name)
			continue
		}
		if b.tools.StructuredContent {
			continue
		}
		tool, handle := st.Tool, st.Handler
		tool.OutputSchema = mcp.ToolOutputSchema{}
		tool.RawOutputSchema = nil
		b.srv.AddTool(tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := handle(ctx, req)
			if res != nil {
				res.StructuredContent = nil
			}
			return res, err
		})
	}
}
