package mcptransport_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpfstest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/sessiontest"
	"github.com/mcp-acpfs/mcp-acpfs/mcptransport"
)

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
	init := mcpfstest.Post(t, http.MethodPost, url, mcpfstest.InitializeBody, hdr)
	if init.Status != http.StatusOK || init.SID == "" {
		t.Fatalf("initialize: status %d, session %q", init.Status, init.SID)
	}
	sess := with("Mcp-Session-Id", init.SID)
	sess["MCP-Protocol-Version"] = "2025-11-25"
	if r := mcpfstest.Post(t, http.MethodPost, url, legacyPing, sess); r.Status != http.StatusOK || r.Code != 0 {
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
		r := mcpfstest.Post(t, tc.method, url, tc.body, tc.hdr)
		if r.Status != tc.status || r.Code != tc.code {
			t.Errorf("%s: status %d, code %d (%s); want status %d, code %d", tc.name, r.Status, r.Code, r.Msg, tc.status, tc.code)
		}
		if tc.code == -32600 && strings.Contains(tc.name, "batch") && !strings.Contains(r.Msg, "batches are not supported") {
			t.Errorf("%s: message %q does not say that batches are not supported", tc.name, r.Msg)
		}
	}
}

func TestHTTPSessionsEnd(t *testing.T) {
	f := mcpfstest.NewFixture(t, false)
	ts := httptest.NewServer(mcptransport.NewHTTPHandler(f.Srv, "tok", f.Transport(t)))
	defer ts.Close()
	checkSessions(t, ts.URL+mcptransport.EndpointPath, map[string]string{"Authorization": "Bearer tok"})
}

func TestProxyHTTPSessionsEnd(t *testing.T) {
	ed := &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS()}
	b := sessiontest.NewBridge(t, ed)
	s := sessiontest.OpenSession(t, b, sessiontest.Workspace(t, ed, "A"), "sess-A")
	entry, err := s.HTTPEntry()
	if err != nil {
		t.Fatal(err)
	}
	checkSessions(t, entry.URL, map[string]string{entry.Headers[0].Name: entry.Headers[0].Value})
}
