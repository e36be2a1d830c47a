package bridge_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
)

// An httpReply is the status and JSON-RPC error code of an answer.
type httpReply struct {
	status int
	code   int    // the JSON-RPC error's, 0 if none
	msg    string // the JSON-RPC error's message
	sid    string // the Mcp-Session-Id header
}

// post sends body to url with the headers of auth and extra, and reads the
// answer (a JSON body, or the first event of a stream).
func post(t *testing.T, method, url, body string, hdr map[string]string) httpReply {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := httpReply{status: resp.StatusCode, sid: resp.Header.Get("Mcp-Session-Id")}
	if method == http.MethodGet && resp.StatusCode == http.StatusOK {
		return r // a stream: its status is the answer
	}
	b, _ := io.ReadAll(resp.Body)
	s := string(b)
	if i := strings.Index(s, "data: "); i >= 0 {
		s = strings.SplitN(s[i+len("data: "):], "\n", 2)[0]
	}
	var m struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(s), &m) == nil && m.Error != nil {
		r.code, r.msg = m.Error.Code, m.Error.Message
	}
	return r
}

const (
	legacyPing = `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	modernList = `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`
)

// checkSessions checks the sessions of the Streamable HTTP endpoint at
// url, reached with the headers of hdr: one ended with DELETE is unknown
// (404), as is an id never issued; a request other than initialize without
// an id is refused (400) in the 2025-11-25 era; a stateless 2026-07-28
// request needs none; and a JSON array body is refused in both eras as a
// batch (-32600), not as malformed JSON.
func checkSessions(t *testing.T, url string, hdr map[string]string) {
	with := func(k, v string) map[string]string {
		h := map[string]string{k: v}
		for k, v := range hdr {
			h[k] = v
		}
		return h
	}
	init := post(t, http.MethodPost, url, initializeBody, hdr)
	if init.status != http.StatusOK || init.sid == "" {
		t.Fatalf("initialize: status %d, session %q", init.status, init.sid)
	}
	sess := with("Mcp-Session-Id", init.sid)
	sess["MCP-Protocol-Version"] = "2025-11-25"
	if r := post(t, http.MethodPost, url, legacyPing, sess); r.status != http.StatusOK || r.code != 0 {
		t.Fatalf("ping in the session: %+v", r)
	}
	modern := with("MCP-Protocol-Version", "2026-07-28")
	modern["Mcp-Method"] = "tools/list"
	for _, tc := range []struct {
		name, method, body string
		hdr                map[string]string
		status, code       int
	}{
		{"ping without a session id", http.MethodPost, legacyPing, with("MCP-Protocol-Version", "2025-11-25"), http.StatusBadRequest, -32600},
		{"GET without a session id", http.MethodGet, "", hdr, http.StatusBadRequest, -32600},
		{"DELETE without a session id", http.MethodDelete, "", hdr, http.StatusBadRequest, -32600},
		{"ping in an unknown session", http.MethodPost, legacyPing, with("Mcp-Session-Id", "never-issued"), http.StatusNotFound, -32600},
		{"GET of an unknown session", http.MethodGet, "", with("Mcp-Session-Id", "never-issued"), http.StatusNotFound, -32600},
		{"DELETE of an unknown session", http.MethodDelete, "", with("Mcp-Session-Id", "never-issued"), http.StatusNotFound, -32600},
		{"stateless tools/list", http.MethodPost, modernList, modern, http.StatusOK, 0},
		{"legacy batch", http.MethodPost, "[" + legacyPing + "]", sess, http.StatusBadRequest, -32600},
		{"stateless batch", http.MethodPost, " [" + modernList + "]", modern, http.StatusBadRequest, -32600},
		{"end the session", http.MethodDelete, "", sess, http.StatusOK, 0},
		{"ping in the ended session", http.MethodPost, legacyPing, sess, http.StatusNotFound, -32600},
		{"GET of the ended session", http.MethodGet, "", sess, http.StatusNotFound, -32600},
		{"DELETE of the ended session", http.MethodDelete, "", sess, http.StatusNotFound, -32600},
	} {
		r := post(t, tc.method, url, tc.body, tc.hdr)
		if r.status != tc.status || r.code != tc.code {
			t.Errorf("%s: status %d, code %d (%s); want status %d, code %d", tc.name, r.status, r.code, r.msg, tc.status, tc.code)
		}
		if tc.code == -32600 && strings.Contains(tc.name, "batch") && !strings.Contains(r.msg, "batches are not supported") {
			t.Errorf("%s: message %q does not say that batches are not supported", tc.name, r.msg)
		}
	}
}

func TestHTTPSessionsEnd(t *testing.T) {
	f := newFixture(t, false)
	ts := httptest.NewServer(bridge.NewHTTPHandler(f.srv, "tok", nil))
	defer ts.Close()
	checkSessions(t, ts.URL+bridge.EndpointPath, map[string]string{"Authorization": "Bearer tok"})
}

func TestProxyHTTPSessionsEnd(t *testing.T) {
	ed := &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS()}
	b := newBridge(t, ed)
	s := openSession(t, b, workspace(t, ed, "A"), "sess-A")
	entry, err := s.HTTPEntry()
	if err != nil {
		t.Fatal(err)
	}
	checkSessions(t, entry.URL, map[string]string{entry.Headers[0].Name: entry.Headers[0].Value})
}
