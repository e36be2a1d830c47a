package mcpserve

import (
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
)

// OverlongToolResult is the answer to a call of tool whose message, of
// size bytes, was over the limit on one message: a tool error that names
// the tool and the sizes, since the call is too long because of its
// arguments, and the model that made it should learn so.
func OverlongToolResult(tool string, size int64, limit int) *mcp.CallToolResult {
	return mcp.NewToolResultError(fmt.Sprintf("%s: the call of %s exceeds the %s limit on one message, and was not carried out; send less content",
		tool, fsruntime.FormatSize(size), fsruntime.FormatSize(int64(limit))))
}
