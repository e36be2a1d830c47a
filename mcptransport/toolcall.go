package mcptransport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcp-acpfs/mcp-acpfs/internal/lift"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
)

// Plain tool calls past mcp-go's request handling.
//
// mcp-go's HandleMessage costs about a third of the CPU of a small tool
// call: it decodes the message four times over (the envelope, the protocol
// _meta twice, the request), sets up tracing, logging and cancellation,
// and validates the arguments. The stream transports (stream.go) serve
// the tools/call requests of a server made by [NewServer] themselves when
// the call is a plain one, and leave every other call to HandleMessage:
//
//   - the request has no members but jsonrpc, id, method and params, each
//     once, and params has exactly "name" (a string) and "arguments" (an
//     object), each once: no _meta (progress tokens, trace context, the
//     protocol version of a stateless request), no task, no multi-round-trip
//     answers, and nothing encoding/json would read as one of those in
//     another case;
//   - the tool is registered with a raw input schema (every tool of
//     NewServer's is, see encodeInputSchemas) and runs synchronously;
//   - the arguments are valid against that schema, checked with the
//     validator and schema mcp-go uses, and hold no number beyond a
//     float64. An invalid call goes to mcp-go, which answers it exactly as
//     before (and the after-call hook rewrites its message).
//
// For such a call, HandleMessage would run the server's hooks, and
// NewServer's do nothing for it (beginSubscription acts on subscriptions,
// the after-call hook on validation failures), and the tool's handler
// under the server's middleware: recovery from a panic (done here the
// same way), log lines (the same ones here, at debug level, where
// NewServer lowers mcp-go's), and statelessRoots, which acts only on
// stateless requests (they carry _meta, so they go to mcp-go). The result
// and a handler's error are answered as HandleMessage answers them. The
// handler gets the arguments as mcp-go gives them: the raw bytes, and
// decoded with their numbers as float64s.
// Cancellation by notifications/cancelled is the transport's (conn.track),
// for every request. TestToolCallAnswersAsHandleMessage and
// FuzzPlainToolCall hold the two paths to the same answers.

// toolCalls serves the plain tool calls of one connection.
type toolCalls struct {
	mu      sync.RWMutex
	schemas map[string]compiledSchema // by tool name; guarded by mu
}

// compiledSchema is a tool's input schema, compiled.
type compiledSchema struct {
	raw    json.RawMessage // the tool's RawInputSchema, as compiled
	schema *jsonschema.Schema
}

// schemaFor returns the compiled input schema of tool, compiling it the
// first time and again whenever the tool's schema changed (a tool added
// anew under the same name), or nil if the tool has none or it does not
// compile, which mcp-go then deals with.
func (tc *toolCalls) schemaFor(tool *mcp.Tool) *jsonschema.Schema {
	raw := tool.RawInputSchema
	if len(raw) == 0 {
		return nil
	}
	tc.mu.RLock()
	cs, ok := tc.schemas[tool.Name]
	tc.mu.RUnlock()
	if ok && bytes.Equal(cs.raw, raw) {
		return cs.schema
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil
	}
	url := "mem:///mcp-acpfs/tools/" + tool.Name + "/input-schema.json"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		return nil
	}
	schema, err := c.Compile(url)
	if err != nil {
		return nil
	}
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if tc.schemas == nil {
		tc.schemas = make(map[string]compiledSchema)
	}
	tc.schemas[tool.Name] = compiledSchema{raw: raw, schema: schema}
	return schema
}

// plainToolCall returns the tool name and the arguments object of a
// tools/call request line, if it is a plain call: the line has no members
// but jsonrpc, id, method and params, each once, and params is an object
// with a "name" string and an "arguments" object, each once, and no other
// member. args lies in line.
func plainToolCall(line []byte) (name string, args []byte, ok bool) {
	w := lift.NewWalker(line)
	params := -1
	plain := true
	seen := 0
	w.Members(0, func(key []byte, v int) bool {
		bit := 0
		switch string(key) {
		case `"jsonrpc"`:
			bit = 1
		case `"id"`:
			bit = 2
		case `"method"`:
			bit = 4
		case `"params"`:
			bit, params = 8, v
		}
		// encoding/json matches member names without regard to case, and
		// the last of a name wins: any other member, or one twice, and
		// mcp-go may read the call otherwise.
		plain = bit != 0 && seen&bit == 0
		seen |= bit
		return plain
	})
	if !plain || params < 0 || line[params] != '{' {
		return "", nil, false
	}
	nameAt, argsAt := -1, -1
	w.Members(params, func(key []byte, v int) bool {
		switch {
		case string(key) == `"name"` && nameAt < 0:
			nameAt = v
		case string(key) == `"arguments"` && argsAt < 0:
			argsAt = v
		default:
			plain = false // anything else, or a member twice
		}
		return plain
	})
	if !plain || nameAt < 0 || argsAt < 0 || line[nameAt] != '"' || line[argsAt] != '{' {
		return "", nil, false
	}
	quoted := line[nameAt:w.Skip(nameAt)]
	if bytes.IndexByte(quoted, '\\') < 0 && utf8.Valid(quoted) {
		name = string(quoted[1 : len(quoted)-1])
	} else if json.Unmarshal(quoted, &name) != nil {
		return "", nil, false
	}
	return name, line[argsAt:w.Skip(argsAt)], true
}

// callTool serves the tools/call request line (its arguments lifted into
// ctx's lift.Table) if it is a plain call of a tool with a valid input,
// and returns the response line; ok is false when it is not one, and
// then nothing has run.
func (c *conn) callTool(ctx context.Context, id json.RawMessage, line []byte) (resp []byte, ok bool) {
	name, args, ok := plainToolCall(line)
	if !ok {
		return nil, false
	}
	tool := c.srv.GetTool(name)
	if tool == nil || tool.Handler == nil || tool.Tool.Execution != nil {
		return nil, false
	}
	schema := c.calls.schemaFor(&tool.Tool)
	if schema == nil {
		return nil, false
	}
	value, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil || schema.Validate(value) != nil {
		return nil, false
	}
	if value, ok = asFloat64s(value); !ok {
		return nil, false
	}

	req := mcp.CallToolRequest{
		Request: mcp.Request{Method: string(mcp.MethodToolsCall)},
		Params:  mcp.CallToolParams{Name: name, Arguments: value, RawArguments: args},
	}
	start := time.Now()
	result, err := runTool(ctx, tool.Handler, req)
	c.logToolCall(ctx, name, start, result, err)
	switch {
	case err != nil:
		return wire.ErrorResponse(id, mcp.INTERNAL_ERROR, err.Error(), nil), true
	case result == nil:
		return wire.ErrorResponse(id, mcp.INTERNAL_ERROR, "tool '"+name+"' returned no result", nil), true
	}
	body, err := encodeToolResult(result)
	if err != nil {
		return wire.ErrorResponse(id, wire.CodeInternalError, "the response could not be encoded: "+err.Error(), nil), true
	}
	resp = make([]byte, 0, len(`{"jsonrpc":"2.0","id":,"result":}`)+len(id)+len(body))
	resp = append(resp, `{"jsonrpc":"2.0","id":`...)
	resp = append(resp, id...)
	resp = append(resp, `,"result":`...)
	resp = append(resp, body...)
	return append(resp, '}'), true
}

// asFloat64s turns every number in v, arguments decoded with their numbers
// as json.Number, into the float64 encoding/json would have decoded, as
// mcp-go hands a handler its arguments (a handler that reads them with
// GetArguments, GetFloat and the like sees the same), and reports whether
// every number fits a float64: mcp-go refuses a call with one beyond.
// The numbers are converted after validation, which checks them exactly.
func asFloat64s(v any) (any, bool) {
	switch v := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		return f, err == nil
	case map[string]any:
		for k, e := range v {
			f, ok := asFloat64s(e)
			if !ok {
				return nil, false
			}
			v[k] = f
		}
	case []any:
		for i, e := range v {
			f, ok := asFloat64s(e)
			if !ok {
				return nil, false
			}
			v[i] = f
		}
	}
	return v, true
}

// encodeToolResult encodes a tool's result as its MarshalJSON does, but
// directly when it is of the shape this package's tools return (text
// content, structured content, isError): MarshalJSON puts every member in
// a map[string]any and has encoding/json encode it by reflection, a tenth
// of a small call's CPU. The members come in MarshalJSON's (sorted)
// order.
func encodeToolResult(r *mcp.CallToolResult) ([]byte, error) {
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

// logToolCall logs a plain tool call as mcp-go logs the calls it serves
// (its request and tool lines, with the same keys), at debug level, where
// NewServer's logger puts mcp-go's.
func (c *conn) logToolCall(ctx context.Context, name string, start time.Time, result *mcp.CallToolResult, err error) {
	if !c.log.Enabled(ctx, slog.LevelDebug) {
		return
	}
	seconds := slog.Float64("duration_s", time.Since(start).Seconds())
	tool := []slog.Attr{slog.String("mcp.tool.name", name), seconds}
	request := []slog.Attr{slog.String("mcp.method", string(mcp.MethodToolsCall)), slog.String("mcp.session.id", c.sess.id), seconds}
	switch {
	case err != nil:
		tool = append(tool, slog.String("outcome", "error"), slog.String("error", err.Error()))
		request = append(request, slog.String("outcome", "error"), slog.String("error", err.Error()))
	case result == nil:
		tool = append(tool, slog.String("outcome", "ok"))
		request = append(request, slog.String("outcome", "error"), slog.String("error", "no result"))
	case result.IsError:
		tool = append(tool, slog.String("outcome", "error_result"))
		request = append(request, slog.String("outcome", "ok"))
	default:
		tool = append(tool, slog.String("outcome", "ok"))
		request = append(request, slog.String("outcome", "ok"))
	}
	c.log.LogAttrs(ctx, slog.LevelDebug, "mcp.tool", tool...)
	c.log.LogAttrs(ctx, slog.LevelDebug, "mcp.request", request...)
}

// runTool runs a tool's handler, turning a panic into the error that
// mcp-go's WithRecovery makes of it.
func runTool(ctx context.Context, handler server.ToolHandlerFunc, req mcp.CallToolRequest) (result *mcp.CallToolResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			result, err = nil, fmt.Errorf("panic recovered in %s tool handler: %v", req.Params.Name, r)
		}
	}()
	return handler(ctx, req)
}
