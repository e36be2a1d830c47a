package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/mcp-acpfs/mcp-acpfs/runtime"
	"github.com/mcp-acpfs/mcp-acpfs/runtime/runtimetest"
)

// fakeEditor serves fs/* from an in-memory buffer store, as an ACP client
// would serve its open buffers. Func fields override behaviour per test.
type fakeEditor struct {
	files *runtimetest.MemFS

	mu    sync.Mutex
	calls []editorCall

	// fail, if set, answers a request with this error instead.
	fail func(method string) *jsonrpc2.Error
}

type editorCall struct {
	Method string
	Params map[string]any
}

func (e *fakeEditor) Calls() []editorCall {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]editorCall(nil), e.calls...)
}

func (e *fakeEditor) handle(ctx context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	var p struct {
		SessionID string `json:"sessionId"`
		Path      string `json:"path"`
		Line      int    `json:"line"`
		Limit     int    `json:"limit"`
		Content   string `json:"content"`
	}
	var all map[string]any
	if req.Params != nil {
		json.Unmarshal(*req.Params, &p)
		json.Unmarshal(*req.Params, &all)
	}
	e.mu.Lock()
	e.calls = append(e.calls, editorCall{req.Method, all})
	e.mu.Unlock()
	if e.fail != nil {
		if err := e.fail(req.Method); err != nil {
			return nil, err
		}
	}
	switch req.Method {
	case runtime.MethodReadTextFile:
		text, err := e.files.ReadTextFile(ctx, p.Path, p.Line, p.Limit)
		if err != nil {
			return nil, acpError(p.Path, p.Line, err)
		}
		return map[string]string{"content": text}, nil
	case runtime.MethodWriteTextFile:
		if err := e.files.WriteTextFile(ctx, p.Path, p.Content); err != nil {
			return nil, acpError(p.Path, p.Line, err)
		}
		return nil, nil // Zed answers null
	}
	return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "method not found"}
}

// acpError answers as Zed does.
func acpError(path string, line int, err error) *jsonrpc2.Error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		e := &jsonrpc2.Error{Code: runtime.CodeResourceNotFound, Message: "Resource not found"}
		e.SetError(map[string]string{"uri": path})
		return e
	case errors.Is(err, runtime.ErrPastEnd):
		e := &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: "Invalid params"}
		e.SetError(fmt.Sprintf("Attempting to read beyond the end of the file, line %d:0", line))
		return e
	case errors.Is(err, fs.ErrInvalid):
		return &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: err.Error()}
	}
	return &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: err.Error()}
}

// refuseRequests answers every request the editor might send us.
type refuseRequests struct{}

func (refuseRequests) Handle(ctx context.Context, c *jsonrpc2.Conn, r *jsonrpc2.Request) {
	if !r.Notif {
		c.ReplyWithError(ctx, r.ID, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "not served"})
	}
}

// dialFakeEditor connects to a fake editor over an in-process pipe with the
// real codec, and returns our side of the connection.
func dialFakeEditor(t *testing.T, ed *fakeEditor) *jsonrpc2.Conn {
	t.Helper()
	a, b := net.Pipe()
	ctx := context.WithoutCancel(t.Context())
	edConn := jsonrpc2.NewConn(ctx, jsonrpc2.NewPlainObjectStream(a),
		jsonrpc2.AsyncHandler(jsonrpc2.HandlerWithError(ed.handle)))
	us := jsonrpc2.NewConn(ctx, jsonrpc2.NewPlainObjectStream(b), jsonrpc2.AsyncHandler(refuseRequests{}))
	t.Cleanup(func() { us.Close(); edConn.Close() })
	return us
}

func fixedSession(id string) func(context.Context) (string, error) {
	return func(context.Context) (string, error) { return id, nil }
}

func TestEditorConformance(t *testing.T) {
	ed := &fakeEditor{files: runtimetest.NewMemFS()}
	e := runtime.NewEditor(dialFakeEditor(t, ed), runtime.EditorOptions{SessionID: fixedSession("sess_1")})
	if err := runtimetest.TestFS(t.Context(), e, "/project"); err != nil {
		t.Fatal(err)
	}
	if err := runtimetest.TestLimits(t.Context(), runtime.NewEditor(dialFakeEditor(t, ed),
		runtime.EditorOptions{SessionID: fixedSession("sess_1"), MaxFileSize: 4096}), "/limits", 4096); err != nil {
		t.Fatal(err)
	}
}

func TestEditorSendsSessionAndRange(t *testing.T) {
	ed := &fakeEditor{files: runtimetest.NewMemFS()}
	ed.files.WriteTextFile(t.Context(), "/p/a.txt", "one\ntwo\nthree\n")
	e := runtime.NewEditor(dialFakeEditor(t, ed), runtime.EditorOptions{SessionID: fixedSession("sess_42")})
	got, err := e.ReadTextFile(t.Context(), "/p/a.txt", 2, 1)
	if err != nil || got != "two\n" {
		t.Fatalf("read = %q, %v", got, err)
	}
	if _, err := e.ReadTextFile(t.Context(), "/p/a.txt", 0, 0); err != nil {
		t.Fatal(err)
	}
	calls := ed.Calls()
	want := []map[string]any{
		{"sessionId": "sess_42", "path": "/p/a.txt", "line": float64(2), "limit": float64(1)},
		{"sessionId": "sess_42", "path": "/p/a.txt"}, // no line or limit when absent
	}
	for i, w := range want {
		if fmt.Sprint(calls[i].Params) != fmt.Sprint(w) {
			t.Errorf("call %d params = %v, want %v", i, calls[i].Params, w)
		}
	}
}

func TestEditorMapsErrors(t *testing.T) {
	tests := []struct {
		code    int64
		message string
		data    any
		want    error
	}{
		{runtime.CodeResourceNotFound, "Resource not found", map[string]string{"uri": "/p/x"}, fs.ErrNotExist},
		{runtime.CodeMethodNotFound, "Method not found", nil, errors.ErrUnsupported},
		{runtime.CodeInvalidParams, "Invalid params", "Attempting to read beyond the end of the file, line 9:0", runtime.ErrPastEnd},
		{runtime.CodeInvalidParams, "invalid path", nil, fs.ErrInvalid},
		{runtime.CodeRequestCancelled, "Request cancelled", nil, context.Canceled},
		{runtime.CodeAuthRequired, "Authentication required", nil, fs.ErrPermission},
		{-32603, "Internal error", "Binary files are not supported", nil},
		{1234, "custom", nil, nil},
	}
	for _, tt := range tests {
		ed := &fakeEditor{files: runtimetest.NewMemFS(), fail: func(string) *jsonrpc2.Error {
			e := &jsonrpc2.Error{Code: tt.code, Message: tt.message}
			if tt.data != nil {
				e.SetError(tt.data)
			}
			return e
		}}
		e := runtime.NewEditor(dialFakeEditor(t, ed), runtime.EditorOptions{SessionID: fixedSession("s")})
		_, err := e.ReadTextFile(t.Context(), "/p/x", 9, 1)
		var pe *runtime.PeerError
		if !errors.As(err, &pe) || pe.Code != tt.code {
			t.Errorf("code %d: err = %v, want a PeerError with the code", tt.code, err)
			continue
		}
		if tt.want != nil && !errors.Is(err, tt.want) {
			t.Errorf("code %d: err = %v, want it to match %v", tt.code, err, tt.want)
		}
		var path *fs.PathError
		if !errors.As(err, &path) || path.Path != "/p/x" {
			t.Errorf("code %d: err = %v does not name the path", tt.code, err)
		}
		if s, ok := tt.data.(string); ok && !strings.Contains(err.Error(), s) {
			t.Errorf("code %d: err = %q lost the peer's data %q", tt.code, err, s)
		}
	}
}

func TestEditorAcceptsEmptyObjectWriteResult(t *testing.T) {
	a, b := net.Pipe()
	ctx := context.WithoutCancel(t.Context())
	ed := jsonrpc2.NewConn(ctx, jsonrpc2.NewPlainObjectStream(a), jsonrpc2.AsyncHandler(jsonrpc2.HandlerWithError(
		func(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) (any, error) { return struct{}{}, nil })))
	us := jsonrpc2.NewConn(ctx, jsonrpc2.NewPlainObjectStream(b), jsonrpc2.AsyncHandler(refuseRequests{}))
	t.Cleanup(func() { us.Close(); ed.Close() })
	e := runtime.NewEditor(us, runtime.EditorOptions{SessionID: fixedSession("s")})
	if err := e.WriteTextFile(t.Context(), "/p/x", "y"); err != nil {
		t.Fatalf("write with {} result: %v", err)
	}
}

func TestEditorWaitsForSessionID(t *testing.T) {
	ed := &fakeEditor{files: runtimetest.NewMemFS()}
	ed.files.WriteTextFile(t.Context(), "/p/a", "x")
	bound := make(chan string, 1)
	e := runtime.NewEditor(dialFakeEditor(t, ed), runtime.EditorOptions{SessionID: func(ctx context.Context) (string, error) {
		select {
		case id := <-bound:
			return id, nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := e.ReadTextFile(ctx, "/p/a", 0, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("unbound and cancelled: err = %v", err)
	}
	bound <- "late"
	if _, err := e.ReadTextFile(t.Context(), "/p/a", 0, 0); err != nil {
		t.Fatal(err)
	}
	if c := ed.Calls(); len(c) != 1 || c[0].Params["sessionId"] != "late" {
		t.Errorf("calls = %v", c)
	}
}
