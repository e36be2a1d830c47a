// Package testagent is a scripted ACP agent for the integration tests of
// mcp-acpfs proxy. integration/cmd/testagent runs it on its standard input
// and output.
//
// It answers initialize, session/new, session/load and session/close, and
// remembers each session's mcpServers. The text of a session/prompt is a
// JSON array of [Step]s, which it runs in order: MCP tool calls on the
// servers injected into the session (Streamable HTTP with the entry's
// headers, or the entry's stdio command), requests and notifications to
// the editor, sleeps, spawned children, bursts of updates, a crash. It
// reports each outcome as a session/update whose text is a JSON [Report],
// and then answers the prompt with stopReason end_turn.
//
// A session/cancel cancels the session's prompts (stopReason cancelled) and
// with them the tool calls in flight; a $/cancel_request for a pending
// prompt cancels it too and answers it with -32800. Unknown requests get
// -32601; a [MethodEcho] notification comes back unchanged.
//
// On the end of its input it closes its MCP clients and children and
// exits 0, unless told to ignore it.
package testagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/sourcegraph/jsonrpc2"

	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/mcpclient"
	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/syncwriter"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
)

// Options configure [Run].
type Options struct {
	// HTTP advertises mcpCapabilities.http, so that the proxy injects an
	// http entry rather than a stdio one.
	HTTP bool
	// LegacyMCP makes the MCP clients use the 2025-11-25 initialize
	// handshake rather than the newest protocol.
	LegacyMCP bool
	// ConnectEarly connects to every MCP server of a session and lists
	// its tools before answering session/new or session/load, as real
	// agents do.
	ConnectEarly bool
	// IgnoreEOF keeps the agent running after its input ends, until it is
	// killed.
	IgnoreEOF bool
	// Garbage writes a line that is not a JSON-RPC message before every
	// message.
	Garbage bool
	// Log receives the agent's log lines; nil means os.Stderr.
	Log io.Writer
	// Exit ends the process; nil means os.Exit.
	Exit func(code int)
	// Self is the agent's executable, for spawned children; "" means
	// os.Executable().
	Self string
}

// SleepForever sleeps until the process is killed.
func SleepForever() {
	for {
		time.Sleep(time.Hour)
	}
}

// SleepArg is the argument that makes the testagent binary sleep until
// killed (a spawned child).
const SleepArg = "--sleep-forever"

// InterruptArg is the argument that makes the testagent binary a probe
// of whether os.Interrupt reaches a process (AwaitInterrupt).
const InterruptArg = "--await-interrupt"

// InterruptReady is the line AwaitInterrupt writes once it listens for
// os.Interrupt.
const InterruptReady = "awaiting os.Interrupt"

// AwaitInterrupt writes InterruptReady on out and waits for os.Interrupt
// (on Windows a console CTRL_C_EVENT or CTRL_BREAK_EVENT) for up to
// timeout: it returns 0 if it came, else 1.
func AwaitInterrupt(out io.Writer, timeout time.Duration) int {
	c := make(chan os.Signal, 1)
	signal.Notify(c, os.Interrupt)
	fmt.Fprintln(out, InterruptReady)
	select {
	case <-c:
		return 0
	case <-time.After(timeout):
		return 1
	}
}

// Run serves ACP on in and out until in ends, and returns the exit code.
func Run(in io.Reader, out io.Writer, opts Options) int {
	if opts.Log == nil {
		opts.Log = os.Stderr
	}
	if opts.Exit == nil {
		opts.Exit = os.Exit
	}
	if opts.Self == "" {
		opts.Self, _ = os.Executable()
	}
	logger := slog.New(slog.NewTextHandler(opts.Log, nil)).With("component", "testagent")
	out = syncwriter.New(out)
	var w io.Writer = out
	if opts.Garbage {
		io.WriteString(out, "garbage before anything\n")
		w = &garbageWriter{w: out, atStart: true}
	}
	a := &agent{
		out:      out,
		opts:     opts,
		log:      logger,
		sessions: make(map[string]*session),
		inbound:  make(map[string]*inbound),
		ready:    make(chan struct{}),
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a.ctx = ctx
	stream := wire.NewObjectStream(stdio{in, w}, wire.ReaderOptions{Logger: logger, Label: "proxy"})
	a.conn = jsonrpc2.NewConn(ctx, stream, a, jsonrpc2.SetLogger(log.New(opts.Log, "testagent jsonrpc2: ", 0)))
	close(a.ready)
	<-a.conn.DisconnectNotify()
	logger.Info("input ended")
	if opts.IgnoreEOF {
		SleepForever()
	}
	cancel()
	a.shutdown()
	return 0
}

// stdio joins the agent's input and output.
type stdio struct {
	io.Reader
	io.Writer
}

func (stdio) Close() error { return nil }

// garbage are the lines a Garbage agent writes, in turn.
var garbage = []string{
	"this is not JSON",
	`{"jsonrpc":"2.0","method":`,
	`[{"jsonrpc":"2.0","method":"session/update","params":{}}]`,
	`{"jsonrpc":"2.0","id":{"an":"object"},"method":"x"}`,
	`{"jsonrpc":"2.0"}`,
	"\x00\xff\xfe binary",
	`"just a string"`,
}

// garbageWriter writes a garbage line before every line.
type garbageWriter struct {
	mu      sync.Mutex
	w       io.Writer
	atStart bool
	n       int
}

func (g *garbageWriter) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.atStart && len(p) > 0 {
		line := garbage[g.n%len(garbage)] + "\n"
		g.n++
		if _, err := io.WriteString(g.w, line); err != nil {
			return 0, err
		}
	}
	n, err := g.w.Write(p)
	if n > 0 {
		g.atStart = p[n-1] == '\n'
	}
	return n, err
}

type agent struct {
	out  io.Writer // stdout, one Write at a time
	opts Options
	log  *slog.Logger
	conn *jsonrpc2.Conn
	ctx  context.Context // ends with the connection
	// ready is closed once conn is set; Handle waits for it.
	ready chan struct{}

	mu       sync.Mutex
	sessions map[string]*session
	nextID   int
	inbound  map[string]*inbound // requests being handled, by id
	children []*exec.Cmd         // spawned children
}

// inbound is a request the agent is handling.
type inbound struct {
	cancel context.CancelCauseFunc
}

// Causes of a prompt's cancellation.
var (
	errSessionCancel = errors.New("session/cancel")
	errCancelRequest = errors.New("$/cancel_request")
)

type session struct {
	id      string
	cwd     string
	servers []json.RawMessage

	connMu sync.Mutex // held while connecting to a server

	mu      sync.Mutex
	clients map[string]*mcpClient
	prompts map[*int]context.CancelCauseFunc
}

type mcpClient struct {
	c   *client.Client
	pid int // of a stdio server
}

// idKey is a request id as a map key: its JSON.
func idKey(id jsonrpc2.ID) string {
	b, _ := json.Marshal(id)
	return string(b)
}

// Handle implements jsonrpc2.Handler. Notifications are handled in order,
// in the read loop; requests are registered there (so that a cancellation
// that follows finds them) and handled in goroutines of their own.
func (a *agent) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	<-a.ready
	var params json.RawMessage
	if req.Params != nil {
		params = *req.Params
	}
	if req.Notif {
		a.notification(req.Method, params)
		return
	}
	rctx, cancel := context.WithCancelCause(a.ctx)
	key := idKey(req.ID)
	a.mu.Lock()
	a.inbound[key] = &inbound{cancel: cancel}
	a.mu.Unlock()
	go func() {
		defer func() {
			a.mu.Lock()
			delete(a.inbound, key)
			a.mu.Unlock()
			cancel(nil)
		}()
		result, err := a.request(rctx, req, params)
		if err != nil {
			var rpcErr *jsonrpc2.Error
			if !errors.As(err, &rpcErr) {
				rpcErr = &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: err.Error()}
			}
			conn.ReplyWithError(a.ctx, req.ID, rpcErr)
			return
		}
		conn.Reply(a.ctx, req.ID, result)
	}()
}

func (a *agent) notification(method string, params json.RawMessage) {
	switch method {
	case MethodEcho:
		a.conn.Notify(a.ctx, MethodEcho, params)
	case MethodCancelRequest:
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		json.Unmarshal(params, &p)
		a.mu.Lock()
		in := a.inbound[string(p.RequestID)]
		a.mu.Unlock()
		if in != nil {
			in.cancel(errCancelRequest)
		} else {
			a.log.Warn("$/cancel_request for no pending request", "requestId", string(p.RequestID))
		}
	case "session/cancel":
		var p struct {
			SessionID string `json:"sessionId"`
		}
		json.Unmarshal(params, &p)
		if s := a.session(p.SessionID); s != nil {
			s.mu.Lock()
			for _, cancel := range s.prompts {
				cancel(errSessionCancel)
			}
			s.mu.Unlock()
		}
	default:
		a.log.Info("ignoring a notification", "method", method)
	}
}

func (a *agent) request(ctx context.Context, req *jsonrpc2.Request, params json.RawMessage) (any, error) {
	switch req.Method {
	case "initialize":
		return map[string]any{
			"protocolVersion": 1,
			"agentCapabilities": map[string]any{
				"loadSession":         true,
				"mcpCapabilities":     map[string]any{"http": a.opts.HTTP, "sse": false},
				"sessionCapabilities": map[string]any{"close": map[string]any{}},
				"promptCapabilities":  map[string]any{},
			},
			"agentInfo":   map[string]any{"name": "testagent", "version": "1"},
			"authMethods": []any{},
		}, nil
	case "session/new", "session/load":
		return a.openSession(ctx, req.Method, params)
	case "session/close":
		var p struct {
			SessionID string `json:"sessionId"`
		}
		json.Unmarshal(params, &p)
		a.mu.Lock()
		s := a.sessions[p.SessionID]
		delete(a.sessions, p.SessionID)
		a.mu.Unlock()
		if s == nil {
			return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: "no session " + p.SessionID}
		}
		s.close()
		return map[string]any{}, nil
	case "session/prompt":
		return a.prompt(ctx, req, params)
	case MethodEcho:
		return map[string]any{"params": params, "id": req.ID}, nil
	}
	return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "Method not found", Data: rawData(req.Method)}
}

func rawData(v any) *json.RawMessage {
	b, _ := json.Marshal(v)
	raw := json.RawMessage(b)
	return &raw
}

func (a *agent) session(id string) *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[id]
}

func (a *agent) openSession(ctx context.Context, method string, params json.RawMessage) (any, error) {
	var p struct {
		SessionID  string            `json:"sessionId"`
		Cwd        string            `json:"cwd"`
		MCPServers []json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: err.Error()}
	}
	a.mu.Lock()
	id := p.SessionID
	if method == "session/new" {
		a.nextID++
		id = fmt.Sprintf("sess-%d", a.nextID)
	}
	old := a.sessions[id]
	s := &session{id: id, cwd: p.Cwd, servers: p.MCPServers, clients: make(map[string]*mcpClient), prompts: make(map[*int]context.CancelCauseFunc)}
	a.sessions[id] = s
	a.mu.Unlock()
	if old != nil {
		old.close()
	}
	rep := Report{Kind: "session", SessionID: id, Method: method, Cwd: p.Cwd, MCPServers: p.MCPServers, PID: os.Getpid(), Params: params}
	if a.opts.ConnectEarly {
		for _, raw := range p.MCPServers {
			var e struct {
				Name string `json:"name"`
			}
			json.Unmarshal(raw, &e)
			c, err := a.client(ctx, s, e.Name)
			if err != nil {
				return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: err.Error()}
			}
			if c.pid != 0 {
				rep.ChildPIDs = append(rep.ChildPIDs, c.pid)
			}
			tools, err := c.c.ListTools(ctx, mcp.ListToolsRequest{})
			if err != nil {
				return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: "tools/list: " + err.Error()}
			}
			for _, t := range tools.Tools {
				rep.Tools = append(rep.Tools, e.Name+"/"+t.Name)
			}
		}
	}
	a.conn.Notify(a.ctx, "session/update", json.RawMessage(fmt.Sprintf(Extras, id)))
	a.report(rep)
	if method == "session/load" {
		return nil, nil
	}
	return map[string]any{"sessionId": id, "_meta": map[string]any{"testagent": map[string]any{"pid": os.Getpid()}}}, nil
}

// report sends r as an agent_message_chunk.
func (a *agent) report(r Report) {
	text, _ := json.Marshal(r)
	a.conn.Notify(a.ctx, "session/update", map[string]any{
		"sessionId": r.SessionID,
		"update": map[string]any{
			"sessionUpdate": "agent_message_chunk",
			"content":       map[string]any{"type": "text", "text": string(text)},
			"_meta":         map[string]any{"testagent": r.Kind},
		},
	})
}

func (a *agent) prompt(ctx context.Context, req *jsonrpc2.Request, params json.RawMessage) (any, error) {
	var p struct {
		SessionID string `json:"sessionId"`
		Prompt    []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"prompt"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: err.Error()}
	}
	s := a.session(p.SessionID)
	if s == nil {
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: "no session " + p.SessionID}
	}
	var steps []Step
	for _, block := range p.Prompt {
		if block.Type != "text" {
			continue
		}
		if err := json.Unmarshal([]byte(block.Text), &steps); err != nil {
			return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: "the prompt is not a script: " + err.Error()}
		}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	key := new(int)
	s.mu.Lock()
	s.prompts[key] = cancel
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.prompts, key)
		s.mu.Unlock()
	}()
	a.report(Report{Kind: "prompt", SessionID: s.id, RequestID: json.RawMessage(idKey(req.ID)), PID: os.Getpid()})
	for i, step := range steps {
		if ctx.Err() != nil {
			break
		}
		r := a.step(ctx, s, step)
		r.Kind, r.SessionID, r.Step = "step", s.id, i+1
		a.report(r)
	}
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errSessionCancel):
		a.report(Report{Kind: "cancelled", SessionID: s.id, Cause: cause.Error()})
		return map[string]any{"stopReason": "cancelled"}, nil
	case errors.Is(cause, errCancelRequest):
		a.report(Report{Kind: "cancelled", SessionID: s.id, Cause: cause.Error(), RequestID: json.RawMessage(idKey(req.ID))})
		return nil, &jsonrpc2.Error{Code: -32800, Message: "Request cancelled", Data: rawData(map[string]any{"requestId": req.ID})}
	case cause != nil:
		return nil, cause
	}
	return map[string]any{"stopReason": "end_turn"}, nil
}

func (a *agent) step(ctx context.Context, s *session, step Step) Report {
	switch {
	case step.Tool != "":
		return a.callTool(ctx, s, step)
	case step.SleepMS > 0:
		t := time.NewTimer(time.Duration(step.SleepMS) * time.Millisecond)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
		}
		return Report{}
	case step.Crash:
		a.log.Info("crashing as told")
		a.opts.Exit(3)
		return Report{}
	case step.CallFS != nil:
		c := *step.CallFS
		if c.Method == "" {
			c.Method = "fs/read_text_file"
		}
		var params map[string]any
		json.Unmarshal(c.Params, &params)
		if params == nil {
			params = map[string]any{}
		}
		if _, ok := params["sessionId"]; !ok {
			params["sessionId"] = s.id
		}
		c.Params, _ = json.Marshal(params)
		return a.callEditor(ctx, c)
	case step.Call != nil:
		return a.callEditor(ctx, *step.Call)
	case step.Notify != nil:
		if err := a.conn.Notify(ctx, step.Notify.Method, step.Notify.Params); err != nil {
			return Report{Error: err.Error()}
		}
		return Report{}
	case step.Spawn != nil:
		return a.spawn(step.Spawn)
	case step.Burst > 0:
		return a.burst(s, step.Burst)
	case step.WaitCancel:
		<-ctx.Done()
		return Report{Error: context.Cause(ctx).Error()}
	}
	return Report{Error: "empty step"}
}

// burst writes n flood reports in one write.
func (a *agent) burst(s *session, n int) Report {
	note := func(r Report) []byte {
		text, _ := json.Marshal(r)
		line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{
			"sessionId": s.id,
			"update": map[string]any{
				"sessionUpdate": "agent_message_chunk",
				"content":       map[string]any{"type": "text", "text": string(text)},
			},
		}})
		return append(line, '\n')
	}
	var buf []byte
	for i := range n {
		buf = append(buf, note(Report{Kind: "flood", SessionID: s.id, N: i + 1})...)
	}
	if _, err := a.out.Write(buf); err != nil {
		return Report{Error: err.Error()}
	}
	return Report{}
}

func (a *agent) callEditor(ctx context.Context, c Call) Report {
	var params any
	if c.Params != nil {
		params = c.Params
	}
	var res json.RawMessage
	var err error
	if c.Cancel {
		var w jsonrpc2.Waiter
		w, err = a.conn.DispatchCall(ctx, c.Method, params, jsonrpc2.PickID(jsonrpc2.ID{Str: CancelID, IsString: true}))
		if err == nil {
			a.conn.Notify(ctx, MethodCancelRequest, map[string]any{"requestId": CancelID})
			err = w.Wait(ctx, &res)
		}
	} else {
		err = a.conn.Call(ctx, c.Method, params, &res)
	}
	var rpcErr *jsonrpc2.Error
	switch {
	case errors.As(err, &rpcErr):
		r := Report{Code: rpcErr.Code, Message: rpcErr.Message}
		if rpcErr.Data != nil {
			r.Data = *rpcErr.Data
		}
		return r
	case err != nil:
		return Report{Error: err.Error()}
	}
	if res == nil {
		res = json.RawMessage("null")
	}
	return Report{Result: res}
}

func (a *agent) spawn(sp *Spawn) Report {
	cmd := exec.Command(a.opts.Self, SleepArg)
	cmd.Stderr = a.opts.Log
	if sp.HoldStdout {
		cmd.Stdout = os.Stdout
	}
	if err := cmd.Start(); err != nil {
		return Report{Error: err.Error()}
	}
	a.mu.Lock()
	a.children = append(a.children, cmd)
	a.mu.Unlock()
	go cmd.Wait()
	return Report{ChildPIDs: []int{cmd.Process.Pid}}
}

func (a *agent) callTool(ctx context.Context, s *session, step Step) Report {
	c, err := a.client(ctx, s, step.Server)
	if err != nil {
		return Report{Error: err.Error()}
	}
	var r Report
	if c.pid != 0 {
		r.ChildPIDs = []int{c.pid}
	}
	var req mcp.CallToolRequest
	req.Params.Name = step.Tool
	req.Params.Arguments = step.Args
	res, err := c.c.CallTool(ctx, req)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	r.Result, _ = json.Marshal(res)
	return r
}

// client returns the session's client of the named server, connecting on
// first use.
func (a *agent) client(ctx context.Context, s *session, name string) (*mcpClient, error) {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	s.mu.Lock()
	c := s.clients[name]
	s.mu.Unlock()
	if c != nil {
		return c, nil
	}
	var entry mcpclient.Entry
	i := slices.IndexFunc(s.servers, func(raw json.RawMessage) bool {
		entry = mcpclient.Entry{}
		return json.Unmarshal(raw, &entry) == nil && entry.Name == name
	})
	if i < 0 {
		return nil, fmt.Errorf("no MCP server %q in the session", name)
	}
	c = &mcpClient{}
	var cmd *exec.Cmd // of a stdio server
	opts := mcpclient.Options{
		Hello: mcpclient.Hello{Name: "testagent"},
		Command: func(name string, args, env []string) *exec.Cmd {
			cmd = exec.Command(name, args...)
			cmd.Env = append(os.Environ(), env...)
			cmd.Stderr = a.opts.Log
			return cmd
		},
	}
	if a.opts.LegacyMCP {
		opts.Version = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	}
	var err error
	if c.c, err = mcpclient.Connect(a.ctx, entry, opts); err != nil {
		return nil, err
	}
	if cmd != nil && cmd.Process != nil {
		c.pid = cmd.Process.Pid
	}
	s.mu.Lock()
	s.clients[name] = c
	s.mu.Unlock()
	return c, nil
}

// close cancels the session's prompts and closes its MCP clients.
func (s *session) close() {
	s.mu.Lock()
	clients := s.clients
	s.clients = make(map[string]*mcpClient)
	for _, cancel := range s.prompts {
		cancel(errors.New("session closed"))
	}
	s.mu.Unlock()
	for _, c := range clients {
		c.c.Close()
	}
}

// shutdown closes every session and kills the spawned children.
func (a *agent) shutdown() {
	a.mu.Lock()
	sessions := make([]*session, 0, len(a.sessions))
	for _, s := range a.sessions {
		sessions = append(sessions, s)
	}
	children := a.children
	a.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range sessions {
		wg.Go(s.close)
	}
	wg.Wait()
	for _, c := range children {
		c.Process.Signal(syscall.SIGKILL)
	}
}
