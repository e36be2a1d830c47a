package bridge_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/sessiontest"
)

// endpointHangGuard bounds how long a test waits for the endpoints to drop
// a stalled connection. The endpoints' own timeout is far shorter; this
// only keeps a broken endpoint from hanging the test.
const endpointHangGuard = 5 * time.Second

// relayNetworks are the relay endpoints of BridgeOptions.RelayNetwork.
var relayNetworks = []string{"unix", "tcp"}

// relayBridge returns a bridge whose relay endpoint is on network, or
// skips the test where that is a unix socket and the system has none.
func relayBridge(t *testing.T, ed *fsruntimetest.Editor, opts bridge.BridgeOptions, network string) *bridge.Bridge {
	t.Helper()
	if network == "unix" {
		ostest.NeedUnixSockets(t)
	}
	opts.RelayNetwork = network
	b := bridge.NewBridge(sessiontest.EditorConn(t, ed), opts)
	b.Initialize(json.RawMessage(sessiontest.FSCapabilities))
	t.Cleanup(func() { b.Close() })
	return b
}

// dialRelay connects to a relay endpoint as EnvRelaySocket names it.
func dialRelay(t *testing.T, endpoint string) net.Conn {
	t.Helper()
	network, addr := "unix", endpoint
	if hostport, ok := strings.CutPrefix(endpoint, bridge.RelayTCPPrefix); ok {
		network, addr = "tcp", hostport
	}
	conn, err := net.Dial(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// relayEnv returns the relay endpoint and secret of a session's stdio entry.
func relayEnv(t *testing.T, s *bridge.Session) (socket, secret string) {
	t.Helper()
	entry, err := s.StdioEntry()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entry.Env {
		switch e.Name {
		case bridge.EnvRelaySocket:
			socket = e.Value
		case bridge.EnvRelaySecret:
			secret = e.Value
		}
	}
	return socket, secret
}

// relayClient connects an MCP client through an in-process relay.
func relayClient(t *testing.T, socket, secret string) *client.Client {
	t.Helper()
	toRelay, clientOut := io.Pipe()
	clientIn, fromRelay := io.Pipe()
	go func() {
		bridge.Relay(context.WithoutCancel(t.Context()), toRelay, fromRelay, socket, secret)
		fromRelay.Close()
	}()
	t.Cleanup(func() { clientOut.Close() })
	c := client.NewClient(transport.NewIO(clientIn, clientOut, nil))
	initClient(t, c)
	return c
}

// relayHandshake connects to the relay endpoint, sends hello as it is, and
// returns the bridge's first answer line.
func relayHandshake(t *testing.T, socket, hello string) string {
	t.Helper()
	conn := dialRelay(t, socket)
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(endpointHangGuard))
	if _, err := io.WriteString(conn, hello); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(hello, "\n") {
		conn.(interface{ CloseWrite() error }).CloseWrite()
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		t.Fatalf("relay handshake %q: no answer: %v", hello, err)
	}
	return strings.TrimSpace(line)
}

// TestRelaySecrets: the relay endpoint, a unix socket or a loopback TCP
// port, serves a connection only the session whose secret it presents. A
// missing, empty, wrong, truncated or closed session's secret is refused
// with a line that says why; another session's secret reaches that
// session and nothing of the first.
func TestRelaySecrets(t *testing.T) {
	for _, network := range relayNetworks {
		t.Run(network, func(t *testing.T) { testRelaySecrets(t, network) })
	}
}

func testRelaySecrets(t *testing.T, network string) {
	ed := &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS()}
	b := relayBridge(t, ed, bridge.BridgeOptions{}, network)
	dirA, dirB := sessiontest.Workspace(t, ed, "A"), sessiontest.Workspace(t, ed, "B")
	a, bs := openSession(t, b, dirA, "sess-A"), openSession(t, b, dirB, "sess-B")
	socket, secretA := relayEnv(t, a)
	socketB, secretB := relayEnv(t, bs)
	if socketB != socket || secretB == secretA {
		t.Fatalf("sessions share socket %s / %s and secrets %v; want one socket, two secrets", socket, socketB, secretB == secretA)
	}

	for name, hello := range map[string]string{
		"no secret":          "",
		"empty line":         "\n",
		"wrong":              "wrong\n",
		"truncated":          secretA[:len(secretA)/2] + "\n",
		"longer":             secretA + "x\n",
		"in another case":    strings.ToUpper(secretA) + "\n",
		"as a bearer header": "Authorization: Bearer " + secretA + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			got := relayHandshake(t, socket, hello)
			want := "error: the secret matches no open session"
			if hello == "" {
				want = "error: no secret presented"
			}
			if got != want {
				t.Errorf("answer %q, want %q", got, want)
			}
		})
	}

	// B's secret reaches B, which cannot see A's files.
	cb := relayClient(t, socket, secretB)
	if text, isErr := callRead(t, cb, "main.go"); isErr || text != "// B unsaved\n" {
		t.Errorf("B reads its own file: %q (error %v)", text, isErr)
	}
	if text, isErr := callRead(t, cb, filepath.Join(dirA, "main.go")); !isErr || !strings.Contains(text, "outside the allowed roots") {
		t.Errorf("B reads A's file: %q (error %v), want refused", text, isErr)
	}
	for _, r := range ed.Requests() {
		if r.Params["path"] == filepath.Join(dirA, "main.go") {
			t.Errorf("the editor was asked for A's file through B: %v", r.Params)
		}
	}

	// A closed session's secret is refused.
	a.Close()
	if got := relayHandshake(t, socket, secretA+"\n"); got != "error: the secret matches no open session" {
		t.Errorf("closed session's secret: answer %q", got)
	}
}

// TestHTTPEndpointHostAndOrigin: the sessions' loopback endpoint refuses a
// request for a non-loopback Host or from a non-loopback Origin, even with
// a session's secret, and serves it otherwise.
func TestHTTPEndpointHostAndOrigin(t *testing.T) {
	ed := &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS()}
	b := sessiontest.NewBridge(t, ed)
	s := openSession(t, b, sessiontest.Workspace(t, ed, "A"), "sess-A")
	entry, err := s.HTTPEntry()
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(entry.URL)
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(u.Host)
	for _, tc := range []struct {
		name, host, origin string
		want               int
	}{
		{"loopback", u.Host, "", http.StatusOK},
		{"localhost with origin", "localhost:" + port, "http://localhost:" + port, http.StatusOK},
		{"rebinding host", "evil.example:" + port, "", http.StatusForbidden},
		{"lookalike host", "127.0.0.1.evil.example:" + port, "", http.StatusForbidden},
		{"private address", "192.168.0.10:" + port, "", http.StatusForbidden},
		{"foreign origin", u.Host, "https://evil.example", http.StatusForbidden},
		{"null origin", u.Host, "null", http.StatusForbidden},
		{"lookalike origin", u.Host, "http://localhost.evil.example:" + port, http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, entry.URL, strings.NewReader(initializeBody))
			req.Host = tc.host
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Authorization", entry.Headers[0].Value)
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("status %d (%s), want %d", resp.StatusCode, strings.TrimSpace(string(body)), tc.want)
			}
		})
	}
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// TestEndpointsDropStalledConnections: connections that stall halfway
// (half an HTTP request's headers; whole headers and half a body, with a
// session's secret or without one; half a relay secret) hold nothing up:
// other sessions are served meanwhile over both endpoints, and each
// stalled connection is closed by the bridge after its HandshakeTimeout.
// The relay endpoint is checked as a unix socket and as loopback TCP.
func TestEndpointsDropStalledConnections(t *testing.T) {
	for _, network := range relayNetworks {
		t.Run(network, func(t *testing.T) { testEndpointsDropStalledConnections(t, network) })
	}
}

func testEndpointsDropStalledConnections(t *testing.T, network string) {
	ed := &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS()}
	b := relayBridge(t, ed, bridge.BridgeOptions{HandshakeTimeout: 100 * time.Millisecond}, network)
	a := openSession(t, b, sessiontest.Workspace(t, ed, "A"), "sess-A")
	other := openSession(t, b, sessiontest.Workspace(t, ed, "B"), "sess-B")
	entryA, err := a.HTTPEntry()
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(entryA.URL)
	socket, secretA := relayEnv(t, a)

	send := func(conn net.Conn, data string) net.Conn {
		t.Helper()
		t.Cleanup(func() { conn.Close() })
		if _, err := io.WriteString(conn, data); err != nil {
			t.Fatal(err)
		}
		return conn
	}
	dial := func(addr, data string) net.Conn {
		t.Helper()
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		return send(conn, data)
	}
	headers := func(auth string) string {
		return fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n%sContent-Length: %d\r\n\r\n",
			u.Path, u.Host, auth, len(initializeBody))
	}
	stalled := map[string]net.Conn{
		"half the headers":                    dial(u.Host, headers("Authorization: " + entryA.Headers[0].Value + "\r\n")[:40]),
		"headers then half a body":            dial(u.Host, headers("Authorization: "+entryA.Headers[0].Value+"\r\n")+initializeBody[:30]),
		"headers then half a body, no secret": dial(u.Host, headers("")+initializeBody[:30]),
		"half a relay secret":                 send(dialRelay(t, socket), secretA[:20]),
	}

	// Another session is served over both endpoints while they stall.
	entryB, err := other.HTTPEntry()
	if err != nil {
		t.Fatal(err)
	}
	if text, isErr := callRead(t, httpClient(t, entryB), "main.go"); isErr || text != "// B unsaved\n" {
		t.Errorf("B over HTTP: %q (error %v)", text, isErr)
	}
	socketB, secretB := relayEnv(t, other)
	if text, isErr := callRead(t, relayClient(t, socketB, secretB), "main.go"); isErr || text != "// B unsaved\n" {
		t.Errorf("B over the relay: %q (error %v)", text, isErr)
	}

	// Each stalled connection is closed: reading it reaches its end.
	for name, conn := range stalled {
		conn.SetReadDeadline(time.Now().Add(endpointHangGuard))
		got, err := io.ReadAll(conn)
		if err != nil {
			t.Errorf("%s: the connection was not dropped: %v (after %q)", name, err, got)
			continue
		}
		if name == "half a relay secret" && string(got) != "error: no secret presented\n" {
			t.Errorf("%s: the bridge answered %q", name, got)
		}
		if strings.Contains(string(got), `"result"`) {
			t.Errorf("%s: the bridge served the request: %q", name, got)
		}
	}

	// A whole request with the secret still works on a connection of its
	// own, and so does A's relay: nothing was torn down with the stalled
	// connections.
	if text, isErr := callRead(t, httpClient(t, entryA), "main.go"); isErr || text != "// A unsaved\n" {
		t.Errorf("A over HTTP after the stalls: %q (error %v)", text, isErr)
	}
	if text, isErr := callRead(t, relayClient(t, socket, secretA), "main.go"); isErr || text != "// A unsaved\n" {
		t.Errorf("A over the relay after the stalls: %q (error %v)", text, isErr)
	}
}

// TestHTTPEndpointStreamsOutliveTheTimeout: the body timeout ends with the
// body. A call whose answer streams for longer than HandshakeTimeout (the
// editor is slow) is answered in full.
func TestHTTPEndpointStreamsOutliveTheTimeout(t *testing.T) {
	release := make(chan struct{})
	ed := &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS(), Delay: func(ctx context.Context, method string) {
		if method == "fs/read_text_file" {
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
	}}
	b := bridge.NewBridge(sessiontest.EditorConn(t, ed), bridge.BridgeOptions{HandshakeTimeout: 50 * time.Millisecond})
	b.Initialize(json.RawMessage(sessiontest.FSCapabilities))
	t.Cleanup(func() { b.Close() })
	s := openSession(t, b, sessiontest.Workspace(t, ed, "A"), "sess-A")
	entry, err := s.HTTPEntry()
	if err != nil {
		t.Fatal(err)
	}
	c := httpClient(t, entry)
	// Several timeouts pass while the editor holds the read: this only
	// makes time pass, it asserts nothing about it.
	time.AfterFunc(300*time.Millisecond, func() { close(release) })
	if text, isErr := callRead(t, c, "main.go"); isErr || text != "// A unsaved\n" {
		t.Errorf("a read answered after the timeout: %q (error %v)", text, isErr)
	}
}
