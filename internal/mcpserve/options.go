package mcpserve

import (
	"log/slog"
	"math"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/internal/lift"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
)

// Options configure how a transport serves an MCP server. The zero value
// serves any mcp-go server as mcp-go would; a server built for it (such as
// mcpfs's) turns on what its handlers support.
type Options struct {
	// Logger receives the transport's log lines; nil discards them.
	Logger *slog.Logger

	// MaxMessage bounds one message, in bytes; zero means
	// wire.DefaultMaxLineSize. See [MessageLimit].
	MaxMessage int

	// Lift names the large string arguments that stream transports lift
	// out of tool calls, and turns on the splicing of large result texts
	// (package lift). The handlers of those tools must put the arguments
	// back with lift.Unlift. nil lifts nothing.
	Lift lift.Arguments

	// PlainCalls has stream transports serve plain tool calls themselves,
	// past mcp-go's HandleMessage. Only for a server whose
	// hooks and tool middleware do nothing for such a call.
	PlainCalls bool
}

// MessageLimit is the longest MCP or ACP message, in bytes, that the
// transports of a session with the file size limit maxFileSize accept
// (zero or less means fsruntime.DefaultMaxFileSize): six times the limit
// and 1 MiB, so that a write or a read of a file at the limit fits however
// much of it JSON escapes (a control character becomes \u00XX, six bytes
// for one), and never less than wire.DefaultMaxLineSize.
func MessageLimit(maxFileSize int64) int {
	if maxFileSize <= 0 {
		maxFileSize = fsruntime.DefaultMaxFileSize
	}
	const most = math.MaxInt / 8
	if maxFileSize > most {
		maxFileSize = most
	}
	return max(wire.DefaultMaxLineSize, int(maxEscape*maxFileSize)+1<<20)
}

// maxEscape is the most bytes JSON can take for a byte of text: \u00XX.
const maxEscape = 6
