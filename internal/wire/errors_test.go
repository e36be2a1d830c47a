package wire

import (
	"encoding/json"
	"testing"

	"github.com/sourcegraph/jsonrpc2"
)

func TestErrorResponseBuildsCompactLine(t *testing.T) {
	tests := []struct {
		name string
		id   json.RawMessage
		code int64
		msg  string
		data any
		want string
	}{
		{"resource not found", json.RawMessage(`7`), CodeResourceNotFound, "Resource not found", map[string]string{"uri": "/a/b.go"},
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32002,"message":"Resource not found","data":{"uri":"/a/b.go"}}}`},
		{"no data", json.RawMessage(`"x"`), CodeRequestCancelled, "Request cancelled", nil,
			`{"jsonrpc":"2.0","id":"x","error":{"code":-32800,"message":"Request cancelled"}}`},
		{"nil id is null", nil, CodeParseError, "Parse error", nil,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`},
		{"invalid id is null", json.RawMessage(`{"a":1}`), CodeInvalidRequest, "Invalid request", nil,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request"}}`},
		{"negative id kept verbatim", json.RawMessage(" -5 "), CodeInternalError, "Internal error", "boom",
			`{"jsonrpc":"2.0","id":-5,"error":{"code":-32603,"message":"Internal error","data":"boom"}}`},
		{"raw data compacted", json.RawMessage(`1`), CodeInvalidParams, "Invalid params", json.RawMessage("{ \"line\" :\n 9 }"),
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params","data":{"line":9}}}`},
		{"unmarshallable data", json.RawMessage(`1`), CodeAuthRequired, "Authentication required", func() {},
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Authentication required","data":"wire: cannot marshal error data: json: unsupported type: func()"}}`},
		{"method not found", json.RawMessage(`2`), CodeMethodNotFound, "Method not found: _x", nil,
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found: _x"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ErrorResponse(tt.id, tt.code, tt.msg, tt.data)
			if string(got) != tt.want {
				t.Errorf("ErrorResponse =\n%s\nwant\n%s", got, tt.want)
			}
			m, err := Parse(got)
			if err != nil || m.Kind() != KindResponse {
				t.Fatalf("Parse(ErrorResponse) = %v, %v; want a response", m.Kind(), err)
			}
			e, err := m.DecodeError()
			if err != nil || e.Code != tt.code || e.Message != tt.msg {
				t.Errorf("DecodeError = %+v, %v", e, err)
			}
			var resp struct{ Error *jsonrpc2.Error }
			if err := json.Unmarshal(got, &resp); err != nil || resp.Error == nil || resp.Error.Code != tt.code {
				t.Errorf("jsonrpc2.Error decodes the error as %+v, %v", resp.Error, err)
			}
		})
	}
}

func TestCodesMatchJSONRPC2(t *testing.T) {
	for _, c := range [][2]int64{
		{CodeParseError, jsonrpc2.CodeParseError},
		{CodeInvalidRequest, jsonrpc2.CodeInvalidRequest},
		{CodeMethodNotFound, jsonrpc2.CodeMethodNotFound},
		{CodeInvalidParams, jsonrpc2.CodeInvalidParams},
		{CodeInternalError, jsonrpc2.CodeInternalError},
	} {
		if c[0] != c[1] {
			t.Errorf("code %d differs from jsonrpc2's %d", c[0], c[1])
		}
	}
	e := &ErrorObject{Code: CodeResourceNotFound, Message: "Resource not found"}
	if e.Error() != "jsonrpc2 error -32002: Resource not found" {
		t.Errorf("Error() = %q", e.Error())
	}
}
