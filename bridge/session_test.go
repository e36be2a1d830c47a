package bridge_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/netip"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcptest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/sessiontest"
)

// callRead calls read_text_file and returns its text and whether it is an
// error result.
func callRead(t *testing.T, c *client.Client, path string) (string, bool) {
	t.Helper()
	res, err := c.CallTool(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{
		Name: "read_text_file", Arguments: map[string]any{"path": path}}})
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return res.Content[0].(mcp.TextContent).Text, res.IsError
}

func initClient(t *testing.T, c *client.Client) {
	t.Helper()
	mcptest.Initialize(t, c, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	t.Cleanup(func() { c.Close() })
}

func httpClient(t *testing.T, entry bridge.MCPServerEntry) *client.Client {
	t.Helper()
	headers := map[string]string{}
	for _, h := range entry.Headers {
		headers[h.Name] = h.Value
	}
	c, err := client.NewStreamableHttpClient(entry.URL, transport.WithHTTPHeaders(headers))
	if err != nil {
		t.Fatal(err)
	}
	initClient(t, c)
	return c
}

func TestSessionHTTPEntriesAreIsolated(t *testing.T) {
	ed := &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS()}
	b := sessiontest.NewBridge(t, ed)
	dirA, dirB := sessiontest.Workspace(t, ed, "A"), sessiontest.Workspace(t, ed, "B")
	a, bs := openSession(t, b, dirA, "sess-A"), openSession(t, b, dirB, "sess-B")
	entryA, err := a.HTTPEntry()
	if err != nil {
		t.Fatal(err)
	}
	entryB, _ := bs.HTTPEntry()
	if entryA.URL != entryB.URL || entryA.Headers[0].Value == entryB.Headers[0].Value {
		t.Fatalf("entries %+v and %+v: want one URL, two secrets", entryA, entryB)
	}
	ca, cb := httpClient(t, entryA), httpClient(t, entryB)

	if text, isErr := callRead(t, ca, "main.go"); isErr || text != "// A unsaved\n" {
		t.Errorf("A reads %q (error %v), want its buffer", text, isErr)
	}
	if text, isErr := callRead(t, cb, filepath.Join(dirA, "main.go")); !isErr || !strings.Contains(text, "outside the allowed roots") {
		t.Errorf("B reading A's file = %q (error %v), want refused", text, isErr)
	}
	for _, r := range ed.Requests() {
		if r.Params["path"] == filepath.Join(dirA, "main.go") && r.Params["sessionId"] != "sess-A" {
			t.Errorf("a request for A's file carried session %v", r.Params["sessionId"])
		}
	}
	if n := len(ed.Requests()); n != 1 {
		t.Errorf("editor got %d requests, want 1 (the refused path must not be sent)", n)
	}

	// A wrong or missing secret gets nothing; nor does a closed session's.
	for _, auth := range []string{"", "Bearer nope", "Basic " + strings.TrimPrefix(entryA.Headers[0].Value, "Bearer ")} {
		req, _ := http.NewRequest("POST", entryA.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("Authorization %q: status %d, want 401", auth, resp.StatusCode)
		}
	}
	a.Close()
	req, _ := http.NewRequest("POST", entryA.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Authorization", entryA.Headers[0].Value)
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("closed session's secret: status %d, want 401", resp.StatusCode)
		}
	}
}

// TestSessionStdioEntryRelays: a stdio entry runs the relay command with
// the relay endpoint and the session's secret in its environment, and the
// relay serves the session. The endpoint is a unix socket in a private
// directory by default, falling back to loopback TCP where the system has
// no unix sockets (Wine); RelayNetwork picks either.
func TestSessionStdioEntryRelays(t *testing.T) {
	for _, network := range []string{"", "unix", "tcp"} {
		t.Run("network="+network, func(t *testing.T) {
			ed := &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS()}
			b := relayBridge(t, ed, bridge.BridgeOptions{RelayCommand: []string{"/usr/local/bin/relay-of-test", "relay"}}, network)
			dir := sessiontest.Workspace(t, ed, "S")
			s := openSession(t, b, dir, "sess-S")
			entry, err := s.StdioEntry()
			if err != nil {
				t.Fatal(err)
			}
			env := map[string]string{}
			for _, e := range entry.Env {
				env[e.Name] = e.Value
			}
			endpoint := env[bridge.EnvRelaySocket]
			if entry.Command != "/usr/local/bin/relay-of-test" || len(entry.Args) != 1 || endpoint == "" || env[bridge.EnvRelaySecret] == "" {
				t.Fatalf("entry = %+v", entry)
			}
			tcp := network == "tcp" || network == "" && ostest.NoUnixSockets(t) != nil
			if hostport, ok := strings.CutPrefix(endpoint, bridge.RelayTCPPrefix); tcp {
				if ap, err := netip.ParseAddrPort(hostport); !ok || err != nil || !ap.Addr().IsLoopback() {
					t.Fatalf("%s = %q, want %s and a loopback address", bridge.EnvRelaySocket, endpoint, bridge.RelayTCPPrefix)
				}
			} else {
				if ok {
					t.Fatalf("%s = %q, want a unix socket's path", bridge.EnvRelaySocket, endpoint)
				}
				bridge.CheckPrivateDir(t, filepath.Dir(endpoint))
			}
			testRelayServes(t, endpoint, env[bridge.EnvRelaySecret])
		})
	}
}

// testRelayServes checks that a relay to endpoint with the wrong secret is
// refused, and with secret serves the session of TestSessionStdioEntryRelays.
func testRelayServes(t *testing.T, endpoint, secret string) {
	// A wrong secret is refused with a clear error.
	err := bridge.Relay(t.Context(), strings.NewReader(""), io.Discard, endpoint, "wrong")
	if err == nil || !strings.Contains(err.Error(), "matches no open session") {
		t.Errorf("relay with a wrong secret: %v", err)
	}

	// The relay, run in-process between pipes, serves the session.
	toRelay, clientOut := io.Pipe()
	clientIn, fromRelay := io.Pipe()
	relayed := make(chan error, 1)
	go func() {
		relayed <- bridge.Relay(context.Background(), toRelay, fromRelay, endpoint, secret)
		fromRelay.Close()
	}()
	c := client.NewClient(transport.NewIO(clientIn, clientOut, nil))
	initClient(t, c)
	if text, isErr := callRead(t, c, "main.go"); isErr || text != "// S unsaved\n" {
		t.Errorf("read through the relay = %q (error %v)", text, isErr)
	}
	clientOut.Close()
	if err := <-relayed; err != nil {
		t.Errorf("relay ended with %v", err)
	}
}

// TestRelayEndpointErrors: a relay sends its secret only to a loopback
// TCP address, and a bridge refuses a RelayNetwork it does not know; each
// error names the value and says what is wanted.
func TestRelayEndpointErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	for _, endpoint := range []string{
		"tcp:192.0.2.1:" + port,
		"tcp:localhost:" + port, // a name is not resolved
		"tcp:[::]:" + port,
		"tcp::" + port,
		"tcp:127.0.0.1",
	} {
		// Refused before any dial: a relay that dialled 192.0.2.1 would
		// not answer before this deadline.
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		err := bridge.Relay(ctx, strings.NewReader(""), io.Discard, endpoint, "secret")
		cancel()
		if err == nil || !strings.Contains(err.Error(), strconv.Quote(endpoint)) || !strings.Contains(err.Error(), "loopback IP address") {
			t.Errorf("Relay to %q: %v, want it refused, naming the endpoint", endpoint, err)
		}
	}

	ed := &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS()}
	b := bridge.NewBridge(sessiontest.EditorConn(t, ed), bridge.BridgeOptions{RelayNetwork: "pipe"})
	b.Initialize(json.RawMessage(sessiontest.FSCapabilities))
	t.Cleanup(func() { b.Close() })
	s := openSession(t, b, sessiontest.Workspace(t, ed, "S"), "sess-S")
	if _, err := s.StdioEntry(); err == nil || !strings.Contains(err.Error(), `relay network "pipe"`) {
		t.Errorf("StdioEntry with RelayNetwork %q: %v", "pipe", err)
	}
	if _, err := s.HTTPEntry(); err != nil {
		t.Errorf("HTTPEntry with a bad RelayNetwork: %v", err)
	}
}

func TestMCPServerEntryJSON(t *testing.T) {
	stdio, _ := json.Marshal(bridge.MCPServerEntry{Name: "acpfs", Command: "/bin/x"})
	if string(stdio) != `{"name":"acpfs","command":"/bin/x","args":[],"env":[]}` {
		t.Errorf("stdio entry = %s", stdio)
	}
	h, _ := json.Marshal(bridge.MCPServerEntry{Type: "http", Name: "acpfs", URL: "http://127.0.0.1:1/mcp"})
	if string(h) != `{"type":"http","name":"acpfs","url":"http://127.0.0.1:1/mcp","headers":[]}` {
		t.Errorf("http entry = %s", h)
	}
}

func TestParseSessionParams(t *testing.T) {
	// Absolute paths in this OS's syntax, as JSON strings.
	w, x, y := jsonString(ostest.HostPath("/w")), jsonString(ostest.HostPath("/x")), jsonString(ostest.HostPath("/y"))
	good := []string{
		`{"cwd":` + w + `,"mcpServers":[]}`,
		`{"sessionId":"s","cwd":` + w + `,"additionalDirectories":[` + x + `,` + y + `]}`,
		`{"cwd":` + w + `,"additionalDirectories":null,"_meta":{"k":1}}`,
	}
	for _, p := range good {
		if _, err := bridge.ParseSessionParams(json.RawMessage(p)); err != nil {
			t.Errorf("ParseSessionParams(%s): %v", p, err)
		}
	}
	bad := []string{`{}`, `{"cwd":"rel"}`, `{"cwd":7}`, `{"cwd":` + w + `,"additionalDirectories":["rel"]}`, `[]`, `{"cwd":` + w + `,"additionalDirectories":"x"}`}
	if !filepath.IsAbs("/w") {
		// Windows: a path rooted without a drive is relative to the
		// current drive, not absolute.
		bad = append(bad, `{"cwd":"/w"}`, `{"cwd":`+w+`,"additionalDirectories":["/x"]}`)
	}
	for _, p := range bad {
		if _, err := bridge.ParseSessionParams(json.RawMessage(p)); err == nil {
			t.Errorf("ParseSessionParams(%s) succeeded", p)
		}
	}
}

// jsonString returns s as a JSON string.
func jsonString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func TestSessionWaitsForItsIDAndFailsWhenClosed(t *testing.T) {
	ed := &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS()}
	b := sessiontest.NewBridge(t, ed)
	dir := sessiontest.Workspace(t, ed, "W")
	s, err := b.OpenSession(bridge.SessionParams{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.Router().ReadTextFile(context.Background(), filepath.Join(dir, "main.go"), 0, 0)
		done <- err
	}()
	s.Close()
	// The read either was waiting for the id, or starts after the close,
	// or was on disk when the roots closed under it.
	if err := <-done; err == nil || !strings.Contains(err.Error(), "session is closed") && !strings.Contains(err.Error(), "roots are closed") {
		t.Errorf("read waiting for the id of a closed session: %v", err)
	}
	if len(ed.Requests()) != 0 {
		t.Errorf("editor got %v", ed.Requests())
	}
}
