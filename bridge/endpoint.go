package bridge

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcp-acpfs/mcp-acpfs/internal/loopback"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpserve"
	"github.com/mcp-acpfs/mcp-acpfs/mcptransport"
)

// Environment variables that carry a stdio entry's relay endpoint (a unix
// socket's path, or RelayTCPPrefix and a loopback host:port) and secret.
const (
	EnvRelaySocket = "MCP_ACPFS_RELAY_SOCKET"
	EnvRelaySecret = "MCP_ACPFS_RELAY_SECRET"
)

// An MCPServerEntry is an ACP McpServer: how the agent reaches a session's
// MCP server. Type is "http" for Streamable HTTP, "" for stdio as ACP v1
// has it, "stdio" for stdio as v2 has it, or "acp" for MCP over ACP.
type MCPServerEntry struct {
	Type     string
	Name     string
	URL      string      // http
	Headers  []NameValue // http
	Command  string      // stdio
	Args     []string    // stdio
	Env      []NameValue // stdio
	ServerID string      // acp
}

// NameValue is an ACP HttpHeader or EnvVariable.
type NameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// MarshalJSON gives the entry in the shape the ACP schema requires of its
// variant, with every required member present.
func (e MCPServerEntry) MarshalJSON() ([]byte, error) {
	switch e.Type {
	case "":
		return json.Marshal(struct {
			Name    string      `json:"name"`
			Command string      `json:"command"`
			Args    []string    `json:"args"`
			Env     []NameValue `json:"env"`
		}{e.Name, e.Command, nonNil(e.Args), nonNil(e.Env)})
	case "stdio":
		return marshalTypedStdio(e)
	case "acp":
		return marshalACPEntry(e)
	}
	return json.Marshal(struct {
		Type    string      `json:"type"`
		Name    string      `json:"name"`
		URL     string      `json:"url"`
		Headers []NameValue `json:"headers"`
	}{e.Type, e.Name, e.URL, nonNil(e.Headers)})
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// ServerEntry returns the entry to give the agent: Streamable HTTP if the
// agent advertised mcpCapabilities.http, else stdio, which every agent
// supports. What the agent advertised is what [Bridge.InitializeAgent]
// recorded; without it, ServerEntry fails (an agent that knows which it
// wants may call HTTPEntry or StdioEntry instead).
func (s *Session) ServerEntry() (MCPServerEntry, error) {
	s.bridge.mu.Lock()
	http, known := s.bridge.agent.MCP.HTTP, s.bridge.agentKnown
	s.bridge.mu.Unlock()
	if !known {
		return MCPServerEntry{}, errors.New("ServerEntry: what the agent advertised is unknown: call Bridge.InitializeAgent with the agent's initialize result first, or call HTTPEntry or StdioEntry")
	}
	if http {
		return s.HTTPEntry()
	}
	return s.StdioEntry()
}

// HTTPEntry returns an http entry: a URL on the bridge's loopback
// endpoint, and the session's secret as a bearer token in a header.
func (s *Session) HTTPEntry() (MCPServerEntry, error) {
	ep, err := s.bridge.httpEndpoint()
	if err != nil {
		return MCPServerEntry{}, err
	}
	return MCPServerEntry{
		Type:    "http",
		Name:    s.bridge.opts.Name,
		URL:     ep.url,
		Headers: []NameValue{{"Authorization", "Bearer " + s.secret}},
	}, nil
}

// StdioEntry returns a stdio entry that runs the relay command, which
// connects back to the bridge's relay endpoint and presents the session's
// secret.
func (s *Session) StdioEntry() (MCPServerEntry, error) {
	ep, err := s.bridge.relayEndpoint()
	if err != nil {
		return MCPServerEntry{}, err
	}
	argv := s.bridge.opts.RelayCommand
	if len(argv) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return MCPServerEntry{}, fmt.Errorf("find this executable for the relay command: %w", err)
		}
		argv = []string{exe, "relay"}
	}
	return MCPServerEntry{
		Name:    s.bridge.opts.Name,
		Command: argv[0],
		Args:    argv[1:],
		Env:     []NameValue{{EnvRelaySocket, ep.addr}, {EnvRelaySecret, s.secret}},
	}, nil
}

// httpHandler serves the session over Streamable HTTP.
func (s *Session) httpHandler() http.Handler {
	s.httpOnce.Do(func() {
		s.httpSrv, s.httpH = mcptransport.NewStreamableHTTP(s.mcp, slog.New(mcpserve.LowerInfo(s.bridge.log.Handler())), nil)
	})
	return s.httpH
}

// httpEndpoint is the bridge's one loopback HTTP listener. A request
// reaches the session whose secret it carries, and no other.
type httpEndpoint struct {
	srv *http.Server
	url string
}

func (b *Bridge) httpEndpoint() (*httpEndpoint, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, errors.New("bridge is closed")
	}
	if b.http != nil {
		return b.http, nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen on loopback: %w", err)
	}
	timeout := b.handshakeTimeout()
	ep := &httpEndpoint{
		srv: &http.Server{
			// The headers, and then the body, each get the timeout. The
			// body's starts before anything looks at the request, so one
			// that stalls halfway is dropped even when it is refused.
			Handler:           mcptransport.BodyTimeout(mcptransport.GuardHTTP(mcptransport.LimitBody(http.HandlerFunc(b.serveHTTP), int64(mcpserve.MessageLimit(b.opts.MaxFileSize))), ""), timeout),
			ReadHeaderTimeout: timeout,
		},
		url: "http://" + ln.Addr().String() + mcptransport.EndpointPath,
	}
	go ep.srv.Serve(ln)
	b.http = ep
	b.log.Debug("serving session MCP endpoints", "url", ep.url)
	return ep, nil
}

func (b *Bridge) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != mcptransport.EndpointPath {
		http.NotFound(w, r)
		return
	}
	secret, ok := loopback.BearerToken(r.Header.Values("Authorization"))
	var s *Session
	if ok {
		s = b.lookup(secret)
	}
	if s == nil {
		w.Header().Set("WWW-Authenticate", "Bearer")
		http.Error(w, "unauthorized: this endpoint needs the bearer token of an open session", http.StatusUnauthorized)
		return
	}
	s.httpHandler().ServeHTTP(w, r)
}

func (ep *httpEndpoint) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := ep.srv.Shutdown(ctx); err != nil {
		return ep.srv.Close()
	}
	return nil
}

// relayEndpoint is the bridge's listener for stdio relays. It is a unix
// socket in a directory only this user can enter (privateDir), whose peer
// must also be this user where the system says who the peer is
// (checkPeer); or, where the system has no unix sockets (Windows before 10
// 1803, Wine) or [BridgeOptions.RelayNetwork] asks for it, a loopback TCP
// port, which any local process can reach, as it can the HTTP endpoint.
// On both, a relay must present a session's secret.
type relayEndpoint struct {
	dir  string // the unix socket's directory; "" on TCP
	addr string // what EnvRelaySocket carries: the socket's path, or tcp:HOST:PORT
	ln   net.Listener
	wg   sync.WaitGroup
}

// RelayTCPPrefix starts the value of EnvRelaySocket, followed by a
// loopback host:port, when the relay endpoint is a loopback TCP port.
const RelayTCPPrefix = "tcp:"

// DefaultHandshakeTimeout is the default of [BridgeOptions.HandshakeTimeout].
const DefaultHandshakeTimeout = mcptransport.DefaultHandshakeTimeout

// handshakeTimeout returns BridgeOptions.HandshakeTimeout or its default.
func (b *Bridge) handshakeTimeout() time.Duration {
	if b.opts.HandshakeTimeout > 0 {
		return b.opts.HandshakeTimeout
	}
	return DefaultHandshakeTimeout
}

func (b *Bridge) relayEndpoint() (*relayEndpoint, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, errors.New("bridge is closed")
	}
	if b.relay != nil {
		return b.relay, nil
	}
	ep, err := b.listenRelay()
	if err != nil {
		return nil, err
	}
	ep.wg.Go(func() {
		for {
			conn, err := ep.ln.Accept()
			if err != nil {
				return
			}
			ep.wg.Go(func() { b.serveRelay(conn) })
		}
	})
	b.relay = ep
	b.log.Debug("serving the relay endpoint", "address", ep.addr)
	return ep, nil
}

// listenRelay listens as BridgeOptions.RelayNetwork says: on a unix socket,
// falling back to loopback TCP where the system has none, unless told which.
func (b *Bridge) listenRelay() (*relayEndpoint, error) {
	network := b.opts.RelayNetwork
	switch network {
	case "", "unix", "tcp":
	default:
		return nil, fmt.Errorf("relay network %q: want \"unix\", \"tcp\" or \"\" (unix, or tcp where the system has no unix sockets)", network)
	}
	if network != "tcp" {
		ep, err := listenRelayUnix()
		if err == nil || network == "unix" || !noUnixSockets(err) {
			return ep, err
		}
		b.log.Info("this system has no unix sockets: stdio relays connect over loopback TCP", "error", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen on loopback for relays: %w", err)
	}
	return &relayEndpoint{addr: RelayTCPPrefix + ln.Addr().String(), ln: ln}, nil
}

// listenRelayUnix listens on a new unix socket in a private directory.
func listenRelayUnix() (*relayEndpoint, error) {
	dir, err := privateDir()
	if err != nil {
		return nil, fmt.Errorf("make the relay socket's directory: %w", err)
	}
	path := filepath.Join(dir, "relay.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("listen on a unix socket: %w", err)
	}
	return &relayEndpoint{dir: dir, addr: path, ln: ln}, nil
}

// serveRelay authenticates a relay connection and serves its session.
func (b *Bridge) serveRelay(conn net.Conn) {
	fail := func(reason string) {
		b.log.Warn("refused a relay connection", "reason", reason)
		fmt.Fprintf(conn, "error: %s\n", reason)
		conn.Close()
	}
	if uc, ok := conn.(*net.UnixConn); ok {
		if err := checkPeer(uc); err != nil {
			fail(err.Error())
			return
		}
	}
	conn.SetReadDeadline(time.Now().Add(b.handshakeTimeout()))
	br := bufio.NewReaderSize(conn, 256)
	line, err := br.ReadSlice('\n')
	if err != nil {
		fail("no secret presented")
		return
	}
	s := b.lookup(strings.TrimSpace(string(line)))
	if s == nil {
		fail("the secret matches no open session")
		return
	}
	conn.SetReadDeadline(time.Time{})
	if _, err := conn.Write([]byte("ok\n")); err != nil {
		conn.Close()
		return
	}
	// Bytes the relay sent after its secret are already in br.
	mcptransport.ServeStream(s.ctx, s.mcp, bufferedConn{br, conn}, s.transport)
}

// bufferedConn reads through a bufio.Reader that may hold read-ahead.
type bufferedConn struct {
	r *bufio.Reader
	net.Conn
}

func (c bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

func (ep *relayEndpoint) close() error {
	err := ep.ln.Close()
	if ep.dir != "" {
		os.RemoveAll(ep.dir)
	}
	return err
}
