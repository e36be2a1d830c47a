package mcpfs

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-acpfs/mcp-acpfs/capabilities"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fspath"
)

// The read guard (docs/tools.md, "Guards"; DESIGN.md, "The read guard").
//
// Every MCP session keeps a ledger: the sha256 of each file's text as the
// session last read or wrote it, by absolute path. write_text_file and
// edit_text_file refuse, unless ToolOptions.NoReadGuard, a file that
// exists and has no entry (never read), and a file whose text now, as the
// call's route reads it, is not the one in the entry (changed since). An
// expectedHash given to the call is checked instead of the ledger. The
// calls without a session (stateless requests, an in-process caller
// without one) share one ledger of their own: through the proxy, whose
// servers each serve one ACP session, that is the session's.

// Bounds of the per-session state.
const (
	// maxLedgerPaths bounds the files one session's ledger holds; the
	// least recently used is forgotten, and counts as never read.
	maxLedgerPaths = 4096
	// maxNotedDirs bounds the directories one session remembers having
	// checked for instruction files; one forgotten may be noted again.
	maxNotedDirs = 1024
	// maxLedgerSessions bounds the sessions with a ledger. A session
	// forgotten (the least recently used) starts afresh: its files count
	// as unread.
	maxLedgerSessions = 1024
	// maxEndedSessions bounds the ended sessions remembered, so that a
	// call still in flight when its session ends does not make it a
	// ledger that nothing would remove.
	maxEndedSessions = 256
)

// lru is a map of at most max keys that forgets the least recently used.
// Its zero value, with max set, is empty; it is not safe for concurrent
// use.
type lru[V any] struct {
	max   int
	m     map[string]*list.Element
	order list.List // of *lruEntry[V], the most recently used first
}

type lruEntry[V any] struct {
	key string
	val V
}

// get returns the value of key and marks it used.
func (c *lru[V]) get(key string) (V, bool) {
	e, ok := c.m[key]
	if !ok {
		var zero V
		return zero, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*lruEntry[V]).val, true
}

// put sets the value of key, marks it used, and forgets the least
// recently used key if there are more than max.
func (c *lru[V]) put(key string, val V) {
	if e, ok := c.m[key]; ok {
		e.Value.(*lruEntry[V]).val = val
		c.order.MoveToFront(e)
		return
	}
	if c.m == nil {
		c.m = make(map[string]*list.Element)
	}
	c.m[key] = c.order.PushFront(&lruEntry[V]{key: key, val: val})
	for c.order.Len() > c.max {
		delete(c.m, c.order.Remove(c.order.Back()).(*lruEntry[V]).key)
	}
}

// del forgets key.
func (c *lru[V]) del(key string) {
	if e, ok := c.m[key]; ok {
		c.order.Remove(e)
		delete(c.m, key)
	}
}

// keys returns the keys for which keep is true.
func (c *lru[V]) keys(keep func(string) bool) []string {
	var ks []string
	for k := range c.m {
		if keep(k) {
			ks = append(ks, k)
		}
	}
	return ks
}

// A ledger is what one MCP session has seen of its files.
type ledger struct {
	mu    sync.Mutex
	files lru[string]   // path → sha256 as last read or written
	dirs  lru[struct{}] // directories checked for instruction files; instructions.go
}

func newLedger() *ledger {
	return &ledger{files: lru[string]{max: maxLedgerPaths}, dirs: lru[struct{}]{max: maxNotedDirs}}
}

// seen returns the sha256 the session last saw path with.
func (l *ledger) seen(path string) (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.files.get(path)
}

// record notes that the session saw path with the text of sha256; ""
// (not hashed) records nothing.
func (l *ledger) record(path, sum string) {
	if sum == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.files.put(path, sum)
}

// forget drops path, and every path below it.
func (l *ledger) forget(path string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, k := range l.files.keys(func(k string) bool { return within(k, path) }) {
		l.files.del(k)
	}
}

// move carries the entries of src, and of every path below it, to dst,
// after a move of src to dst: what was at dst is gone.
func (l *ledger) move(src, dst string) {
	if src == dst {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, k := range l.files.keys(func(k string) bool { return within(k, dst) }) {
		l.files.del(k)
	}
	for _, k := range l.files.keys(func(k string) bool { return within(k, src) }) {
		sum, _ := l.files.get(k)
		l.files.del(k)
		l.files.put(dst+k[len(src):], sum)
	}
}

// within reports whether p is dir or lies below it.
func within(p, dir string) bool {
	if p == dir {
		return true
	}
	if !strings.HasPrefix(p, dir) {
		return false
	}
	return strings.HasSuffix(dir, string(filepath.Separator)) || p[len(dir)] == filepath.Separator
}

// ledgers are the ledgers of a server's MCP sessions, by session id.
type ledgers struct {
	mu    sync.Mutex
	live  lru[*ledger]  // guarded by mu
	ended lru[struct{}] // sessions that ended; guarded by mu

	sessionless *ledger // the calls without a session
}

func newLedgers() *ledgers {
	return &ledgers{
		live:        lru[*ledger]{max: maxLedgerSessions},
		ended:       lru[struct{}]{max: maxEndedSessions},
		sessionless: newLedger(),
	}
}

// begin gives session id a new ledger, when it registers or initializes.
func (ls *ledgers) begin(id string) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.live.del(id)
	ls.ended.del(id)
}

// end forgets the ledger of session id.
func (ls *ledgers) end(id string) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.live.del(id)
	ls.ended.put(id, struct{}{})
}

// of returns the ledger of session id, made on first use. A session that
// has ended gets an empty ledger that is not kept: a call still in flight
// is guarded as if nothing had been read.
func (ls *ledgers) of(id string) *ledger {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if l, ok := ls.live.get(id); ok {
		return l
	}
	l := newLedger()
	if _, ended := ls.ended.get(id); !ended {
		ls.live.put(id, l)
	}
	return l
}

// watchLedgers ends a session's ledger with the session.
func (b *binding) watchLedgers(hooks *server.Hooks) {
	hooks.AddOnRegisterSession(func(_ context.Context, session server.ClientSession) {
		b.ledgers.begin(session.SessionID())
	})
	hooks.AddAfterInitialize(func(ctx context.Context, _ any, _ *mcp.InitializeRequest, _ *mcp.InitializeResult) {
		if session := server.ClientSessionFromContext(ctx); session != nil {
			b.ledgers.begin(session.SessionID())
		}
	})
	hooks.AddOnUnregisterSession(func(_ context.Context, session server.ClientSession) {
		b.ledgers.end(session.SessionID())
	})
}

// ledger returns the ledger of the MCP session of ctx, or, for a call
// without one (a stateless request, as acquire tells them), the one the
// sessionless calls share. Copilot CLI's client is stateless: through the
// proxy, which gives each ACP session a server of its own, that ledger is
// the session's.
func (b *binding) ledger(ctx context.Context) *ledger {
	session := server.ClientSessionFromContext(ctx)
	if session == nil || server.IsModernRequest(ctx) || session.SessionID() == "" {
		return b.ledgers.sessionless
	}
	return b.ledgers.of(session.SessionID())
}

// guard returns the ledger that guards the writes of the call of ctx, or
// nil if they are not guarded.
func (b *binding) guard(ctx context.Context) *ledger {
	if b.tools.NoReadGuard {
		return nil
	}
	return b.ledger(ctx)
}

// guardNote is the sentence about the read guard in the descriptions of
// write_text_file and edit_text_file; "" when the guard is off.
func (b *binding) guardNote() string {
	if b.tools.NoReadGuard {
		return ""
	}
	return " An existing file must have been read in this session (any part), and be unchanged since; else nothing is written."
}

// recordSeen notes that the session of ctx saw path with the text of sum
// (a read, or a write or edit that succeeded); "" records nothing.
func (b *binding) recordSeen(ctx context.Context, path, sum string) {
	if l := b.ledger(ctx); l != nil {
		l.record(path, sum)
	}
}

// recordMove carries the ledger entries of src to dst, after a move.
func (b *binding) recordMove(ctx context.Context, src, dst string) {
	if l := b.ledger(ctx); l != nil {
		l.move(src, dst)
	}
}

// recordDelete drops the ledger entries of path, after a delete.
func (b *binding) recordDelete(ctx context.Context, path string) {
	if l := b.ledger(ctx); l != nil {
		l.forget(path)
	}
}

// checkWrite is the read guard of write_text_file, called with the path
// locked and no expectedHash given, for content of size bytes: path must
// not exist, or hash as the session last saw it, as fsys's route reads it
// now. Content over the size limit is refused first, as the write would
// refuse it, without a read.
func (b *binding) checkWrite(ctx context.Context, fsys fsruntime.FS, path string, size int) error {
	l := b.guard(ctx)
	if l == nil {
		return nil
	}
	if max := b.sess.MaxFileSize; max > 0 && int64(size) > max {
		return &fs.PathError{Op: "write", Path: path, Err: &fsruntime.TooLargeError{Size: int64(size), Limit: max}}
	}
	seen, ok := l.seen(path)
	actual, err := hashFile(ctx, fsys, path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !ok:
		return nil // a new file
	case errors.Is(err, fs.ErrNotExist):
		// Refused once: a write that is still wanted creates it anew.
		l.forget(path)
		return &fs.PathError{Op: "write", Path: path, Err: &guardError{kind: guardGone, op: "write"}}
	case errors.Is(err, fsruntime.ErrNotRegular), errors.Is(err, fsruntime.ErrOutsideRoots), errors.Is(err, fspath.ErrNamesDir):
		return asOp("write", err) // what the write itself would say: nothing it could write
	case err != nil:
		return &fs.PathError{Op: "write", Path: path, Err: &guardError{kind: guardUnchecked, op: "write", cause: unwrapPath(err)}}
	case !ok:
		return &fs.PathError{Op: "write", Path: path, Err: &guardError{kind: guardUnread, op: "write"}}
	case actual != seen:
		return &fs.PathError{Op: "write", Path: path, Err: &guardError{kind: guardChanged, op: "write", editor: readsEditor(fsys)}}
	}
	return nil
}

// checkEdit is the read guard of edit_text_file, called with the path
// locked and no expectedHash given, on before, the file's text as the
// edit read it. It returns the sha256 of before when it hashed it ("" when
// the call is not guarded).
func (b *binding) checkEdit(ctx context.Context, fsys fsruntime.FS, path, before string) (string, error) {
	l := b.guard(ctx)
	if l == nil {
		return "", nil
	}
	seen, ok := l.seen(path)
	if !ok {
		return "", &fs.PathError{Op: "edit", Path: path, Err: &guardError{kind: guardUnread, op: "edit"}}
	}
	sum := fsruntime.HashText(before)
	if sum != seen {
		return "", &fs.PathError{Op: "edit", Path: path, Err: &guardError{kind: guardChanged, op: "edit", editor: readsEditor(fsys)}}
	}
	return sum, nil
}

// readsEditor reports whether fsys reads files from the editor.
func readsEditor(fsys fsruntime.FS) bool {
	r, ok := fsys.(interface {
		Route(capabilities.Operation) capabilities.Route
	})
	return ok && r.Route(capabilities.OpRead) == capabilities.RouteEditor
}

// What the read guard refused.
type guardKind int

const (
	guardUnread    guardKind = iota // the file exists and the session has not read it
	guardChanged                    // its text is not what the session last saw
	guardGone                       // the session saw it, and it no longer exists
	guardUnchecked                  // it could not be read to compare
)

// guardError is a write or edit refused by the read guard. Its text says
// what to do; those of guardChanged and guardGone match errChanged.
type guardError struct {
	kind   guardKind
	op     string // write or edit
	editor bool   // the route reads the editor's text
	cause  error  // for guardUnchecked
}

func (e *guardError) Error() string {
	switch e.kind {
	case guardUnread:
		return "refused: this session has not read the file, and nothing was written; " +
			"read it with read_text_file first (whole or in part), then " + e.op + " it"
	case guardChanged:
		where := "on disk"
		if e.editor {
			where = "in the editor (unsaved changes included)"
		}
		return "refused: the file changed since this session last read or wrote it: its text " + where +
			" is not what the session saw, and nothing was written; read it again and redo the change on what it holds now"
	case guardGone:
		return "refused: the file no longer exists: it was deleted or moved since this session last read it, " +
			"and nothing was written; to create it anew, write it again"
	}
	return fmt.Sprintf("refused: the file could not be read to check it against what this session read (%v); nothing was written", e.cause)
}

func (e *guardError) Unwrap() []error {
	switch e.kind {
	case guardChanged:
		return []error{errChanged}
	case guardGone:
		return []error{errChanged, fs.ErrNotExist}
	case guardUnchecked:
		return []error{e.cause}
	}
	return nil
}

// advises reports whether the text of err already says what to do next.
func (e *guardError) advises() bool { return e.kind != guardUnchecked }
