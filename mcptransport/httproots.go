package mcptransport

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpserve"
)

// RequestScopedRoots wraps next, mcp-go's Streamable HTTP handler for a
// server that asks for roots, so that the server can ask a client for its
// roots on the response stream of the client's own tool call (mcp-go
// v1.2.1 sends roots/list only on the standalone GET stream, which many
// clients never open). A POST that carries the client's reply to such a
// request is answered here with 202 Accepted and never reaches next;
// everything else passes through unchanged. See DESIGN.md, "MCP roots".
func RequestScopedRoots(next http.Handler) http.Handler {
	return &scopedRoots{next: next, waiting: map[string]rootsWait{}, sessions: map[string]int{}}
}

type scopedRoots struct {
	next http.Handler

	mu       sync.Mutex
	waiting  map[string]rootsWait // by the JSON-RPC id of a roots/list request in flight
	sessions map[string]int       // the number of requests in flight, by MCP session id
}

// rootsWait is a roots/list request in flight.
type rootsWait struct {
	session string
	reply   chan<- []byte // gets the client's JSON-RPC response
}

func (h *scopedRoots) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		h.next.ServeHTTP(w, r)
		return
	}
	if session := r.Header.Get(server.HeaderKeySessionID); session != "" && h.expects(session) {
		body, err := io.ReadAll(r.Body)
		if reply := h.take(session, body, err); reply != nil {
			// Accepted before the waiting call goes on: the client may stop
			// listening for this answer once that call's response is in.
			w.WriteHeader(http.StatusAccepted)
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
			reply <- body // buffered, and sent at most once
			return
		}
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
	}
	f, ok := w.(http.Flusher)
	if !ok {
		h.next.ServeHTTP(w, r)
		return
	}
	s := &postStream{roots: h, w: w, f: f, hdr: http.Header{}}
	defer s.close()
	h.next.ServeHTTP(s, r.WithContext(mcpserve.WithCallStream(r.Context(), s)))
}

// errReader returns err, or io.EOF if it is nil.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) {
	if r.err == nil {
		return 0, io.EOF
	}
	return 0, r.err
}

func (h *scopedRoots) expects(session string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessions[session] > 0
}

// take returns the reply channel of the roots/list request of session that
// body, read with readErr, answers, and forgets the request; nil if body
// answers none.
func (h *scopedRoots) take(session string, body []byte, readErr error) chan<- []byte {
	if readErr != nil {
		return nil
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	var id string
	if json.Unmarshal(body, &m) != nil || m.Method != "" || json.Unmarshal(m.ID, &id) != nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	wait, ok := h.waiting[id]
	if !ok || wait.session != session {
		return nil
	}
	h.forgetLocked(id)
	return wait.reply
}

func (h *scopedRoots) forgetLocked(id string) {
	wait, ok := h.waiting[id]
	if !ok {
		return
	}
	delete(h.waiting, id)
	if h.sessions[wait.session]--; h.sessions[wait.session] <= 0 {
		delete(h.sessions, wait.session)
	}
}

// postStream is the response writer of a POST that the server may send a
// roots/list request on. Until it does, it passes everything through.
//
// The handler's header map is its own (hdr), copied out when the status is
// written: mcp-go may set headers on one goroutine while a tool call sends
// a request on another.
type postStream struct {
	roots *scopedRoots
	w     http.ResponseWriter
	f     http.Flusher
	hdr   http.Header

	mu       sync.Mutex
	started  bool   // the status went out
	events   bool   // the response is an event stream
	ours     bool   // this stream started it, for a request of its own
	nextSSE  bool   // with ours: the handler writes events too, not JSON
	partial  []byte // with ours and not nextSSE: the handler's JSON after its last newline
	finished bool   // the handler returned
}

func (s *postStream) Header() http.Header { return s.hdr }

// Unwrap lets http.ResponseController reach the connection.
func (s *postStream) Unwrap() http.ResponseWriter { return s.w }

func (s *postStream) WriteHeader(code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writeHeaderLocked(code)
}

func (s *postStream) writeHeaderLocked(code int) {
	if s.ours {
		// The stream is under way; the handler's own choice of status and
		// type only says how to carry its body.
		s.nextSSE = isEventStream(s.hdr)
		return
	}
	if !s.started {
		maps.Copy(s.w.Header(), s.hdr)
		s.started = true
		s.events = code == http.StatusOK && isEventStream(s.hdr)
	}
	s.w.WriteHeader(code)
}

func (s *postStream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started {
		s.writeHeaderLocked(http.StatusOK)
	}
	if !s.ours || s.nextSSE {
		return s.w.Write(p)
	}
	// The handler's JSON response, on the event stream started for a
	// request of ours: an event per line (json.Encoder ends each value with
	// one).
	s.partial = append(s.partial, p...)
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			break
		}
		if err := s.eventLocked(s.partial[:i]); err != nil {
			return 0, err
		}
		s.partial = s.partial[i+1:]
	}
	return len(p), nil
}

func (s *postStream) Flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started {
		s.writeHeaderLocked(http.StatusOK)
	}
	s.f.Flush()
}

// close ends the handler's part: what is left of its JSON goes out.
func (s *postStream) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.finished = true
	if len(bytes.TrimSpace(s.partial)) > 0 {
		s.eventLocked(s.partial)
		s.partial = nil
		s.f.Flush()
	}
}

func (s *postStream) eventLocked(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil
	}
	_, err := fmt.Fprintf(s.w, "event: message\ndata: %s\n\n", data)
	return err
}

// send writes msg, a JSON-RPC message, as an event, starting the event
// stream if the response has not started.
func (s *postStream) send(msg []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.finished:
		return errors.New("the POST response is complete")
	case !s.started:
		h := s.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		s.w.WriteHeader(http.StatusOK)
		s.started, s.events, s.ours = true, true, true
	case !s.events:
		return errors.New("the POST response is not an event stream")
	}
	if err := s.eventLocked(msg); err != nil {
		return err
	}
	s.f.Flush()
	return nil
}

// ListRoots sends a roots/list request to the client of session on s and
// waits for the answer.
func (s *postStream) ListRoots(ctx context.Context, session string) (*mcp.ListRootsResult, error) {
	id := "mcp-acpfs-roots-" + rand.Text()
	reply := make(chan []byte, 1)
	h := s.roots
	h.mu.Lock()
	h.waiting[id] = rootsWait{session: session, reply: reply}
	h.sessions[session]++
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.forgetLocked(id)
		h.mu.Unlock()
	}()
	msg, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      string `json:"id"`
		Method  string `json:"method"`
	}{mcp.JSONRPC_VERSION, id, string(mcp.MethodListRoots)})
	if err != nil {
		return nil, err
	}
	if err := s.send(msg); err != nil {
		return nil, err
	}
	var body []byte
	select {
	case body = <-reply:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, fmt.Errorf("the answer to roots/list is not JSON-RPC: %w", err)
	}
	if resp.Error != nil {
		return nil, fmt.Errorf("the client answered roots/list with error %d: %s", resp.Error.Code, resp.Error.Message)
	}
	var res mcp.ListRootsResult
	if err := json.Unmarshal(resp.Result, &res); err != nil {
		return nil, fmt.Errorf("the result of roots/list: %w", err)
	}
	return &res, nil
}

func isEventStream(h http.Header) bool {
	t, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	return err == nil && t == "text/event-stream"
}
