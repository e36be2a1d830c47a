// Package fakeeditor is the editor's side of an ACP connection, for the
// integration tests of mcp-acpfs proxy: a jsonrpc2.Conn over a wire.ObjectStream
// that serves fs/read_text_file and fs/write_text_file as Zed does, from a
// fsruntimetest.MemFS of unsaved buffers, and records every message it
// receives, byte for byte (or hands each to an observer).
package fakeeditor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/syncwriter"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
)

// Options configure an [Editor].
type Options struct {
	// ReadTextFile and WriteTextFile are the fs capabilities the editor
	// advertises in initialize, and the only fs methods it serves.
	ReadTextFile, WriteTextFile bool
	// Buffers are the editor's buffers; nil means an empty MemFS.
	Buffers *fsruntimetest.MemFS
	// SessionBuffers, if not nil, returns the buffers an fs request of
	// the session with the given id is served from; a nil MemFS means
	// Buffers.
	SessionBuffers func(sessionID string) *fsruntimetest.MemFS
	// Hold, if not nil, is asked about every request the editor receives;
	// a request it holds is answered only when the editor receives a
	// $/cancel_request for it (with -32800), or never.
	Hold func(method string, params json.RawMessage) bool
	// Log receives the log lines of the codec and of jsonrpc2; nil
	// discards them.
	Log io.Writer
	// Observe, if not nil, is called on the editor's read loop with every
	// message it receives, in order, before the message is handled. The
	// editor then keeps none of them (Messages, Requests, Notifications
	// and WaitFor see nothing), so that a long run holds no more than
	// the test keeps.
	Observe func(Message)
}

// An Editor is a running fake editor.
type Editor struct {
	opts Options
	conn *jsonrpc2.Conn
	out  *syncwriter.Writer // raw lines and the connection's never interleave

	mu           sync.Mutex
	msgs         []Message
	changed      chan struct{} // closed and replaced when msgs grows
	unadvertised []string      // methods received that were not advertised
	held         map[string]chan struct{}
}

// A Message is one message the editor received, as it came off the wire.
type Message struct {
	wire.Message
	// Malformed is set, with Raw, for a line that is not a JSON-RPC
	// message.
	Malformed bool
}

// New starts an editor that reads the proxy's output from in and writes
// to out. It stops when ctx ends or Close is called.
func New(ctx context.Context, in io.ReadCloser, out io.WriteCloser, opts Options) *Editor {
	if opts.Buffers == nil {
		opts.Buffers = fsruntimetest.NewMemFS()
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	e := &Editor{
		opts:    opts,
		out:     syncwriter.New(out),
		changed: make(chan struct{}),
		held:    make(map[string]chan struct{}),
	}
	rwc := rwc{Reader: &tap{r: in, line: e.record}, Writer: e.out, closers: []io.Closer{out, in}}
	logger := slog.New(slog.NewTextHandler(opts.Log, nil))
	stream := wire.NewObjectStream(rwc, wire.ReaderOptions{Logger: logger, Label: "proxy"})
	e.conn = jsonrpc2.NewConn(ctx, stream, e, jsonrpc2.SetLogger(log.New(opts.Log, "fakeeditor jsonrpc2: ", 0)))
	return e
}

// Close closes the connection: the proxy sees its input end.
func (e *Editor) Close() error { return e.conn.Close() }

// Call sends a request and waits for its result.
func (e *Editor) Call(ctx context.Context, method string, params, result any, opts ...jsonrpc2.CallOption) error {
	return e.conn.Call(ctx, method, params, result, opts...)
}

// Notify sends a notification.
func (e *Editor) Notify(ctx context.Context, method string, params any) error {
	return e.conn.Notify(ctx, method, params)
}

// WriteLine writes line and a newline to the proxy as it is, between the
// messages the connection writes.
func (e *Editor) WriteLine(line []byte) error {
	_, err := e.out.Write(append(slices.Clip(line), '\n'))
	return err
}

// WriteStream writes what r yields and a newline to the proxy as one line,
// however long, between the messages the connection writes, without
// holding it.
func (e *Editor) WriteStream(r io.Reader) error {
	_, err := e.out.Copy(io.MultiReader(r, strings.NewReader("\n")))
	return err
}

// Initialize sends initialize with the advertised fs capabilities and
// returns the agent's result.
func (e *Editor) Initialize(ctx context.Context) (json.RawMessage, error) {
	params := map[string]any{
		"protocolVersion": 1,
		"clientCapabilities": map[string]any{
			"fs":       map[string]any{"readTextFile": e.opts.ReadTextFile, "writeTextFile": e.opts.WriteTextFile},
			"terminal": false,
			"_meta":    map[string]any{"fakeeditor": true},
		},
		"clientInfo": map[string]any{"name": "fakeeditor", "version": "1"},
	}
	var res json.RawMessage
	err := e.conn.Call(ctx, "initialize", params, &res)
	return res, err
}

// NewSession sends session/new for cwd and returns the session id.
func (e *Editor) NewSession(ctx context.Context, cwd string, extra map[string]any) (string, error) {
	params := map[string]any{"cwd": cwd, "mcpServers": []any{}}
	for k, v := range extra {
		params[k] = v
	}
	var res struct {
		SessionID string `json:"sessionId"`
	}
	if err := e.conn.Call(ctx, "session/new", params, &res); err != nil {
		return "", err
	}
	if res.SessionID == "" {
		return "", errors.New("session/new: no sessionId in the result")
	}
	return res.SessionID, nil
}

// Prompt sends session/prompt whose text is script marshalled to JSON, and
// returns the stop reason.
func (e *Editor) Prompt(ctx context.Context, sessionID string, script any, opts ...jsonrpc2.CallOption) (string, error) {
	text, err := json.Marshal(script)
	if err != nil {
		return "", err
	}
	params := map[string]any{
		"sessionId": sessionID,
		"prompt":    []any{map[string]any{"type": "text", "text": string(text)}},
	}
	var res struct {
		StopReason string `json:"stopReason"`
	}
	if err := e.conn.Call(ctx, "session/prompt", params, &res, opts...); err != nil {
		return "", err
	}
	return res.StopReason, nil
}

// Messages returns the messages received so far, in order.
func (e *Editor) Messages() []Message {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.msgs)
}

// Requests returns the requests received so far with one of methods, or
// all requests if none is given.
func (e *Editor) Requests(methods ...string) []Message {
	var out []Message
	for _, m := range e.Messages() {
		if m.Kind() == wire.KindRequest && (len(methods) == 0 || slices.Contains(methods, m.Method)) {
			out = append(out, m)
		}
	}
	return out
}

// Notifications returns the notifications received so far with method.
func (e *Editor) Notifications(method string) []Message {
	var out []Message
	for _, m := range e.Messages() {
		if m.Kind() == wire.KindNotification && m.Method == method {
			out = append(out, m)
		}
	}
	return out
}

// Unadvertised returns the fs methods the editor received without having
// advertised them. It must stay empty.
func (e *Editor) Unadvertised() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.unadvertised)
}

// WaitFor waits until a received message satisfies ok and returns the
// first that does.
func (e *Editor) WaitFor(ctx context.Context, ok func(Message) bool) (Message, error) {
	seen := 0
	for {
		e.mu.Lock()
		for ; seen < len(e.msgs); seen++ {
			if ok(e.msgs[seen]) {
				m := e.msgs[seen]
				e.mu.Unlock()
				return m, nil
			}
		}
		changed := e.changed
		e.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return Message{}, context.Cause(ctx)
		}
	}
}

// record is the tap's callback for every line the editor reads.
func (e *Editor) record(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	raw := bytes.Clone(line)
	m, err := wire.Parse(raw)
	msg := Message{Message: m}
	if err != nil {
		msg = Message{Message: wire.Message{Raw: raw}, Malformed: true}
	}
	if e.opts.Observe != nil {
		e.opts.Observe(msg)
		return
	}
	e.mu.Lock()
	e.msgs = append(e.msgs, msg)
	close(e.changed)
	e.changed = make(chan struct{})
	e.mu.Unlock()
}

// Handle implements jsonrpc2.Handler. Notifications are handled in the
// read loop; requests are registered there (so that a $/cancel_request
// that follows finds them) and served in goroutines of their own.
func (e *Editor) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	var params json.RawMessage
	if req.Params != nil {
		params = *req.Params
	}
	if req.Notif {
		if req.Method == "$/cancel_request" {
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			json.Unmarshal(params, &p)
			e.mu.Lock()
			if c, ok := e.held[string(p.RequestID)]; ok {
				close(c)
				delete(e.held, string(p.RequestID))
			}
			e.mu.Unlock()
		}
		return
	}
	idJSON, _ := json.Marshal(req.ID)
	var hold chan struct{}
	if e.opts.Hold != nil && e.opts.Hold(req.Method, params) {
		hold = make(chan struct{})
		e.mu.Lock()
		e.held[string(idJSON)] = hold
		e.mu.Unlock()
	}
	go func() {
		if hold != nil {
			select {
			case <-hold:
				conn.ReplyWithError(ctx, req.ID, &jsonrpc2.Error{Code: fsruntime.CodeRequestCancelled, Message: "Request cancelled"})
			case <-ctx.Done():
			}
			return
		}
		result, err := e.serve(ctx, req.Method, params)
		if err != nil {
			conn.ReplyWithError(ctx, req.ID, err)
			return
		}
		conn.Reply(ctx, req.ID, result)
	}()
}

// fsParams are the params of both fs methods.
type fsParams struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	Line      *int   `json:"line"`
	Limit     *int   `json:"limit"`
	Content   string `json:"content"`
}

func (e *Editor) serve(ctx context.Context, method string, params json.RawMessage) (any, *jsonrpc2.Error) {
	var advertised bool
	switch method {
	case fsruntime.MethodReadTextFile:
		advertised = e.opts.ReadTextFile
	case fsruntime.MethodWriteTextFile:
		advertised = e.opts.WriteTextFile
	case "session/request_permission":
		return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": allowOnce(params)}}, nil
	default:
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "Method not found"}
	}
	if !advertised {
		e.mu.Lock()
		e.unadvertised = append(e.unadvertised, method)
		e.mu.Unlock()
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "Method not found"}
	}
	var p fsParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: err.Error()}
	}
	if p.SessionID == "" {
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: "sessionId is required"}
	}
	buffers := e.opts.Buffers
	if e.opts.SessionBuffers != nil {
		if b := e.opts.SessionBuffers(p.SessionID); b != nil {
			buffers = b
		}
	}
	line, limit := 0, 0
	if p.Line != nil {
		line = *p.Line
	}
	if p.Limit != nil {
		limit = *p.Limit
	}
	if method == fsruntime.MethodReadTextFile {
		text, err := buffers.ReadTextFile(ctx, p.Path, line, limit)
		if err != nil {
			return nil, fsruntimetest.ZedError(p.Path, line, err)
		}
		return map[string]string{"content": text}, nil
	}
	if err := buffers.WriteTextFile(ctx, p.Path, p.Content); err != nil {
		return nil, fsruntimetest.ZedError(p.Path, line, err)
	}
	return nil, nil // Zed answers null
}

// allowOnce returns the id of the first option of kind allow_once that a
// session/request_permission offers, or else "allow-once".
func allowOnce(params json.RawMessage) string {
	var p struct {
		Options []struct {
			OptionID string `json:"optionId"`
			Kind     string `json:"kind"`
		} `json:"options"`
	}
	json.Unmarshal(params, &p)
	for _, o := range p.Options {
		if o.Kind == "allow_once" {
			return o.OptionID
		}
	}
	return "allow-once"
}

// tap passes reads through and calls line with every complete line read.
type tap struct {
	r       io.Reader
	line    func([]byte)
	partial []byte
}

func (t *tap) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	data := p[:n]
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			t.partial = append(t.partial, data...)
			break
		}
		if len(t.partial) > 0 {
			t.line(append(t.partial, data[:i]...))
			t.partial = t.partial[:0]
		} else {
			t.line(data[:i])
		}
		data = data[i+1:]
	}
	if err != nil && len(t.partial) > 0 {
		t.line(t.partial)
		t.partial = nil
	}
	return n, err
}

// rwc joins a reader and a writer and closes both.
type rwc struct {
	io.Reader
	io.Writer
	closers []io.Closer
}

func (c rwc) Close() error {
	var errs []error
	for _, cl := range c.closers {
		errs = append(errs, cl.Close())
	}
	return errors.Join(errs...)
}

// Text returns the text of an agent_message_chunk session/update, or "".
func Text(m Message) string {
	var p struct {
		Update struct {
			SessionUpdate string `json:"sessionUpdate"`
			Content       struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"update"`
	}
	if m.Method != "session/update" || json.Unmarshal(m.Params, &p) != nil || p.Update.SessionUpdate != "agent_message_chunk" {
		return ""
	}
	return p.Update.Content.Text
}

// SessionID returns the params.sessionId of a request or notification.
func SessionID(m Message) string {
	var p struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(m.Params, &p)
	return p.SessionID
}

// String describes m for a test failure.
func (m Message) String() string {
	if m.Malformed {
		return fmt.Sprintf("malformed %q", m.Raw)
	}
	return string(m.Raw)
}
