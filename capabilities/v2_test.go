package capabilities

import (
	"encoding/json"
	"flag"
	"strings"
	"testing"
)

// TestTransportsByVersion: version 1 reads mcpCapabilities (stdio always),
// version 2 reads capabilities.session.mcp, where a transport is advertised
// by an object and by nothing else; newer versions advertise nothing.
func TestTransportsByVersion(t *testing.T) {
	tests := []struct {
		name   string
		result string
		want   Transports
	}{
		{"v1 plain", `{"protocolVersion":1,"agentCapabilities":{}}`, Transports{Stdio: true}},
		{"v1 http", `{"protocolVersion":1,"agentCapabilities":{"mcpCapabilities":{"http":true}}}`, Transports{Stdio: true, HTTP: true}},
		{"v1 acp", `{"protocolVersion":1,"agentCapabilities":{"mcpCapabilities":{"acp":true,"http":false}}}`, Transports{Stdio: true, ACP: true}},
		{"v1 acp not true", `{"protocolVersion":1,"agentCapabilities":{"mcpCapabilities":{"acp":"yes","http":1}}}`, Transports{Stdio: true}},
		{"v1 with a v2 shape", `{"protocolVersion":1,"capabilities":{"session":{"mcp":{"acp":{}}}}}`, Transports{Stdio: true}},
		{"v2 all", `{"protocolVersion":2,"info":{"name":"a","version":"1"},"capabilities":{"session":{"mcp":{"stdio":{},"http":{"_meta":{}},"acp":{}}}}}`,
			Transports{Stdio: true, HTTP: true, ACP: true}},
		{"v2 stdio only", `{"protocolVersion":2,"capabilities":{"session":{"mcp":{"stdio":{}}}}}`, Transports{Stdio: true}},
		{"v2 not objects", `{"protocolVersion":2,"capabilities":{"session":{"mcp":{"stdio":null,"http":true,"acp":[{}]}}}}`, Transports{}},
		{"v2 no mcp", `{"protocolVersion":2,"capabilities":{"session":{}}}`, Transports{}},
		{"v2 mcp not an object", `{"protocolVersion":2,"capabilities":{"session":{"mcp":"all"}}}`, Transports{}},
		{"v2 with a v1 shape", `{"protocolVersion":2,"agentCapabilities":{"mcpCapabilities":{"http":true}}}`, Transports{}},
		{"v3", `{"protocolVersion":3,"capabilities":{"session":{"mcp":{"stdio":{}}}}}`, Transports{}},
		{"no version", `{"agentCapabilities":{"mcpCapabilities":{"http":true}}}`, Transports{Stdio: true, HTTP: true}},
		{"garbage", `[1]`, Transports{Stdio: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, _ := ParseInitializeResponse(json.RawMessage(tt.result))
			if got := res.Transports(); got != tt.want {
				t.Errorf("Transports() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestChooseTransport: auto prefers acp, then http, then stdio; a forced
// transport must be advertised, and the error names what was.
func TestChooseTransport(t *testing.T) {
	all := Transports{Stdio: true, HTTP: true, ACP: true}
	tests := []struct {
		ts      Transports
		want    Transport
		got     Transport
		wantErr string
	}{
		{all, TransportAuto, TransportACP, ""},
		{Transports{Stdio: true, HTTP: true}, TransportAuto, TransportHTTP, ""},
		{Transports{Stdio: true}, TransportAuto, TransportStdio, ""},
		{Transports{HTTP: true}, TransportAuto, TransportHTTP, ""},
		{Transports{}, TransportAuto, 0, "advertised no MCP transport"},
		{all, TransportStdio, TransportStdio, ""},
		{all, TransportHTTP, TransportHTTP, ""},
		{Transports{Stdio: true, HTTP: true}, TransportACP, 0, "did not advertise the MCP transport acp (it advertised: stdio, http)"},
		{Transports{Stdio: true}, TransportHTTP, 0, "did not advertise the MCP transport http (it advertised: stdio)"},
		{Transports{ACP: true}, TransportStdio, 0, "did not advertise the MCP transport stdio (it advertised: acp)"},
		{Transports{}, TransportStdio, 0, "(it advertised: none)"},
	}
	for _, tt := range tests {
		got, err := tt.ts.Choose(tt.want)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%+v.Choose(%s) = %s, %v; want an error containing %q", tt.ts, tt.want, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.got {
			t.Errorf("%+v.Choose(%s) = %s, %v; want %s", tt.ts, tt.want, got, err, tt.got)
		}
	}
}

// TestTransportFlag: the names round-trip through flag.TextVar, and a
// wrong one is refused with the choices.
func TestTransportFlag(t *testing.T) {
	for _, name := range []string{"auto", "acp", "http", "stdio"} {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		var tr Transport
		fs.TextVar(&tr, "mcp-transport", TransportAuto, "")
		if err := fs.Parse([]string{"--mcp-transport", name}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if tr.String() != name {
			t.Errorf("parsed %q as %s", name, tr)
		}
	}
	if _, err := ParseTransport("sse"); err == nil || !strings.Contains(err.Error(), `"sse": want auto, acp, http or stdio`) {
		t.Errorf("ParseTransport(sse) = %v", err)
	}
}

// TestParseInitializeV2: the version 2 shape gives its info as the peer's
// identity, and no fs (version 2 has none), so every operation goes to
// disk.
func TestParseInitializeV2(t *testing.T) {
	req, err := ParseInitializeRequest(json.RawMessage(`{"protocolVersion":2,"info":{"name":"ed","version":"2.0"},"capabilities":{"auth":{}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if req.ProtocolVersion != 2 || req.ClientInfo.Name != "ed" || req.ClientInfo.Version != "2.0" {
		t.Errorf("request = %+v", req.withoutRaw())
	}
	for _, op := range []Operation{OpRead, OpWrite} {
		if r := Decide(req.Client, PolicyAuto, op); r != RouteDisk {
			t.Errorf("Decide(%s) = %s, want disk", op, r)
		}
	}
	res, err := ParseInitializeResponse(json.RawMessage(`{"protocolVersion":2,"info":{"name":"ag","title":"Ag","version":"1"},"capabilities":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.ProtocolVersion != 2 || res.AgentInfo.Name != "ag" || res.AgentInfo.Title != "Ag" {
		t.Errorf("response = %+v", res.withoutRaw())
	}
	// clientInfo wins over info where both are sent.
	req, _ = ParseInitializeRequest(json.RawMessage(`{"protocolVersion":1,"clientInfo":{"name":"v1","version":"1"},"info":{"name":"v2","version":"1"}}`))
	if req.ClientInfo.Name != "v1" {
		t.Errorf("ClientInfo = %+v, want clientInfo's", req.ClientInfo)
	}
}

// TestNegotiate: versions known here pass; newer ones are lowered to the
// newest known.
func TestNegotiate(t *testing.T) {
	for _, tt := range []struct{ in, want int }{{0, 0}, {1, 1}, {2, 2}, {3, 2}, {65535, 2}} {
		if got := Negotiate(tt.in); got != tt.want {
			t.Errorf("Negotiate(%d) = %d, want %d", tt.in, got, tt.want)
		}
	}
}
