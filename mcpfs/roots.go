package mcpfs

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpserve"
)

// MCP roots only ever narrow a session: the FS a client's tool calls use is
// Files.Narrow of the client's file:// roots, the intersection with the
// session's own roots. A client's roots that cannot be had (an error, no
// answer within the roots timeout) leave the roots in force: the configured
// ones, or the client's earlier narrowing. How the server asks depends on
// the protocol era and the transport:
//
//   - Protocol 2025-11-25 and earlier: a server-to-client roots/list
//     request, for a client that declared the roots capability at
//     initialize, and again after each notifications/roots/list_changed.
//     Its answer holds for the session's tool calls until the next change.
//
//     On stdio and in process the request can be sent at any time: it is
//     sent on its own goroutine after
//     notifications/initialized and after each list_changed (never in the
//     notification handler: mcp-go's stdio transport handles client
//     notifications on its read loop, which then could not read the reply),
//     and a tool call waits, within the roots timeout, for a fetch in
//     flight.
//
//     Over Streamable HTTP, mcp-go v1.2.1 sends roots/list (and
//     sampling/createMessage) only on the standalone GET stream, which is
//     optional and which mcp-go's own client does not open by default;
//     unlike elicitation/create it never puts them on the POST response
//     stream of the request being handled. A request sent outside a tool
//     call would wait for a GET stream that may never come, and so would
//     the tool calls waiting for it. So [RequestScopedRoots], in front of
//     mcp-go's handler, gives each POST a response stream of its own that
//     the server can send a request on, and routes the client's reply back:
//     a session served through it is asked in its first tool call (and in
//     the first after each list_changed), on that call's own response
//     stream, as the Streamable HTTP transport recommends, and is never
//     asked in the background. Behind a bare mcp-go handler, an HTTP client
//     is asked in the background like the others, and one without a GET
//     stream holds its first tool call for the roots timeout.
//
//   - Protocol 2026-07-28 (stateless, where roots are deprecated): there is
//     no session to remember roots in and no server-to-client request. A
//     tool call of a client that declares the roots capability in its
//     request is answered with an input_required result asking for the
//     roots (a multi round-trip request, SEP-2322), and the client's retry,
//     which carries them, runs narrowed to them; that narrowing lasts for
//     that call only. This costs such a client a second round trip per tool
//     call, on every transport; a client that does not declare roots keeps
//     the configured roots and pays nothing.

// clientRoots is the roots state of one MCP client session that declared the
// roots capability. All fields are guarded by binding.mu.
type clientRoots struct {
	session server.ClientSession
	ctx     context.Context // ends with the session
	cancel  context.CancelFunc
	inCall  bool          // served by RequestScopedRoots: the roots are asked for in tool calls, never in the background
	due     bool          // the roots are unknown or stale, and no fetch for them has started
	ended   bool          // the session is gone
	gen     uint64        // bumped by every fetch started and every list_changed
	pending chan struct{} // closed when the newest fetch ends; nil when none is in flight
	cur     *lease        // the narrowed FS in force; nil means Files.FS
	fetches sync.WaitGroup
}

// lease is a narrowed FS and the tool calls using it, so that it is closed
// only after the last of them is done.
type lease struct {
	fs    fsruntime.FS
	users sync.WaitGroup
}

// retire closes l's FS, if it is an io.Closer, once no call uses it.
func (b *binding) retire(l *lease) {
	if l == nil || l.fs == nil {
		return
	}
	c, ok := l.fs.(io.Closer)
	if !ok {
		return
	}
	go func() {
		l.users.Wait()
		if err := c.Close(); err != nil {
			b.log.Warn("closing narrowed roots", "err", err)
		}
	}()
}

// watchRoots installs the hooks and notification handlers that keep each
// client's roots current.
func (b *binding) watchRoots(hooks *server.Hooks) {
	if b.sess.Narrow == nil {
		return
	}
	hooks.AddAfterInitialize(func(ctx context.Context, _ any, req *mcp.InitializeRequest, _ *mcp.InitializeResult) {
		session := server.ClientSessionFromContext(ctx)
		if session == nil {
			return
		}
		id := session.SessionID()
		b.mu.Lock()
		defer b.mu.Unlock()
		b.endLocked(id)
		if req.Params.Capabilities.Roots == nil {
			return
		}
		c := &clientRoots{session: session, due: true, inCall: mcpserve.CallStreamFrom(ctx) != nil}
		c.ctx, c.cancel = context.WithCancel(context.Background())
		b.clients[id] = c
	})
	hooks.AddOnUnregisterSession(func(_ context.Context, session server.ClientSession) {
		b.mu.Lock()
		c := b.endLocked(session.SessionID())
		b.mu.Unlock()
		if c == nil {
			return
		}
		// The fetches are cancelled; wait for them, so that none uses
		// Files.Narrow once the transport is done and the caller may close
		// the session's FS. A client's roots handler may ignore the
		// cancellation (in process), hence the bound.
		done := make(chan struct{})
		go func() { c.fetches.Wait(); close(done) }()
		t := time.NewTimer(b.timeout)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
			b.log.Warn("a roots fetch outlives its MCP session", "session", session.SessionID())
		}
	})
	b.srv.AddNotificationHandler(string(mcp.MethodNotificationInitialized), func(ctx context.Context, _ mcp.JSONRPCNotification) {
		b.refresh(ctx, true)
	})
	b.srv.AddNotificationHandler(mcp.MethodNotificationRootsListChanged, func(ctx context.Context, _ mcp.JSONRPCNotification) {
		b.refresh(ctx, false)
	})
}

// endLocked forgets the roots of session id, if any, cancels its fetches,
// and returns its state.
func (b *binding) endLocked(id string) *clientRoots {
	c := b.clients[id]
	if c == nil {
		return nil
	}
	delete(b.clients, id)
	c.ended = true
	c.cancel()
	b.retire(c.cur)
	c.cur = nil
	return c
}

// refresh handles notifications/initialized (initial set) and
// notifications/roots/list_changed of a client: the roots are due, and are
// fetched now in the background unless the client's tool calls fetch them.
// The in-process transport of mcp-go v1.2.1 sends notifications without the
// session in ctx; then every client that declared roots is refreshed.
func (b *binding) refresh(ctx context.Context, initial bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	one := func(c *clientRoots) {
		if !initial {
			c.due = true
			c.gen++ // a fetch in flight may have the old roots
		}
		if c.due && !c.inCall {
			b.startFetchLocked(c)
		}
	}
	if session := server.ClientSessionFromContext(ctx); session != nil {
		if c := b.clients[session.SessionID()]; c != nil {
			one(c)
		}
		return
	}
	for _, c := range b.clients {
		one(c)
	}
}

// beginFetchLocked marks a fetch for c in flight, so that tool calls
// arriving from now on wait for it, and returns its generation and the
// channel to close when it ends.
func (b *binding) beginFetchLocked(c *clientRoots) (uint64, chan struct{}) {
	c.due = false
	c.gen++
	done := make(chan struct{})
	c.pending = done
	c.fetches.Add(1)
	return c.gen, done
}

// settleLocked records the outcome of the fetch gen of c: fsys (nil for the
// configured FS) if ok, unless the session ended or a newer fetch or change
// supersedes it.
func (b *binding) settleLocked(c *clientRoots, gen uint64, done chan struct{}, fsys fsruntime.FS, ok bool) {
	if c.pending == done {
		c.pending = nil
	}
	if !ok || c.ended || gen != c.gen { // keep the roots in force; a newer fetch may replace them
		b.retire(&lease{fs: fsys})
		return
	}
	b.retire(c.cur)
	c.cur = nil
	if fsys != nil {
		c.cur = &lease{fs: fsys}
	}
}

// startFetchLocked runs a fetch of c's roots in the background.
func (b *binding) startFetchLocked(c *clientRoots) {
	gen, done := b.beginFetchLocked(c)
	go func() {
		defer c.fetches.Done()
		defer close(done)
		ctx, cancel := context.WithTimeout(b.srv.WithContext(c.ctx, c.session), b.timeout)
		res, err := b.srv.RequestRoots(ctx, listRootsRequest)
		cancel()
		fsys, ok := b.narrowed(c, res, err, false) // I/O: not under b.mu
		b.mu.Lock()
		defer b.mu.Unlock()
		b.settleLocked(c, gen, done, fsys, ok)
	}()
}

// fetchInCallLocked fetches c's roots in the tool call of ctx, within the
// roots timeout, and applies them. b.mu is held on entry and on return, but
// not during the fetch.
func (b *binding) fetchInCallLocked(ctx context.Context, c *clientRoots) {
	gen, done := b.beginFetchLocked(c)
	b.mu.Unlock()
	fctx, cancel := context.WithTimeout(ctx, b.timeout)
	stop := context.AfterFunc(c.ctx, cancel) // the session ended
	var res *mcp.ListRootsResult
	var err error
	if s := mcpserve.CallStreamFrom(ctx); s != nil {
		res, err = s.ListRoots(fctx, c.session.SessionID())
	} else {
		res, err = b.srv.RequestRoots(fctx, listRootsRequest)
	}
	stop()
	cancel()
	callEnded := err != nil && ctx.Err() != nil
	fsys, ok := b.narrowed(c, res, err, callEnded)
	b.mu.Lock()
	if callEnded && !c.ended && gen == c.gen {
		c.due = true // the call went away, not the roots: the next call asks again
	}
	b.settleLocked(c, gen, done, fsys, ok)
	close(done)
	c.fetches.Done()
}

var listRootsRequest = mcp.ListRootsRequest{Request: mcp.Request{Method: string(mcp.MethodListRoots)}}

// narrowed returns the session's FS narrowed to the roots res that c's
// client answered, or err: nil (the configured FS) when the client gave no
// file roots. ok is false when there is nothing to apply. callEnded says
// that err is the end of the tool call that asked.
func (b *binding) narrowed(c *clientRoots, res *mcp.ListRootsResult, err error, callEnded bool) (fsys fsruntime.FS, ok bool) {
	id := c.session.SessionID()
	switch {
	case c.ctx.Err() != nil:
		return nil, false // the session ended
	case callEnded:
		b.log.Debug("the tool call ended before the MCP client's roots came", "session", id, "err", err)
		return nil, false
	case err != nil:
		b.log.Warn("could not get the MCP client's roots; keeping the roots in force", "session", id, "err", err)
		return nil, false
	}
	return b.narrowTo(res, id, slog.LevelInfo)
}

// narrowTo returns the session's FS narrowed to the file roots of res, nil
// (the configured FS) when there are none, logging what it did at level
// (none at debug level, errors at error level). ok is false when the narrowing failed.
func (b *binding) narrowTo(res *mcp.ListRootsResult, session string, level slog.Level) (fsys fsruntime.FS, ok bool) {
	var dirs []string
	if res != nil {
		for _, r := range res.Roots {
			dir, ok := fileURIPath(r.URI)
			if !ok {
				b.log.Debug("ignoring an MCP client root that is not a local file URI", "uri", r.URI, "session", session)
				continue
			}
			dirs = append(dirs, dir)
		}
	}
	ctx := context.Background()
	if len(dirs) == 0 {
		// The usual case, not news: every session of a client without
		// roots would log it.
		b.log.Debug("the MCP client gave no file roots; using the configured roots", "session", session)
		return nil, true
	}
	fsys, err := b.sess.Narrow(dirs)
	if err != nil {
		b.log.Error("could not narrow to the MCP client's roots; keeping the roots in force", "client_roots", dirs, "session", session, "err", err)
		return nil, false
	}
	if r, ok := fsys.(interface{ Roots() []string }); ok {
		if kept := r.Roots(); len(kept) == 0 {
			warn := slog.LevelWarn
			if level < slog.LevelInfo {
				warn = level // logged for every call: the refusals say it too
			}
			b.log.Log(ctx, warn, "the MCP client's roots lie outside the configured roots; every path is refused",
				"client_roots", dirs, "session", session)
		} else {
			b.log.Log(ctx, level, "narrowed to the MCP client's roots", "roots", kept, "session", session)
		}
	}
	return fsys, true
}

// acquire returns the FS for a tool call of the client in ctx, and a func to
// call when the call is done with it. For a client whose roots are due it
// fetches them first, in the call; otherwise it waits for a fetch in flight
// (at most the roots timeout).
func (b *binding) acquire(ctx context.Context) (fsruntime.FS, func()) {
	if fsys, ok := ctx.Value(callFSKey{}).(fsruntime.FS); ok {
		return fsys, func() {} // a stateless client's roots, for this call only
	}
	session := server.ClientSessionFromContext(ctx)
	if session == nil || server.IsModernRequest(ctx) {
		// A stateless request stands alone: nothing learnt in a session
		// applies to it.
		return b.sess.FS, func() {}
	}
	id := session.SessionID()
	var deadline <-chan time.Time
	b.mu.Lock()
	for {
		c := b.clients[id]
		switch {
		case c == nil:
			return b.leaseLocked(nil)
		case c.pending != nil:
		case c.due:
			b.fetchInCallLocked(ctx, c)
			return b.leaseLocked(b.clients[id])
		default:
			return b.leaseLocked(c)
		}
		pending := c.pending
		b.mu.Unlock()
		if deadline == nil {
			t := time.NewTimer(b.timeout)
			defer t.Stop()
			deadline = t.C
		}
		select {
		case <-pending:
			b.mu.Lock()
			continue // a newer fetch may be in flight, or due
		case <-deadline:
			b.log.Warn("the MCP client's roots did not arrive in time; using the roots in force", "session", id, "timeout", b.timeout)
		case <-ctx.Done():
		}
		b.mu.Lock()
		return b.leaseLocked(b.clients[id])
	}
}

// leaseLocked returns the FS in force for c (nil for none) and its release
// func, and unlocks b.mu.
func (b *binding) leaseLocked(c *clientRoots) (fsruntime.FS, func()) {
	defer b.mu.Unlock()
	if c == nil || c.cur == nil {
		return b.sess.FS, func() {}
	}
	l := c.cur
	l.users.Add(1)
	return l.fs, l.users.Done
}

// rootsInput is the key of the roots in a stateless client's input
// responses.
const rootsInput = "roots"

// callFSKey is the context key of the FS narrowed to a stateless client's
// roots for one tool call.
type callFSKey struct{}

// statelessRoots is tool handler middleware that narrows each tool call of
// a stateless (2026-07-28) client that declares the roots capability to the
// roots its request carries, asking for them with an input_required result
// when it carries none.
func (b *binding) statelessRoots(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		info := server.RequestProtocolInfoFromContext(ctx)
		if b.sess.Narrow == nil || info == nil || !info.Modern || info.ClientCapabilities == nil || info.ClientCapabilities.Roots == nil {
			return next(ctx, req)
		}
		roots := server.RootsResponse(req.Params.InputResponses, rootsInput)
		if roots == nil {
			return server.NewInputRequestBuilder("").Roots(rootsInput).ToolResult(), nil
		}
		fsys, ok := b.narrowTo(roots, "", slog.LevelDebug)
		if !ok || fsys == nil {
			return next(ctx, req)
		}
		if c, ok := fsys.(io.Closer); ok {
			defer func() {
				if err := c.Close(); err != nil {
					b.log.Warn("closing narrowed roots", "err", err)
				}
			}()
		}
		return next(context.WithValue(ctx, callFSKey{}, fsys), req)
	}
}

// fileURIPath returns the local path of a file URI, as the tools read one
// ([fsruntime.Abs]): on Windows, file:///C:/w is C:\w.
func fileURIPath(uri string) (string, bool) {
	if len(uri) < 5 || !strings.EqualFold(uri[:5], "file:") {
		return "", false
	}
	p, err := fsruntime.Abs("", uri)
	return p, err == nil
}
