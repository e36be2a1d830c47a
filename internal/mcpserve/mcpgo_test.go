package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
)

// These tests hold mcpgo.go to mcp-go itself: each sets up what the module
// relies on with a stock mcp-go server and fails, saying what changed,
// when an mcp-go upgrade changes it.

// changed fails the test loudly: mcp-go no longer behaves as mcpgo.go
// assumes.
func changed(t *testing.T, format string, args ...any) {
	t.Helper()
	t.Errorf("mcp-go changed (update internal/mcpserve/mcpgo.go and the plain-call path): "+format, args...)
}

// The one table of JSON-RPC codes (package wire) agrees with mcp-go's.
func TestMCPGoErrorCodes(t *testing.T) {
	for _, c := range []struct {
		name       string
		ours, mcps int
	}{
		{"parse error", wire.CodeParseError, mcp.PARSE_ERROR},
		{"invalid request", wire.CodeInvalidRequest, mcp.INVALID_REQUEST},
		{"method not found", wire.CodeMethodNotFound, mcp.METHOD_NOT_FOUND},
		{"invalid params", wire.CodeInvalidParams, mcp.INVALID_PARAMS},
		{"internal error", wire.CodeInternalError, mcp.INTERNAL_ERROR},
		{"resource not found", wire.CodeResourceNotFound, mcp.RESOURCE_NOT_FOUND},
		{"request cancelled", wire.CodeRequestCancelled, mcp.REQUEST_INTERRUPTED},
		{"unsupported version", wire.CodeUnsupportedVersion, mcp.UNSUPPORTED_PROTOCOL_VERSION},
	} {
		if c.ours != c.mcps {
			changed(t, "%s is %d, the table says %d", c.name, c.mcps, c.ours)
		}
	}
}

// testSession is a minimal mcp-go client session.
type testSession struct{ notes chan mcp.JSONRPCNotification }

func (s testSession) SessionID() string                                   { return "sess-1" }
func (s testSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return s.notes }
func (s testSession) Initialize()                                         {}
func (s testSession) Initialized() bool                                   { return true }

// records keeps the log records a handler receives, without their times
// and durations.
type records struct {
	mu   sync.Mutex
	recs []string
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *records) WithGroup(string) slog.Handler            { return r }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	var b strings.Builder
	b.WriteString(rec.Message)
	rec.Attrs(func(a slog.Attr) bool {
		if a.Key != "duration_s" {
			b.WriteString(" " + a.Key + "=" + a.Value.String())
		} else {
			b.WriteString(" duration_s")
		}
		return true
	})
	r.mu.Lock()
	r.recs = append(r.recs, b.String())
	r.mu.Unlock()
	return nil
}

func (r *records) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	recs := r.recs
	r.recs = nil
	return recs
}

// A plain call answered and logged by RunTool, LogToolCall and
// EncodeToolResult gets what HandleMessage gives it: the result as the
// same JSON value, members in the same order (a string's escapes may
// differ), the error message of a failed, panicking or silent
// handler, and mcp-go's log lines with the same keys and values.
func TestMCPGoPlainCallAnswers(t *testing.T) {
	logs := &records{}
	srv := server.NewMCPServer("t", "1", server.WithRecovery(), server.WithInputSchemaValidation(),
		server.WithLogger(slog.New(logs)))
	handlers := map[string]server.ToolHandlerFunc{
		"ok": func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultStructured(map[string]any{"b": 1, "a": "<&>"}, "text \"q\" \u2028"), nil
		},
		"is-error": func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("it failed"), nil
		},
		"fails": func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("the handler failed")
		},
		"silent": func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil },
		"panics": func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { panic("the disk is on fire") },
	}
	for name, h := range handlers {
		srv.AddTool(mcp.NewToolWithRawSchema(name, "", json.RawMessage(`{"type":"object"}`)), h)
	}
	ctx := srv.WithContext(t.Context(), testSession{make(chan mcp.JSONRPCNotification, 10)})
	for name, h := range handlers {
		line := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":{}}}`
		resp := srv.HandleMessage(ctx, json.RawMessage(line))
		theirLogs := logs.take()
		req := mcp.CallToolRequest{Request: mcp.Request{Method: string(mcp.MethodToolsCall)},
			Params: mcp.CallToolParams{Name: name, Arguments: map[string]any{}, RawArguments: json.RawMessage(`{}`)}}
		result, err := RunTool(ctx, h, req)
		LogToolCall(ctx, slog.New(logs), "sess-1", name, time.Now(), result, err)
		ourLogs := logs.take()
		if !reflect.DeepEqual(ourLogs, theirLogs) {
			changed(t, "%s: its log lines are\n%s\nthe plain-call path logs\n%s", name, strings.Join(theirLogs, "\n"), strings.Join(ourLogs, "\n"))
		}
		switch r := resp.(type) {
		case mcp.JSONRPCError:
			switch {
			case err == nil && result == nil && r.Error.Message != NoResultMessage(name):
				changed(t, "%s: a silent handler is answered %q, not %q", name, r.Error.Message, NoResultMessage(name))
			case err != nil && r.Error.Message != err.Error():
				changed(t, "%s: a failed handler is answered %q, not %q", name, r.Error.Message, err.Error())
			case result != nil:
				changed(t, "%s: a handler's result is answered with the error %v", name, r.Error)
			}
			if r.Error.Code != wire.CodeInternalError {
				changed(t, "%s: a handler's failure has the code %d, not %d", name, r.Error.Code, wire.CodeInternalError)
			}
		case mcp.JSONRPCResponse:
			theirs, merr := json.Marshal(r.Result)
			ours, oerr := EncodeToolResult(result)
			var o, m any
			if merr != nil || oerr != nil || json.Unmarshal(ours, &o) != nil || json.Unmarshal(theirs, &m) != nil ||
				!reflect.DeepEqual(o, m) || keys(t, ours) != keys(t, theirs) {
				changed(t, "%s: its result encodes as\n%s\nthe plain-call path encodes\n%s", name, theirs, ours)
			}
		default:
			t.Fatalf("%s: HandleMessage answered %T", name, resp)
		}
	}
}

// mcp-go hands a handler its arguments decoded with encoding/json, numbers
// as float64s (as AsFloat64s makes them), and refuses a call with a
// number beyond a float64.
func TestMCPGoNumbers(t *testing.T) {
	var got any
	srv := server.NewMCPServer("t", "1", server.WithInputSchemaValidation())
	srv.AddTool(mcp.NewToolWithRawSchema("n", "", json.RawMessage(`{"type":"object"}`)),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			got = req.Params.Arguments
			return mcp.NewToolResultText("ok"), nil
		})
	args := `{"i":12345678901234567890,"f":-1.5e-3,"a":[1,{"x":2e2}],"s":"3"}`
	srv.HandleMessage(t.Context(), json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"n","arguments":`+args+`}}`))
	dec := json.NewDecoder(strings.NewReader(args))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	want, ok := AsFloat64s(v)
	if !ok || !reflect.DeepEqual(got, want) {
		changed(t, "a handler gets the arguments %#v, AsFloat64s makes %#v", got, want)
	}
	resp := srv.HandleMessage(t.Context(), json.RawMessage(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"n","arguments":{"x":1e400}}}`))
	if _, ok := resp.(mcp.JSONRPCError); !ok {
		changed(t, "a number beyond a float64 is answered %T, not refused", resp)
	}
	if _, ok := AsFloat64s(json.Number("1e400")); ok {
		t.Error("AsFloat64s took a number beyond a float64")
	}
}

// Arguments that fail a tool's input schema get a tool error whose text
// starts with ValidationPrefix, which the file server rewrites.
func TestMCPGoValidationMessage(t *testing.T) {
	srv := server.NewMCPServer("t", "1", server.WithInputSchemaValidation())
	srv.AddTool(mcp.NewToolWithRawSchema("strict", "", json.RawMessage(
		`{"type":"object","properties":{"line":{"type":"integer","minimum":0}},"additionalProperties":false}`)),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("ran"), nil
		})
	for _, args := range []string{`{"line":-1}`, `{"other":1}`, `{"line":"x"}`} {
		resp := srv.HandleMessage(t.Context(), json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"strict","arguments":`+args+`}}`))
		r, ok := resp.(mcp.JSONRPCResponse)
		res, _ := r.Result.(*mcp.CallToolResult)
		if !ok || res == nil || !res.IsError || len(res.Content) != 1 {
			changed(t, "invalid arguments %s are answered %#v, not with a tool error", args, resp)
			continue
		}
		if text := res.Content[0].(mcp.TextContent).Text; !strings.HasPrefix(text, ValidationPrefix) {
			changed(t, "invalid arguments %s are answered %q, which does not start with %q", args, text, ValidationPrefix)
		}
	}
}

// mcp-go answers the error of a resource handler with -32603, and a URI
// no resource matches with -32002 and no data: FixError's starting points.
func TestMCPGoResourceErrors(t *testing.T) {
	srv := server.NewMCPServer("t", "1", server.WithResourceCapabilities(true, false))
	srv.AddResource(mcp.NewResource("file:///broken", "broken"),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return nil, errors.New("no such file")
		})
	read := func(uri string) *mcp.JSONRPCErrorDetails {
		resp := srv.HandleMessage(t.Context(), json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"`+uri+`"}}`))
		e, ok := resp.(mcp.JSONRPCError)
		if !ok {
			t.Fatalf("resources/read %s answered %T", uri, resp)
		}
		return &e.Error
	}
	if e := read("file:///broken"); e.Code != wire.CodeInternalError {
		changed(t, "a resource handler's error has the code %d, not %d", e.Code, wire.CodeInternalError)
	}
	if e := read("file:///none"); e.Code != wire.CodeResourceNotFound || e.Data != nil {
		changed(t, "a URI no resource matches is answered %d with data %v, not %d without", e.Code, e.Data, wire.CodeResourceNotFound)
	}
}

// EncodeToolResult encodes what MarshalJSON encodes, value for value, and
// member for member in MarshalJSON's order.
func TestEncodeToolResult(t *testing.T) {
	prio := 0.5
	for i, r := range []*mcp.CallToolResult{
		{Content: []mcp.Content{}},
		{Content: []mcp.Content{mcp.NewTextContent("plain")}},
		{Content: []mcp.Content{mcp.NewTextContent("<a href=\"x\">&amp;</a>\n\t\x01 é \u2028 \xff")}, IsError: true},
		{Content: []mcp.Content{mcp.NewTextContent("one"), mcp.NewTextContent("two")}, StructuredContent: map[string]any{"b": 1, "a": "x"}},
		{Content: []mcp.Content{mcp.NewTextContent("raw")}, RawStructuredContent: json.RawMessage(`{"z":1,"a":[true]}`)},
		{Content: []mcp.Content{mcp.TextContent{Type: "text", Text: "annotated", Annotated: mcp.Annotated{Annotations: &mcp.Annotations{Priority: &prio}}}}},
		{Content: []mcp.Content{mcp.NewImageContent("aGk=", "image/png")}},
		{Result: mcp.Result{Meta: &mcp.Meta{AdditionalFields: map[string]any{"k": "v"}}}, Content: []mcp.Content{mcp.NewTextContent("meta")}},
	} {
		got, err := EncodeToolResult(r)
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		want, err := r.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("%d: not JSON: %v\n%s", i, err, got)
		}
		json.Unmarshal(want, &w)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%d:\n got %s\nwant %s", i, got, want)
		}
		if keys(t, got) != keys(t, want) {
			t.Errorf("%d: members %s, want %s", i, keys(t, got), keys(t, want))
		}
	}
}

// keys returns the member names of a JSON object, in order.
func keys(t *testing.T, obj []byte) string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.Token() // {
	var names []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return strings.Join(names, ",")
}

// EncodeMessage encodes what json.Marshal encodes, on one line.
func TestEncodeMessageMatchesMarshal(t *testing.T) {
	msgs := []mcp.JSONRPCMessage{
		mcp.NewJSONRPCResultResponse(mcp.NewRequestId("a\"b"), mcp.NewToolResultStructured(map[string]any{"x": []int{1, 2}}, "<x>")),
		mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(9)), &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("e")}, IsError: true}),
		mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(1)), mcp.ListToolsResult{Tools: []mcp.Tool{{Name: "t"}}}),
		mcp.JSONRPCError{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(2)), Error: mcp.NewJSONRPCErrorDetails(-1, "m", nil)},
	}
	for _, msg := range msgs {
		got, err := EncodeMessage(msg)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		var g, w any
		if json.Unmarshal(got, &g) != nil || json.Unmarshal(want, &w) != nil {
			t.Fatalf("not JSON: %s", got)
		}
		gj, _ := json.Marshal(g)
		wj, _ := json.Marshal(w)
		if string(gj) != string(wj) || strings.Contains(string(got), "\n") {
			t.Errorf("encodeMessage:\n%s\njson.Marshal:\n%s", got, want)
		}
	}
}
