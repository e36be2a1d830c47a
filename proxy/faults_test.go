package proxy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"go.uber.org/goleak"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcptest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
	"github.com/mcp-acpfs/mcp-acpfs/proxy"
)

// The fault tests run the proxy in this process, between a test editor
// on a net.Pipe and an agent that is a real child process: this test
// binary, run again as a pipe between its stdin and stdout and a unix
// socket (a loopback TCP port where the system has no unix sockets) where
// the test plays the agent. Both peers speak through the real
// codec (wire.Reader and wire.Writer). Each test checks that every caller
// gets an error, and that nothing is left behind: no goroutine (goleak)
// and no child process.

// faultAgentEnv names the unix socket a run of this binary as the fault
// tests' agent connects to, or, after "tcp:", the loopback address.
const faultAgentEnv = "MCP_ACPFS_TEST_FAULT_AGENT"

// hangGuard bounds how long a broken proxy can hang a fault test.
const hangGuard = 30 * time.Second

func TestMain(m *testing.M) {
	if sock := os.Getenv(faultAgentEnv); sock != "" {
		os.Exit(runFaultAgent(sock))
	}
	os.Exit(m.Run())
}

// runFaultAgent is the agent process: it tells the test its pid and then
// copies its stdin to the socket and the socket to its stdout, until
// either ends.
func runFaultAgent(sock string) int {
	network := "unix"
	if addr, ok := strings.CutPrefix(sock, "tcp:"); ok {
		network, sock = "tcp", addr
	}
	c, err := net.Dial(network, sock)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fault agent:", err)
		return 2
	}
	fmt.Fprintf(c, "%d\n", os.Getpid())
	go func() {
		io.Copy(c, os.Stdin)
		c.(interface{ CloseWrite() error }).CloseWrite()
	}()
	io.Copy(os.Stdout, c)
	return 0
}

// A faultPeer is the test's end of one ACP connection. It answers the
// requests it has handlers for and hands the rest to the test.
type faultPeer struct {
	t    *testing.T
	name string
	rwc  io.ReadWriteCloser
	r    *wire.Reader

	wmu sync.Mutex // one writer at a time, for whole lines and raw streams

	handlers map[string]func(wire.Message) any // set before run
	nextID   atomic.Int64

	mu      sync.Mutex
	pending map[string]chan wire.Message

	requests chan wire.Message // requests without a handler
	notes    chan wire.Message
	done     chan struct{} // closed when the peer's input ends
}

func newFaultPeer(t *testing.T, name string, rwc io.ReadWriteCloser, handlers map[string]func(wire.Message) any) *faultPeer {
	p := &faultPeer{
		t: t, name: name, rwc: rwc,
		r:        wire.NewReader(rwc, wire.ReaderOptions{Logger: slog.New(slog.DiscardHandler), Label: "proxy"}),
		handlers: handlers,
		pending:  map[string]chan wire.Message{},
		requests: make(chan wire.Message, 64),
		notes:    make(chan wire.Message, 1024),
		done:     make(chan struct{}),
	}
	go p.run()
	return p
}

func (p *faultPeer) run() {
	defer close(p.done)
	defer p.rwc.Close() // a peer whose input ends goes
	for {
		m, err := p.r.Next()
		if _, ok := errors.AsType[*wire.OverlongError](err); ok {
			continue
		}
		if err != nil {
			return
		}
		switch m.Kind() {
		case wire.KindResponse:
			p.mu.Lock()
			c := p.pending[string(m.ID)]
			delete(p.pending, string(m.ID))
			p.mu.Unlock()
			if c != nil {
				c <- m
			}
		case wire.KindRequest:
			if h := p.handlers[m.Method]; h != nil {
				p.reply(m.ID, h(m))
			} else {
				p.requests <- m
			}
		case wire.KindNotification:
			select {
			case p.notes <- m:
			default: // nobody is looking
			}
		}
	}
}

// send writes one message.
func (p *faultPeer) send(v any) {
	line, err := json.Marshal(v)
	if err != nil {
		p.t.Errorf("%s: encode %v: %v", p.name, v, err)
		return
	}
	p.wmu.Lock()
	defer p.wmu.Unlock()
	p.rwc.Write(append(line, '\n'))
}

// stream writes one line, whatever its size, from r, without holding it.
func (p *faultPeer) stream(r io.Reader) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if _, err := io.Copy(p.rwc, r); err != nil {
		return err
	}
	_, err := p.rwc.Write([]byte{'\n'})
	return err
}

func (p *faultPeer) reply(id json.RawMessage, result any) {
	p.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

// call sends a request and waits for its response.
func (p *faultPeer) call(ctx context.Context, method string, params any) (wire.Message, error) {
	id := strconv.Quote(fmt.Sprintf("%s-%d", p.name, p.nextID.Add(1)))
	c := p.expect(id)
	p.send(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": method, "params": params})
	return p.await(ctx, id, c)
}

// expect registers a response the test waits for, to a request it writes
// itself.
func (p *faultPeer) expect(id string) chan wire.Message {
	c := make(chan wire.Message, 1)
	p.mu.Lock()
	p.pending[id] = c
	p.mu.Unlock()
	return c
}

func (p *faultPeer) await(ctx context.Context, id string, c chan wire.Message) (wire.Message, error) {
	select {
	case m := <-c:
		return m, nil
	case <-p.done:
		return wire.Message{}, fmt.Errorf("%s: the connection ended before the response to %s", p.name, id)
	case <-ctx.Done():
		return wire.Message{}, fmt.Errorf("%s: no response to %s: %w", p.name, id, ctx.Err())
	}
}

// nextRequest waits for a request without a handler.
func (p *faultPeer) nextRequest(ctx context.Context) wire.Message {
	p.t.Helper()
	select {
	case m := <-p.requests:
		return m
	case <-ctx.Done():
		p.t.Fatalf("%s: no request came", p.name)
		return wire.Message{}
	}
}

// nextNote waits for a notification with method.
func (p *faultPeer) nextNote(ctx context.Context, method string) wire.Message {
	p.t.Helper()
	for {
		select {
		case m := <-p.notes:
			if m.Method == method {
				return m
			}
		case <-ctx.Done():
			p.t.Fatalf("%s: no %s came", p.name, method)
			return wire.Message{}
		}
	}
}

// logRecords keeps the proxy's log lines.
type logRecords struct {
	mu    sync.Mutex
	lines []string
	added mcptest.Signal // raised when a line is added
}

func (l *logRecords) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecords) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logRecords) WithGroup(string) slog.Handler            { return l }
func (l *logRecords) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	l.mu.Lock()
	l.lines = append(l.lines, b.String())
	l.mu.Unlock()
	l.added.Raise()
	return nil
}

// count returns how many lines contain s.
func (l *logRecords) count(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, line := range l.lines {
		if strings.Contains(line, s) {
			n++
		}
	}
	return n
}

// A faultRig is a proxy run in this process, with its two peers.
type faultRig struct {
	t        *testing.T
	editor   *faultPeer
	agent    *faultPeer
	agentPID int
	dir      string // the session's cwd
	logs     *logRecords
	exited   chan int // the proxy's exit code
	sessions chan json.RawMessage
	mcp      *client.Client // the session's tools, as the agent sees them
}

// startFaultRig runs the proxy between a test editor that advertises both
// fs methods and the test agent, opens a session, and connects an MCP
// client to its tools, through the session's stdio entry.
// opts.Bridge.Logger and opts.AgentStderr are set here. The goroutine
// check runs when the test ends, after the proxy has exited.
func startFaultRig(t *testing.T, opts proxy.ProxyOptions) *faultRig {
	leaks := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, leaks) })

	ctx, cancel := context.WithTimeout(t.Context(), hangGuard)
	defer cancel()
	ln, exe := listenFaultAgent(t)

	r := &faultRig{t: t, logs: &logRecords{}, exited: make(chan int, 1), sessions: make(chan json.RawMessage, 8)}
	var err error
	r.dir, err = filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	opts.Bridge.Logger = slog.New(r.logs)
	opts.AgentStderr = io.Discard
	edTest, edProxy := net.Pipe()
	go func() {
		code, err := proxy.RunProxy(context.Background(), edProxy, []string{exe}, opts)
		if err != nil {
			t.Errorf("RunProxy: %v", err)
		}
		r.exited <- code
	}()
	r.editor = newFaultPeer(t, "editor", &pausableConn{Conn: edTest}, nil)
	t.Cleanup(func() {
		// The editor goes: the proxy must stop the agent and return.
		r.editor.rwc.Close()
		r.wait("the editor disconnected")
	})

	var agentConn io.ReadWriteCloser
	r.agentPID, agentConn = acceptFaultAgent(t, ln)
	r.agent = newFaultPeer(t, "agent", agentConn, map[string]func(wire.Message) any{
		"initialize": func(wire.Message) any {
			return map[string]any{"protocolVersion": 1, "agentCapabilities": map[string]any{}}
		},
		"session/new": func(m wire.Message) any {
			r.sessions <- m.Params
			return map[string]any{"sessionId": "sess-1"}
		},
	})
	t.Cleanup(func() { r.agent.rwc.Close() })

	caps := map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}}}
	if m, err := r.editor.call(ctx, "initialize", caps); err != nil || m.Error != nil {
		t.Fatalf("initialize: %v %s", err, m.Raw)
	}
	if m, err := r.editor.call(ctx, "session/new", map[string]any{"cwd": r.dir, "mcpServers": []any{}}); err != nil || m.Error != nil {
		t.Fatalf("session/new: %v %s", err, m.Raw)
	}
	r.mcp = r.connect(ctx, <-r.sessions)
	return r
}

// connect connects an MCP client to the session's stdio entry through an
// in-process relay.
func (r *faultRig) connect(ctx context.Context, params json.RawMessage) *client.Client {
	t := r.t
	var p struct {
		MCPServers []struct {
			Env []bridge.NameValue `json:"env"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(params, &p); err != nil || len(p.MCPServers) != 1 {
		t.Fatalf("session/new params as the agent got them: %s", params)
	}
	env := map[string]string{}
	for _, e := range p.MCPServers[0].Env {
		env[e.Name] = e.Value
	}
	toRelay, clientOut := io.Pipe()
	clientIn, fromRelay := io.Pipe()
	relayed := make(chan error, 1)
	go func() {
		relayed <- bridge.Relay(context.Background(), toRelay, fromRelay, env[bridge.EnvRelaySocket], env[bridge.EnvRelaySecret])
		fromRelay.Close()
	}()
	c := client.NewClient(transport.NewIO(clientIn, clientOut, nil))
	t.Cleanup(func() {
		// The agent's end of the relay closes: the relay, then the
		// client's reader, see the end of their input.
		clientOut.Close()
		<-relayed
		c.Close()
	})
	mcptest.Initialize(t, c, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	return c
}

// wait waits for the proxy to exit and returns its code; the agent must be
// gone by then.
func (r *faultRig) wait(why string) int {
	r.t.Helper()
	select {
	case code := <-r.exited:
		r.exited <- code // for a later wait
		if !ostest.ProcessGone(r.agentPID) {
			r.t.Errorf("after %s, the agent (pid %d) is still there", why, r.agentPID)
		}
		return code
	case <-time.After(hangGuard):
		r.t.Fatalf("the proxy did not exit after %s", why)
		return -1
	}
}

// tool calls a tool and returns its text and whether it failed, as a tool
// result or as an MCP error.
func (r *faultRig) tool(ctx context.Context, name string, args map[string]any) (string, bool) {
	res, err := r.mcp.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
	if err != nil {
		return err.Error(), true
	}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	return strings.Join(texts, "\n"), res.IsError
}

// goTool calls a tool in the background.
func (r *faultRig) goTool(ctx context.Context, name string, args map[string]any) <-chan toolOutcome {
	c := make(chan toolOutcome, 1)
	go func() {
		text, failed := r.tool(ctx, name, args)
		c <- toolOutcome{text, failed}
	}()
	return c
}

type toolOutcome struct {
	text   string
	failed bool
}

func (o toolOutcome) String() string { return fmt.Sprintf("%q (failed %v)", o.text, o.failed) }

func awaitTool(t *testing.T, c <-chan toolOutcome) toolOutcome {
	t.Helper()
	select {
	case o := <-c:
		return o
	case <-time.After(hangGuard):
		t.Fatal("the tool call never ended")
		return toolOutcome{}
	}
}

// wantErrorText fails the test unless o failed with a text containing
// every one of parts.
func wantErrorText(t *testing.T, what string, o toolOutcome, parts ...string) {
	t.Helper()
	if !o.failed {
		t.Errorf("%s: %v, want an error", what, o)
		return
	}
	for _, p := range parts {
		if !strings.Contains(o.text, p) {
			t.Errorf("%s: %v, want it to name %q", what, o, p)
		}
	}
}

// TestProxyEditorTimeouts: an editor that never answers an fs request, or
// stops reading altogether, fails the tool call once the editor timeout
// passes, with an error naming the method, the path and the timeout; the
// editor is sent $/cancel_request for the request, and its late answer is
// dropped with one log line. A slow editor that answers in time is waited
// for. Through it all the session keeps working.
func TestProxyEditorTimeouts(t *testing.T) {
	const timeout = 400 * time.Millisecond
	// Without the read guard, whose check would read the file first: the
	// write below is to time out in fs/write_text_file itself.
	r := startFaultRig(t, proxy.ProxyOptions{Bridge: bridge.BridgeOptions{EditorTimeout: timeout, Tools: mcpfs.ToolOptions{NoReadGuard: true}}})
	ctx, cancel := context.WithTimeout(t.Context(), hangGuard)
	defer cancel()
	path := filepath.Join(r.dir, "never.txt")

	// Never answered.
	call := r.goTool(ctx, mcpfs.ReadTextFile, map[string]any{"path": path})
	req := r.editor.nextRequest(ctx)
	if req.Method != "fs/read_text_file" {
		t.Fatalf("the editor got %s", req.Raw)
	}
	o := awaitTool(t, call)
	wantErrorText(t, "a read the editor never answers", o, "fs/read_text_file", path, timeout.String())
	cancelReq := r.editor.nextNote(ctx, "$/cancel_request")
	var cp struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	json.Unmarshal(cancelReq.Params, &cp)
	if string(cp.RequestID) != string(req.ID) {
		t.Errorf("$/cancel_request names %s, want the read's id %s", cp.RequestID, req.ID)
	}
	// The late answer is dropped, with one log line.
	r.editor.reply(req.ID, map[string]any{"content": "too late"})
	waitLog(t, r.logs, "dropping a response to no pending request", 1)

	// Answered in time: the read succeeds, the timeout of the one
	// before notwithstanding.
	call = r.goTool(ctx, mcpfs.ReadTextFile, map[string]any{"path": path})
	req = r.editor.nextRequest(ctx)
	r.editor.reply(req.ID, map[string]any{"content": "in time\n"})
	if o := awaitTool(t, call); o.failed || !strings.HasPrefix(o.text, "in time\n") {
		t.Errorf("a read the editor answers in time: %v", o)
	}

	// The editor stops reading its input: a write of a megabyte cannot
	// even be sent, and still times out.
	paused := make(chan struct{})
	r.editor.pauseReading(paused)
	content := strings.Repeat("w", 1<<20)
	o = awaitTool(t, r.goTool(ctx, mcpfs.WriteTextFile, map[string]any{"path": path, "content": content}))
	wantErrorText(t, "a write to an editor that does not read", o, "fs/write_text_file", path, timeout.String())
	close(paused)
	req = r.editor.nextRequest(ctx)
	if req.Method != "fs/write_text_file" {
		t.Fatalf("the editor got %.200s", req.Raw)
	}
	r.editor.nextNote(ctx, "$/cancel_request")
	r.editor.reply(req.ID, nil)
	waitLog(t, r.logs, "dropping a response to no pending request", 2)

	if n := r.logs.count("dropping a response"); n != 2 {
		t.Errorf("%d log lines about late answers, want 2", n)
	}
}

// pauseReading makes the peer stop reading its input until resume is
// closed. A Read already waiting may still take one buffer's worth.
func (p *faultPeer) pauseReading(resume <-chan struct{}) {
	pc, ok := p.rwc.(*pausableConn)
	if !ok {
		p.t.Fatalf("the %s's connection %T cannot pause", p.name, p.rwc)
	}
	pc.mu.Lock()
	pc.gate = resume
	pc.mu.Unlock()
}

// pausableConn is a connection whose reads can be held back.
type pausableConn struct {
	net.Conn
	mu   sync.Mutex
	gate <-chan struct{} // reads wait for it to close; nil: they do not
}

func (c *pausableConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	gate := c.gate
	c.mu.Unlock()
	if gate != nil {
		<-gate
	}
	return c.Conn.Read(p)
}

// waitLog waits until n log lines contain s, woken by each line logged.
func waitLog(t *testing.T, logs *logRecords, s string, n int) {
	t.Helper()
	logs.added.WaitFor(t, fmt.Sprintf("%d log lines contain %q", n, s), func() bool { return logs.count(s) >= n })
}

// TestProxyEditorDisconnectsMidCall: the editor goes while a tool call
// waits for its answer; the call fails, the proxy stops the agent and
// exits 0, and nothing is left.
func TestProxyEditorDisconnectsMidCall(t *testing.T) {
	r := startFaultRig(t, proxy.ProxyOptions{})
	ctx, cancel := context.WithTimeout(t.Context(), hangGuard)
	defer cancel()
	call := r.goTool(ctx, mcpfs.ReadTextFile, map[string]any{"path": filepath.Join(r.dir, "a.txt")})
	r.editor.nextRequest(ctx)
	r.editor.rwc.Close()
	o := awaitTool(t, call)
	if !o.failed {
		t.Errorf("a read the editor left unanswered when it went: %v, want an error", o)
	}
	t.Logf("the tool call failed with: %s", o.text)
	if code := r.wait("the editor disconnected"); code != 0 {
		t.Errorf("the proxy exited with %d, want 0", code)
	}
}

// TestProxyAgentCrashesMidPrompt: the agent is killed while the editor
// waits for its prompt and one of its tool calls waits for the editor;
// the prompt fails with an error, the proxy exits with the agent's status,
// and nothing is left.
func TestProxyAgentCrashesMidPrompt(t *testing.T) {
	r := startFaultRig(t, proxy.ProxyOptions{})
	ctx, cancel := context.WithTimeout(t.Context(), hangGuard)
	defer cancel()
	prompted := make(chan wire.Message, 1)
	go func() {
		m, err := r.editor.call(ctx, "session/prompt", map[string]any{"sessionId": "sess-1", "prompt": []any{}})
		if err != nil {
			t.Errorf("session/prompt: %v", err)
		}
		prompted <- m
	}()
	if p := r.agent.nextRequest(ctx); p.Method != "session/prompt" {
		t.Fatalf("the agent got %s", p.Raw)
	}
	call := r.goTool(ctx, mcpfs.ReadTextFile, map[string]any{"path": filepath.Join(r.dir, "a.txt")})
	r.editor.nextRequest(ctx) // the tool's read, never answered

	if err := ostest.KillProcess(r.agentPID); err != nil {
		t.Fatal(err)
	}
	m := <-prompted
	e, err := m.DecodeError()
	if err != nil || !strings.Contains(e.Message, "the agent exited") {
		t.Errorf("the prompt the agent left when it died ended with %s, want an error", m.Raw)
	}
	if code := r.wait("the agent was killed"); code != ostest.KilledCode {
		t.Errorf("the proxy exited with %d, want %d", code, ostest.KilledCode)
	}
	// The tool call's session is gone with the proxy's bridge.
	if o := awaitTool(t, call); !o.failed {
		t.Errorf("a tool call left when the agent died: %v, want an error", o)
	}
}

// overlongLine is a reader of one JSON-RPC message of n bytes, written as
// the TypeScript SDK writes them: "id" last, after a huge params string.
func overlongLine(head string, n int64, tail string) io.Reader {
	body := n - int64(len(head)+len(tail))
	return io.MultiReader(strings.NewReader(head), &repeatReader{b: 'x', n: body}, strings.NewReader(tail))
}

// repeatReader yields n copies of b without holding them.
type repeatReader struct {
	b     byte
	n     int64
	block []byte
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	if r.block == nil {
		r.block = []byte(strings.Repeat(string(r.b), 64<<10))
	}
	k := copy(p[:min(int64(len(p)), r.n)], r.block)
	r.n -= int64(k)
	return k, nil
}

// allocatedDuring returns how many bytes the process allocated while f
// ran.
func allocatedDuring(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestProxyRefusesOverlongLines: a line over the limit, from either peer,
// is refused without being held: a request gets an error naming the limit,
// and the request a response was for fails at once, whoever made it.
func TestProxyRefusesOverlongLines(t *testing.T) {
	const maxLine = 1 << 20
	// 200 MiB takes a few seconds a line under the race detector, so the
	// ordinary run streams lines 16 times the limit; the long run, 200
	// times.
	size := int64(16 << 20)
	if mcptest.LongRun() {
		size = 200 << 20
	}
	r := startFaultRig(t, proxy.ProxyOptions{MaxLineSize: maxLine})
	ctx, cancel := context.WithTimeout(t.Context(), hangGuard)
	defer cancel()
	start := time.Now()
	check := func(what string, m wire.Message, parts ...string) {
		t.Helper()
		e, err := m.DecodeError()
		if err != nil {
			t.Errorf("%s: %s, want an error", what, m.Raw)
			return
		}
		for _, p := range parts {
			if !strings.Contains(e.Message, p) {
				t.Errorf("%s: error %q, want it to say %q", what, e.Message, p)
			}
		}
	}
	bound := func(what string, alloc uint64) {
		t.Helper()
		t.Logf("%s: %d MiB allocated for a %d MiB line (%v since the start)", what, alloc>>20, size>>20, time.Since(start).Round(time.Millisecond))
		if alloc > uint64(size)/2 {
			t.Errorf("%s: %d MiB allocated for a %d MiB line: it was held", what, alloc>>20, size>>20)
		}
	}

	// The editor's request.
	id := `"big-prompt"`
	answer := r.editor.expect(id)
	bound("editor request", allocatedDuring(func() {
		r.editor.stream(overlongLine(`{"jsonrpc":"2.0","method":"session/prompt","params":{"sessionId":"sess-1","prompt":[{"type":"text","text":"`,
			size, `"}]},"id":`+id+`}`))
	}))
	m, err := r.editor.await(ctx, id, answer)
	if err != nil {
		t.Fatal(err)
	}
	check("the editor's overlong request", m, `request id "big-prompt" ("session/prompt")`, "exceeds the 1.0 MiB limit")

	// The editor's answer to a read of the proxy's own.
	call := r.goTool(ctx, mcpfs.ReadTextFile, map[string]any{"path": filepath.Join(r.dir, "big.txt")})
	req := r.editor.nextRequest(ctx)
	bound("editor response", allocatedDuring(func() {
		r.editor.stream(overlongLine(`{"jsonrpc":"2.0","result":{"content":"`, size, `"},"id":`+string(req.ID)+`}`))
	}))
	wantErrorText(t, "a read whose answer is overlong", awaitTool(t, call), "fs/read_text_file", "over the 1.0 MiB limit", "read a range")

	// The editor's answer to the agent's own read.
	agentRead := make(chan wire.Message, 1)
	go func() {
		m, err := r.agent.call(ctx, "fs/read_text_file", map[string]any{"sessionId": "sess-1", "path": filepath.Join(r.dir, "big.txt")})
		if err != nil {
			t.Error(err)
		}
		agentRead <- m
	}()
	req = r.editor.nextRequest(ctx)
	bound("editor response to the agent", allocatedDuring(func() {
		r.editor.stream(overlongLine(`{"jsonrpc":"2.0","result":{"content":"`, size, `"},"id":`+string(req.ID)+`}`))
	}))
	check("the editor's overlong answer to the agent", <-agentRead, "the editor's answer to fs/read_text_file", "over the 1.0 MiB limit")

	// The agent's request.
	id = `"big-write"`
	answer = r.agent.expect(id)
	bound("agent request", allocatedDuring(func() {
		r.agent.stream(overlongLine(`{"jsonrpc":"2.0","method":"fs/write_text_file","params":{"sessionId":"sess-1","path":"/x","content":"`,
			size, `"},"id":`+id+`}`))
	}))
	if m, err = r.agent.await(ctx, id, answer); err != nil {
		t.Fatal(err)
	}
	check("the agent's overlong request", m, `request id "big-write" ("fs/write_text_file")`, "exceeds the 1.0 MiB limit")

	// The agent's answer to the editor's prompt.
	prompted := make(chan wire.Message, 1)
	go func() {
		m, err := r.editor.call(ctx, "session/prompt", map[string]any{"sessionId": "sess-1", "prompt": []any{}})
		if err != nil {
			t.Error(err)
		}
		prompted <- m
	}()
	p := r.agent.nextRequest(ctx)
	bound("agent response", allocatedDuring(func() {
		r.agent.stream(overlongLine(`{"jsonrpc":"2.0","result":{"stopReason":"end_turn","_meta":{"x":"`, size, `"}},"id":`+string(p.ID)+`}`))
	}))
	check("the agent's overlong answer to the prompt", <-prompted, "the agent's answer to session/prompt", "over the 1.0 MiB limit")

	// Both hops still work.
	call = r.goTool(ctx, mcpfs.ReadTextFile, map[string]any{"path": filepath.Join(r.dir, "small.txt")})
	req = r.editor.nextRequest(ctx)
	r.editor.reply(req.ID, map[string]any{"content": "small\n"})
	if o := awaitTool(t, call); o.failed || !strings.HasPrefix(o.text, "small\n") {
		t.Errorf("a read after the overlong lines: %v", o)
	}
}

// listenFaultAgent listens on a fresh unix socket that the fault agent,
// run as this test binary (the returned path), connects back to; where the
// system has no unix sockets (ostest.NoUnixSockets), on a loopback TCP
// port, which serves the test as well. The listener is closed when the
// test ends.
func listenFaultAgent(t *testing.T) (net.Listener, string) {
	t.Helper()
	var ln net.Listener
	if ostest.NoUnixSockets(t) == nil {
		sockDir, err := os.MkdirTemp("", "acpfs-faults-") // short: a socket path is at most 108 bytes
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(sockDir) })
		sock := filepath.Join(sockDir, "agent.sock")
		if ln, err = net.Listen("unix", sock); err != nil {
			t.Fatal(err)
		}
		t.Setenv(faultAgentEnv, sock)
	} else {
		var err error
		if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		t.Setenv(faultAgentEnv, "tcp:"+ln.Addr().String())
	}
	t.Cleanup(func() { ln.Close() })
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return ln, exe
}

// acceptFaultAgent waits for the fault agent the proxy started to connect
// to ln, and returns its pid, which it says first, and the connection
// past that line.
func acceptFaultAgent(t *testing.T, ln net.Listener) (int, io.ReadWriteCloser) {
	t.Helper()
	ln.(interface{ SetDeadline(time.Time) error }).SetDeadline(time.Now().Add(hangGuard))
	conn, err := ln.Accept()
	if err != nil {
		t.Fatalf("the agent did not connect: %v", err)
	}
	br := bufio.NewReader(conn)
	line, err := br.ReadString('\n')
	if err != nil {
		t.Fatalf("the agent did not say its pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	return pid, struct {
		io.Reader
		io.Writer
		io.Closer
	}{br, conn, conn}
}
