package mcptransport

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-acpfs/mcp-acpfs/internal/lift"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpserve"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
)

// ServeStream serves srv to one MCP client over rwc, newline-delimited
// JSON-RPC as on stdio, until the client closes its side or ctx ends. Each
// stream is an MCP session of its own, any number at once (mcp-go's stdio
// server keeps one global session). Requests are handled concurrently,
// notifications in order; a notification queued while handling a request
// is written before its response. A malformed line is logged and skipped
// (but a malformed escape in a text a tool gets makes an invalid argument).
// The server sends no requests of its own: client roots are not asked for.
func ServeStream(ctx context.Context, srv *server.MCPServer, rwc io.ReadWriteCloser, opts Options) error {
	stop := context.AfterFunc(ctx, func() { rwc.Close() }) // unblocks the reader
	defer stop()
	err := serveConn(ctx, srv, rwc, rwc, connOptions{Options: opts})
	rwc.Close()
	return err
}

// maxInFlight bounds the requests of one connection served at once. Past
// it the connection reads nothing more until one is answered, so a client
// cannot queue unbounded work (or memory) on the server.
const maxInFlight = 64

// connOptions configure [serveConn].
type connOptions struct {
	Options
	// roots lets the server send roots/list requests to the client.
	roots bool
	// drain bounds how long the end of the input waits for the requests
	// in flight to be answered before they are cancelled; zero waits as
	// long as they take.
	drain time.Duration
	// calls, if not nil, serves plain tool calls in place of a new
	// toolCalls when PlainCalls is set: a test looks into it.
	calls *toolCalls
}

// serveConn serves srv to one client, reading messages from in and writing
// them to out, until in ends (the requests read are answered first, see
// connOptions.drain), writing fails, or ctx ends. It returns the error that
// ended the input, other than io.EOF, or the first write error. When ctx
// ends, serveConn returns at once; a read blocked in in is left to end
// with in.
// See DESIGN.md, "Serving a connection (serveConn)".
func serveConn(ctx context.Context, srv *server.MCPServer, in io.Reader, out io.Writer, opts connOptions) error {
	logger := loggerOf(opts.Options)
	c := &conn{
		srv:        srv,
		log:        logger,
		w:          wire.NewWriter(out),
		rawOut:     out,
		out:        make(chan outLine),
		jobs:       make(chan *job),
		maxMessage: maxMessageOf(opts.Options),
		lifted:     opts.Lift,
		pending:    map[string]chan wire.Message{},
		running:    map[string]*job{},
	}
	if opts.PlainCalls {
		c.calls = opts.calls
		if c.calls == nil {
			c.calls = &toolCalls{}
		}
	}
	c.sess = newStreamSession()
	var sess server.ClientSession = c.sess
	if opts.roots {
		sess = &rootsSession{streamSession: c.sess, c: c}
	}
	if err := srv.RegisterSession(ctx, sess); err != nil {
		return err
	}
	defer srv.UnregisterSession(context.WithoutCancel(ctx), c.sess.id)
	outer := ctx
	ctx, cancel := context.WithCancel(srv.WithContext(ctx, sess))
	defer cancel()
	c.ctx, c.cancel = ctx, cancel

	writeErr := make(chan error, 1)
	go func() {
		err := c.write(ctx)
		cancel() // nothing more can be answered
		writeErr <- err
	}()
	readDone := make(chan error, 1)
	go func() { readDone <- c.readLoop(in) }()

	var readErr error
	select {
	case readErr = <-readDone:
	case <-ctx.Done():
	}
	c.stopDispatch()
	// The client has finished sending: what it asked for is answered (or,
	// after opts.drain, cancelled), and no answer to a request of ours can
	// come any more.
	c.failRequests(errors.New("the client's input ended"))
	if !c.drain(ctx, opts.drain) && outer.Err() == nil && ctx.Err() == nil {
		logger.Warn("the input ended; requests still in flight are cancelled", "timeout", opts.drain)
	}
	cancel()
	c.workers.Wait()
	if err := <-writeErr; err != nil && !errors.Is(err, context.Canceled) && readErr == nil {
		readErr = err
	}
	return readErr
}

// conn is one client connection.
type conn struct {
	srv    *server.MCPServer
	sess   *streamSession
	log    *slog.Logger
	ctx    context.Context
	cancel context.CancelFunc // ends ctx

	// wmu is held while a line is written to the client, by the writer
	// or by a worker that writes its response itself (sendResponse), and
	// guards w, rawOut, scratch and werr.
	wmu     sync.Mutex
	w       *wire.Writer
	rawOut  io.Writer    // what w writes to
	scratch []byte       // the buffer for a short batch
	werr    error        // the first write that failed, once one has
	out     chan outLine // lines for the writer, in order
	jobs    chan *job    // requests, to an idle worker
	// maxMessage bounds one message from the client.
	maxMessage int
	// lifted are the arguments lifted out of tool calls (Options.Lift);
	// nil lifts nothing.
	lifted lift.Arguments
	// calls serves plain tool calls past mcp-go (Options.PlainCalls); nil
	// leaves them to it.
	calls *toolCalls

	// Requests are served by workers, started as needed up to
	// maxInFlight and kept until the connection ends: a new goroutine per
	// request would grow its stack through mcp-go's deep call chain on
	// every call.
	workers  sync.WaitGroup
	nworkers int            // started; guarded by dispatchMu
	inFlight sync.WaitGroup // requests read and not yet answered

	// dispatchMu is held by the read loop while it dispatches a message;
	// stopped, once set, ends the loop.
	dispatchMu sync.Mutex
	stopped    bool

	mu      sync.Mutex
	nextID  int64
	pending map[string]chan wire.Message // our requests to the client, by id
	closed  error                        // set when no response can come
	running map[string]*job              // the client's requests in flight, by id
}

// job is a request of the client's, in flight. Its context is cancelled by
// the client's notifications/cancelled for it, and once it is answered.
type job struct {
	m      wire.Message
	key    string // canonicalID(m.ID)
	ctx    context.Context
	cancel context.CancelFunc
}

// outLine is a line to write, in pieces.
type outLine struct {
	pieces [][]byte
	// lifts, if not nil, spliced its texts into pieces, and gets their
	// buffers back once the line is written.
	lifts *lift.Table
}

// readLoop reads messages from in and dispatches them, on its own
// goroutine (a hand-off to another for each message would cost a
// goroutine switch), until in ends, a read fails, or stopDispatch is
// called. It returns the error that ended the input, nil at its end.
func (c *conn) readLoop(in io.Reader) error {
	// Lifting decodes the large strings of tool calls, and so checks their
	// escapes: the reader leaves them to it (see lifts), and the escapes of
	// any other message to the check below.
	r := wire.NewReader(in, wire.ReaderOptions{MaxLineSize: c.maxMessage, Logger: c.log, Label: "mcp client", DeferEscapes: c.lifted != nil})
	for {
		m, err := r.Next()
		if err == nil && c.lifted != nil && !c.lifts(m) {
			if cerr := m.CheckEscapes(); cerr != nil {
				c.skipMalformed(m, cerr)
				continue
			}
		}
		c.dispatchMu.Lock()
		if c.stopped {
			c.dispatchMu.Unlock()
			return nil
		}
		var over *wire.OverlongError
		switch {
		case err == nil:
			c.dispatch(m)
		case errors.As(err, &over):
			c.overlong(over)
		default:
			c.dispatchMu.Unlock()
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		c.dispatchMu.Unlock()
	}
}

// lifts reports whether handle lifts the large strings of m, a message
// read: then LiftArguments and the handlers' Unlift check the escapes the
// reader left unchecked, and the read loop checks those of the rest.
func (c *conn) lifts(m wire.Message) bool {
	return c.lifted != nil && m.Kind() == wire.KindRequest && m.Method == string(mcp.MethodToolsCall)
}

// skipMalformed drops m, which holds an escape that is not well formed,
// with the warning the reader gives any other malformed line it drops,
// and the id and method, which the transport knows and the reader did not.
func (c *conn) skipMalformed(m wire.Message, err error) {
	c.log.Warn("wire: skipping malformed JSON-RPC line", "peer", "mcp client", "reason", err.Error(),
		"len", len(m.Raw), "prefix", wire.Prefix(m.Raw), "id", string(m.ID), "method", m.Method)
}

// stopDispatch makes the read loop dispatch nothing more, once the one it
// may be dispatching is done: a dispatch waiting on a busy pool ends with
// the connection's context.
func (c *conn) stopDispatch() {
	c.dispatchMu.Lock()
	c.stopped = true
	c.dispatchMu.Unlock()
}

// dispatch handles one message from the client.
func (c *conn) dispatch(m wire.Message) {
	switch m.Kind() {
	case wire.KindRequest:
		c.inFlight.Add(1)
		j := c.track(m)
		select {
		case c.jobs <- j: // an idle worker took it
			return
		default:
		}
		if c.nworkers < maxInFlight {
			c.nworkers++
			c.workers.Go(func() { c.work(j) })
			return
		}
		select {
		case c.jobs <- j:
		case <-c.ctx.Done():
			c.untrack(j)
			c.inFlight.Done()
		}
	case wire.KindNotification:
		if m.Method == string(mcp.MethodNotificationCancelled) {
			c.cancelRequest(m.Params)
		}
		c.srv.HandleMessage(c.ctx, json.RawMessage(m.Raw))
	default:
		c.mu.Lock()
		reply, ok := c.pending[canonicalID(m.ID)]
		delete(c.pending, canonicalID(m.ID))
		c.mu.Unlock()
		if !ok {
			c.log.Debug("dropping an MCP response to no request", "id", string(m.ID))
			return
		}
		reply <- m
	}
}

// track registers a request read from the client as in flight, with a
// context of its own for notifications/cancelled to cancel. Registering
// it here, in the read loop, before the notifications that follow it are
// handled, means a cancellation never misses the request it names.
func (c *conn) track(m wire.Message) *job {
	j := &job{m: m, key: canonicalID(m.ID)}
	j.ctx, j.cancel = context.WithCancel(c.ctx)
	c.mu.Lock()
	c.running[j.key] = j // a client that reuses an id in flight can cancel only the last
	c.mu.Unlock()
	return j
}

// untrack ends a request's registration and releases its context.
func (c *conn) untrack(j *job) {
	c.mu.Lock()
	if c.running[j.key] == j {
		delete(c.running, j.key)
	}
	c.mu.Unlock()
	j.cancel()
}

// cancelRequest cancels the context of the request in flight that the
// params of a notifications/cancelled name, if there is one.
func (c *conn) cancelRequest(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || p.RequestID == nil {
		return
	}
	c.mu.Lock()
	j := c.running[canonicalID(p.RequestID)]
	c.mu.Unlock()
	if j != nil {
		j.cancel()
	}
}

// work serves first, then the requests it is given, until the connection
// ends.
func (c *conn) work(first *job) {
	c.handle(first)
	c.inFlight.Done()
	for {
		select {
		case j := <-c.jobs:
			c.handle(j)
			c.inFlight.Done()
		case <-c.ctx.Done():
			return
		}
	}
}

// handle serves one request and sends its response.
func (c *conn) handle(j *job) {
	defer c.untrack(j)
	m, raw, ctx := j.m, j.m.Raw, j.ctx
	notes := c.sess.notificationsSent()
	var lt *lift.Table
	if m.Method == string(mcp.MethodToolsCall) {
		if c.lifts(m) {
			lt = lift.NewTable(c.sess.liftPrefix)
			var err error
			if raw, err = lt.LiftArguments(raw, m.LongStrings, c.lifted); err != nil {
				c.skipMalformed(m, err) // as the reader would have
				return
			}
			ctx = lift.WithTable(ctx, lt)
		}
		if c.calls != nil {
			if line, ok := c.callTool(ctx, m.ID, raw); ok {
				c.sendResponse(m, lt, line, notes)
				return
			}
		}
	}
	resp := c.handleMessage(ctx, m, raw)
	if resp == nil {
		return
	}
	line, err := mcpserve.EncodeMessage(resp)
	if err != nil {
		c.log.Error("encode MCP response", "id", string(m.ID), "error", err)
		line = wire.ErrorResponse(m.ID, wire.CodeInternalError, "the response could not be encoded: "+err.Error(), nil)
		lt = nil
	}
	c.sendResponse(m, lt, line, notes)
}

// sendResponse sends the response line to request m, splicing in the
// texts its handler lifted into lt, if not nil; notes is the session's
// notificationsSent when the handling began. It writes the line itself,
// on the worker's goroutine, when nothing else is being written or waits
// and no notification was sent meanwhile (waking the writer cost a tenth
// of the throughput of one call in flight); otherwise the writer writes
// it, after the notifications queued before it.
func (c *conn) sendResponse(m wire.Message, lt *lift.Table, line []byte, notes uint64) {
	out := outLine{pieces: [][]byte{line}}
	var err error
	if lt != nil {
		out.pieces, err = lt.SpliceResults(line)
		out.lifts = lt
	}
	if err != nil {
		c.log.Error("encode MCP response", "id", string(m.ID), "error", err)
		out.pieces = [][]byte{wire.ErrorResponse(m.ID, wire.CodeInternalError, "the response could not be encoded: "+err.Error(), nil)}
	}
	if c.sess.notificationsSent() == notes && len(c.sess.notifications) == 0 && c.wmu.TryLock() {
		if c.werr == nil {
			bufs := append(make(net.Buffers, 0, len(out.pieces)+1), out.pieces...)
			if err := c.writeBuffers(append(bufs, newline)); err != nil {
				c.werr = err
				c.cancel() // the writer returns werr
			}
		}
		c.wmu.Unlock()
		if out.lifts != nil {
			out.lifts.Release()
		}
		return
	}
	c.send(out)
}

// send queues a line for the writer.
func (c *conn) send(out outLine) {
	select {
	case c.out <- out:
	case <-c.ctx.Done():
	}
}

// handleMessage runs srv.HandleMessage, answering a panic that escapes it
// with an internal error instead of ending the process, and gives the
// error of a resource request its code (fixRPCError).
func (c *conn) handleMessage(ctx context.Context, m wire.Message, raw []byte) (resp mcp.JSONRPCMessage) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("panic serving an MCP request", "method", m.Method, "panic", r)
			resp = mcp.JSONRPCError{
				JSONRPC: mcp.JSONRPC_VERSION,
				ID:      requestID(m.ID),
				Error:   mcp.NewJSONRPCErrorDetails(wire.CodeInternalError, fmt.Sprintf("internal error: %v", r), nil),
			}
		}
	}()
	if !mcpserve.FixedMethod(m.Method) {
		return c.srv.HandleMessage(ctx, json.RawMessage(raw))
	}
	ctx, slot := mcpserve.WithErrorSlot(ctx)
	resp = c.srv.HandleMessage(ctx, json.RawMessage(raw))
	if e, ok := resp.(mcp.JSONRPCError); ok {
		mcpserve.FixError(&e.Error, slot, m.Method, raw)
		resp = e
	}
	return resp
}

// overlong answers a message that was too long to read: a tools/call with
// a tool error that names the tool and the sizes, any other request with
// a JSON-RPC error.
func (c *conn) overlong(over *wire.OverlongError) {
	c.log.Warn("skipping an overlong MCP message", "error", over)
	switch {
	case over.Kind == wire.KindRequest && over.Tool != "":
		c.send(outLine{pieces: [][]byte{overlongToolAnswer(over)}})
	case over.Kind == wire.KindRequest:
		c.send(outLine{pieces: [][]byte{wire.ErrorResponse(over.ID, wire.CodeInvalidRequest, over.Error(), nil)}})
	case over.Kind == wire.KindResponse:
		c.mu.Lock()
		reply, ok := c.pending[canonicalID(over.ID)]
		delete(c.pending, canonicalID(over.ID))
		c.mu.Unlock()
		if ok {
			close(reply)
		}
	}
}

// drain waits until no request is in flight, ctx is done, or timeout
// (if not zero) has passed, and reports whether none is in flight.
func (c *conn) drain(ctx context.Context, timeout time.Duration) bool {
	done := make(chan struct{})
	go func() {
		c.inFlight.Wait()
		close(done)
	}()
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-done:
		return true
	case <-expired:
	case <-ctx.Done():
	}
	return false
}

// write writes responses, requests and notifications in order, until ctx
// ends or a write fails. Lines queued together are written together, in
// one system call: with several calls in flight a response seldom waits
// alone. Before lines from c.out it writes the notifications queued by
// then, so a notification the server queues while handling a request goes
// before that request's response.
func (c *conn) write(ctx context.Context) error {
	var batch []outLine
	var bufs net.Buffers
	var notes [][]byte
	for {
		select {
		case n := <-c.sess.notifications:
			if line := c.encodeNotification(n); line != nil {
				if err := c.writeLocked(func() error { return c.w.Write(line) }); err != nil {
					return err
				}
			}
			continue
		case out := <-c.out:
			batch = append(batch[:0], out)
		case <-ctx.Done():
			c.wmu.Lock()
			defer c.wmu.Unlock()
			if c.werr != nil {
				return c.werr
			}
			return ctx.Err()
		}
		// Short lines are gathered up; a long one ends the batch, so
		// that its lifted texts' buffers go back to their pool as soon as
		// it is written, for the next long result to reuse.
		size := lineSize(batch[0])
	collect:
		for len(batch) < maxBatch && size <= coalesceMax {
			select {
			case out := <-c.out:
				batch = append(batch, out)
				size += lineSize(out)
			default:
				break collect
			}
		}
		notes = notes[:0]
	drain:
		for {
			select {
			case n := <-c.sess.notifications:
				if line := c.encodeNotification(n); line != nil {
					notes = append(notes, line)
				}
			default:
				break drain
			}
		}
		bufs = bufs[:0]
		for _, line := range notes {
			bufs = append(bufs, line, newline)
		}
		for _, out := range batch {
			if len(out.pieces) == 1 && bytes.IndexByte(out.pieces[0], '\n') >= 0 {
				return wire.ErrNewline // the encoders never make one: a bug
			}
			bufs = append(bufs, out.pieces...)
			bufs = append(bufs, newline)
		}
		if err := c.writeLocked(func() error { return c.writeBuffers(bufs) }); err != nil {
			return err
		}
		for i, out := range batch {
			if out.lifts != nil {
				out.lifts.Release()
			}
			batch[i] = outLine{}
		}
		clear(bufs[:cap(bufs)])
	}
}

// lineSize is the length of out's line.
func lineSize(out outLine) int {
	n := 0
	for _, p := range out.pieces {
		n += len(p)
	}
	return n
}

// maxBatch bounds the lines write writes in one system call.
const maxBatch = 32

var newline = []byte{'\n'}

// encodeNotification encodes a notification from the server as one line,
// or logs why it cannot and returns nil.
func (c *conn) encodeNotification(n mcp.JSONRPCNotification) []byte {
	line, err := json.Marshal(n)
	if err != nil {
		c.log.Error("encode MCP notification", "method", n.Method, "error", err)
		return nil
	}
	return line
}

// writeLocked runs write, which writes to the client, holding wmu, and
// records its error. It fails without writing once a write has failed.
func (c *conn) writeLocked(write func() error) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.werr == nil {
		c.werr = write()
	}
	return c.werr
}

// writeBuffers writes bufs to the client, with wmu held: a short batch
// goes out in one write, a longer one (a spliced response's megabyte
// among them) as it is, in one writev, without a copy.
func (c *conn) writeBuffers(bufs net.Buffers) error {
	n := 0
	for _, b := range bufs {
		n += len(b)
	}
	if n <= coalesceMax {
		c.scratch = c.scratch[:0]
		for _, b := range bufs {
			c.scratch = append(c.scratch, b...)
		}
		bufs = net.Buffers{c.scratch}
	}
	if _, err := bufs.WriteTo(c.rawOut); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// coalesceMax is the size up to which writeBuffers copies a batch into one
// buffer rather than handing the kernel its pieces.
const coalesceMax = 64 << 10

// request sends a request to the client and waits for its response.
func (c *conn) request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	c.mu.Lock()
	if c.closed != nil {
		err := c.closed
		c.mu.Unlock()
		return nil, err
	}
	c.nextID++
	id := strconv.FormatInt(c.nextID, 10)
	reply := make(chan wire.Message, 1)
	c.pending[id] = reply
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}

	req := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  any             `json:"params,omitempty"`
	}{mcp.JSONRPC_VERSION, json.RawMessage(id), method, params}
	line, err := json.Marshal(req)
	if err != nil {
		forget()
		return nil, err
	}
	select {
	case c.out <- outLine{pieces: [][]byte{line}}:
	case <-ctx.Done():
		forget()
		return nil, ctx.Err()
	case <-c.ctx.Done():
		forget()
		return nil, errors.New("the connection to the client is closed")
	}
	select {
	case m, ok := <-reply:
		switch {
		case !ok:
			c.mu.Lock()
			err := c.closed
			c.mu.Unlock()
			if err == nil {
				err = fmt.Errorf("%s: the client's response was too long to read", method)
			}
			return nil, err
		case m.Error != nil:
			e, err := m.DecodeError()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", method, err)
			}
			return nil, fmt.Errorf("%s: the client answered with an error: %w", method, e)
		}
		return m.Result, nil
	case <-ctx.Done():
		forget()
		return nil, ctx.Err()
	}
}

// failRequests ends our requests in flight with err, and any later one.
func (c *conn) failRequests(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = err
	for id, reply := range c.pending {
		close(reply)
		delete(c.pending, id)
	}
}

// canonicalID returns the compact text of a JSON-RPC id, to match a
// response to a request.
func canonicalID(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// requestID converts a raw JSON-RPC id to mcp-go's.
func requestID(raw json.RawMessage) mcp.RequestId {
	var id mcp.RequestId
	if err := json.Unmarshal(raw, &id); err != nil {
		return mcp.NewRequestId(nil)
	}
	return id
}

// streamSession is the mcp-go session of one connection.
type streamSession struct {
	id            string
	liftPrefix    string // of the placeholders of lifted strings (package lift)
	notifications chan mcp.JSONRPCNotification
	// notificationCalls counts the calls of NotificationChannel.
	notificationCalls atomic.Uint64
	initialized       atomic.Bool
	logLevel          atomic.Value // mcp.LoggingLevel

	mu         sync.Mutex
	clientInfo mcp.Implementation
	clientCaps mcp.ClientCapabilities
}

var (
	_ server.SessionWithLogging    = (*streamSession)(nil)
	_ server.SessionWithClientInfo = (*streamSession)(nil)
)

func newStreamSession() *streamSession {
	var b [12]byte
	rand.Read(b[:])
	var nonce [16]byte
	rand.Read(nonce[:])
	return &streamSession{
		id:            "stream-" + hex.EncodeToString(b[:]),
		liftPrefix:    "mcp-acpfs-lifted-" + hex.EncodeToString(nonce[:]) + "-",
		notifications: make(chan mcp.JSONRPCNotification, 100),
	}
}

func (s *streamSession) SessionID() string { return s.id }

// NotificationChannel is where mcp-go, and this package, queue a
// notification: they ask for the channel each time they send one.
func (s *streamSession) NotificationChannel() chan<- mcp.JSONRPCNotification {
	s.notificationCalls.Add(1)
	return s.notifications
}

// notificationsSent counts the notifications queued so far, and maybe a
// few more: those whose channel was asked for and whose send failed.
func (s *streamSession) notificationsSent() uint64 { return s.notificationCalls.Load() }
func (s *streamSession) Initialize()               { s.initialized.Store(true) }
func (s *streamSession) Initialized() bool         { return s.initialized.Load() }
func (s *streamSession) SetLogLevel(l mcp.LoggingLevel) {
	s.logLevel.Store(l)
}
func (s *streamSession) GetLogLevel() mcp.LoggingLevel {
	if l, ok := s.logLevel.Load().(mcp.LoggingLevel); ok {
		return l
	}
	return mcp.LoggingLevelError
}
func (s *streamSession) GetClientInfo() mcp.Implementation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clientInfo
}
func (s *streamSession) SetClientInfo(i mcp.Implementation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clientInfo = i
}
func (s *streamSession) GetClientCapabilities() mcp.ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clientCaps
}
func (s *streamSession) SetClientCapabilities(c mcp.ClientCapabilities) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clientCaps = c
}

// rootsSession is a streamSession that can ask the client for its roots.
type rootsSession struct {
	*streamSession
	c *conn
}

var _ server.SessionWithRoots = (*rootsSession)(nil)

// ListRoots implements [server.SessionWithRoots].
func (s *rootsSession) ListRoots(ctx context.Context, _ mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	raw, err := s.c.request(ctx, string(mcp.MethodListRoots), nil)
	if err != nil {
		return nil, err
	}
	var res mcp.ListRootsResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("roots/list: the client's result: %w", err)
	}
	return &res, nil
}
