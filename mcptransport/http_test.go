package mcptransport_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpfstest"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
	"github.com/mcp-acpfs/mcp-acpfs/mcptransport"
)

func TestGuardHTTP(t *testing.T) {
	const token = "s3cret-Token"
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	guarded := mcptransport.GuardHTTP(ok, token)
	open := mcptransport.GuardHTTP(ok, "")

	for _, tc := range []struct {
		name    string
		handler http.Handler
		host    string
		headers map[string][]string
		want    int
	}{
		{"loopback v4", guarded, "127.0.0.1:8080", auth("Bearer " + token), 200},
		{"loopback v4 without port", guarded, "127.0.0.1", auth("Bearer " + token), 200},
		{"loopback 127/8", guarded, "127.1.2.3:9", auth("Bearer " + token), 200},
		{"localhost", guarded, "localhost:8080", auth("Bearer " + token), 200},
		{"LOCALHOST", guarded, "LOCALHOST", auth("Bearer " + token), 200},
		{"loopback v6", guarded, "[::1]:8080", auth("Bearer " + token), 200},
		{"loopback v6 without port", guarded, "[::1]", auth("Bearer " + token), 200},
		{"scheme in lower case", guarded, "127.0.0.1:1", auth("bearer " + token), 200},
		{"scheme in upper case", guarded, "127.0.0.1:1", auth("BEARER " + token), 200},
		{"extra spaces", guarded, "127.0.0.1:1", auth("  Bearer   " + token + " "), 200},

		{"rebinding name", guarded, "evil.example:8080", auth("Bearer " + token), 403},
		{"localhost suffix", guarded, "localhost.evil.example", auth("Bearer " + token), 403},
		{"localhost prefix", guarded, "evil-localhost:80", auth("Bearer " + token), 403},
		{"private address", guarded, "192.168.1.2:8080", auth("Bearer " + token), 403},
		{"unspecified address", guarded, "0.0.0.0:8080", auth("Bearer " + token), 403},
		{"mapped loopback zone", guarded, "[::1%lo]:8080", auth("Bearer " + token), 403},
		{"empty host", guarded, "", auth("Bearer " + token), 403},
		{"rebinding without auth either", guarded, "evil.example", nil, 403},

		{"origin localhost", guarded, "localhost:1", with(auth("Bearer "+token), "Origin", "http://localhost:3000"), 200},
		{"origin 127", guarded, "localhost:1", with(auth("Bearer "+token), "Origin", "https://127.0.0.1"), 200},
		{"origin v6", guarded, "localhost:1", with(auth("Bearer "+token), "Origin", "http://[::1]:5173"), 200},
		{"origin evil", guarded, "localhost:1", with(auth("Bearer "+token), "Origin", "https://evil.example"), 403},
		{"origin null", guarded, "localhost:1", with(auth("Bearer "+token), "Origin", "null"), 403},
		{"origin empty", guarded, "localhost:1", with(auth("Bearer "+token), "Origin", ""), 403},
		{"origin other scheme", guarded, "localhost:1", with(auth("Bearer "+token), "Origin", "file://localhost"), 403},
		{"origin with path", guarded, "localhost:1", with(auth("Bearer "+token), "Origin", "http://localhost/x"), 403},
		{"origin with user", guarded, "localhost:1", with(auth("Bearer "+token), "Origin", "http://localhost@evil.example"), 403},
		{"origin lookalike", guarded, "localhost:1", with(auth("Bearer "+token), "Origin", "http://localhost.evil.example"), 403},
		{"two origins", guarded, "localhost:1", map[string][]string{"Authorization": {"Bearer " + token}, "Origin": {"http://localhost", "https://evil.example"}}, 403},

		{"no token", guarded, "127.0.0.1:1", nil, 401},
		{"wrong token", guarded, "127.0.0.1:1", auth("Bearer nope"), 401},
		{"token in other case", guarded, "127.0.0.1:1", auth("Bearer " + strings.ToUpper(token)), 401},
		{"token prefix", guarded, "127.0.0.1:1", auth("Bearer " + token[:5]), 401},
		{"token longer", guarded, "127.0.0.1:1", auth("Bearer " + token + "x"), 401},
		{"empty bearer", guarded, "127.0.0.1:1", auth("Bearer "), 401},
		{"scheme only", guarded, "127.0.0.1:1", auth("Bearer"), 401},
		{"token without scheme", guarded, "127.0.0.1:1", auth(token), 401},
		{"basic scheme", guarded, "127.0.0.1:1", auth("Basic " + token), 401},
		{"two credentials", guarded, "127.0.0.1:1", map[string][]string{"Authorization": {"Bearer " + token, "Bearer nope"}}, 401},

		{"no auth configured", open, "127.0.0.1:1", nil, 200},
		{"no auth configured, any token", open, "127.0.0.1:1", auth("Bearer whatever"), 200},
		{"no auth configured, rebinding", open, "evil.example", nil, 403},
		{"no auth configured, cross origin", open, "127.0.0.1:1", with(nil, "Origin", "https://evil.example"), 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader("{}"))
			r.Host = tc.host
			for k, vs := range tc.headers {
				r.Header[k] = vs
			}
			w := httptest.NewRecorder()
			tc.handler.ServeHTTP(w, r)
			if w.Code != tc.want {
				t.Errorf("status %d, want %d (%s)", w.Code, tc.want, strings.TrimSpace(w.Body.String()))
			}
			if got := w.Header().Get("WWW-Authenticate"); (w.Code == 401) != strings.HasPrefix(got, "Bearer") {
				t.Errorf("status %d with WWW-Authenticate %q", w.Code, got)
			}
			if w.Code == 401 {
				// A missing token and a wrong one are told apart.
				want := "the bearer token is wrong"
				if tc.headers["Authorization"] == nil {
					want = "a bearer token is required"
				}
				if !strings.Contains(w.Body.String(), want) {
					t.Errorf("401 says %q, want %q", strings.TrimSpace(w.Body.String()), want)
				}
			}
			if w.Code != 200 && w.Body.String() == "ok" {
				t.Error("the guarded handler ran")
			}
		})
	}
}

func auth(v string) map[string][]string { return map[string][]string{"Authorization": {v}} }

func with(h map[string][]string, k, v string) map[string][]string {
	out := map[string][]string{k: {v}}
	for hk, hv := range h {
		out[hk] = hv
	}
	return out
}

func TestHTTPHandler(t *testing.T) {
	for _, era := range mcpfstest.Eras {
		t.Run(era.Name, func(t *testing.T) {
			f := mcpfstest.NewFixture(t, false)
			f.WriteFile(t, "a.txt", "over http\n")
			const token = "tok"
			ts := httptest.NewServer(mcptransport.NewHTTPHandler(f.Srv, token, f.Transport(t)))
			defer ts.Close()

			// Without the token, nothing.
			resp, err := http.Post(ts.URL+mcptransport.EndpointPath, "application/json", strings.NewReader(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("without a token: status %d", resp.StatusCode)
			}

			c, err := client.NewStreamableHttpClient(ts.URL+mcptransport.EndpointPath,
				transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := c.Start(t.Context()); err != nil {
				t.Fatal(err)
			}
			var req mcp.InitializeRequest
			req.Params.ProtocolVersion = era.Version
			if _, err := c.Initialize(t.Context(), req); err != nil {
				t.Fatal(err)
			}
			if got := c.ProtocolVersion(); got != era.Version {
				t.Errorf("protocol version %q, want %q", got, era.Version)
			}
			if got := mcpfstest.WantOK(t, mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": "a.txt"})); got != "over http\n" {
				t.Errorf("read %q", got)
			}
			mcpfstest.WantError(t, mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": "../x"}), "outside the allowed roots")
		})
	}
}
