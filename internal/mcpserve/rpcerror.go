package mcpserve

import (
	"context"
	"encoding/json"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
)

// JSON-RPC errors with the code and data their cause calls for.
//
// mcp-go v1.2.1 answers every error of a resource handler with -32603
// (internal), and every error of an OnRequestInitialization hook with
// -32600, and its own "no resource matches this URI" without data. The
// handler and hook say what the code must be (ReportError) into a slot
// in the request's context, and the transports (stream.go, httpsession.go)
// put it into mcp-go's error response (FixError).

// rpcFix is the code and data that the error of a request must carry.
type rpcFix struct {
	code int
	data any
}

// An ErrorSlot holds the fix of one request's error.
type ErrorSlot struct{ fix atomic.Pointer[rpcFix] }

// Code returns the code reported into s, if one was.
func (s *ErrorSlot) Code() (int, bool) {
	if fix := s.fix.Load(); fix != nil {
		return fix.code, true
	}
	return 0, false
}

type ErrorSlotKey struct{}

// FixedMethod reports whether errors of method may need fixing.
func FixedMethod(method string) bool {
	switch mcp.MCPMethod(method) {
	case mcp.MethodResourcesRead, mcp.MethodResourcesSubscribe, mcp.MethodSubscriptionsListen:
		return true
	}
	return false
}

// WithErrorSlot returns ctx with a new slot for the fix of its error.
func WithErrorSlot(ctx context.Context) (context.Context, *ErrorSlot) {
	s := &ErrorSlot{}
	return context.WithValue(ctx, ErrorSlotKey{}, s), s
}

// ReportError records, for the request of ctx, that its error err must
// carry code and data; it returns err.
func ReportError(ctx context.Context, code int, data any, err error) error {
	if s, ok := ctx.Value(ErrorSlotKey{}).(*ErrorSlot); ok {
		s.fix.Store(&rpcFix{code: code, data: data})
	}
	return err
}

// FixError puts the fix of slot (nil: none) into e, mcp-go's error
// response to a request of method whose raw message is raw, and reports
// whether it changed e. A resources/read that no resource matched gets
// its URI as data too.
func FixError(e *mcp.JSONRPCErrorDetails, slot *ErrorSlot, method string, raw []byte) bool {
	if slot != nil {
		if fix := slot.fix.Load(); fix != nil {
			e.Code, e.Data = fix.code, fix.data
			return true
		}
	}
	if mcp.MCPMethod(method) != mcp.MethodResourcesRead || e.Data != nil ||
		e.Code != mcp.RESOURCE_NOT_FOUND && e.Code != mcp.INVALID_PARAMS {
		return false
	}
	var req struct {
		Params struct {
			URI *string `json:"uri"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &req) != nil || req.Params.URI == nil {
		return false
	}
	e.Data = map[string]any{"uri": *req.Params.URI}
	return true
}
