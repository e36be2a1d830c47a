package bridge

import (
	"context"
	"io"
	"net/url"
	"path/filepath"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-acpfs/mcp-acpfs/runtime"
)

// MCP roots, deprecated in protocol 2026-07-28 and requested with a
// server-to-client roots/list request in the eras before it, only ever narrow
// a session: the FS a client's tool calls use is Files.Narrow of the
// client's file:// roots, the intersection with the session's own roots.
//
// The fetch runs on its own goroutine, never in the notification handler:
// mcp-go's stdio transport handles client notifications on its read loop,
// which then could not read the reply.

// clientRoots is the roots state of one MCP client session that declared the
// roots capability. All fields are guarded by binding.mu.
type clientRoots struct {
	session server.ClientSession
	ctx     context.Context // ends with the session
	cancel  context.CancelFunc
	started bool          // the first fetch has been started
	ended   bool          // the session is gone
	gen     uint64        // the number of fetches started
	pending chan struct{} // closed when the newest fetch ends; nil when none is in flight
	cur     *lease        // the narrowed FS in force; nil means Files.FS
	fetches sync.WaitGroup
}

// lease is a narrowed FS and the tool calls using it, so that it is closed
// only after the last of them is done.
type lease struct {
	fs    runtime.FS
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
		c := &clientRoots{session: session}
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

// refresh starts a roots fetch for the client that sent a notification. The
// in-process transport of mcp-go v1.2.1 sends notifications without the
// session in ctx; then every client that declared roots is refreshed, or
// with initial set every one that has not been fetched yet.
func (b *binding) refresh(ctx context.Context, initial bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if session := server.ClientSessionFromContext(ctx); session != nil {
		if c := b.clients[session.SessionID()]; c != nil && !(initial && c.started) {
			b.startFetchLocked(c)
		}
		return
	}
	for _, c := range b.clients {
		if !(initial && c.started) {
			b.startFetchLocked(c)
		}
	}
}

// startFetchLocked marks a fetch in flight, so that tool calls arriving from
// now on wait for it, and runs it.
func (b *binding) startFetchLocked(c *clientRoots) {
	c.started = true
	c.gen++
	gen := c.gen
	done := make(chan struct{})
	c.pending = done
	c.fetches.Add(1)
	go func() {
		defer c.fetches.Done()
		defer close(done)
		fsys, ok := b.narrow(c) // I/O: not under b.mu
		b.mu.Lock()
		if c.pending == done {
			c.pending = nil
		}
		if !ok || c.ended || gen != c.gen { // keep the roots in force; a newer fetch may replace them
			b.mu.Unlock()
			b.retire(&lease{fs: fsys})
			return
		}
		old := c.cur
		c.cur = nil
		if fsys != nil {
			c.cur = &lease{fs: fsys}
		}
		b.mu.Unlock()
		b.retire(old)
	}()
}

// narrow asks the client for its roots and returns the session's FS narrowed
// to them: nil (the configured FS) when the client gave no file roots. ok is
// false when there is nothing to apply.
func (b *binding) narrow(c *clientRoots) (fsys runtime.FS, ok bool) {
	id := c.session.SessionID()
	ctx, cancel := context.WithTimeout(b.srv.WithContext(c.ctx, c.session), b.timeout)
	defer cancel()
	res, err := b.srv.RequestRoots(ctx, mcp.ListRootsRequest{
		Request: mcp.Request{Method: string(mcp.MethodListRoots)},
	})
	if err != nil {
		if c.ctx.Err() == nil {
			b.log.Warn("could not get the MCP client's roots; keeping the roots in force", "session", id, "err", err)
		}
		return nil, false
	}
	var dirs []string
	for _, r := range res.Roots {
		dir, ok := fileURIPath(r.URI)
		if !ok {
			b.log.Debug("ignoring an MCP client root that is not a local file URI", "uri", r.URI, "session", id)
			continue
		}
		dirs = append(dirs, dir)
	}
	if len(dirs) == 0 {
		b.log.Info("the MCP client gave no file roots; using the configured roots", "session", id)
		return nil, true
	}
	if c.ctx.Err() != nil {
		return nil, false // the session ended
	}
	fsys, err = b.sess.Narrow(dirs)
	if err != nil {
		b.log.Error("could not narrow to the MCP client's roots; keeping the roots in force", "client_roots", dirs, "session", id, "err", err)
		return nil, false
	}
	if r, ok := fsys.(interface{ Roots() []string }); ok {
		if kept := r.Roots(); len(kept) == 0 {
			b.log.Warn("the MCP client's roots lie outside the configured roots; every path is refused",
				"client_roots", dirs, "session", id)
		} else {
			b.log.Info("narrowed to the MCP client's roots", "roots", kept, "session", id)
		}
	}
	return fsys, true
}

// acquire returns the FS for a tool call of the client in ctx, after any
// roots fetch in flight for it (waiting at most the roots timeout), and a
// func to call when the call is done with it.
func (b *binding) acquire(ctx context.Context) (runtime.FS, func()) {
	session := server.ClientSessionFromContext(ctx)
	if session == nil {
		return b.sess.FS, func() {}
	}
	id := session.SessionID()
	var deadline <-chan time.Time
	b.mu.Lock()
	for {
		c := b.clients[id]
		if c == nil || c.pending == nil {
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
			continue // a newer fetch may be in flight
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
func (b *binding) leaseLocked(c *clientRoots) (runtime.FS, func()) {
	defer b.mu.Unlock()
	if c == nil || c.cur == nil {
		return b.sess.FS, func() {}
	}
	l := c.cur
	l.users.Add(1)
	return l.fs, l.users.Done
}

// fileURIPath returns the local path of a file:// URI.
func fileURIPath(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Host != "" && u.Host != "localhost" {
		return "", false
	}
	p := filepath.FromSlash(u.Path)
	if !filepath.IsAbs(p) {
		return "", false
	}
	return filepath.Clean(p), true
}
