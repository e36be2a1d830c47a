package mcptransport

import (
	"encoding/json"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpserve"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
)

// overlongToolAnswer returns the answer to over, a tools/call request too
// long to read: a tool error that names the tool and the sizes, since the
// call is too long because of its arguments, and the model that made it
// should learn so; a JSON-RPC error if that cannot be encoded.
func overlongToolAnswer(over *wire.OverlongError) []byte {
	line, err := json.Marshal(mcp.JSONRPCResponse{
		JSONRPC: mcp.JSONRPC_VERSION,
		ID:      requestID(over.ID),
		Result:  mcpserve.OverlongToolResult(over.Tool, over.Len, over.Max),
	})
	if err != nil {
		return wire.ErrorResponse(over.ID, wire.CodeInvalidRequest, over.Error(), nil)
	}
	return line
}

// An overlongCall fails the read of a request body that is one tools/call
// request over the limit, read to its end without being kept. The session
// gate answers it, once the request's session is checked, as the stdio
// transport answers such a line.
type overlongCall struct {
	over *wire.OverlongError
}

func (e *overlongCall) Error() string { return e.over.Error() }

// answer writes the tool error that answers the call.
func (e *overlongCall) answer(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(overlongToolAnswer(e.over))
}
