package fsruntime_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"strings"
	"testing"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
)

// refuseRequests answers every request the editor might send us.
type refuseRequests struct{}

func (refuseRequests) Handle(ctx context.Context, c *jsonrpc2.Conn, r *jsonrpc2.Request) {
	if !r.Notif {
		c.ReplyWithError(ctx, r.ID, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "not served"})
	}
}

// dialFakeEditor connects to a fake editor over an in-process pipe with the
// real codec, and returns our side of the connection.
func dialFakeEditor(t testing.TB, ed *fsruntimetest.Editor) *jsonrpc2.Conn {
	t.Helper()
	a, b := net.Pipe()
	ctx := context.WithoutCancel(t.Context())
	edConn := jsonrpc2.NewConn(ctx, jsonrpc2.NewPlainObjectStream(a),
		jsonrpc2.AsyncHandler(jsonrpc2.HandlerWithError(ed.Handle)))
	us := jsonrpc2.NewConn(ctx, jsonrpc2.NewPlainObjectStream(b), jsonrpc2.AsyncHandler(refuseRequests{}))
	t.Cleanup(func() { us.Close(); edConn.Close() })
	return us
}

func fixedSession(id string) func(context.Context) (string, error) {
	return func(context.Context) (string, error) { return id, nil }
}

func TestEditorConformance(t *testing.T) {
	t.Parallel()
	ed := &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS()}
	e := fsruntime.NewEditor(dialFakeEditor(t, ed), fsruntime.EditorOptions{SessionID: fixedSession("sess_1")})
	if err := fsruntimetest.TestFS(t.Context(), e, ostest.HostPath("/project")); err != nil {
		t.Fatal(err)
	}
	if err := fsruntimetest.TestLimits(t.Context(), fsruntime.NewEditor(dialFakeEditor(t, ed),
		fsruntime.EditorOptions{SessionID: fixedSession("sess_1"), MaxFileSize: 4096}), ostest.HostPath("/limits"), 4096); err != nil {
		t.Fatal(err)
	}
}

func TestEditorSendsSessionAndRange(t *testing.T) {
	ed := &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS()}
	p := ostest.HostPath("/p/a.txt")
	ed.Buffers.WriteTextFile(t.Context(), p, "one\ntwo\nthree\n")
	e := fsruntime.NewEditor(dialFakeEditor(t, ed), fsruntime.EditorOptions{SessionID: fixedSession("sess_42")})
	got, err := e.ReadTextFile(t.Context(), p, 2, 1)
	if err != nil || got != "two\n" {
		t.Fatalf("read = %q, %v", got, err)
	}
	if _, err := e.ReadTextFile(t.Context(), p, 0, 0); err != nil {
		t.Fatal(err)
	}
	calls := ed.Requests()
	want := []map[string]any{
		{"sessionId": "sess_42", "path": p, "line": float64(2), "limit": float64(1)},
		{"sessionId": "sess_42", "path": p}, // no line or limit when absent
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
		{fsruntime.CodeResourceNotFound, "Resource not found", map[string]string{"uri": "/p/x"}, fs.ErrNotExist},
		{fsruntime.CodeMethodNotFound, "Method not found", nil, errors.ErrUnsupported},
		{fsruntime.CodeInvalidParams, "Invalid params", "Attempting to read beyond the end of the file, line 9:0", fsruntime.ErrPastEnd},
		{fsruntime.CodeInvalidParams, "invalid path", nil, fs.ErrInvalid},
		{fsruntime.CodeRequestCancelled, "Request cancelled", nil, context.Canceled},
		{fsruntime.CodeAuthRequired, "Authentication required", nil, fs.ErrPermission},
		{-32603, "Internal error", "Binary files are not supported", nil},
		{1234, "custom", nil, nil},
	}
	p := ostest.HostPath("/p/x")
	for _, tt := range tests {
		ed := &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS(), Fail: func(string, json.RawMessage) *jsonrpc2.Error {
			e := &jsonrpc2.Error{Code: tt.code, Message: tt.message}
			if tt.data != nil {
				e.SetError(tt.data)
			}
			return e
		}}
		e := fsruntime.NewEditor(dialFakeEditor(t, ed), fsruntime.EditorOptions{SessionID: fixedSession("s")})
		_, err := e.ReadTextFile(t.Context(), p, 9, 1)
		var pe *fsruntime.PeerError
		if !errors.As(err, &pe) || pe.Code != tt.code {
			t.Errorf("code %d: err = %v, want a PeerError with the code", tt.code, err)
			continue
		}
		if tt.want != nil && !errors.Is(err, tt.want) {
			t.Errorf("code %d: err = %v, want it to match %v", tt.code, err, tt.want)
		}
		var path *fs.PathError
		if !errors.As(err, &path) || path.Path != p {
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
	e := fsruntime.NewEditor(us, fsruntime.EditorOptions{SessionID: fixedSession("s")})
	if err := e.WriteTextFile(t.Context(), ostest.HostPath("/p/x"), "y"); err != nil {
		t.Fatalf("write with {} result: %v", err)
	}
}

func TestEditorWaitsForSessionID(t *testing.T) {
	ed := &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS()}
	p := ostest.HostPath("/p/a")
	ed.Buffers.WriteTextFile(t.Context(), p, "x")
	bound := make(chan string, 1)
	e := fsruntime.NewEditor(dialFakeEditor(t, ed), fsruntime.EditorOptions{SessionID: func(ctx context.Context) (string, error) {
		select {
		case id := <-bound:
			return id, nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := e.ReadTextFile(ctx, p, 0, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("unbound and cancelled: err = %v", err)
	}
	bound <- "late"
	if _, err := e.ReadTextFile(t.Context(), p, 0, 0); err != nil {
		t.Fatal(err)
	}
	if c := ed.Requests(); len(c) != 1 || c[0].Params["sessionId"] != "late" {
		t.Errorf("calls = %v", c)
	}
}
