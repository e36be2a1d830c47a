package mcpfs

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"unicode"

	"github.com/gabriel-vasile/mimetype"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fspath"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpserve"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
)

// FileResourceTemplate is the URI template of the files served as
// resources: file:// and an absolute path.
const FileResourceTemplate = "file://{+path}"

// addResources registers the file:// resource template. How resources
// are read and subscribed to, in both protocol eras: DESIGN.md.
func (b *binding) addResources() {
	desc := "A file inside the allowed roots, as file:// and its absolute path, percent-encoded " +
		"(file:///home/me/project/main.go). Reading returns the file's current text, including unsaved " +
		"editor changes where the editor provides them; a file that is not text comes back as a blob. " +
		"Subscribing reports changes to the file on disk."
	b.srv.AddResourceTemplate(mcp.NewResourceTemplate(FileResourceTemplate, "file",
		mcp.WithTemplateTitle("File"),
		mcp.WithTemplateDescription(desc),
	), b.readResource)
}

// readResource reads a file:// resource through the client's FS.
func (b *binding) readResource(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	uri := req.Params.URI
	p, err := resourceFilePath("read", b.sess.WorkDir, uri)
	if err != nil {
		return nil, mcpserve.ReportError(ctx, wire.CodeInvalidParams, map[string]any{"uri": uri}, err)
	}
	fsys, done := b.acquire(ctx)
	defer done()
	text, err := fsys.ReadTextFile(ctx, p, 0, 0)
	if err == nil {
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: "text/plain", Text: text}}, nil
	}
	if !errors.Is(err, fsruntime.ErrBinary) {
		return nil, resourceRPCError(ctx, uri, resourceError("read", uri, err))
	}
	bfs, ok := fsys.(fsruntime.BinaryFS)
	if !ok {
		return nil, resourceRPCError(ctx, uri, resourceError("read", uri, err))
	}
	limit := b.sess.MaxFileSize
	if limit <= 0 {
		limit = fsruntime.DefaultMaxFileSize
	}
	data, err := bfs.ReadFile(ctx, p, limit)
	if err != nil {
		return nil, resourceRPCError(ctx, uri, resourceError("read", uri, err))
	}
	return []mcp.ResourceContents{mcp.BlobResourceContents{
		URI:      uri,
		MIMEType: mimetype.Detect(data).String(),
		Blob:     base64.StdEncoding.EncodeToString(data),
	}}, nil
}

// resourceFilePath returns the absolute, clean path of the file that a
// file:// URI names, as the tools resolve one ([fspath.AbsFile]):
// percent-encoding decoded, the host empty or localhost, and no trailing
// / (which names a directory, and a resource is a file). On Windows a path
// without a drive (file:///etc/x) is on workDir's drive, as \etc\x is for
// the tools. An error is about op on the URI.
func resourceFilePath(op, workDir, uri string) (string, error) {
	if !fspath.IsFileURI(uri) {
		return "", resourceError(op, uri, argError("not a file:// URI"))
	}
	p, err := fspath.AbsFile(workDir, uri)
	if err != nil {
		return "", resourceError(op, uri, err)
	}
	return p, nil
}

// lowerFileScheme returns uri with the scheme of a file:// URI in lower
// case, and any other uri as it is.
func lowerFileScheme(uri string) string {
	const scheme = "file://"
	if fspath.IsFileURI(uri) && !strings.HasPrefix(uri, scheme) {
		return scheme + uri[len(scheme):]
	}
	return uri
}

// quoteURI quotes a URI for a message if it holds control characters.
func quoteURI(uri string) string {
	if strings.ContainsFunc(uri, unicode.IsControl) {
		return strconv.Quote(uri)
	}
	return uri
}

// resourceError is the error of op on the resource uri: the URI and the
// cause, without the path the URI already names.
func resourceError(op, uri string, err error) error {
	cause := err
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		cause = pe.Err
	}
	return &uriError{msg: fmt.Sprintf("%s %s: %v", op, quoteURI(uri), cause), err: err}
}

// uriError is an error about a resource, which still matches its cause.
type uriError struct {
	msg string
	err error
}

func (e *uriError) Error() string { return e.msg }
func (e *uriError) Unwrap() error { return e.err }

// watchResources installs the hooks that keep the resource subscriptions.
func (b *binding) watchResources(hooks *server.Hooks) {
	b.watch = newWatcher(b.log)
	// mcp-go matches a URI against the template file://{+path} case for
	// case, but a URI's scheme may come in any case (RFC 3986, 3.1): it is
	// lowered, the normal form, before the match.
	hooks.AddBeforeReadResource(func(_ context.Context, _ any, req *mcp.ReadResourceRequest) {
		req.Params.URI = lowerFileScheme(req.Params.URI)
	})
	hooks.AddOnRequestInitialization(b.beginSubscription)
	hooks.AddAfterUnsubscribe(func(ctx context.Context, _ any, req *mcp.UnsubscribeRequest, _ *mcp.EmptyResult) {
		session := server.ClientSessionFromContext(ctx)
		p, err := resourceFilePath("unsubscribe", b.sess.WorkDir, req.Params.URI)
		if session == nil || err != nil {
			return // never subscribed
		}
		b.watch.unsubscribe(subKey{id: session.SessionID()}, p)
	})
	hooks.AddBeforeSubscriptionsListen(b.listen)
	hooks.AddAfterSubscriptionsListen(func(ctx context.Context, id any, _ *mcp.SubscriptionsListenRequest, _ *mcp.SubscriptionsListenResult) {
		b.endListen(ctx, id)
	})
	hooks.AddOnError(func(ctx context.Context, id any, method mcp.MCPMethod, _ any, _ error) {
		if method == mcp.MethodSubscriptionsListen {
			b.endListen(ctx, id)
		}
	})
	hooks.AddOnUnregisterSession(func(_ context.Context, session server.ClientSession) {
		id := session.SessionID()
		comparable := reflect.TypeOf(session).Comparable()
		b.watch.drop(func(k subKey) bool {
			return k.id == id || comparable && k.listen == any(session)
		})
	})
}

// Markers of the requests beginSubscription looks into; any other request
// is passed over without decoding it.
var (
	markSubscribe = []byte(mcp.MethodResourcesSubscribe)
	markListen    = []byte(mcp.MethodSubscriptionsListen)
)

// beginSubscription runs before mcp-go handles a request. A legacy
// resources/subscribe is checked and recorded here, and a modern
// subscriptions/listen is checked here; an error refuses the request.
func (b *binding) beginSubscription(ctx context.Context, _ any, message any) error {
	raw, ok := message.(json.RawMessage)
	if !ok || !bytes.Contains(raw, markSubscribe) && !bytes.Contains(raw, markListen) {
		return nil
	}
	var req struct {
		Method mcp.MCPMethod `json:"method"`
		Params struct {
			Meta          *mcp.Meta              `json:"_meta"`
			URI           string                 `json:"uri"`
			Notifications mcp.SubscriptionFilter `json:"notifications"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &req) != nil {
		return nil // mcp-go says what is wrong with it
	}
	modern := mcp.IsModernProtocol(req.Params.Meta.ProtocolVersion())
	switch {
	case req.Method == mcp.MethodResourcesSubscribe && !modern && req.Params.URI != "":
		session := server.ClientSessionFromContext(ctx)
		if session == nil {
			return errors.New("resources/subscribe: there is no MCP session to notify")
		}
		uri := req.Params.URI
		fsys, done := b.acquire(ctx)
		p, unwatched, err := b.subscriptionTarget(ctx, fsys, uri)
		done()
		if err != nil {
			return mcpserve.ReportError(ctx, wire.CodeInvalidParams, map[string]any{"uri": uri}, err)
		}
		id := session.SessionID()
		send := func(uri string) error {
			return b.srv.SendNotificationToSpecificClient(id, mcp.MethodNotificationResourceUpdated, map[string]any{"uri": uri})
		}
		if err := b.watch.subscribe(subKey{id: id}, send, uri, p, unwatched); err != nil {
			return resourceError("subscribe", uri, fmt.Errorf("cannot watch %s: %w", filepath.Dir(p), err))
		}
	case req.Method == mcp.MethodSubscriptionsListen && modern:
		// A stateless request stands alone: the configured roots apply.
		for _, uri := range req.Params.Notifications.ResourceSubscriptions {
			if _, _, err := b.subscriptionTarget(ctx, b.sess.FS, uri); err != nil {
				return mcpserve.ReportError(ctx, wire.CodeInvalidParams, map[string]any{"uri": uri}, err)
			}
		}
	}
	return nil
}

// listenKey is the subscriber of the subscriptions/listen request id of the
// session in ctx; ok is false if there is none to key on.
func listenKey(ctx context.Context, id any) (server.ClientSession, subKey, bool) {
	session := server.ClientSessionFromContext(ctx)
	if session == nil || !reflect.TypeOf(session).Comparable() {
		return nil, subKey{}, false
	}
	raw, err := json.Marshal(id)
	if err != nil {
		return nil, subKey{}, false
	}
	return session, subKey{id: session.SessionID(), listen: session, req: string(raw)}, true
}

// listen subscribes a subscriptions/listen stream to the resources of its
// filter, which beginSubscription checked. It runs before mcp-go
// acknowledges the stream.
func (b *binding) listen(ctx context.Context, id any, req *mcp.SubscriptionsListenRequest) {
	uris := req.Params.Notifications.ResourceSubscriptions
	if len(uris) == 0 {
		return
	}
	session, k, ok := listenKey(ctx, id)
	if !ok {
		b.log.Warn("cannot track the resource subscriptions of a subscriptions/listen stream", "id", id)
		return
	}
	send := func(uri string) error {
		n := mcp.JSONRPCNotification{
			JSONRPC: mcp.JSONRPC_VERSION,
			Notification: mcp.Notification{
				Method: mcp.MethodNotificationResourceUpdated,
				Params: mcp.NotificationParams{
					Meta:             map[string]any{mcp.MetaKeySubscriptionID: id},
					AdditionalFields: map[string]any{"uri": uri},
				},
			},
		}
		select {
		case session.NotificationChannel() <- n:
			return nil
		default:
			return server.ErrNotificationChannelBlocked
		}
	}
	roots := fsRoots(b.sess.FS)
	for _, uri := range uris {
		p, err := resourceFilePath("subscribe", b.sess.WorkDir, uri)
		if err != nil {
			continue // checked before; cannot happen
		}
		if err := b.watch.subscribe(k, send, uri, p, underUnwatched(p, roots)); err != nil {
			b.log.Warn("cannot watch a subscribed resource", "uri", uri, "err", err)
		}
	}
}

// endListen ends the subscriptions of a subscriptions/listen stream.
func (b *binding) endListen(ctx context.Context, id any) {
	if _, k, ok := listenKey(ctx, id); ok {
		b.watch.drop(func(x subKey) bool { return x == k })
	}
}

// subscriptionTarget checks that a client may subscribe to uri with fsys,
// its FS: a file:// URI of a file inside the roots, existing or not, whose
// directory exists if it is to be watched. It returns the file's path, and
// whether it lies under a directory that is never watched.
func (b *binding) subscriptionTarget(ctx context.Context, fsys fsruntime.FS, uri string) (path string, unwatched bool, err error) {
	p, err := resourceFilePath("subscribe", b.sess.WorkDir, uri)
	if err != nil {
		return "", false, err
	}
	if err := inRoots(ctx, fsys, p); err != nil {
		return "", false, resourceError("subscribe", uri, err)
	}
	unwatched = underUnwatched(p, fsRoots(fsys))
	if info, err := os.Stat(p); err == nil && info.IsDir() {
		return "", false, resourceError("subscribe", uri, errors.New("is a directory; subscribe to files"))
	}
	if !unwatched {
		dir := filepath.Dir(p)
		if info, err := os.Stat(dir); err != nil || !info.IsDir() {
			return "", false, resourceError("subscribe", uri, fmt.Errorf("its directory %s does not exist", dir))
		}
	}
	return p, unwatched, nil
}

// inRoots reports whether p lies inside fsys's roots, following symlinks;
// a file that does not exist yet may. It asks the roots themselves where
// fsys has them (a Disk, or a Router's Disk), else describes or reads the
// file.
func inRoots(ctx context.Context, fsys fsruntime.FS, p string) error {
	switch f := fsys.(type) {
	case interface{ Check(string) error }:
		return f.Check(p)
	case interface{ Disk() *fsruntime.Disk }:
		return f.Disk().Check(p)
	case fsruntime.StatFS:
		if _, err := f.Stat(ctx, p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if _, err := fsys.ReadTextFile(ctx, p, 1, 1); errors.Is(err, fsruntime.ErrOutsideRoots) {
		return err
	}
	return nil
}

// fsRoots returns fsys's roots, if it tells them.
func fsRoots(fsys fsruntime.FS) []string {
	switch f := fsys.(type) {
	case interface{ Roots() []string }:
		return f.Roots()
	case interface{ Disk() *fsruntime.Disk }:
		return f.Disk().Roots()
	}
	return nil
}
