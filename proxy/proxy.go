package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
	"github.com/mcp-acpfs/mcp-acpfs/capabilities"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpserve"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
)

// ACP methods the proxy looks into. Everything else passes through as is.
const (
	methodInitialize    = "initialize"
	methodSessionNew    = "session/new"
	methodSessionLoad   = "session/load"
	methodSessionResume = "session/resume"
	methodSessionFork   = "session/fork"
	methodSessionClose  = "session/close"
	methodSessionPrompt = "session/prompt"
	methodSessionUpdate = "session/update"
	methodPermission    = "session/request_permission"
	methodSetMode       = "session/set_mode"
	methodSetConfig     = "session/set_config_option"
)

// DefaultStopGrace is how long the proxy gives the agent to exit after its
// stdin is closed, before it signals the agent's process group.
const DefaultStopGrace = 3 * time.Second

// ProxyOptions configure [RunProxy].
type ProxyOptions struct {
	// Bridge configures the sessions' tools.
	Bridge bridge.BridgeOptions
	// Trace, if not nil, receives every message of both hops as JSON
	// lines, with direction and time.
	Trace io.Writer
	// AgentStderr receives the agent's stderr.
	AgentStderr io.Writer
	// StopGrace is how long the agent may take to exit once told to;
	// zero means DefaultStopGrace.
	StopGrace time.Duration
	// MaxLineSize bounds one message; zero means the MessageLimit of
	// Bridge.MaxFileSize (an editor's answer to fs/read_text_file carries
	// a whole file).
	MaxLineSize int
	// AgentTools says whether the agent's model is steered to the file
	// tools in the sessions whose files go through the editor (see
	// [AgentToolsAuto]).
	AgentTools AgentTools
	// AgentProfile names the profile to apply (see [ProfileNames]),
	// whatever the agent's command line and agentInfo say, for an agent
	// started through a wrapper script; "none" applies none, and "" or
	// "auto" recognises the agent.
	AgentProfile string
	// MCPTransport is how the agent reaches the sessions' MCP servers:
	// auto (the zero value) takes acp, then http, then stdio, as the
	// agent advertised them; any other must be advertised, or the
	// editor's initialize fails (see acpv2.go).
	MCPTransport capabilities.Transport
}

// RunProxy runs the ACP agent argv as a child process and stands between
// it and the editor, which speaks ACP over editor, as the package doc says:
// ids per hop, initialize read, an MCP server entry added to every
// session, the agent steered and its tool calls filled in. It returns when
// either peer is gone or ctx ends, having stopped the agent and its process
// group, and every editor request the agent left unanswered answered with
// an error. The exit code is 0 when the editor closed the stream, 1 when
// ctx ended, and otherwise the agent's (non-zero when it exited first).
func RunProxy(ctx context.Context, editor io.ReadWriteCloser, argv []string, opts ProxyOptions) (int, error) {
	if err := CheckAgentProfile(opts.AgentProfile); err != nil {
		return 1, err
	}
	log := opts.Bridge.Logger
	if log == nil {
		log = slog.Default()
		opts.Bridge.Logger = log
	}
	if opts.StopGrace <= 0 {
		opts.StopGrace = DefaultStopGrace
	}
	if opts.AgentStderr == nil {
		opts.AgentStderr = io.Discard
	}
	if opts.MaxLineSize <= 0 {
		opts.MaxLineSize = mcpserve.MessageLimit(opts.Bridge.MaxFileSize)
	}
	readerOpts := func(label string) wire.ReaderOptions {
		return wire.ReaderOptions{MaxLineSize: opts.MaxLineSize, Logger: log, Label: label}
	}
	editorIn := wire.NewReader(editor, readerOpts("editor"))
	st := newSteer(opts, argv)
	var first *pulled
	if st.waitsForEditor() {
		// The agent's command line depends on what the editor serves,
		// which its first message, initialize, tells.
		m, err := pullFirst(ctx, editorIn, editor, opts.StopGrace)
		if _, over := errors.AsType[*wire.OverlongError](err); err != nil && !over {
			log.Debug("the editor closed the stream before initialize", "error", err)
			editor.Close()
			if ctx.Err() != nil {
				return 1, nil
			}
			return 0, nil
		}
		first = &pulled{m, err}
		if err == nil && m.Kind() == wire.KindRequest && m.Method == methodInitialize {
			st.editorInitialized(m.Params)
		}
	}
	argv, env, removeLaunchFiles := st.launch(argv, os.Environ())
	defer removeLaunchFiles()
	agent, err := startAgent(argv, env, opts.AgentStderr)
	if err != nil {
		return 1, err
	}
	trace := newTracer(opts.Trace)
	p := &proxy{
		editor: newHop("editor", editor, trace),
		agent:  newHop("agent", agent.stdin, trace),
		trace:  trace,
		log:    log,
		steer:  st,
	}
	p.bridge = bridge.NewBridge(p.editor, opts.Bridge)
	p.follow = newFollower(st.server, p.sessionCwd)
	p.follow.fsys, p.follow.log = p.sessionFS, log
	p.proto = newProtocol(opts.MCPTransport, log)
	p.acp = newACPServers(st.server, p.agent, log)
	defer p.acp.close() // after the sessions close
	p.shared = newSharedServers(opts, argv, log)
	defer p.shared.close() // after the sessions close
	defer p.bridge.Close()

	editorWriter := goDone(func() { p.editor.out.run() })
	agentWriter := goDone(func() { p.agent.out.run() })
	editorDone := make(chan error, 1)
	agentDone := make(chan error, 1)
	go func() { editorDone <- p.pump(editorIn, p.editor, p.agent, first) }()
	go func() { agentDone <- p.pump(wire.NewReader(agent.stdout, readerOpts("agent")), p.agent, p.editor, nil) }()

	code := 0
	select {
	case err := <-editorDone:
		// The editor is gone: answer what the agent asked of it, let the
		// agent read what is queued for it, and stop it.
		log.Debug("the editor closed the stream", "error", err)
		p.failPending(p.editor, errPeerClosed("editor", err), p.agent)
		p.agent.out.close()
		waitAtMost(agentWriter, opts.StopGrace)
		agent.stop(opts.StopGrace) // closing its stdin also unblocks the writer
		drainAgent(agent, agentDone, opts.StopGrace)
	case err := <-agentDone:
		log.Debug("the agent closed its stdout", "error", err)
		agent.waitFor(opts.StopGrace)
		code = p.agentGone(agent)
	case <-agent.exited:
		// Read what it wrote before it exited, which is still in the
		// pipe, to the end. Whatever it left running in its group goes
		// now: something there may hold its stdout open.
		agent.killTree()
		drainAgent(agent, agentDone, opts.StopGrace)
		code = p.agentGone(agent)
	case <-ctx.Done():
		// Interrupted (SIGTERM, SIGINT): the editor's pending requests
		// fail, so the exit status says it did not end cleanly.
		p.failPending(p.agent, errors.New("mcp-acpfs was interrupted"), p.editor)
		agent.stop(opts.StopGrace)
		code = 1
	}
	// Let the editor read what is queued for it, unless it has stopped
	// reading; then close everything.
	p.editor.out.close()
	p.agent.out.close()
	waitAtMost(editorWriter, opts.StopGrace)
	editor.Close()
	agent.stdin.Close()
	agent.closeStdout()
	<-editorWriter
	<-agentWriter
	return code, nil
}

// drainAgent waits for the agent's reader to reach the end of its stdout,
// which comes once everything that holds it open is gone. After grace it
// closes the pipe instead: a process outside the agent's group may hold it.
func drainAgent(agent *agentProcess, agentDone <-chan error, grace time.Duration) {
	if !waitAtMost(agentDone, grace) {
		agent.closeStdout()
		<-agentDone
	}
}

// goDone runs f in a goroutine and returns a channel closed when it returns.
func goDone(f func()) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	return done
}

// waitAtMost waits for c to yield or close, for at most d, and reports
// whether it did.
func waitAtMost[T any](c <-chan T, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c:
		return true
	case <-t.C:
		return false
	}
}

// agentGone answers the editor's unanswered requests and returns the exit
// code for an agent that ended on its own.
func (p *proxy) agentGone(agent *agentProcess) int {
	agent.stop(0) // reaps the rest of its group
	cause := fmt.Errorf("the agent exited (%v) before answering", agentStatus(agent.err))
	p.log.Error("the agent exited", "status", agentStatus(agent.err))
	p.failPending(p.agent, cause, p.editor)
	if code := exitCode(agent.err); code != 0 {
		return code
	}
	return 1
}

func agentStatus(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// proxy forwards between the two hops.
type proxy struct {
	editor, agent *hop
	bridge        *bridge.Bridge
	trace         *tracer
	log           *slog.Logger
	steer         *steer
	follow        *follower // used by the agent's pump only
	proto         *protocol
	acp           *acpServers
	shared        *sharedServers // the servers of directories, for an agent with one registry per directory
	modes         sessionModes   // each session's mode, as the agent reports it (modes.go)
}

// sessionCwd returns the working directory of the session with ACP id id,
// or "".
func (p *proxy) sessionCwd(id string) string {
	if ss := p.bridge.Sessions(id); len(ss) > 0 {
		return ss[0].Cwd()
	}
	return ""
}

// pulled is a message read before the proxy started, or the error
// reading it.
type pulled struct {
	m   wire.Message
	err error
}

// pullFirst reads the editor's first message. When ctx ends first, it
// closes the editor's stream to end the read, and waits for that for at
// most grace: closing a stream that is not in Go's poller (a blocking
// pipe as stdin) does not end a pending read. Then the reading goroutine
// is left behind, blocked until the stream ends or the process exits; it
// touches nothing but r and a buffered channel no one reads.
func pullFirst(ctx context.Context, r *wire.Reader, editor io.Closer, grace time.Duration) (wire.Message, error) {
	c := make(chan pulled, 1)
	go func() {
		m, err := r.Next()
		c <- pulled{m, err}
	}()
	select {
	case res := <-c:
		return res.m, res.err
	case <-ctx.Done():
		editor.Close()
		waitAtMost(c, grace)
		return wire.Message{}, ctx.Err()
	}
}

// pump handles the messages from one peer until its stream ends, starting
// with first if it is not nil.
func (p *proxy) pump(r *wire.Reader, from, to *hop, first *pulled) error {
	for {
		var m wire.Message
		var err error
		if first != nil {
			m, err, first = first.m, first.err, nil
		} else {
			m, err = r.Next()
		}
		if over, ok := errors.AsType[*wire.OverlongError](err); ok {
			p.overlong(over, from, to)
			continue
		}
		if err != nil {
			return err
		}
		p.trace.record("from-"+from.name, m.Raw)
		switch m.Kind() {
		case wire.KindRequest:
			p.forwardRequest(m, from, to)
		case wire.KindNotification:
			p.forwardNotification(m, to)
		case wire.KindResponse:
			p.handleResponse(m, from, to)
		}
	}
}

// forwardRequest sends a request on to the other peer under an id of the
// other hop, rewriting session requests from the editor on the way.
func (p *proxy) forwardRequest(m wire.Message, from, to *hop) {
	pr := &pendingRequest{method: m.Method, origin: m.ID}
	var rewritten []byte // the message as changed, if it is
	if from == p.editor {
		switch m.Method {
		case methodInitialize:
			p.bridge.Initialize(m.Params)
			p.steer.editorInitialized(m.Params)
			rewritten = p.proto.editorInitialize(m)
		case methodSessionNew, methodSessionLoad, methodSessionResume, methodSessionFork:
			if err := p.proto.failure(); err != nil {
				from.send(wire.ErrorResponse(m.ID, wire.CodeInternalError, err.Error(), nil))
				return
			}
			if p.proto.injects(m.Method) {
				rewritten, pr.session = p.inject(m)
			}
		case methodSessionClose:
			var params struct {
				SessionID string `json:"sessionId"`
			}
			json.Unmarshal(m.Params, &params)
			pr.closes = params.SessionID
		case methodSessionPrompt:
			var params struct {
				SessionID string `json:"sessionId"`
			}
			json.Unmarshal(m.Params, &params)
			pr.prompt = params.SessionID
		case methodSetMode, methodSetConfig:
			var params struct {
				SessionID string `json:"sessionId"`
				ModeID    string `json:"modeId"`
			}
			json.Unmarshal(m.Params, &params)
			pr.sessionID, pr.mode = params.SessionID, params.ModeID
		}
		if m.Method == methodSessionLoad || m.Method == methodSessionResume {
			var params struct {
				SessionID string `json:"sessionId"`
			}
			json.Unmarshal(m.Params, &params)
			pr.sessionID = params.SessionID
		}
	} else if m.Method == methodMCPMessage && p.acp.handle(m) {
		return // for a session's MCP server over ACP: answered here
	} else if m.Method == methodPermission && p.proto.v1() {
		if p.allowEdit(m) {
			return // answered here: the session's mode accepts edits
		}
		rewritten = p.follow.permission(m)
	}
	id, err := to.register(pr)
	if err != nil {
		from.send(wire.ErrorResponse(m.ID, wire.CodeInternalError, errPeerClosed(to.name, err).Error(), nil))
		if pr.session != nil {
			pr.session.Close()
		}
		return
	}
	if pr.prompt != "" {
		p.shared.promptStarted(pr.prompt) // until settled
	}
	ourID := json.RawMessage(strconv.FormatInt(id, 10))
	var line []byte
	if rewritten == nil {
		line, err = m.WithID(ourID)
	} else {
		line, err = wire.SetID(rewritten, ourID)
	}
	if err != nil { // cannot happen for a parsed message
		p.log.Error("rewrite a request id", "method", m.Method, "error", err)
		return
	}
	to.send(line)
}

// settled is called once for every request taken off a hop, answered or
// failed: a prompt is no longer running.
func (p *proxy) settled(pr *pendingRequest) {
	if pr.prompt != "" {
		p.shared.promptEnded(pr.prompt)
	}
}

// inject returns a session request with the session's MCP server entry
// added to its mcpServers, and the session. If anything is wrong with the
// request, it returns nil, and the request is forwarded as it is for the
// agent to answer.
func (p *proxy) inject(m wire.Message) ([]byte, *bridge.Session) {
	sp, err := bridge.ParseSessionParams(m.Params)
	if err != nil {
		p.log.Warn("not adding the file tools to a session request", "method", m.Method, "error", err)
		return nil, nil
	}
	if m.Method == methodSessionFork || m.Method == methodSessionNew {
		sp.SessionID = "" // fork names its source; the new id comes with the response
	}
	if p.proto.v1() {
		sp.Tools = p.steer.tools()
	}
	s, err := p.bridge.OpenSession(sp)
	if err != nil {
		p.log.Warn("not adding the file tools to a session request", "method", m.Method, "error", err)
		return nil, nil
	}
	entry, err := p.serverEntry(s)
	if err == nil {
		var raw []byte
		var replaced int
		if raw, replaced, err = appendMCPServer(m.Raw, entry); err == nil {
			if replaced > 0 {
				p.log.Warn("the session request already has an MCP server of this name; the file tools' entry replaces it",
					"method", m.Method, "name", entry.Name, "replaced", replaced)
			}
			if p.proto.v1() {
				raw = p.steer.session(raw)
			}
			return raw, s
		}
	}
	p.log.Warn("not adding the file tools to a session request", "method", m.Method, "error", err)
	s.Close()
	return nil, nil
}

// appendMCPServer returns msg with entry added to params.mcpServers, all
// else JSON-equal, and how many entries of entry's name it replaced. Agents
// key MCP servers by name, so two of one name (the user configured the
// same name, or two proxies are chained) would leave it to chance which
// one the agent runs: entry takes the place of the first of its name, the
// others of that name go, and without one it comes last.
func appendMCPServer(msg []byte, entry bridge.MCPServerEntry) ([]byte, int, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(msg, &top); err != nil {
		return nil, 0, err
	}
	var params map[string]json.RawMessage
	if err := json.Unmarshal(top["params"], &params); err != nil {
		return nil, 0, err
	}
	var servers []json.RawMessage
	if s, ok := params["mcpServers"]; ok && string(s) != "null" {
		if err := json.Unmarshal(s, &servers); err != nil {
			return nil, 0, fmt.Errorf("mcpServers: %w", err)
		}
	}
	e, err := json.Marshal(entry)
	if err != nil {
		return nil, 0, err
	}
	kept := make([]json.RawMessage, 0, len(servers)+1)
	replaced := 0
	for _, s := range servers {
		var named struct {
			Name *string `json:"name"`
		}
		if json.Unmarshal(s, &named) == nil && named.Name != nil && *named.Name == entry.Name {
			if replaced == 0 {
				kept = append(kept, e)
			}
			replaced++
			continue
		}
		kept = append(kept, s)
	}
	if replaced == 0 {
		kept = append(kept, e)
	}
	if params["mcpServers"], err = json.Marshal(kept); err != nil {
		return nil, 0, err
	}
	if top["params"], err = json.Marshal(params); err != nil {
		return nil, 0, err
	}
	out, err := json.Marshal(top)
	return out, replaced, err
}

// forwardNotification sends a notification on. A $/cancel_request names a
// request by its id on the sender's hop; it is renamed to the id that
// request has on the receiver's hop, or dropped if it was answered.
func (p *proxy) forwardNotification(m wire.Message, to *hop) {
	if m.Method == methodCancelRequest && to == p.editor && p.acp.cancel(m) {
		return // it cancels an inner MCP request of the proxy's own
	}
	if m.Method == methodSessionUpdate && to == p.editor && p.proto.v1() {
		p.modes.update(m)
		if bytes.Contains(m.Params, toolCallMarker) {
			p.shared.report(m.Params)
		}
		if line := p.follow.update(m); line != nil {
			to.send(line)
			return
		}
	}
	if m.Method != methodCancelRequest {
		to.send(m.Raw)
		return
	}
	var params map[string]json.RawMessage
	if err := json.Unmarshal(m.Params, &params); err != nil {
		p.log.Warn("dropping a malformed $/cancel_request", "error", err)
		return
	}
	id, ok := to.ourID(params["requestId"])
	if !ok {
		p.log.Debug("dropping $/cancel_request for a request no longer pending", "requestId", string(params["requestId"]))
		return
	}
	params["requestId"] = json.RawMessage(strconv.FormatInt(id, 10))
	line, err := replaceParams(m.Raw, params)
	if err != nil {
		p.log.Warn("dropping a $/cancel_request", "error", err)
		return
	}
	to.send(line)
}

// replaceParams returns msg with new params, all else JSON-equal.
func replaceParams(msg []byte, params map[string]json.RawMessage) ([]byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(msg, &top); err != nil {
		return nil, err
	}
	var err error
	if top["params"], err = json.Marshal(params); err != nil {
		return nil, err
	}
	return json.Marshal(top)
}

// handleResponse routes a response from a peer: to the proxy's own caller,
// or back to the other peer under the id its request had there.
func (p *proxy) handleResponse(m wire.Message, from, to *hop) {
	_, pr := from.take(m.ID)
	if pr == nil {
		p.log.Warn("dropping a response to no pending request", "from", from.name, "id", string(m.ID))
		return
	}
	p.settled(pr)
	if pr.reply != nil {
		pr.reply <- reply{m: m}
		return
	}
	if from == p.agent {
		p.observe(pr, m)
		if pr.method == methodInitialize && m.Error == nil {
			if err := p.agentInitialized(m.Result); err != nil {
				p.log.Error("the agent cannot take the MCP transport asked for", "error", err)
				to.send(wire.ErrorResponse(pr.origin, wire.CodeInternalError, err.Error(), nil))
				return
			}
		}
	}
	line, err := m.WithID(pr.origin)
	if err != nil {
		p.log.Error("rewrite a response id", "error", err)
		return
	}
	to.send(line)
}

// overlong deals with a line from a peer that was too long to read, which
// the Reader discarded as it went by: a request is answered with an error
// that names the limit, and the request that a response answered fails,
// whether it was the proxy's own call or one forwarded from the other peer.
func (p *proxy) overlong(over *wire.OverlongError, from, to *hop) {
	switch over.Kind {
	case wire.KindRequest:
		if from == p.agent && p.acp.overlong(over) {
			return // an MCP-over-ACP request to a session's server
		}
		from.send(wire.ErrorResponse(over.ID, wire.CodeInvalidRequest, over.Error(), nil))
	case wire.KindResponse:
		_, pr := from.take(over.ID)
		if pr == nil {
			return // the Reader has logged the line
		}
		p.settled(pr)
		if pr.reply != nil {
			pr.reply <- reply{err: &answerTooLargeError{peer: from.name, method: pr.method, size: over.Len, limit: int64(over.Max)}}
			return
		}
		tooLarge := &answerTooLargeError{peer: from.name, method: pr.method, size: over.Len, limit: int64(over.Max)}
		line := wire.ErrorResponse(pr.origin, wire.CodeInternalError, tooLarge.Error(), nil)
		if from == p.agent {
			if m, err := wire.Parse(line); err == nil {
				p.observe(pr, m) // a session/new that failed, say
			}
		}
		to.send(line)
	}
}

// answerTooLargeError fails a request whose answer was a line over the
// limit. It matches fsruntime.ErrTooLarge.
type answerTooLargeError struct {
	peer, method string
	size, limit  int64
}

func (e *answerTooLargeError) Error() string {
	return fmt.Sprintf("the %s's answer to %s is %s, over the %s limit on one message",
		e.peer, e.method, fsruntime.FormatSize(e.size), fsruntime.FormatSize(e.limit))
}

func (e *answerTooLargeError) Unwrap() error { return fsruntime.ErrTooLarge }

// observe learns from the agent's answers: its capabilities, the ids of
// new sessions, and which sessions closed.
func (p *proxy) observe(pr *pendingRequest, m wire.Message) {
	ok := m.Error == nil
	switch pr.method {
	case methodInitialize:
		if ok {
			p.bridge.InitializeAgent(m.Result)
			p.steer.agentInitialized(m.Result)
			p.shared.agentInitialized(m.Result)
		}
	case methodSessionNew, methodSessionFork:
		if pr.session == nil {
			return
		}
		var res struct {
			SessionID string `json:"sessionId"`
		}
		if !ok || json.Unmarshal(m.Result, &res) != nil || res.SessionID == "" {
			pr.session.Close()
			return
		}
		pr.session.Bind(res.SessionID)
		p.modes.learn(res.SessionID, m.Result)
	case methodSessionLoad, methodSessionResume:
		if pr.session != nil && !ok {
			pr.session.Close()
		}
		if ok {
			p.modes.learn(pr.sessionID, m.Result)
		}
	case methodSessionClose:
		if ok && pr.closes != "" {
			for _, s := range p.bridge.Sessions(pr.closes) {
				s.Close()
			}
			p.modes.forget(pr.closes)
		}
	case methodSetMode:
		if ok {
			p.modes.set(pr.sessionID, pr.mode)
		}
	case methodSetConfig:
		if ok {
			p.modes.learn(pr.sessionID, m.Result)
		}
	}
}

// failPending ends a hop and answers, on the other hop, every request that
// was forwarded to it and is still unanswered.
func (p *proxy) failPending(h *hop, cause error, back *hop) {
	for _, pr := range h.close(cause) {
		p.settled(pr)
		back.send(wire.ErrorResponse(pr.origin, wire.CodeInternalError, cause.Error(), nil))
		if pr.session != nil {
			pr.session.Close()
		}
	}
}

// sessionFS returns the files of the session with ACP id id, as its tools
// see them, or nil.
func (p *proxy) sessionFS(id string) fsruntime.FS {
	if ss := p.bridge.Sessions(id); len(ss) > 0 {
		return ss[0].Router()
	}
	return nil
}
