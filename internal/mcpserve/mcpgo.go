package mcpserve

// What this module relies on of mcp-go v1.2.1's exact behaviour, in one
// place: the plain-call path (mcptransport's toolcall.go) answers as
// HandleMessage would, the file server rewrites mcp-go's validation
// messages, and the transports give mcp-go's errors their codes. Each
// assumption is checked against mcp-go itself by mcpgo_test.go, which
// fails when an upgrade changes one: update this file to match.

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-acpfs/mcp-acpfs/internal/lift"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
)

// ValidationPrefix starts the text of mcp-go's result for arguments that
// fail a tool's input schema; what follows is the validator's error kinds,
// printed with %+v.
const ValidationPrefix = "input schema validation failed"

// NoResultMessage is mcp-go's error message for a tool handler that
// returned neither a result nor an error.
func NoResultMessage(tool string) string { return "tool '" + tool + "' handler returned no result" }

// RunTool runs a tool's handler, turning a panic into the error that
// mcp-go's WithRecovery makes of it (a *toolPanic).
func RunTool(ctx context.Context, handler server.ToolHandlerFunc, req mcp.CallToolRequest) (result *mcp.CallToolResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			result, err = nil, &toolPanic{fmt.Sprintf("panic recovered in %s tool handler: %v", req.Params.Name, r)}
		}
	}()
	return handler(ctx, req)
}

// A toolPanic is a handler's panic, recovered.
type toolPanic struct{ msg string }

func (p *toolPanic) Error() string { return p.msg }

// LogToolCall logs a plain tool call as mcp-go logs the calls it serves
// (its request and tool lines, with the same keys), at debug level, where
// the file server's logger puts mcp-go's. A panic unwinds past mcp-go's
// tool line, so RunTool's panic error gets only the request line.
func LogToolCall(ctx context.Context, log *slog.Logger, session, name string, start time.Time, result *mcp.CallToolResult, err error) {
	if !log.Enabled(ctx, slog.LevelDebug) {
		return
	}
	seconds := slog.Float64("duration_s", time.Since(start).Seconds())
	tool := []slog.Attr{slog.String("mcp.tool.name", name), seconds}
	request := []slog.Attr{slog.String("mcp.method", string(mcp.MethodToolsCall)), slog.String("mcp.session.id", session), seconds}
	switch {
	case err != nil:
		tool = append(tool, slog.String("outcome", "error"), slog.String("error", err.Error()))
		request = append(request, slog.String("outcome", "error"), slog.String("error", err.Error()))
	case result == nil:
		tool = append(tool, slog.String("outcome", "ok"))
		request = append(request, slog.String("outcome", "error"), slog.String("error", NoResultMessage(name)))
	case result.IsError:
		tool = append(tool, slog.String("outcome", "error_result"))
		request = append(request, slog.String("outcome", "ok"))
	default:
		tool = append(tool, slog.String("outcome", "ok"))
		request = append(request, slog.String("outcome", "ok"))
	}
	if _, panicked := err.(*toolPanic); !panicked {
		log.LogAttrs(ctx, slog.LevelDebug, "mcp.tool", tool...)
	}
	log.LogAttrs(ctx, slog.LevelDebug, "mcp.request", request...)
}

// AsFloat64s turns every number in v, arguments decoded with their numbers
// as json.Number, into the float64 encoding/json would have decoded, as
// mcp-go hands a handler its arguments (a handler that reads them with
// GetArguments, GetFloat and the like sees the same), and reports whether
// every number fits a float64: mcp-go refuses a call with one beyond.
// The numbers are converted after validation, which checks them exactly.
func AsFloat64s(v any) (any, bool) {
	switch v := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		return f, err == nil
	case map[string]any:
		for k, e := range v {
			f, ok := AsFloat64s(e)
			if !ok {
				return nil, false
			}
			v[k] = f
		}
	case []any:
		for i, e := range v {
			f, ok := AsFloat64s(e)
			if !ok {
				return nil, false
			}
			v[i] = f
		}
	}
	return v, true
}

// EncodeToolResult encodes a tool's result as its MarshalJSON does, but
// directly when it is of the shape this package's tools return (text
// content, structured content, isError): MarshalJSON puts every member in
// a map[string]any and has encoding/json encode it by reflection, a tenth
// of a small call's CPU. The members come in MarshalJSON's (sorted)
// order.
func EncodeToolResult(r *mcp.CallToolResult) ([]byte, error) {
	if r.Meta != nil || r.ResultType != "" || len(r.InputRequests) > 0 || r.RequestState != "" {
		return r.MarshalJSON()
	}
	b := make([]byte, 0, 256)
	b = append(b, `{"content":[`...)
	var err error
	for i, c := range r.Content {
		tc, ok := c.(mcp.TextContent)
		if !ok || tc.Annotations != nil || tc.Meta != nil || tc.Type != "text" {
			return r.MarshalJSON()
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":"text","text":`...)
		if b, err = lift.QuoteJSON(b, tc.Text); err != nil {
			return nil, err
		}
		b = append(b, '}')
	}
	b = append(b, ']')
	if r.IsError {
		b = append(b, `,"isError":true`...)
	}
	switch {
	case len(r.RawStructuredContent) > 0:
		b = append(b, `,"structuredContent":`...)
		b = append(b, r.RawStructuredContent...)
	case r.StructuredContent != nil:
		sc, err := json.Marshal(r.StructuredContent)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"structuredContent":`...)
		b = append(b, sc...)
	}
	return append(b, '}'), nil
}

// EncodeMessage encodes a message from srv.HandleMessage as one line. The
// response to a tool call is put together from its parts: json.Marshal of
// the whole would validate and re-compact, byte by byte, the result that
// mcp.CallToolResult's MarshalJSON (itself json.Marshal) has just encoded.
func EncodeMessage(msg mcp.JSONRPCMessage) ([]byte, error) {
	resp, ok := msg.(mcp.JSONRPCResponse)
	if !ok {
		return json.Marshal(msg)
	}
	var result []byte
	var err error
	switch r := resp.Result.(type) {
	case *mcp.CallToolResult:
		result, err = r.MarshalJSON()
	case mcp.CallToolResult:
		result, err = r.MarshalJSON()
	default:
		return json.Marshal(msg)
	}
	if err != nil {
		return nil, err
	}
	id, err := json.Marshal(resp.ID)
	if err != nil {
		return nil, err
	}
	line := make([]byte, 0, len(`{"jsonrpc":"2.0","id":,"result":}`)+len(id)+len(result))
	line = append(line, `{"jsonrpc":"2.0","id":`...)
	line = append(line, id...)
	line = append(line, `,"result":`...)
	line = append(line, result...)
	return append(line, '}'), nil
}

// The errors of resource requests. mcp-go answers every error of a
// resource handler with -32603 (internal), every error of an
// OnRequestInitialization hook with -32600, and its own "no resource
// matches this URI" without data; a handler reports the code its error
// must carry (ReportError), and the transport puts it in (FixError).

// FixedMethod reports whether errors of method may need fixing.
func FixedMethod(method string) bool {
	switch mcp.MCPMethod(method) {
	case mcp.MethodResourcesRead, mcp.MethodResourcesSubscribe, mcp.MethodSubscriptionsListen:
		return true
	}
	return false
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
		e.Code != wire.CodeResourceNotFound && e.Code != wire.CodeInvalidParams {
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

// LowerInfo returns a slog handler that logs h's info records at debug
// level: mcp-go logs every request at info, too chatty for an info log.
func LowerInfo(h slog.Handler) slog.Handler { return lowerInfo{h} }

// lowerInfo is a slog handler that logs info records at debug level: mcp-go
// logs every request at info, which is too chatty for an info log.
type lowerInfo struct{ slog.Handler }

func (h lowerInfo) Enabled(ctx context.Context, l slog.Level) bool {
	return h.Handler.Enabled(ctx, lower(l))
}

func (h lowerInfo) Handle(ctx context.Context, r slog.Record) error {
	r.Level = lower(r.Level)
	return h.Handler.Handle(ctx, r)
}

func (h lowerInfo) WithAttrs(as []slog.Attr) slog.Handler { return lowerInfo{h.Handler.WithAttrs(as)} }
func (h lowerInfo) WithGroup(name string) slog.Handler    { return lowerInfo{h.Handler.WithGroup(name)} }

func lower(l slog.Level) slog.Level {
	if l == slog.LevelInfo {
		return slog.LevelDebug
	}
	return l
}
