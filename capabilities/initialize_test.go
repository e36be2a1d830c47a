package capabilities

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// message is a JSON-RPC message from testdata.
type message struct {
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
}

// testdataFiles returns the files of testdata that match pattern, a
// filepath.Glob pattern relative to testdata written with /, as names for
// readMessage: relative to testdata and with / as the separator, on every
// OS.
func testdataFiles(t testing.TB, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", filepath.FromSlash(pattern)))
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(files))
	for i, file := range files {
		rel, err := filepath.Rel("testdata", file)
		if err != nil {
			t.Fatal(err)
		}
		names[i] = filepath.ToSlash(rel)
	}
	return names
}

// readMessage reads the message in testdata/name, name written with /.
func readMessage(t testing.TB, name string) message {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	var m message
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

// withoutRaw clears every Raw field, to compare decoded values.
func (r InitializeRequest) withoutRaw() InitializeRequest {
	r.Raw, r.Client.Raw, r.Client.FS.Raw, r.ClientInfo.Raw = nil, nil, nil, nil
	return r
}

func (r InitializeResponse) withoutRaw() InitializeResponse {
	r.Raw, r.Agent.Raw, r.Agent.MCP.Raw, r.Agent.Session.Raw, r.AgentInfo.Raw = nil, nil, nil, nil, nil
	return r
}

func TestParseInitializeRequestFromRealClients(t *testing.T) {
	tests := []struct {
		file string
		want InitializeRequest
	}{
		{"zed.json", InitializeRequest{
			ProtocolVersion: 1,
			Client:          Client{FS: FS{ReadTextFile: true, WriteTextFile: true}, Terminal: true},
			ClientInfo:      Implementation{Name: "zed", Title: "Zed", Version: "0.230.0"},
		}},
		{"zed-2025.json", InitializeRequest{
			ProtocolVersion: 1,
			Client:          Client{FS: FS{ReadTextFile: true, WriteTextFile: true}, Terminal: true},
			ClientInfo:      Implementation{Name: "zed", Title: "Zed Preview", Version: "0.212.3"},
		}},
		{"ts-sdk.json", InitializeRequest{
			ProtocolVersion: 1,
			Client:          Client{FS: FS{ReadTextFile: true, WriteTextFile: true}},
		}},
		{"no-fs.json", InitializeRequest{
			ProtocolVersion: 1,
			ClientInfo:      Implementation{Name: "labkit-viewer", Version: "0.3.5"},
		}},
		{"read-only.json", InitializeRequest{
			ProtocolVersion: 1,
			Client:          Client{FS: FS{ReadTextFile: true}},
			ClientInfo:      Implementation{Name: "lareview", Version: "0.9.1"},
		}},
		{"garbage.json", InitializeRequest{}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			params := readMessage(t, "client/"+tt.file).Params
			got, err := ParseInitializeRequest(params)
			if err != nil {
				t.Fatalf("ParseInitializeRequest: %v", err)
			}
			if !bytes.Equal(got.Raw, params) {
				t.Errorf("Raw = %s, want the params unchanged", got.Raw)
			}
			if got := got.withoutRaw(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseInitializeResponseFromRealAgents(t *testing.T) {
	tests := []struct {
		file      string
		want      InitializeResponse
		transport string
	}{
		{"codex-acp.json", InitializeResponse{
			ProtocolVersion: 1,
			Agent: Agent{
				LoadSession: true,
				MCP:         MCP{HTTP: true},
				Session:     Session{List: true, Close: true},
			},
			AgentInfo: Implementation{Name: "codex-acp", Title: "Codex", Version: "0.16.0"},
		}, "http"},
		{"gemini-cli.json", InitializeResponse{
			ProtocolVersion: 1,
			Agent:           Agent{LoadSession: true, MCP: MCP{HTTP: true, SSE: true}},
			AgentInfo:       Implementation{Name: "gemini-cli", Title: "Gemini CLI", Version: "0.61.0"},
		}, "http"},
		{"claude-agent-acp.json", InitializeResponse{
			ProtocolVersion: 1,
			Agent: Agent{
				LoadSession: true,
				MCP:         MCP{HTTP: true, SSE: true},
				Session:     Session{Fork: true, List: true, Resume: true, Close: true},
			},
			AgentInfo: Implementation{Name: "@zed-industries/claude-agent-acp", Title: "Claude Agent", Version: "0.23.1"},
		}, "http"},
		{"garbage.json", InitializeResponse{}, "stdio"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			result := readMessage(t, "agent/"+tt.file).Result
			got, err := ParseInitializeResponse(result)
			if err != nil {
				t.Fatalf("ParseInitializeResponse: %v", err)
			}
			if !bytes.Equal(got.Raw, result) {
				t.Errorf("Raw = %s, want the result unchanged", got.Raw)
			}
			if got.Agent.MCPTransport() != tt.transport {
				t.Errorf("MCPTransport() = %q, want %q", got.Agent.MCPTransport(), tt.transport)
			}
			if got := got.withoutRaw(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// A missing, null or malformed client capability is not advertised, and
// decoding it never fails.
func TestParseInitializeRequestTreatsMalformedCapabilitiesAsAbsent(t *testing.T) {
	for _, params := range []string{
		`{}`,
		`{"protocolVersion":1}`,
		`{"protocolVersion":1,"clientCapabilities":null}`,
		`{"protocolVersion":1,"clientCapabilities":[]}`,
		`{"protocolVersion":1,"clientCapabilities":"all"}`,
		`{"protocolVersion":1,"clientCapabilities":42}`,
		`{"protocolVersion":1,"clientCapabilities":true}`,
		`{"protocolVersion":1,"clientCapabilities":{}}`,
		`{"protocolVersion":1,"clientCapabilities":{"fs":null,"terminal":null}}`,
		`{"protocolVersion":1,"clientCapabilities":{"fs":[],"terminal":[]}}`,
		`{"protocolVersion":1,"clientCapabilities":{"fs":42,"terminal":1}}`,
		`{"protocolVersion":1,"clientCapabilities":{"fs":"x","terminal":"yes"}}`,
		`{"protocolVersion":1,"clientCapabilities":{"fs":true,"terminal":{}}}`,
		`{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":"yes","writeTextFile":"true"}}}`,
		`{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":1,"writeTextFile":0}}}`,
		`{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":null,"writeTextFile":false}}}`,
		`{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":{},"writeTextFile":[true]}}}`,
		// Names match exactly, as in ACP's SDKs.
		`{"protocolVersion":1,"clientCapabilities":{"fs":{"ReadTextFile":true,"WRITETEXTFILE":true}}}`,
		`{"protocolVersion":1,"clientCapabilities":{"FS":{"readTextFile":true},"Terminal":true}}`,
		`{"protocolVersion":1,"ClientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true}}}`,
		`{"protocolVersion":1,"clientCapabilities":{"fs":{"read_text_file":true,"write_text_file":true}}}`,
	} {
		got, err := ParseInitializeRequest(json.RawMessage(params))
		if err != nil {
			t.Errorf("%s: %v", params, err)
			continue
		}
		if got.Client.FS.ReadTextFile || got.Client.FS.WriteTextFile || got.Client.Terminal {
			t.Errorf("%s: got %+v, want nothing advertised", params, got.Client)
		}
		for _, op := range []Operation{OpRead, OpWrite} {
			if r := Decide(got.Client, PolicyAuto, op); r != RouteDisk {
				t.Errorf("%s: Decide(auto, %v) = %v, want disk", params, op, r)
			}
		}
	}
}

func TestParseInitializeResponseTreatsMalformedCapabilitiesAsAbsent(t *testing.T) {
	for _, result := range []string{
		`{}`,
		`{"protocolVersion":1,"agentCapabilities":null}`,
		`{"protocolVersion":1,"agentCapabilities":[]}`,
		`{"protocolVersion":1,"agentCapabilities":"x"}`,
		`{"protocolVersion":1,"agentCapabilities":{"loadSession":"yes","mcpCapabilities":"x","sessionCapabilities":"all"}}`,
		`{"protocolVersion":1,"agentCapabilities":{"loadSession":1,"mcpCapabilities":[],"sessionCapabilities":[]}}`,
		`{"protocolVersion":1,"agentCapabilities":{"loadSession":null,"mcpCapabilities":null,"sessionCapabilities":null}}`,
		`{"protocolVersion":1,"agentCapabilities":{"mcpCapabilities":{"http":"true","sse":1,"acp":{}}}}`,
		`{"protocolVersion":1,"agentCapabilities":{"mcpCapabilities":{"HTTP":true,"SSE":true,"ACP":true}}}`,
		`{"protocolVersion":1,"agentCapabilities":{"sessionCapabilities":{"list":null,"delete":null,"additionalDirectories":null,"resume":null,"close":null,"fork":null}}}`,
		`{"protocolVersion":1,"agentCapabilities":{"sessionCapabilities":{"list":true,"delete":1,"additionalDirectories":"{}","resume":[],"close":false,"fork":"yes"}}}`,
		`{"protocolVersion":1,"agentCapabilities":{"sessionCapabilities":{"List":{},"Delete":{},"Resume":{},"Close":{},"Fork":{}}}}`,
	} {
		got, err := ParseInitializeResponse(json.RawMessage(result))
		if err != nil {
			t.Errorf("%s: %v", result, err)
			continue
		}
		if a := got.withoutRaw().Agent; !reflect.DeepEqual(a, Agent{}) {
			t.Errorf("%s: got %+v, want nothing advertised", result, a)
		}
		if tr := got.Agent.MCPTransport(); tr != "stdio" {
			t.Errorf("%s: MCPTransport() = %q, want stdio", result, tr)
		}
	}
}

func TestParseInitializeResponseReadsEveryAgentCapability(t *testing.T) {
	result := `{"protocolVersion":1,"agentCapabilities":{
		"loadSession":true,
		"mcpCapabilities":{"http":true,"sse":true,"acp":true},
		"sessionCapabilities":{"list":{},"delete":{"_meta":{"x":1}},"additionalDirectories":{},"resume":{},"close":{},"fork":{}}}}`
	got, err := ParseInitializeResponse(json.RawMessage(result))
	if err != nil {
		t.Fatal(err)
	}
	want := Agent{
		LoadSession: true,
		MCP:         MCP{HTTP: true, SSE: true, ACP: true},
		Session:     Session{List: true, Delete: true, AdditionalDirectories: true, Resume: true, Close: true, Fork: true},
	}
	if a := got.withoutRaw().Agent; !reflect.DeepEqual(a, want) {
		t.Errorf("got  %+v\nwant %+v", a, want)
	}
}

func TestProtocolVersion(t *testing.T) {
	tests := []struct {
		version string // "" leaves protocolVersion out
		want    int
	}{
		{"1", 1},
		{"2", 2},
		{"0", 0},
		{"65535", 65535},
		{"1.0", 1},
		{"1e0", 1},
		{"", 0},
		{"null", 0},
		{`"1"`, 0},
		{"true", 0},
		{"1.5", 0},
		{"-1", 0},
		{"65536", 0},
		{"1e400", 0},
		{"[1]", 0},
		{`{"major":1}`, 0},
	}
	for _, tt := range tests {
		body := `{}`
		if tt.version != "" {
			body = `{"protocolVersion":` + tt.version + `}`
		}
		req, err := ParseInitializeRequest(json.RawMessage(body))
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		resp, err := ParseInitializeResponse(json.RawMessage(body))
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if req.ProtocolVersion != tt.want || resp.ProtocolVersion != tt.want {
			t.Errorf("%s: ProtocolVersion = %d (request), %d (response), want %d",
				body, req.ProtocolVersion, resp.ProtocolVersion, tt.want)
		}
	}
}

func TestImplementationIsLenient(t *testing.T) {
	tests := []struct {
		info string
		want Implementation
	}{
		{`{"name":"zed","title":"Zed","version":"0.230.0"}`, Implementation{Name: "zed", Title: "Zed", Version: "0.230.0"}},
		{`{"name":"zed","title":null,"version":"1"}`, Implementation{Name: "zed", Version: "1"}},
		{`{"name":"zed"}`, Implementation{Name: "zed"}},
		{`{"name":7,"title":["x"],"version":{}}`, Implementation{}},
		{`"zed"`, Implementation{}},
		{`null`, Implementation{}},
	}
	for _, tt := range tests {
		req, err := ParseInitializeRequest(json.RawMessage(`{"protocolVersion":1,"clientInfo":` + tt.info + `}`))
		if err != nil {
			t.Fatalf("%s: %v", tt.info, err)
		}
		if string(req.ClientInfo.Raw) != tt.info {
			t.Errorf("%s: Raw = %s", tt.info, req.ClientInfo.Raw)
		}
		if got := req.withoutRaw().ClientInfo; !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %+v, want %+v", tt.info, got, tt.want)
		}
	}
}

// Only a body that is not a JSON object is an error, and even then the
// result is safe to use: it advertises nothing.
func TestParseInitializeRejectsOnlyNonObjects(t *testing.T) {
	for _, body := range []string{"", " ", "null", "[]", `"x"`, "42", "true", "{", `{"a":1} x`, `{"a":}`, "{}{}"} {
		req, err := ParseInitializeRequest(json.RawMessage(body))
		if err == nil {
			t.Errorf("ParseInitializeRequest(%q): no error", body)
		}
		if string(req.Raw) != body || !reflect.DeepEqual(req.withoutRaw(), InitializeRequest{}) {
			t.Errorf("ParseInitializeRequest(%q) = %+v, want only Raw set", body, req)
		}
		resp, err := ParseInitializeResponse(json.RawMessage(body))
		if err == nil {
			t.Errorf("ParseInitializeResponse(%q): no error", body)
		}
		if string(resp.Raw) != body || !reflect.DeepEqual(resp.withoutRaw(), InitializeResponse{}) {
			t.Errorf("ParseInitializeResponse(%q) = %+v, want only Raw set", body, resp)
		}
	}
	_, err := ParseInitializeRequest(json.RawMessage("[]"))
	if err == nil || !strings.Contains(err.Error(), "not a JSON object") {
		t.Errorf("error = %v, want it to say the params are not a JSON object", err)
	}
}

func TestParseInitializeCopiesInput(t *testing.T) {
	body := []byte(`{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true}}}`)
	req, err := ParseInitializeRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	want := string(body)
	for i := range body {
		body[i] = ' '
	}
	if string(req.Raw) != want {
		t.Errorf("Raw changed with the caller's buffer: %s", req.Raw)
	}
}

// jsonEqual reports whether a and b hold equal JSON values.
func jsonEqual(t testing.TB, a, b json.RawMessage) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(va, vb)
}

// member returns the value at path in the JSON object raw, or nil.
func member(t testing.TB, raw json.RawMessage, path ...string) json.RawMessage {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	for _, name := range path {
		o, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		if v, ok = o[name]; !ok {
			return nil
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every Raw is what the peer sent at that place, unknown members and _meta
// included, so a proxy can forward it unchanged.
func TestRawKeepsWhatThePeerSent(t *testing.T) {
	check := func(t *testing.T, body, got json.RawMessage, path ...string) {
		t.Helper()
		want := member(t, body, path...)
		switch {
		case want == nil && got != nil:
			t.Errorf("%s: Raw = %s, want nil", strings.Join(path, "."), got)
		case want != nil && (got == nil || !jsonEqual(t, got, want)):
			t.Errorf("%s: Raw = %s, want %s", strings.Join(path, "."), got, want)
		}
	}
	clients := testdataFiles(t, "client/*.json")
	for _, name := range clients {
		t.Run("testdata/"+name, func(t *testing.T) {
			params := readMessage(t, name).Params
			req, _ := ParseInitializeRequest(params)
			check(t, params, req.Client.Raw, "clientCapabilities")
			check(t, params, req.Client.FS.Raw, "clientCapabilities", "fs")
			check(t, params, req.ClientInfo.Raw, "clientInfo")
		})
	}
	agents := testdataFiles(t, "agent/*.json")
	for _, name := range agents {
		t.Run("testdata/"+name, func(t *testing.T) {
			result := readMessage(t, name).Result
			resp, _ := ParseInitializeResponse(result)
			check(t, result, resp.Agent.Raw, "agentCapabilities")
			check(t, result, resp.Agent.MCP.Raw, "agentCapabilities", "mcpCapabilities")
			check(t, result, resp.Agent.Session.Raw, "agentCapabilities", "sessionCapabilities")
			check(t, result, resp.AgentInfo.Raw, "agentInfo")
		})
	}
	if len(clients) == 0 || len(agents) == 0 {
		t.Fatal("no testdata")
	}
}

func TestRawKeepsUnknownMembers(t *testing.T) {
	params := readMessage(t, "client/zed.json").Params
	req, err := ParseInitializeRequest(params)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range [][]string{
		{"_meta", "terminal_output"},
		{"_meta", "terminal-auth"},
		{"auth", "terminal"},
		{"session", "configOptions", "boolean"},
		{"elicitation", "url"},
	} {
		if member(t, req.Client.Raw, path...) == nil {
			t.Errorf("Client.Raw lost clientCapabilities.%s", strings.Join(path, "."))
		}
	}

	result := readMessage(t, "agent/claude-agent-acp.json").Result
	resp, err := ParseInitializeResponse(result)
	if err != nil {
		t.Fatal(err)
	}
	if got := member(t, resp.Agent.Raw, "_meta", "claudeCode", "promptQueueing"); string(got) != "true" {
		t.Errorf("Agent.Raw lost _meta.claudeCode.promptQueueing: %s", resp.Agent.Raw)
	}

	req, err = ParseInitializeRequest(json.RawMessage(
		`{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"readBinaryFile":true,"_meta":{"x":[1,2]}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := json.RawMessage(`{"readTextFile":true,"readBinaryFile":true,"_meta":{"x":[1,2]}}`)
	if !jsonEqual(t, req.Client.FS.Raw, want) {
		t.Errorf("FS.Raw = %s, want %s", req.Client.FS.Raw, want)
	}
	if !req.Client.FS.ReadTextFile || req.Client.FS.WriteTextFile {
		t.Errorf("FS = %+v, want read only", req.Client.FS)
	}
}

// The types decode inside a caller's own message structs; a malformed
// capability does not fail the message.
func TestTypesDecodeInsideMessages(t *testing.T) {
	var request struct {
		ID     int               `json:"id"`
		Params InitializeRequest `json:"params"`
	}
	b, err := os.ReadFile(filepath.Join("testdata", "client", "zed.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &request); err != nil {
		t.Fatal(err)
	}
	if !request.Params.Client.FS.WriteTextFile || request.Params.ClientInfo.Name != "zed" {
		t.Errorf("params = %+v", request.Params)
	}

	var response struct {
		Result InitializeResponse `json:"result"`
	}
	b, err = os.ReadFile(filepath.Join("testdata", "agent", "codex-acp.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &response); err != nil {
		t.Fatal(err)
	}
	if !response.Result.Agent.MCP.HTTP || response.Result.Agent.MCP.SSE {
		t.Errorf("result = %+v", response.Result)
	}

	var caps struct {
		Client  Client         `json:"clientCapabilities"`
		FS      FS             `json:"fs"`
		Agent   Agent          `json:"agentCapabilities"`
		MCP     MCP            `json:"mcpCapabilities"`
		Session Session        `json:"sessionCapabilities"`
		Info    Implementation `json:"agentInfo"`
	}
	garbage := `{"clientCapabilities":[1],"fs":"x","agentCapabilities":7,"mcpCapabilities":true,"sessionCapabilities":"s","agentInfo":[]}`
	if err := json.Unmarshal([]byte(garbage), &caps); err != nil {
		t.Fatalf("malformed capabilities failed the message: %v", err)
	}
	if string(caps.FS.Raw) != `"x"` || string(caps.Agent.Raw) != `7` {
		t.Errorf("Raw not kept: fs %s, agent %s", caps.FS.Raw, caps.Agent.Raw)
	}
}

func FuzzParseInitialize(f *testing.F) {
	files := testdataFiles(f, "*/*.json")
	if len(files) == 0 {
		f.Fatal("no testdata")
	}
	for _, name := range files {
		m := readMessage(f, name)
		if m.Params != nil {
			f.Add([]byte(m.Params))
		} else {
			f.Add([]byte(m.Result))
		}
	}
	for _, seed := range []string{
		``, `null`, `[]`, `{}`, `{"clientCapabilities":{"fs":42}}`,
		`{"clientCapabilities":{"fs":{"readTextFile":true,"readTextFile":false}}}`,
		`{"protocolVersion":1e400,"agentCapabilities":{"sessionCapabilities":{"fork":{}}}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		req, reqErr := ParseInitializeRequest(data)
		resp, respErr := ParseInitializeResponse(data)

		trimmed := bytes.TrimSpace(data)
		isObject := len(trimmed) > 0 && trimmed[0] == '{' && json.Valid(data)
		if isObject && (reqErr != nil || respErr != nil) {
			t.Fatalf("JSON object %q: request error %v, response error %v", data, reqErr, respErr)
		}
		if !isObject && (reqErr == nil || respErr == nil) {
			t.Fatalf("not a JSON object %q, but no error", data)
		}
		if !bytes.Equal(req.Raw, data) || !bytes.Equal(resp.Raw, data) {
			t.Fatalf("Raw differs from the input %q", data)
		}

		// The editor is chosen only for a method it advertised.
		for _, p := range []Policy{PolicyAuto, PolicyEditor, PolicyDisk} {
			for _, op := range []Operation{OpRead, OpWrite} {
				if Decide(req.Client, p, op) == RouteEditor && !req.Client.Advertises(op) {
					t.Fatalf("%q: Decide(%v, %v) = editor for a method not advertised", data, p, op)
				}
			}
		}

		// Compare with a plain decode into any, where it succeeds.
		var root any
		if !isObject || json.Unmarshal(data, &root) != nil {
			return
		}
		at := func(path ...string) any {
			v := root
			for _, name := range path {
				o, ok := v.(map[string]any)
				if !ok {
					return nil
				}
				v = o[name]
			}
			return v
		}
		isTrue := func(path ...string) bool { return at(path...) == true }
		isObj := func(path ...string) bool { _, ok := at(path...).(map[string]any); return ok }
		flags := []struct {
			name      string
			got, want bool
		}{
			{"fs.readTextFile", req.Client.FS.ReadTextFile, isTrue("clientCapabilities", "fs", "readTextFile")},
			{"fs.writeTextFile", req.Client.FS.WriteTextFile, isTrue("clientCapabilities", "fs", "writeTextFile")},
			{"terminal", req.Client.Terminal, isTrue("clientCapabilities", "terminal")},
			{"loadSession", resp.Agent.LoadSession, isTrue("agentCapabilities", "loadSession")},
			{"mcp.http", resp.Agent.MCP.HTTP, isTrue("agentCapabilities", "mcpCapabilities", "http")},
			{"mcp.sse", resp.Agent.MCP.SSE, isTrue("agentCapabilities", "mcpCapabilities", "sse")},
			{"mcp.acp", resp.Agent.MCP.ACP, isTrue("agentCapabilities", "mcpCapabilities", "acp")},
			{"session.list", resp.Agent.Session.List, isObj("agentCapabilities", "sessionCapabilities", "list")},
			{"session.delete", resp.Agent.Session.Delete, isObj("agentCapabilities", "sessionCapabilities", "delete")},
			{"session.additionalDirectories", resp.Agent.Session.AdditionalDirectories, isObj("agentCapabilities", "sessionCapabilities", "additionalDirectories")},
			{"session.resume", resp.Agent.Session.Resume, isObj("agentCapabilities", "sessionCapabilities", "resume")},
			{"session.close", resp.Agent.Session.Close, isObj("agentCapabilities", "sessionCapabilities", "close")},
			{"session.fork", resp.Agent.Session.Fork, isObj("agentCapabilities", "sessionCapabilities", "fork")},
		}
		for _, fl := range flags {
			if fl.got != fl.want {
				t.Fatalf("%q: %s = %v, want %v", data, fl.name, fl.got, fl.want)
			}
		}
		if name, _ := at("clientInfo", "name").(string); req.ClientInfo.Name != name {
			t.Fatalf("%q: clientInfo.name = %q, want %q", data, req.ClientInfo.Name, name)
		}
	})
}
