package fsruntime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fspath"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
	"github.com/sourcegraph/jsonrpc2"
)

// A Caller sends a JSON-RPC request to the ACP client and waits for its
// result. *jsonrpc2.Conn satisfies it. An error from the peer is a
// *jsonrpc2.Error; when ctx is done before the answer, Call returns the
// context's error. Who tells the editor that the request was abandoned
// depends on the Caller: see [Notifier].
type Caller interface {
	Call(ctx context.Context, method string, params, result any, opts ...jsonrpc2.CallOption) error
}

// A Notifier sends a JSON-RPC notification. *jsonrpc2.Conn satisfies it.
// When an [Editor]'s Caller is also a Notifier, the Editor gives each of
// its requests an id of its own (with [jsonrpc2.PickID]: a string that
// starts with "acpfs-", which never equals an id jsonrpc2.Conn numbers
// itself), and when it abandons one (a timeout, its context cancelled)
// it sends the editor $/cancel_request with that id. A Caller that is not
// a Notifier is trusted to tell the editor itself, as the proxy's
// connection does.
type Notifier interface {
	Notify(ctx context.Context, method string, params any, opts ...jsonrpc2.CallOption) error
}

// MethodCancelRequest is the notification that tells a peer a request
// was abandoned; its params are {"requestId": id}.
const MethodCancelRequest = "$/cancel_request"

// ACP method names and error codes the editor route uses; the codes are
// those of the module's one table (internal/wire).
const (
	MethodReadTextFile  = "fs/read_text_file"
	MethodWriteTextFile = "fs/write_text_file"

	CodeMethodNotFound   = wire.CodeMethodNotFound
	CodeInvalidParams    = wire.CodeInvalidParams
	CodeRequestCancelled = wire.CodeRequestCancelled
	CodeAuthRequired     = wire.CodeAuthRequired
	CodeResourceNotFound = wire.CodeResourceNotFound
)

// Editor is an FS served by the ACP client: reads see the editor's unsaved
// buffers, and writes land in the editor. It sends fs/read_text_file and
// fs/write_text_file with the session's id. It does not check roots or
// capabilities; the [Router] does, before anything is sent.
type Editor struct {
	caller    Caller
	sessionID func(context.Context) (string, error)
	max       int64
	timeout   time.Duration
	// idPrefix and seq make the ids of the Editor's own requests, when
	// its Caller is a Notifier.
	idPrefix string
	seq      atomic.Uint64
}

var _ FS = (*Editor)(nil)

// EditorOptions configure an [Editor].
type EditorOptions struct {
	// SessionID returns the ACP session id to send. It may block until
	// the id is known (a proxy learns it from the session/new response)
	// and must return ctx's error if ctx ends first.
	SessionID func(context.Context) (string, error)
	// MaxFileSize limits the content a read returns and a write sends.
	// Zero means DefaultMaxFileSize.
	MaxFileSize int64
	// Timeout bounds how long a call waits for the editor's answer, once
	// the session id is known. When it passes, the call's context ends,
	// the editor is told with $/cancel_request (see [Notifier]) and the
	// operation fails with an *EditorTimeoutError. Zero or negative means
	// no limit but the caller's context.
	Timeout time.Duration
}

// NewEditor returns an Editor that calls the client through c.
func NewEditor(c Caller, opts EditorOptions) *Editor {
	e := &Editor{caller: c, sessionID: opts.SessionID, max: opts.MaxFileSize, timeout: opts.Timeout}
	if e.max <= 0 {
		e.max = DefaultMaxFileSize
	}
	// Several Editors (one per session) share one connection: each
	// numbers its requests under a prefix of its own.
	var r [6]byte
	rand.Read(r[:])
	e.idPrefix = "acpfs-" + hex.EncodeToString(r[:]) + "-"
	return e
}

type readTextFileParams struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	Line      int    `json:"line,omitempty"`
	Limit     int    `json:"limit,omitempty"`
}

type readTextFileResult struct {
	Content *string `json:"content"`
}

type writeTextFileParams struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	Content   string `json:"content"`
}

// ReadTextFile implements [FS] with fs/read_text_file.
func (e *Editor) ReadTextFile(ctx context.Context, path string, line, limit int) (string, error) {
	if err := e.precheck(ctx, path); err != nil {
		return "", &fs.PathError{Op: "read", Path: path, Err: err}
	}
	id, err := e.sessionID(ctx)
	if err != nil {
		return "", &fs.PathError{Op: "read", Path: path, Err: err}
	}
	params := readTextFileParams{SessionID: id, Path: path, Line: max(line, 0), Limit: max(limit, 0)}
	var res readTextFileResult
	if err := e.call(ctx, MethodReadTextFile, params, &res, line > 1); err != nil {
		return "", &fs.PathError{Op: "read", Path: path, Err: err}
	}
	if res.Content == nil {
		return "", &fs.PathError{Op: "read", Path: path, Err: errors.New("the editor's answer has no content")}
	}
	text := *res.Content
	if int64(len(text)) > e.max {
		return "", &fs.PathError{Op: "read", Path: path, Err: &TooLargeError{Size: int64(len(text)), Limit: e.max, Read: true}}
	}
	if err := checkText(text); err != nil {
		return "", &fs.PathError{Op: "read", Path: path, Err: err}
	}
	return text, nil
}

// WriteTextFile implements [FS] with fs/write_text_file. A null or empty
// result is success.
func (e *Editor) WriteTextFile(ctx context.Context, path, content string) error {
	if err := e.precheck(ctx, path); err != nil {
		return &fs.PathError{Op: "write", Path: path, Err: err}
	}
	if int64(len(content)) > e.max {
		return &fs.PathError{Op: "write", Path: path, Err: &TooLargeError{Size: int64(len(content)), Limit: e.max}}
	}
	if err := checkText(content); err != nil {
		return &fs.PathError{Op: "write", Path: path, Err: err}
	}
	id, err := e.sessionID(ctx)
	if err != nil {
		return &fs.PathError{Op: "write", Path: path, Err: err}
	}
	var res json.RawMessage // null or {}: nothing to read
	if err := e.call(ctx, MethodWriteTextFile, writeTextFileParams{SessionID: id, Path: path, Content: content}, &res, false); err != nil {
		return &fs.PathError{Op: "write", Path: path, Err: err}
	}
	return nil
}

// call calls method within the Editor's timeout and maps its error.
func (e *Editor) call(ctx context.Context, method string, params, result any, ranged bool) error {
	if e.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, e.timeout, &EditorTimeoutError{Method: method, Timeout: e.timeout})
		defer cancel()
	}
	n, ok := e.caller.(Notifier)
	if !ok {
		if err := e.caller.Call(ctx, method, params, result); err != nil {
			return editorError(ctx, err, ranged)
		}
		return nil
	}
	id := jsonrpc2.ID{Str: e.idPrefix + strconv.FormatUint(e.seq.Add(1), 10), IsString: true}
	if err := e.caller.Call(ctx, method, params, result, jsonrpc2.PickID(id)); err != nil {
		if ctx.Err() != nil {
			// The answer, if it ever comes, has no reader: tell the
			// editor to stop. A notification is written at once; its
			// context only bounds a stream that does not take it.
			nctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelNotifyTimeout)
			n.Notify(nctx, MethodCancelRequest, cancelRequestParams{RequestID: id})
			cancel()
		}
		return editorError(ctx, err, ranged)
	}
	return nil
}

// cancelNotifyTimeout bounds the sending of a $/cancel_request.
const cancelNotifyTimeout = 5 * time.Second

type cancelRequestParams struct {
	RequestID jsonrpc2.ID `json:"requestId"`
}

// EditorTimeoutError reports an editor that did not answer a call within
// the Editor's timeout. It matches context.DeadlineExceeded.
type EditorTimeoutError struct {
	Method  string // the ACP method, e.g. fs/read_text_file
	Timeout time.Duration
}

func (e *EditorTimeoutError) Error() string {
	return fmt.Sprintf("the editor did not answer %s within %v", e.Method, e.Timeout)
}

func (e *EditorTimeoutError) Unwrap() error { return context.DeadlineExceeded }

func (e *Editor) precheck(ctx context.Context, path string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return fspath.Check(path)
}

// PeerError is an error the ACP client answered with. It keeps the peer's
// code and message, and matches the io/fs or runtime sentinel its code
// stands for, if any.
type PeerError struct {
	Code    int64
	Message string
	Data    string // the error's data, as JSON, if any
	kind    error
}

func (e *PeerError) Error() string {
	msg := fmt.Sprintf("the editor answered %d %s", e.Code, e.Message)
	if e.Data != "" && e.Data != "null" && !strings.Contains(e.Message, e.Data) {
		msg += " (" + e.Data + ")"
	}
	return msg
}

func (e *PeerError) Unwrap() error { return e.kind }

// editorError maps what a Call returned to the runtime's vocabulary. This
// is the one place where ACP error codes from the editor are interpreted.
func editorError(ctx context.Context, err error, ranged bool) error {
	if ctx.Err() != nil {
		if te, ok := errors.AsType[*EditorTimeoutError](context.Cause(ctx)); ok {
			return te
		}
		return ctx.Err()
	}
	var rpc *jsonrpc2.Error
	if !errors.As(err, &rpc) {
		return err // local: a closed connection, a context error, …
	}
	pe := &PeerError{Code: rpc.Code, Message: rpc.Message}
	if rpc.Data != nil {
		pe.Data = string(*rpc.Data)
	}
	switch rpc.Code {
	case CodeResourceNotFound:
		pe.kind = fs.ErrNotExist
	case CodeMethodNotFound:
		pe.kind = errors.ErrUnsupported
	case CodeInvalidParams:
		pe.kind = fs.ErrInvalid
		if ranged && pastEndMessage(pe.Message+" "+pe.Data) {
			pe.kind = ErrPastEnd
		}
	case CodeRequestCancelled:
		pe.kind = context.Canceled
	case CodeAuthRequired:
		pe.kind = fs.ErrPermission
	}
	return pe
}

// pastEndMessage recognises the ways editors say a start line is past the
// end: Zed's "Attempting to read beyond the end of the file", and ours.
func pastEndMessage(s string) bool {
	s = strings.ToLower(s)
	return strings.Contains(s, "beyond the end") || strings.Contains(s, "past the end")
}
