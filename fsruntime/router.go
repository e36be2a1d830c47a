package fsruntime

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/mcp-acpfs/mcp-acpfs/capabilities"
)

// ErrNotAdvertised: the route policy forces the editor, but the client did
// not advertise the fs method the operation needs. It matches
// errors.ErrUnsupported.
var ErrNotAdvertised = &sentinel{"the editor did not advertise this fs method, and the route policy forbids disk", errors.ErrUnsupported}

// Router is a session's FS: it sends each operation to the editor or to
// disk, as the client's capabilities and the route policy decide, once the
// path is found inside the session's roots (Disk's roots, following
// symlinks that exist on disk). An editor that advertised a method but
// answers it with "method not found" is not asked again for that method in
// this session: the Router falls back to disk and logs it once. No other
// editor error falls back; a path the editor refuses stays refused. See
// DESIGN.md, "Router".
type Router struct {
	disk   *Disk
	editor FS
	client capabilities.Client
	policy capabilities.Policy
	log    *slog.Logger
	reload ReloadOptions

	mu          sync.Mutex
	unsupported [2]bool // by capabilities.Operation: the editor said -32601

	compared atomic.Int64 // reads compared with the disk (router_fresh.go)
}

var _ FS = (*Router)(nil)

// RouterOptions configure a [Router].
type RouterOptions struct {
	// Disk holds the session's roots and serves the disk route. Required.
	Disk *Disk
	// Editor serves the editor route; nil means there is none.
	Editor FS
	// Client is what the editor advertised at initialize.
	Client capabilities.Client
	// Policy forces a route, or leaves the choice to the capabilities.
	Policy capabilities.Policy
	// Log receives the fallback notices; nil means slog.Default().
	Log *slog.Logger
	// Reload tunes how a read through the editor waits for a reload of
	// a file that changed on disk (router_fresh.go).
	Reload ReloadOptions
}

// NewRouter returns a Router.
func NewRouter(opts RouterOptions) *Router {
	r := &Router{disk: opts.Disk, editor: opts.Editor, client: opts.Client, policy: opts.Policy, log: opts.Log,
		reload: opts.Reload.withDefaults()}
	if r.editor == nil {
		r.client.FS.ReadTextFile, r.client.FS.WriteTextFile = false, false
	}
	if r.log == nil {
		r.log = slog.Default()
	}
	return r
}

// Disk returns the session's disk backend, which also holds its roots.
func (r *Router) Disk() *Disk { return r.disk }

// Route reports where op goes now.
func (r *Router) Route(op capabilities.Operation) capabilities.Route {
	route := capabilities.Decide(r.client, r.policy, op)
	if route == capabilities.RouteEditor && r.fellBack(op) {
		return capabilities.RouteDisk
	}
	return route
}

func (r *Router) fellBack(op capabilities.Operation) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return int(op) < len(r.unsupported) && r.unsupported[op]
}

// fallBack records that the editor does not serve op after all, and says
// so once.
func (r *Router) fallBack(op capabilities.Operation, err error) {
	r.mu.Lock()
	first := int(op) < len(r.unsupported) && !r.unsupported[op]
	if int(op) < len(r.unsupported) {
		r.unsupported[op] = true
	}
	r.mu.Unlock()
	if first {
		r.log.Warn("the editor advertised an fs method but does not serve it; using disk from now on",
			"operation", op.String(), "error", err)
	}
}

// ReadTextFile implements [FS]. Through the editor, a text that differs
// from the file on disk, which changed just now, is asked for again until
// the editor has reloaded it, within a bound (router_fresh.go).
func (r *Router) ReadTextFile(ctx context.Context, path string, line, limit int) (string, error) {
	text, _, err := r.read(ctx, path, line, limit)
	return text, err
}

// read is ReadTextFile, and says where the text came from.
func (r *Router) read(ctx context.Context, path string, line, limit int) (string, Origin, error) {
	switch r.Route(capabilities.OpRead) {
	case capabilities.RouteEditor:
		spelled, err := r.disk.CheckedPath(path)
		if err != nil {
			return "", Origin{}, reop("read", err)
		}
		text, match, err := r.readEditor(ctx, spelled, line, limit)
		if !isMethodNotFound(err) {
			return text, Origin{Route: capabilities.RouteEditor, Disk: match}, err
		}
		r.fallBack(capabilities.OpRead, err)
		fallthrough
	case capabilities.RouteDisk:
		text, err := r.disk.ReadTextFile(ctx, path, line, limit)
		return text, Origin{Route: capabilities.RouteDisk, Disk: DiskSame}, err
	default:
		return "", Origin{}, &fs.PathError{Op: "read", Path: path, Err: ErrNotAdvertised}
	}
}

// WriteTextFile implements [FS].
func (r *Router) WriteTextFile(ctx context.Context, path, content string) error {
	switch r.Route(capabilities.OpWrite) {
	case capabilities.RouteEditor:
		spelled, err := r.disk.CheckedPath(path)
		if err != nil {
			return reop("write", err)
		}
		err = r.editor.WriteTextFile(ctx, spelled, content)
		if !isMethodNotFound(err) {
			return err
		}
		r.fallBack(capabilities.OpWrite, err)
		fallthrough
	case capabilities.RouteDisk:
		return r.disk.WriteTextFile(ctx, path, content)
	default:
		return &fs.PathError{Op: "write", Path: path, Err: ErrNotAdvertised}
	}
}

// isMethodNotFound reports an editor's -32601, and not a local
// errors.ErrUnsupported such as ErrNotAdvertised.
func isMethodNotFound(err error) bool {
	var pe *PeerError
	return errors.As(err, &pe) && pe.Code == CodeMethodNotFound
}

// reop renames the operation of a *fs.PathError from a roots check.
func reop(op string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: op, Path: pe.Path, Err: pe.Err}
	}
	return fmt.Errorf("%s: %w", op, err)
}
