package fsruntime_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
)

// cancelRecorder is an editor that answers "ping" at once, never answers
// an fs request, and records the ids of both and of every
// $/cancel_request it receives.
type cancelRecorder struct {
	mu        sync.Mutex
	requests  []jsonrpc2.ID
	cancelled []json.RawMessage
	got       chan struct{}
}

func (c *cancelRecorder) Handle(ctx context.Context, conn *jsonrpc2.Conn, r *jsonrpc2.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case r.Method == fsruntime.MethodCancelRequest:
		var p struct{ RequestID json.RawMessage }
		json.Unmarshal(*r.Params, &p)
		c.cancelled = append(c.cancelled, p.RequestID)
		c.got <- struct{}{}
	case r.Method == "ping":
		c.requests = append(c.requests, r.ID)
		go conn.Reply(ctx, r.ID, "pong")
	case !r.Notif:
		c.requests = append(c.requests, r.ID)
	}
}

// TestEditorCancelRequest: through a plain *jsonrpc2.Conn, as an agent
// that embeds the bridge has, an abandoned fs request is cancelled at the
// editor with $/cancel_request naming its id, both when the Editor's
// timeout passes and when the caller gives up; the Editor's ids never
// equal those the connection numbers for the agent's own requests.
func TestEditorCancelRequest(t *testing.T) {
	t.Parallel()
	a, b := net.Pipe()
	ctx := context.WithoutCancel(t.Context())
	ed := &cancelRecorder{got: make(chan struct{}, 8)}
	edConn := jsonrpc2.NewConn(ctx, jsonrpc2.NewPlainObjectStream(a), jsonrpc2.AsyncHandler(ed))
	us := jsonrpc2.NewConn(ctx, jsonrpc2.NewPlainObjectStream(b), jsonrpc2.AsyncHandler(jsonrpc2.HandlerWithError(func(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) (any, error) { return nil, nil })))
	t.Cleanup(func() { us.Close(); edConn.Close() })
	e := fsruntime.NewEditor(us, fsruntime.EditorOptions{SessionID: fixedSession("s"), Timeout: 100 * time.Millisecond})
	p := ostest.HostPath("/p/never.txt")

	// The agent's own requests on the same connection, numbered by it.
	for range 3 {
		if err := us.Call(t.Context(), "ping", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	var te *fsruntime.EditorTimeoutError
	if _, err := e.ReadTextFile(t.Context(), p, 0, 0); !errors.As(err, &te) {
		t.Fatalf("a read never answered: %v, want an EditorTimeoutError", err)
	}
	// An Editor whose timeout cannot win the race with the caller's cancel.
	patient := fsruntime.NewEditor(us, fsruntime.EditorOptions{SessionID: fixedSession("s"), Timeout: time.Minute})
	cctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(50*time.Millisecond, cancel)
	if err := patient.WriteTextFile(cctx, p, "x"); !errors.Is(err, context.Canceled) {
		t.Fatalf("a write its caller cancelled: %v, want context.Canceled", err)
	}
	for range 2 {
		select {
		case <-ed.got:
		case <-time.After(5 * time.Second):
			t.Fatal("the editor was not sent $/cancel_request")
		}
	}
	ed.mu.Lock()
	defer ed.mu.Unlock()
	if len(ed.requests) != 5 || len(ed.cancelled) != 2 {
		t.Fatalf("requests %v, cancelled %s: want 5 and 2", ed.requests, ed.cancelled)
	}
	seen := map[string]bool{}
	for _, id := range ed.requests {
		if seen[id.String()] {
			t.Errorf("two requests share id %s: %v", id, ed.requests)
		}
		seen[id.String()] = true
	}
	for i, raw := range ed.cancelled {
		var id jsonrpc2.ID
		if err := json.Unmarshal(raw, &id); err != nil {
			t.Fatal(err)
		}
		if want := ed.requests[3+i]; id != want || !strings.HasPrefix(id.Str, "acpfs-") {
			t.Errorf("$/cancel_request %d names %s, want the fs request's id %s", i, raw, want)
		}
	}
}
