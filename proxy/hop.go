package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
)

// A hop is the proxy's connection to one peer, the editor or the agent. It
// numbers the requests the proxy sends that peer with ids of its own, so
// the ids of the two hops never mix, and remembers each until its response
// arrives; messages to the peer go through an ordered queue that never
// blocks the sender. A hop is also a [fsruntime.Caller]: the proxy's own
// fs/* requests to the editor share its numbering with the requests it
// forwards, so the two never collide.
type hop struct {
	name string // "editor" or "agent", for logs and errors
	out  *outbox

	mu       sync.Mutex
	nextID   int64
	pending  map[int64]*pendingRequest // sent to the peer, by our id
	byOrigin map[string]int64          // forwarded requests: origin id → our id
	closed   error                     // why the hop ended; nil while open
	done     chan struct{}             // closed with closed
}

// pendingRequest is a request sent to a hop's peer and not yet answered.
type pendingRequest struct {
	method string
	// origin is the request's id on the other hop, for a forwarded
	// request; nil for the proxy's own.
	origin json.RawMessage
	// reply receives the outcome of one of the proxy's own requests.
	reply chan reply
	// session is the bridge session of a session/new-like request.
	session *bridge.Session
	// closes is the session id of a session/close request.
	closes string
	// sessionID is the session of a load, resume, set_mode or
	// set_config_option request, and mode the mode set_mode asks for.
	sessionID, mode string
	// prompt is the session id of a session/prompt request.
	prompt string
}

// reply is the outcome of one of the proxy's own requests: the peer's
// response, or why there will be none.
type reply struct {
	m   wire.Message
	err error
}

var _ fsruntime.Caller = (*hop)(nil)

func newHop(name string, w io.Writer, t *tracer) *hop {
	return &hop{
		name:     name,
		out:      newOutbox(name, w, t),
		pending:  make(map[int64]*pendingRequest),
		byOrigin: make(map[string]int64),
		done:     make(chan struct{}),
	}
}

// register numbers a request to the peer and remembers it. It fails once
// the hop is closed.
func (h *hop) register(p *pendingRequest) (int64, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed != nil {
		return 0, h.closed
	}
	id := h.nextID
	h.nextID++
	h.pending[id] = p
	if p.origin != nil {
		h.byOrigin[string(p.origin)] = id
	}
	return id, nil
}

// take removes and returns the request a response answers, if any.
func (h *hop) take(id json.RawMessage) (int64, *pendingRequest) {
	n, err := strconv.ParseInt(string(id), 10, 64)
	if err != nil {
		return 0, nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	p := h.pending[n]
	if p != nil {
		delete(h.pending, n)
		if p.origin != nil {
			delete(h.byOrigin, string(p.origin))
		}
	}
	return n, p
}

// ourID returns the id under which a request forwarded to this hop's peer
// travels, given its id on the other hop.
func (h *hop) ourID(origin json.RawMessage) (int64, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	id, ok := h.byOrigin[string(origin)]
	return id, ok
}

// close marks the hop ended with cause and returns the requests that were
// still waiting for the peer. The proxy's own callers are woken with cause.
func (h *hop) close(cause error) []*pendingRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed != nil {
		return nil
	}
	h.closed = cause
	close(h.done)
	var left []*pendingRequest
	for id, p := range h.pending {
		if p.reply == nil {
			left = append(left, p)
		}
		delete(h.pending, id)
	}
	clear(h.byOrigin)
	return left
}

// send queues a line for the peer.
func (h *hop) send(line []byte) { h.out.send(line) }

// Call sends one of the proxy's own requests to the peer and waits for the
// answer. A peer error is returned as a *jsonrpc2.Error. When ctx ends
// first, the peer is told with $/cancel_request and Call returns ctx's
// error; a late answer is dropped (and logged). Call never blocks on the
// peer: the request is queued, so a peer that has stopped reading holds up
// no more than ctx allows.
func (h *hop) Call(ctx context.Context, method string, params, result any, _ ...jsonrpc2.CallOption) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	replies := make(chan reply, 1)
	id, err := h.register(&pendingRequest{method: method, reply: replies})
	if err != nil {
		return err
	}
	line, err := json.Marshal(request{JSONRPC: "2.0", ID: id, Method: method, Params: params})
	if err != nil {
		h.take(json.RawMessage(strconv.FormatInt(id, 10)))
		return fmt.Errorf("encode %s params: %w", method, err)
	}
	h.send(line)
	select {
	case r := <-replies:
		m := r.m
		if r.err != nil {
			return r.err
		}
		if m.Error != nil {
			e, err := m.DecodeError()
			if err != nil {
				return fmt.Errorf("%s: the %s answered with a malformed error: %w", method, h.name, err)
			}
			rpc := &jsonrpc2.Error{Code: e.Code, Message: e.Message}
			if len(e.Data) > 0 {
				data := json.RawMessage(e.Data)
				rpc.Data = &data
			}
			return rpc
		}
		if result == nil || len(m.Result) == 0 {
			return nil
		}
		if err := json.Unmarshal(m.Result, result); err != nil {
			return fmt.Errorf("%s: the %s's result does not decode: %w", method, h.name, err)
		}
		return nil
	case <-ctx.Done():
		if _, p := h.take(json.RawMessage(strconv.FormatInt(id, 10))); p != nil {
			h.notify(methodCancelRequest, cancelParams{RequestID: id})
		}
		return ctx.Err()
	case <-h.done:
		return h.closed
	}
}

// notify sends one of the proxy's own notifications.
func (h *hop) notify(method string, params any) {
	line, err := json.Marshal(request{JSONRPC: "2.0", Method: method, Params: params})
	if err == nil {
		h.send(line)
	}
}

// request is an outgoing JSON-RPC request or (with ID nil) notification.
type request struct {
	JSONRPC string `json:"jsonrpc"`
	ID      any    `json:"id,omitempty"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

const methodCancelRequest = "$/cancel_request"

type cancelParams struct {
	RequestID any `json:"requestId"`
}

// errPeerClosed says a hop's peer went away.
func errPeerClosed(name string, cause error) error {
	if cause == nil || errors.Is(cause, io.EOF) {
		return fmt.Errorf("the %s closed the connection", name)
	}
	return fmt.Errorf("the %s connection failed: %w", name, cause)
}

// An outbox writes lines to a peer in the order they were sent, from one
// goroutine, so that a slow peer never blocks the proxy's readers (which
// could otherwise deadlock two peers that both write before they read).
// Lines queued while a write is under way go out together in one buffered
// write.
type outbox struct {
	name  string
	w     *bufio.Writer
	trace *tracer

	mu      sync.Mutex
	ready   *sync.Cond
	queue   [][]byte
	closing bool  // no more lines; drain and stop
	err     error // a write failed; later lines are dropped
}

func newOutbox(name string, w io.Writer, t *tracer) *outbox {
	o := &outbox{name: name, w: bufio.NewWriterSize(w, 64<<10), trace: t}
	o.ready = sync.NewCond(&o.mu)
	return o
}

// send queues line, which must be one compact JSON message. It never
// blocks on the peer.
func (o *outbox) send(line []byte) {
	o.mu.Lock()
	if !o.closing && o.err == nil {
		o.queue = append(o.queue, line)
		o.ready.Signal()
	}
	o.mu.Unlock()
}

// run writes queued lines until close is called and the queue is empty, or
// a write fails.
func (o *outbox) run() error {
	var batch [][]byte
	for {
		o.mu.Lock()
		for len(o.queue) == 0 && !o.closing && o.err == nil {
			o.ready.Wait()
		}
		if o.err != nil {
			err := o.err
			o.mu.Unlock()
			return err
		}
		if len(o.queue) == 0 {
			o.mu.Unlock()
			return nil // closing, and all is written
		}
		batch, o.queue = o.queue, batch[:0]
		o.mu.Unlock()
		if err := o.write(batch); err != nil {
			o.mu.Lock()
			o.err, o.queue = err, nil
			o.mu.Unlock()
			return err
		}
		clear(batch)
	}
}

func (o *outbox) write(batch [][]byte) error {
	for _, line := range batch {
		if bytes.IndexByte(line, '\n') >= 0 {
			continue // cannot happen: lines are compact JSON
		}
		o.trace.record("to-"+o.name, line)
		o.w.Write(line)
		o.w.WriteByte('\n')
	}
	return o.w.Flush()
}

// close makes run return once the queue is written.
func (o *outbox) close() {
	o.mu.Lock()
	o.closing = true
	o.ready.Signal()
	o.mu.Unlock()
}
