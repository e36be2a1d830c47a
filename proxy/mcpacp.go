package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
	"github.com/mcp-acpfs/mcp-acpfs/internal/loopback"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpserve"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
)

// MCP over ACP (unstable ACP; the SDK's McpOverAcpCaller and Provider).
//
// A session whose agent advertised mcpCapabilities.acp gets the entry
// {type:"acp", name, serverId}, with a serverId of its own that no one can
// guess, and no endpoint is opened for it. The agent sends the inner MCP
// requests as mcp/message requests to the proxy, which answers those for
// its serverIds itself: each goes, with the caller's requestId as its id,
// to the session's MCP server served by [bridge.Session.ServeStream] (the
// transport of every stream, so the same tools, roots, limits, fast path
// and lifting),
// started at the first message. The inner protocol is MCP 2026-07-28 only,
// whose requests each carry their version and the client's capabilities
// in _meta (checked here as the SDK's Provider checks them).
//
// The outer result is {result} or {error}, the inner outcome. Outer errors
// are the binding's own: -32602 (bad envelope, a requestId already active),
// -33000 (too many active), -33001 (the session is closed), -32800 (the
// agent cancelled it with $/cancel_request, which cancels the inner
// request), -33002 (no valid answer). A notification the server sends for
// an active request (progress by its token, a subscription's by its id) goes
// to the agent as an mcp/message notification before the request's answer,
// since the server writes it first. An mcp/message for a serverId that is
// not the proxy's goes on to the editor like any other request.

const methodMCPMessage = "mcp/message"

// The binding's outer error codes (McpBindingErrorCode in the SDK).
const (
	codeBindingLimit      = -33000 // resourceLimitExceeded
	codeServerUnavailable = -33001 // serverUnavailable
	codeBackendFailed     = -33002 // backendFailed
	codeRequestCancelled  = -32800 // requestCancelled
)

const (
	// mcpOverACPVersion is the only inner MCP version of the binding.
	mcpOverACPVersion = mcp.ProtocolVersion20260728
	// codeUnsupportedVersion is MCP's error for a version it does not serve.
	codeUnsupportedVersion = -32022
	// maxActiveMCPOverACP bounds the active requests of one serverId, as
	// the stream transports bound those of one connection.
	maxActiveMCPOverACP = 64
)

// acpServers are the proxy's MCP-over-ACP servers, by serverId.
type acpServers struct {
	name  string // the entries' name
	agent *hop   // where answers and notifications go
	log   *slog.Logger
	ctx   context.Context // ends when the proxy ends
	stop  context.CancelFunc
	wg    sync.WaitGroup

	mu      sync.Mutex
	stopped bool // set by close
	byID    map[string]*acpServer
	gone    map[string]bool     // serverIds whose session closed
	byOuter map[string]*acpCall // active calls, by compactID of the agent's request id
}

func newACPServers(name string, agent *hop, log *slog.Logger) *acpServers {
	a := &acpServers{
		name: name, agent: agent, log: log,
		byID: map[string]*acpServer{}, gone: map[string]bool{}, byOuter: map[string]*acpCall{},
	}
	a.ctx, a.stop = context.WithCancel(context.Background())
	return a
}

// acpServer is the MCP server of one session, reached over ACP.
type acpServer struct {
	all  *acpServers
	id   string
	sess *bridge.Session
	in   *lineQueue // to the server
	out  lineSplitter
	once sync.Once

	active map[string]*acpCall // by requestId; guarded by all.mu
	tokens map[string]*acpCall // by compactID of the progress token; guarded by all.mu
}

// acpCall is an inner request in flight.
type acpCall struct {
	srv       *acpServer
	outer     json.RawMessage // the agent's id of the mcp/message request
	requestID string
	token     string // canonicalID of its progress token; "" if none
	cancelled bool   // guarded by all.mu
}

// add makes session s an MCP-over-ACP server and returns its entry.
func (a *acpServers) add(s *bridge.Session) bridge.MCPServerEntry {
	srv := &acpServer{
		all: a, id: a.name + "-" + loopback.NewToken(), sess: s, in: newLineQueue(),
		active: map[string]*acpCall{}, tokens: map[string]*acpCall{},
	}
	srv.out.deliver = srv.deliver
	a.mu.Lock()
	a.byID[srv.id] = srv
	a.mu.Unlock()
	return bridge.MCPServerEntry{Type: "acp", Name: a.name, ServerID: srv.id}
}

// mcpEnvelope is the params of mcp/message.
type mcpEnvelope struct {
	ServerID  json.RawMessage `json:"serverId"`
	RequestID json.RawMessage `json:"requestId"`
	Method    json.RawMessage `json:"method"`
	Params    json.RawMessage `json:"params"`
}

// handle answers m, an mcp/message request from the agent, if it names
// one of the proxy's serverIds, and reports whether it did.
func (a *acpServers) handle(m wire.Message) bool {
	var env mcpEnvelope
	var serverID string
	if json.Unmarshal(m.Params, &env) != nil || json.Unmarshal(env.ServerID, &serverID) != nil {
		return false
	}
	a.mu.Lock()
	srv, gone := a.byID[serverID], a.gone[serverID]
	if srv != nil && isClosed(srv.sess.Done()) {
		delete(a.byID, serverID)
		a.gone[serverID], srv, gone = true, nil, true
	}
	a.mu.Unlock()
	switch {
	case gone:
		a.fail(m.ID, codeServerUnavailable, "MCP server registration unavailable: its session is closed", map[string]any{"serverId": serverID})
		return true
	case srv == nil:
		return false
	}
	var requestID, method string
	params := bytes.TrimSpace(env.Params)
	if json.Unmarshal(env.RequestID, &requestID) != nil || json.Unmarshal(env.Method, &method) != nil ||
		len(params) > 0 && params[0] != '{' && string(params) != "null" {
		a.fail(m.ID, wire.CodeInvalidParams, "invalid mcp/message params: serverId, requestId and method are strings, params an object",
			map[string]any{"serverId": serverID})
		return true
	}
	if string(params) == "null" {
		params = nil
	}
	srv.call(m.ID, requestID, method, params)
	return true
}

// checkInnerMeta returns the inner MCP error for params whose _meta lacks
// what MCP 2026-07-28 requires, or nil.
func checkInnerMeta(params json.RawMessage) json.RawMessage {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	json.Unmarshal(params, &p)
	var version string
	if json.Unmarshal(p.Meta[mcp.MetaKeyProtocolVersion], &version) != nil {
		return innerError(wire.CodeInvalidParams, "Invalid params: missing "+mcp.MetaKeyProtocolVersion+" in params._meta", nil)
	}
	if version != mcpOverACPVersion {
		return innerError(codeUnsupportedVersion, "Unsupported protocol version",
			map[string]any{"supported": []string{mcpOverACPVersion}, "requested": version})
	}
	if caps := bytes.TrimSpace(p.Meta[mcp.MetaKeyClientCapabilities]); len(caps) == 0 || caps[0] != '{' {
		return innerError(wire.CodeInvalidParams, "Invalid params: missing "+mcp.MetaKeyClientCapabilities+" in params._meta", nil)
	}
	return nil
}

// innerError encodes an inner MCP error object.
func innerError(code int64, msg string, data any) json.RawMessage {
	b, _ := json.Marshal(struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	}{code, msg, data})
	return b
}

// call hands an inner request to the server, once it is known to be one
// the server may take (in the SDK's Provider's order: not a duplicate, not
// past the limit, then of the inner version).
func (srv *acpServer) call(outer json.RawMessage, requestID, method string, params json.RawMessage) {
	a := srv.all
	c := &acpCall{srv: srv, outer: outer, requestID: requestID}
	var p struct {
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if json.Unmarshal(params, &p) == nil && len(p.Meta.ProgressToken) > 0 && string(p.Meta.ProgressToken) != "null" {
		c.token = compactID(p.Meta.ProgressToken)
	}
	a.mu.Lock()
	switch {
	case a.stopped || a.gone[srv.id]:
		// The session closed since handle looked: finish has run.
		a.mu.Unlock()
		a.fail(outer, codeServerUnavailable, "MCP server registration unavailable: its session is closed", map[string]any{"serverId": srv.id})
		return
	case srv.active[requestID] != nil:
		a.mu.Unlock()
		a.fail(outer, wire.CodeInvalidParams, "duplicate active MCP request ID", map[string]any{"serverId": srv.id, "requestId": requestID})
		return
	case len(srv.active) >= maxActiveMCPOverACP:
		a.mu.Unlock()
		a.fail(outer, codeBindingLimit, fmt.Sprintf("MCP-over-ACP active request limit (%d) exceeded", maxActiveMCPOverACP), map[string]any{"serverId": srv.id})
		return
	}
	if inner := checkInnerMeta(params); inner != nil {
		a.mu.Unlock()
		a.answer(outer, "error", inner)
		return
	}
	srv.active[requestID] = c
	if c.token != "" {
		srv.tokens[c.token] = c
	}
	a.byOuter[compactID(outer)] = c
	a.mu.Unlock()
	srv.once.Do(srv.start)
	id, _ := json.Marshal(requestID)
	name, _ := json.Marshal(method)
	line := append([]byte(`{"jsonrpc":"2.0","id":`), id...)
	line = append(append(line, `,"method":`...), name...)
	if params != nil {
		line = append(append(line, `,"params":`...), params...)
	}
	srv.in.push(append(line, '}'))
}

// start serves the session's MCP server until the session or the proxy
// ends; then the requests still active fail.
func (srv *acpServer) start() {
	a := srv.all
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stopped {
		return // the proxy is ending, and the agent with it
	}
	a.wg.Go(func() {
		if err := srv.sess.ServeStream(a.ctx, srv); err != nil {
			a.log.Debug("an MCP-over-ACP server ended", "serverId", srv.id, "error", err)
		}
		srv.finish()
	})
}

// finish fails the requests still active once the server ended, and makes
// the serverId unavailable.
func (srv *acpServer) finish() {
	a := srv.all
	a.mu.Lock()
	delete(a.byID, srv.id)
	a.gone[srv.id] = true
	calls := make([]*acpCall, 0, len(srv.active))
	for _, c := range srv.active {
		calls = append(calls, c)
		delete(a.byOuter, compactID(c.outer))
	}
	clear(srv.active)
	clear(srv.tokens)
	a.mu.Unlock()
	for _, c := range calls {
		a.fail(c.outer, codeRequestCancelled, "Request cancelled: the session was closed", nil)
	}
}

// Read, Write and Close make the server's end of its stream: what call
// pushes is read, and what the server writes is delivered line by line.
func (srv *acpServer) Read(p []byte) (int, error)  { return srv.in.Read(p) }
func (srv *acpServer) Write(p []byte) (int, error) { return srv.out.Write(p) }
func (srv *acpServer) Close() error                { srv.in.close(); return nil }

// deliver routes a line the server wrote: a response answers its outer
// request, a notification tied to an active request goes to the agent.
func (srv *acpServer) deliver(line []byte) {
	a := srv.all
	m, err := wire.Parse(line)
	if err != nil {
		a.log.Error("an unreadable line from an MCP-over-ACP server", "serverId", srv.id, "error", err)
		return
	}
	switch m.Kind() {
	case wire.KindResponse:
		var requestID string
		json.Unmarshal(m.ID, &requestID)
		a.mu.Lock()
		c := srv.active[requestID]
		if c != nil {
			delete(srv.active, requestID)
			delete(a.byOuter, compactID(c.outer))
			if c.token != "" && srv.tokens[c.token] == c {
				delete(srv.tokens, c.token)
			}
		}
		a.mu.Unlock()
		if c == nil {
			a.log.Debug("dropping an MCP-over-ACP answer to no active request", "serverId", srv.id, "id", string(m.ID))
			return
		}
		srv.answerCall(c, m)
	case wire.KindNotification:
		c := srv.owner(m)
		if c == nil {
			a.log.Debug("dropping an MCP notification tied to no active request", "serverId", srv.id, "method", m.Method)
			return
		}
		var b bytes.Buffer
		b.WriteString(`{"jsonrpc":"2.0","method":"mcp/message","params":{"serverId":`)
		writeJSONString(&b, srv.id)
		b.WriteString(`,"requestId":`)
		writeJSONString(&b, c.requestID)
		b.WriteString(`,"method":`)
		writeJSONString(&b, m.Method)
		if len(m.Params) > 0 && string(m.Params) != "null" {
			b.WriteString(`,"params":`)
			b.Write(m.Params)
		}
		b.WriteString(`}}`)
		a.agent.send(b.Bytes())
	default:
		a.log.Debug("dropping a request from an MCP-over-ACP server", "serverId", srv.id, "method", m.Method)
	}
}

// answerCall answers the outer request of c with the inner response m.
func (srv *acpServer) answerCall(c *acpCall, m wire.Message) {
	a := srv.all
	a.mu.Lock()
	cancelled := c.cancelled
	a.mu.Unlock()
	switch {
	case cancelled && (m.Error != nil || isToolError(m.Result)):
		a.fail(c.outer, codeRequestCancelled, "Request cancelled", nil)
	case m.Error != nil:
		a.answer(c.outer, "error", m.Error)
	case m.Result != nil:
		a.answer(c.outer, "result", m.Result)
	default:
		a.fail(c.outer, codeBackendFailed, "MCP server answered without a result or an error", nil)
	}
}

// isToolError reports whether result is a tool result with isError true.
func isToolError(result json.RawMessage) bool {
	var r struct {
		IsError bool `json:"isError"`
	}
	return bytes.Contains(result, []byte(`"isError"`)) && json.Unmarshal(result, &r) == nil && r.IsError
}

// owner returns the active request a notification belongs to: that of its
// progress token, or the subscriptions/listen request its subscription id
// names; nil if none.
func (srv *acpServer) owner(m wire.Message) *acpCall {
	var p struct {
		ProgressToken json.RawMessage            `json:"progressToken"`
		Meta          map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return nil
	}
	a := srv.all
	a.mu.Lock()
	defer a.mu.Unlock()
	if m.Method == string(mcp.MethodNotificationProgress) && len(p.ProgressToken) > 0 {
		if c := srv.tokens[compactID(p.ProgressToken)]; c != nil {
			return c
		}
	}
	var sub string
	if json.Unmarshal(p.Meta[mcp.MetaKeySubscriptionID], &sub) == nil {
		return srv.active[sub]
	}
	return nil
}

// cancel cancels the inner request of the outer one that m, a
// $/cancel_request from the agent, names, and reports whether it was one.
func (a *acpServers) cancel(m wire.Message) bool {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(m.Params, &p) != nil || p.RequestID == nil {
		return false
	}
	a.mu.Lock()
	c := a.byOuter[compactID(p.RequestID)]
	if c != nil {
		c.cancelled = true
	}
	a.mu.Unlock()
	if c == nil {
		return false
	}
	id, _ := json.Marshal(c.requestID)
	c.srv.in.push([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + string(id) +
		`,"reason":"the agent cancelled the mcp/message request"}}`))
	return true
}

// overlong answers an mcp/message request too long to read, if it was for
// one of the proxy's serverIds, as the stream transports answer a line too
// long: a tools/call with a tool error that names the tool and the sizes,
// any other request with an error (here the inner one).
func (a *acpServers) overlong(over *wire.OverlongError) bool {
	in := over.Inner
	if in == nil || over.ID == nil {
		return false
	}
	a.mu.Lock()
	srv, gone := a.byID[in.ServerID], a.gone[in.ServerID]
	a.mu.Unlock()
	switch {
	case gone || srv != nil && isClosed(srv.sess.Done()):
		a.fail(over.ID, codeServerUnavailable, "MCP server registration unavailable: its session is closed", map[string]any{"serverId": in.ServerID})
	case srv == nil:
		return false
	case in.Method == "tools/call" && in.Tool != "":
		if result, err := json.Marshal(mcpserve.OverlongToolResult(in.Tool, over.Len, over.Max)); err == nil {
			a.answer(over.ID, "result", result)
			break
		}
		fallthrough
	default:
		a.answer(over.ID, "error", innerError(wire.CodeInvalidRequest, over.Error(), nil))
	}
	return true
}

// answer sends the agent the result {member: v} for its request id.
func (a *acpServers) answer(id json.RawMessage, member string, v json.RawMessage) {
	line := make([]byte, 0, len(id)+len(v)+64)
	line = append(line, `{"jsonrpc":"2.0","id":`...)
	line = append(line, id...)
	line = append(line, `,"result":{"`...)
	line = append(line, member...)
	line = append(line, `":`...)
	line = append(line, v...)
	a.agent.send(append(line, "}}"...))
}

// fail sends the agent an outer error for its request id.
func (a *acpServers) fail(id json.RawMessage, code int64, msg string, data any) {
	a.agent.send(wire.ErrorResponse(id, code, msg, data))
}

// close stops the servers and waits for them.
func (a *acpServers) close() {
	a.mu.Lock()
	a.stopped = true
	a.mu.Unlock()
	a.stop()
	a.wg.Wait()
}

// compactID returns the compact text of a JSON-RPC id (or progress token),
// to match one to another.
func compactID(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func writeJSONString(b *bytes.Buffer, s string) {
	q, _ := json.Marshal(s)
	b.Write(q)
}

// lineQueue is an unbounded queue of lines, read as a stream: a push
// never blocks the proxy's reader of the agent.
type lineQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	buf    []byte
	closed bool
}

func newLineQueue() *lineQueue {
	q := &lineQueue{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// push queues line and a newline; after close it does nothing.
func (q *lineQueue) push(line []byte) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.buf = append(append(q.buf, line...), '\n')
	q.cond.Signal()
}

// Read waits for queued bytes, and returns io.EOF once closed and empty.
func (q *lineQueue) Read(p []byte) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.buf) == 0 && !q.closed {
		q.cond.Wait()
	}
	if len(q.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, q.buf)
	q.buf = q.buf[n:]
	if len(q.buf) == 0 {
		q.buf = nil // let a large line's buffer go
	}
	return n, nil
}

func (q *lineQueue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.buf = nil
	q.cond.Broadcast()
}

// lineSplitter passes each whole line written to it to deliver. It is
// written to by one writer at a time (the stream's writes hold a lock).
type lineSplitter struct {
	partial []byte
	deliver func([]byte)
}

func (s *lineSplitter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.partial = append(s.partial, p...)
			break
		}
		line := p[:i]
		if len(s.partial) > 0 {
			line = append(s.partial, line...)
			s.partial = nil
		}
		s.deliver(line)
		p = p[i+1:]
	}
	return n, nil
}
