package bridge_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
)

func TestGuardHTTP(t *testing.T) {
	const token = "s3cret-Token"
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	guarded := bridge.GuardHTTP(ok, token)
	open := bridge.GuardHTTP(ok, "")

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

func TestCheckLoopbackAddr(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:0":       true,
		"127.0.0.1:8080":    true,
		"127.255.0.1:1":     true,
		"localhost:0":       true,
		"[::1]:0":           true,
		":8080":             false,
		"0.0.0.0:8080":      false,
		"[::]:8080":         false,
		"192.168.0.1:80":    false,
		"example.com:80":    false,
		"localhost.com:80":  false,
		"127.0.0.1":         false, // no port
		"[::ffff:7f00:1]:1": true,  // IPv4-mapped 127.0.0.1
	} {
		if err := bridge.CheckLoopbackAddr(addr); (err == nil) != ok {
			t.Errorf("CheckLoopbackAddr(%q) = %v, want ok=%v", addr, err, ok)
		}
	}
}

func TestNewToken(t *testing.T) {
	a, b := bridge.NewToken(), bridge.NewToken()
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(a) || a == b {
		t.Errorf("tokens %q and %q, want two different 32-byte hex strings", a, b)
	}
}

func TestHTTPHandler(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			f := newFixture(t, false)
			f.writeFile(t, "a.txt", "over http\n")
			const token = "tok"
			ts := httptest.NewServer(bridge.NewHTTPHandler(f.srv, token, nil))
			defer ts.Close()

			// Without the token, nothing.
			resp, err := http.Post(ts.URL+bridge.EndpointPath, "application/json", strings.NewReader(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("without a token: status %d", resp.StatusCode)
			}

			c, err := client.NewStreamableHttpClient(ts.URL+bridge.EndpointPath,
				transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := c.Start(t.Context()); err != nil {
				t.Fatal(err)
			}
			var req mcp.InitializeRequest
			req.Params.ProtocolVersion = era.version
			if _, err := c.Initialize(t.Context(), req); err != nil {
				t.Fatal(err)
			}
			if got := c.ProtocolVersion(); got != era.version {
				t.Errorf("protocol version %q, want %q", got, era.version)
			}
			if got := wantOK(t, call(t, c, bridge.ReadTextFile, map[string]any{"path": "a.txt"})); got != "over http\n" {
				t.Errorf("read %q", got)
			}
			wantError(t, call(t, c, bridge.ReadTextFile, map[string]any{"path": "../x"}), "outside the allowed roots")
		})
	}
}

// Over Streamable HTTP, a client that also listens on a GET stream gets
// its roots applied too.
func TestHTTPRoots(t *testing.T) {
	f := newRootsFixture(t, 0, ".")
	ts := httptest.NewServer(bridge.NewHTTPHandler(f.srv, "", nil))
	defer ts.Close()
	tr, err := transport.NewStreamableHTTP(ts.URL+bridge.EndpointPath, transport.WithContinuousListening(),
		transport.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	roots := &clientRoots{}
	roots.set(fileURI(f.path("a")))
	c := client.NewClient(tr, client.WithRootsHandler(roots))
	defer c.Close()
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	var req mcp.InitializeRequest
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	if _, err := c.Initialize(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if canRead(t, c, f.path("b/other.txt")) || !canRead(t, c, f.path("a/in.txt")) {
		t.Error("not narrowed to the client's root")
	}
}
