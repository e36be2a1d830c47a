package integration

import (
	"context"
	"crypto/rand"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/mcpclient"
)

// urlLine matches the line serve --http logs at startup, with the URL.
var urlLine = regexp.MustCompile(`\burl=(http://127\.0\.0\.1:[0-9]+/mcp)(\s|$)`)

// An httpServer is a running `serve --http 127.0.0.1:0`.
type httpServer struct {
	*proc
	url  string
	line string // the stderr line with the URL
}

// startHTTP runs serve --http on a free loopback port with root and extra
// arguments, and waits until it logs its URL.
func startHTTP(t *testing.T, root string, env []string, extra ...string) *httpServer {
	t.Helper()
	args := append([]string{"serve", "--root", root, "--http", "127.0.0.1:0"}, extra...)
	p := start(t, procOptions{env: env}, args...)
	ctx, cancel := context.WithTimeout(t.Context(), startTimeout)
	defer cancel()
	line, m := p.stderr.waitFor(ctx, t, urlLine)
	return &httpServer{proc: p, url: m[1], line: line}
}

// stop ends the server with SIGTERM (stopSignal: os.Interrupt on
// Windows); it must exit with status 0, having written nothing on stdout.
// Where the system cannot send the signal (as Wine cannot), it kills the
// server instead, saying so: TestStdioSignal is skipped there.
func (s *httpServer) stop() {
	s.t.Helper()
	if code, err := s.trySignal(stopSignal); err != nil {
		s.t.Logf("serve --http cannot be asked to stop here, so it is killed, and its exit status is not checked: %v", err)
		s.cmd.Process.Kill()
		s.wait("a kill")
	} else if code != 0 {
		s.t.Errorf("serve --http exited with status %d on %v, want 0", code, stopSignal)
	}
	if out := s.stdout.String(); out != "" {
		s.t.Errorf("serve --http wrote on stdout: %q", truncate(out, 200))
	}
}

// connectHTTP starts an mcp-go Streamable HTTP client of s with the given
// headers and initializes it in the era of version.
func (s *httpServer) connectHTTP(t *testing.T, version string, headers map[string]string) *client.Client {
	t.Helper()
	c, err := client.NewStreamableHttpClient(s.url, transport.WithHTTPHeaders(headers))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	initialize(t, c, version)
	return c
}

func bearer(token string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + token}
}

// initializeBody is a JSON-RPC initialize request.
const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// post sends an initialize request to s with the given headers (a "Host"
// entry sets the Host header) and returns the status code and body.
func (s *httpServer) post(t *testing.T, headers map[string]string) (int, string) {
	t.Helper()
	return s.request(t, http.MethodPost, initializeBody, headers)
}

func (s *httpServer) request(t *testing.T, method, body string, headers map[string]string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), callTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, s.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, s.url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode == http.StatusUnauthorized && !strings.EqualFold(strings.Fields(resp.Header.Get("WWW-Authenticate") + " x")[0], "Bearer") {
		t.Errorf("401 without \"WWW-Authenticate: Bearer\" (got %q)", resp.Header.Get("WWW-Authenticate"))
	}
	return resp.StatusCode, string(b)
}

// wantStatus checks the status of an initialize POST with headers.
func (s *httpServer) wantStatus(t *testing.T, want int, headers map[string]string) {
	t.Helper()
	got, body := s.post(t, headers)
	if got != want {
		t.Errorf("POST with %v: status %d, want %d; body: %s", headers, got, want, truncate(body, 300))
	}
	if want == http.StatusOK && !strings.Contains(body, `"protocolVersion"`) {
		t.Errorf("POST with %v: body is not an initialize result: %s", headers, truncate(body, 300))
	}
}

// useFiles reads, writes and reads back through c, and checks a refusal.
//
// It writes a file of its own, named, so that clients of one server
// (whose stateless calls share one read guard) do not overwrite each
// other's.
func useFiles(t *testing.T, c *client.Client, tr tree, name string) {
	t.Helper()
	rel := "http/" + name + ".txt"
	checkTools(t, c, tr.root, allTools...)
	if got := mustSucceed(t, c, readTool, map[string]any{"path": "hello.txt", "line": 2}); got != "beta\r\ngamma\n" {
		t.Errorf("read %q", got)
	}
	const content = "over http\r\n✓\n"
	mustSucceed(t, c, writeTool, map[string]any{"path": rel, "content": content})
	wantFile(t, filepath.Join(tr.root, filepath.FromSlash(rel)), content)
	if got := mustSucceed(t, c, readTool, map[string]any{"path": rel}); got != content {
		t.Errorf("read back %q, want %q", got, content)
	}
	mustFail(t, c, readTool, map[string]any{"path": "missing.txt"}, filepath.Join(tr.root, "missing.txt"), notExist)
	mustFail(t, c, readTool, map[string]any{"path": "../outside/secret.txt"}, "outside the allowed roots")
}

// TestHTTP checks serve --http with the token from MCP_ACPFS_TOKEN: the
// mcp-go Streamable HTTP client works with it; requests without it, with
// another one, or from a non-loopback Host or Origin are refused.
func TestHTTP(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	token := rand.Text()
	s := startHTTP(t, tr.root, []string{"MCP_ACPFS_TOKEN=" + token})
	if strings.Contains(s.stderr.String(), token) {
		t.Errorf("the token from the environment is logged:\n%s", s.stderr.String())
	}
	_, port, err := net.SplitHostPort(hostOf(t, s.url))
	if err != nil {
		t.Fatal(err)
	}

	for _, era := range eras {
		t.Run("Client/"+era.name, func(t *testing.T) {
			c := s.connectHTTP(t, era.version, bearer(token))
			useFiles(t, c, tr, "new-"+era.name)
		})
	}
	t.Run("ClientWrongToken", func(t *testing.T) {
		e := mcpclient.Entry{Type: "http", URL: s.url, Headers: []mcpclient.NameValue{{Name: "Authorization", Value: "Bearer " + token + "x"}}}
		if c, err := mcpclient.Connect(t.Context(), e, mcpclient.Options{Hello: clientHello(mcp.LATEST_LEGACY_PROTOCOL_VERSION)}); err == nil {
			c.Close()
			t.Errorf("initialize with a wrong token succeeded")
		}
	})
	t.Run("Unauthorized", func(t *testing.T) {
		for name, headers := range map[string]map[string]string{
			"NoToken":        nil,
			"WrongToken":     bearer(token + "x"),
			"TokenPrefix":    bearer(token[:len(token)-1]),
			"EmptyBearer":    {"Authorization": "Bearer "},
			"Basic":          {"Authorization": "Basic " + token},
			"BareToken":      {"Authorization": token},
			"TokenElsewhere": {"Origin": "http://127.0.0.1:" + port, "X-Token": token},
		} {
			t.Run(name, func(t *testing.T) { s.wantStatus(t, http.StatusUnauthorized, headers) })
		}
		if code, _ := s.request(t, http.MethodGet, "", nil); code != http.StatusUnauthorized {
			t.Errorf("GET without a token: status %d, want 401", code)
		}
		if code, _ := s.request(t, http.MethodDelete, "", nil); code != http.StatusUnauthorized {
			t.Errorf("DELETE without a token: status %d, want 401", code)
		}
	})
	t.Run("Forbidden", func(t *testing.T) {
		for name, extra := range map[string]map[string]string{
			"Host":               {"Host": "evil.example"},
			"HostWithPort":       {"Host": "evil.example:" + port},
			"HostLocalhostLike":  {"Host": "localhost.evil.example:" + port},
			"HostLoopbackSuffix": {"Host": "127.0.0.1.nip.io:" + port},
			"Origin":             {"Origin": "https://evil.example"},
			"OriginNull":         {"Origin": "null"},
			"OriginLoopbackLike": {"Origin": "http://127.0.0.1.evil.example:" + port},
		} {
			t.Run(name, func(t *testing.T) {
				headers := bearer(token)
				for k, v := range extra {
					headers[k] = v
				}
				s.wantStatus(t, http.StatusForbidden, headers)
			})
		}
	})
	t.Run("Allowed", func(t *testing.T) {
		for name, extra := range map[string]map[string]string{
			"Plain":           {},
			"LowercaseScheme": {"Authorization": "bearer " + token},
			"HostLocalhost":   {"Host": "localhost:" + port},
			"OriginLoopback":  {"Origin": "http://127.0.0.1:" + port},
			"OriginLocalhost": {"Origin": "http://localhost:" + port},
		} {
			t.Run(name, func(t *testing.T) {
				headers := bearer(token)
				for k, v := range extra {
					headers[k] = v
				}
				s.wantStatus(t, http.StatusOK, headers)
			})
		}
	})
	s.stop()
}

// TestHTTPGeneratedToken checks that without MCP_ACPFS_TOKEN serve --http
// generates a token and logs it.
func TestHTTPGeneratedToken(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	s := startHTTP(t, tr.root, nil)
	m := regexp.MustCompile(`\btoken=([^\s"]+)`).FindStringSubmatch(s.line)
	if m == nil {
		t.Fatalf("no token= in the URL line: %s", s.line)
	}
	token := m[1]
	if len(token) < 32 {
		t.Errorf("generated token %q is short", token)
	}
	c := s.connectHTTP(t, mcp.LATEST_LEGACY_PROTOCOL_VERSION, bearer(token))
	useFiles(t, c, tr, "new-1")
	s.wantStatus(t, http.StatusUnauthorized, nil)
	s.wantStatus(t, http.StatusForbidden, map[string]string{"Authorization": "Bearer " + token, "Origin": "https://evil.example"})
	c.Close()
	s.stop()
}

// TestHTTPNoAuth checks serve --http --http-no-auth: no token is needed,
// but the Host and Origin checks still apply.
func TestHTTPNoAuth(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	s := startHTTP(t, tr.root, []string{"MCP_ACPFS_TOKEN=unused"}, "--http-no-auth")
	if strings.Contains(s.line, "token=") {
		t.Errorf("the URL line names a token with --http-no-auth: %s", s.line)
	}
	c := s.connectHTTP(t, mcp.LATEST_LEGACY_PROTOCOL_VERSION, nil)
	useFiles(t, c, tr, "new-2")
	s.wantStatus(t, http.StatusOK, nil)
	s.wantStatus(t, http.StatusForbidden, map[string]string{"Host": "evil.example"})
	s.wantStatus(t, http.StatusForbidden, map[string]string{"Origin": "https://evil.example"})
	c.Close()
	s.stop()
}

// TestHTTPReadOnly checks that --read-only applies over HTTP too.
func TestHTTPReadOnly(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	s := startHTTP(t, tr.root, nil, "--http-no-auth", "--read-only")
	c := s.connectHTTP(t, mcp.LATEST_LEGACY_PROTOCOL_VERSION, nil)
	checkTools(t, c, tr.root, readOnlyTools...)
	refuseMutations(t, c, tr)
	c.Close()
	s.stop()
}

// hostOf returns the host:port of a URL.
func hostOf(t *testing.T, u string) string {
	t.Helper()
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return pu.Host
}

// connectHTTPWithRoots starts an mcp-go Streamable HTTP client of s (no
// token) that declares the roots capability and answers roots/list from
// roots, and initializes it with protocol 2025-11-25.
func (s *httpServer) connectHTTPWithRoots(t *testing.T, roots *rootsHandler, opts ...transport.StreamableHTTPCOption) *client.Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(s.url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, client.WithRootsHandler(roots))
	t.Cleanup(func() { c.Close() })
	initialize(t, c, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	return c
}

// TestHTTPClientRoots checks client roots over Streamable HTTP, for a client
// that keeps a GET stream open for server-to-client requests: they narrow
// the configured root, and follow roots/list_changed.
func TestHTTPClientRoots(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	s := startHTTP(t, tr.root, nil, "--http-no-auth")
	roots := &rootsHandler{}
	roots.set(filepath.Join(tr.root, "sub"))
	c := s.connectHTTPWithRoots(t, roots, transport.WithContinuousListening())

	mustFail(t, c, readTool, map[string]any{"path": "hello.txt"}, "outside the allowed roots")
	if got := mustSucceed(t, c, readTool, map[string]any{"path": "sub/rel.txt"}); got != "relative\n" {
		t.Errorf("read %q", got)
	}
	roots.set(tr.root, tr.outside)
	notifyRootsChanged(t, c)
	if got := mustSucceed(t, c, readTool, map[string]any{"path": "hello.txt"}); got != rootFiles["hello.txt"] {
		t.Errorf("read %q", got)
	}
	mustFail(t, c, readTool, map[string]any{"path": "../outside/secret.txt"}, "outside the allowed roots")
	c.Close()
	s.stop()
}

// TestHTTPClientRootsWithoutGETStream checks client roots for a Streamable
// HTTP client that keeps no GET stream open (mcp-go's client by default; the
// stream is optional in the protocol): the server cannot reach it outside a
// request, so it asks for the roots on the response stream of the first tool
// call. The roots apply from that call on, and the call does not wait for
// the roots timeout.
func TestHTTPClientRootsWithoutGETStream(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	s := startHTTP(t, tr.root, nil, "--http-no-auth")
	roots := &rootsHandler{}
	roots.set(filepath.Join(tr.root, "sub"))
	c := s.connectHTTPWithRoots(t, roots)

	mustFail(t, c, readTool, map[string]any{"path": "hello.txt"}, "outside the allowed roots")
	if got := mustSucceed(t, c, readTool, map[string]any{"path": "sub/rel.txt"}); got != "relative\n" {
		t.Errorf("read %q", got)
	}
	roots.set(tr.root)
	notifyRootsChanged(t, c)
	if got := mustSucceed(t, c, readTool, map[string]any{"path": "hello.txt"}); got != rootFiles["hello.txt"] {
		t.Errorf("read %q", got)
	}
	roots.mu.Lock()
	calls := roots.calls
	roots.mu.Unlock()
	if calls != 2 {
		t.Errorf("the server asked for the roots %d times, want 2 (in the first call, and in the first after list_changed)", calls)
	}
	c.Close()
	s.stop()
	if logs := s.stderr.String(); strings.Contains(logs, "did not arrive in time") || strings.Contains(logs, "could not get the MCP client's roots") {
		t.Errorf("a tool call waited for roots that could not come:\n%s", logs)
	}
}
