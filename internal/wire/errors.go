package wire

import (
	"encoding/json"
	"fmt"
)

// JSON-RPC 2.0 and ACP error codes (ErrorCode in ACP's schema/v1/schema.json).
// They are untyped, so they fit jsonrpc2.Error.Code and ErrorObject.Code
// alike.
const (
	// CodeParseError: the line is not valid JSON.
	CodeParseError = -32700
	// CodeInvalidRequest: the JSON is not a valid request object.
	CodeInvalidRequest = -32600
	// CodeMethodNotFound: also the answer to unknown "_" extension requests.
	CodeMethodNotFound = -32601
	// CodeInvalidParams: for example a read starting past the end of a file.
	CodeInvalidParams = -32602
	// CodeInternalError: details go in data.
	CodeInternalError = -32603
	// CodeRequestCancelled answers a request aborted by $/cancel_request or
	// cancelled internally.
	CodeRequestCancelled = -32800
	// CodeAuthRequired: authentication is needed first (e.g. before
	// session/new).
	CodeAuthRequired = -32000
	// CodeResourceNotFound: a resource such as a file was not found; ACP
	// puts {"uri": path} in data, and clients match the message
	// "Resource not found".
	CodeResourceNotFound = -32002

	// MCP over ACP's binding errors (McpBindingErrorCode in ACP's
	// schema/v1/schema.unstable.json), for the outer mcp/message request.

	// CodeBindingLimit: too many inner requests active (resourceLimitExceeded).
	CodeBindingLimit = -33000
	// CodeServerUnavailable: no such serverId, or its server is gone.
	CodeServerUnavailable = -33001
	// CodeBackendFailed: the server gave no valid answer.
	CodeBackendFailed = -33002

	// CodeUnsupportedVersion is MCP's error for a protocol version the
	// server does not serve.
	CodeUnsupportedVersion = -32022
)

// An ErrorObject is the "error" member of a failed JSON-RPC response.
type ErrorObject struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error implements error.
func (e *ErrorObject) Error() string {
	return fmt.Sprintf("jsonrpc2 error %d: %s", e.Code, e.Message)
}

// ErrorResponse returns a compact response line (without newline),
// {"jsonrpc":"2.0","id":<id>,"error":{"code","message","data"}}, that
// answers the request with the given id. id is used verbatim (compacted);
// nil, or anything that is not a JSON string, number or null, becomes null,
// as JSON-RPC prescribes. data is marshalled with encoding/json (a
// json.RawMessage as is) and left out when nil; if it cannot be marshalled,
// the error's text becomes the data, so the line is always well formed.
func ErrorResponse(id json.RawMessage, code int64, message string, data any) []byte {
	var resp struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   ErrorObject     `json:"error"`
	}
	resp.JSONRPC = "2.0"
	resp.ID = json.RawMessage("null")
	if id != nil {
		if v, err := scanScalarID(id); err == nil {
			resp.ID = v
		}
	}
	resp.Error = ErrorObject{Code: code, Message: message}
	if data != nil {
		b, err := json.Marshal(data)
		if err != nil {
			b, _ = json.Marshal("wire: cannot marshal error data: " + err.Error())
		}
		resp.Error.Data = b
	}
	b, err := json.Marshal(resp)
	if err != nil { // cannot happen: every part is valid JSON by now
		panic("wire: ErrorResponse: " + err.Error())
	}
	return b
}
