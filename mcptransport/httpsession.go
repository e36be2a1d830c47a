package mcptransport

import (
	"bytes"
	"container/list"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpserve"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
)

// Sessions of Streamable HTTP that end.
//
// mcp-go v1.2.1's default session id manager only checks an id's format,
// so a session ended with DELETE, or an id never issued, is served as if
// it were live; its stateful manager remembers every ended id forever.
// Here an endpoint keeps the set of its live sessions, at most
// maxLiveSessions of them (the least recently used one ends when another
// begins past that), and anything not live is unknown: 404, as the
// 2025-11-25 transport asks for an ended session, with no memory of the
// ended ones needed. A request of that era other than initialize without
// a session id gets 400. Requests of the stateless 2026-07-28 era have no
// session and pass as they are. A JSON array body (a JSON-RPC batch, which
// no MCP revision since 2025-06-18 accepts) gets -32600 in both eras.

// maxLiveSessions bounds the live sessions of one HTTP endpoint.
const maxLiveSessions = 1024

// NewStreamableHTTP returns mcp-go's Streamable HTTP server of srv at
// [EndpointPath], and the handler to serve it with: wrap, given the
// server, is put between the session checks and the server.
func NewStreamableHTTP(srv *server.MCPServer, logger *slog.Logger, wrap func(http.Handler) http.Handler) (*server.StreamableHTTPServer, http.Handler) {
	return newBoundedHTTP(srv, logger, wrap, maxLiveSessions)
}

// newBoundedHTTP is newStreamableHTTP with at most max live sessions.
func newBoundedHTTP(srv *server.MCPServer, logger *slog.Logger, wrap func(http.Handler) http.Handler, max int) (*server.StreamableHTTPServer, http.Handler) {
	live := newLiveSessions(max)
	hs := server.NewStreamableHTTPServer(srv,
		server.WithEndpointPath(EndpointPath),
		server.WithStreamableHTTPLogger(logger),
		server.WithSessionIdManager(live),
	)
	var next http.Handler = hs
	if wrap != nil {
		next = wrap(hs)
	}
	return hs, &sessionGate{next: next, live: live}
}

// liveSessions is an mcp-go SessionIdManager that knows the live
// sessions, in the order of their last use.
type liveSessions struct {
	max int

	mu      sync.Mutex
	ids     map[string]*list.Element // guarded by mu
	order   list.List                // of ids, the most recently used first; guarded by mu
	evicted []string                 // ended by the bound, still to be cleaned up; guarded by mu
}

func newLiveSessions(max int) *liveSessions {
	return &liveSessions{max: max, ids: map[string]*list.Element{}}
}

// Generate begins a session: a random id of 128 bits.
func (l *liveSessions) Generate() string {
	id := rand.Text()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ids[id] = l.order.PushFront(id)
	for l.order.Len() > l.max {
		old := l.order.Remove(l.order.Back()).(string)
		delete(l.ids, old)
		l.evicted = append(l.evicted, old)
	}
	return id
}

// Validate fails for an id that is not live.
func (l *liveSessions) Validate(id string) (isTerminated bool, err error) {
	if !l.use(id) {
		return false, errUnknownSession
	}
	return false, nil
}

// Terminate ends a session.
func (l *liveSessions) Terminate(id string) (isNotAllowed bool, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.ids[id]; ok {
		l.order.Remove(e)
		delete(l.ids, id)
	}
	return false, nil
}

// use reports whether id is live, and if so marks it used now.
func (l *liveSessions) use(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.ids[id]
	if ok {
		l.order.MoveToFront(e)
	}
	return ok
}

// takeEvicted returns the sessions ended by the bound since the last call.
func (l *liveSessions) takeEvicted() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	ids := l.evicted
	l.evicted = nil
	return ids
}

// errUnknownSession is the error of a session id that is not live.
var errUnknownSession = sessionError("session not found: it has ended or was never begun; send initialize to begin a new one")

type sessionError string

func (e sessionError) Error() string { return string(e) }

// sessionGate checks the session of each request before next serves it,
// or before it answers a tools/call too long to read (an *overlongCall
// from limitBody) with a tool error.
type sessionGate struct {
	next http.Handler
	live *liveSessions
}

func (g *sessionGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer g.cleanUp()
	modern := mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion))
	initialize := false
	var call *overlongCall // answered once the session is checked
	switch r.Method {
	case http.MethodPost:
		body, err := io.ReadAll(r.Body)
		if c, ok := errors.AsType[*overlongCall](err); ok {
			call = c
			break
		}
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
		if err != nil {
			g.next.ServeHTTP(w, r) // mcp-go answers the failed read
			return
		}
		trimmed := bytes.TrimLeft(body, " \t\r\n")
		if len(trimmed) > 0 && trimmed[0] == '[' {
			writeRPCError(w, http.StatusBadRequest, wire.CodeInvalidRequest, batchesRefused(modern))
			return
		}
		var env struct {
			Method mcp.MCPMethod `json:"method"`
			Params struct {
				Meta *mcp.Meta `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &env) == nil {
			modern = modern || mcp.IsModernProtocol(env.Params.Meta.ProtocolVersion())
			initialize = env.Method == mcp.MethodInitialize
			if mcpserve.FixedMethod(string(env.Method)) {
				ctx, slot := mcpserve.WithErrorSlot(r.Context())
				r = r.WithContext(ctx)
				w = &fixingWriter{ResponseWriter: w, slot: slot, method: string(env.Method), raw: body, modern: modern}
			}
		}
	case http.MethodGet, http.MethodDelete:
	default:
		g.next.ServeHTTP(w, r)
		return
	}
	if !modern && !initialize {
		id := r.Header.Get(server.HeaderKeySessionID)
		switch {
		case id == "":
			writeRPCError(w, http.StatusBadRequest, wire.CodeInvalidRequest,
				"the "+server.HeaderKeySessionID+" header is missing: every request but initialize carries the session id that initialize returned")
			return
		case !g.live.use(id):
			writeRPCError(w, http.StatusNotFound, wire.CodeInvalidRequest, errUnknownSession.Error())
			return
		}
	}
	if call != nil {
		call.answer(w)
		return
	}
	g.next.ServeHTTP(w, r)
}

// batchesRefused is the message that refuses a JSON-RPC batch.
func batchesRefused(modern bool) string {
	if modern {
		return "batches are not supported in MCP 2026-07-28: send one JSON-RPC message per request"
	}
	return "batches are not supported since MCP 2025-06-18: send one JSON-RPC message per request"
}

// cleanUp drops what mcp-go keeps of the sessions the bound ended, as a
// DELETE of each would.
func (g *sessionGate) cleanUp() {
	for _, id := range g.live.takeEvicted() {
		r, err := http.NewRequestWithContext(context.Background(), http.MethodDelete, EndpointPath, nil)
		if err != nil {
			continue // cannot happen: a constant method and path
		}
		r.Header.Set(server.HeaderKeySessionID, id)
		g.next.ServeHTTP(discardResponse{}, r)
	}
}

// writeRPCError answers with status and a JSON-RPC error without an id.
func writeRPCError(w http.ResponseWriter, status int, code int64, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(wire.ErrorResponse(nil, code, msg, nil))
}

// discardResponse is a ResponseWriter that keeps nothing.
type discardResponse struct{}

func (discardResponse) Header() http.Header         { return http.Header{} }
func (discardResponse) Write(b []byte) (int, error) { return len(b), nil }
func (discardResponse) WriteHeader(int)             {}

// fixingWriter gives the JSON-RPC error that mcp-go writes in answer to a
// resource request its code and data (fixRPCError), and in the 2026-07-28
// era the HTTP status that goes with the code. mcp-go writes the answer
// as one JSON value, or as one event ("data: " and the value) of a stream.
type fixingWriter struct {
	http.ResponseWriter
	slot   *mcpserve.ErrorSlot
	method string
	raw    []byte // the request
	modern bool
}

func (w *fixingWriter) WriteHeader(code int) {
	if fixed, ok := w.slot.Code(); ok && w.modern && code == http.StatusOK &&
		!isEventStream(w.Header()) && fixed != mcp.INTERNAL_ERROR {
		code = http.StatusBadRequest // as mcp-go maps -32600 and -32602
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *fixingWriter) Write(p []byte) (int, error) {
	n := len(p)
	if i := bytes.Index(p, []byte("data: ")); i >= 0 && isEventStream(w.Header()) {
		end := bytes.IndexByte(p[i:], '\n')
		if end < 0 {
			end = len(p) - i
		}
		data := w.fix(p[i+len("data: ") : i+end])
		p = slices.Concat(p[:i+len("data: ")], data, p[i+end:])
	} else if !isEventStream(w.Header()) {
		p = w.fix(p)
	}
	if _, err := w.ResponseWriter.Write(p); err != nil {
		return 0, err
	}
	return n, nil
}

// fix returns msg, a JSON-RPC message, fixed if it is an error response.
func (w *fixingWriter) fix(msg []byte) []byte {
	var m struct {
		JSONRPC string                   `json:"jsonrpc"`
		ID      json.RawMessage          `json:"id"`
		Error   *mcp.JSONRPCErrorDetails `json:"error"`
	}
	if !bytes.Contains(msg, []byte(`"error"`)) || json.Unmarshal(msg, &m) != nil || m.Error == nil {
		return msg
	}
	if !mcpserve.FixError(m.Error, w.slot, w.method, w.raw) {
		return msg
	}
	b, err := json.Marshal(m)
	if err != nil {
		return msg
	}
	if bytes.HasSuffix(msg, []byte("\n")) {
		b = append(b, '\n')
	}
	return b
}

func (w *fixingWriter) Flush() { http.NewResponseController(w.ResponseWriter).Flush() }

// Unwrap lets http.ResponseController reach the connection.
func (w *fixingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
