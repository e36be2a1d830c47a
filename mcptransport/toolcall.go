package mcptransport

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcp-acpfs/mcp-acpfs/internal/lift"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpserve"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
)

// toolCalls serves the plain tool calls of one connection: those that
// HandleMessage would answer the same way, which DESIGN.md lists.
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
	if value, ok = mcpserve.AsFloat64s(value); !ok {
		return nil, false
	}

	req := mcp.CallToolRequest{
		Request: mcp.Request{Method: string(mcp.MethodToolsCall)},
		Params:  mcp.CallToolParams{Name: name, Arguments: value, RawArguments: args},
	}
	start := time.Now()
	result, err := mcpserve.RunTool(ctx, tool.Handler, req)
	mcpserve.LogToolCall(ctx, c.log, c.sess.id, name, start, result, err)
	switch {
	case err != nil:
		return wire.ErrorResponse(id, wire.CodeInternalError, err.Error(), nil), true
	case result == nil:
		return wire.ErrorResponse(id, wire.CodeInternalError, mcpserve.NoResultMessage(name), nil), true
	}
	body, err := mcpserve.EncodeToolResult(result)
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
