package wire

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// A testPeer is the far end of a net.Pipe, speaking raw lines.
type testPeer struct {
	t    *testing.T
	conn net.Conn
	r    *Reader
	w    *Writer
}

// send writes lines from another goroutine: net.Pipe is synchronous, and
// the Conn may be writing to us at the same time.
func (p *testPeer) send(lines ...string) {
	go func() {
		for _, l := range lines {
			if err := p.w.Write([]byte(l)); err != nil {
				return // the test has ended
			}
		}
	}()
}

func (p *testPeer) next() Message {
	p.t.Helper()
	m, err := p.r.Next()
	if err != nil {
		p.t.Fatalf("peer: reading: %v", err)
	}
	return m
}

type handlerFunc func(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request)

func (f handlerFunc) Handle(ctx context.Context, c *jsonrpc2.Conn, r *jsonrpc2.Request) { f(ctx, c, r) }

// echo answers every request with its params.
var echo = jsonrpc2.AsyncHandler(jsonrpc2.HandlerWithError(
	func(_ context.Context, _ *jsonrpc2.Conn, r *jsonrpc2.Request) (any, error) {
		return r.Params, nil
	}))

// startConn runs a jsonrpc2.Conn with handler h over an ObjectStream on one end of
// a net.Pipe and returns it with the peer at the other end.
func startConn(t *testing.T, h jsonrpc2.Handler) (*jsonrpc2.Conn, *testPeer, *logRecorder) {
	t.Helper()
	a, b := net.Pipe()
	// A deadline turns a lost message into a failure rather than a hang.
	b.SetDeadline(time.Now().Add(20 * time.Second))
	logs := &logRecorder{}
	stream := NewObjectStream(a, ReaderOptions{Logger: slog.New(logs), Label: "editor"})
	c := jsonrpc2.NewConn(t.Context(), stream, h, jsonrpc2.SetLogger(log.New(io.Discard, "", 0)))
	t.Cleanup(func() {
		c.Close()
		b.Close()
	})
	return c, &testPeer{t: t, conn: b, r: NewReader(b, ReaderOptions{Label: "test peer"}), w: NewWriter(b)}, logs
}

func TestObjectStreamRoundTripsIDsJSONRPC2CannotRepresent(t *testing.T) {
	_, peer, _ := startConn(t, echo)
	ids := []string{
		`-5`, `-0`, `1.5`, `1e3`, `-1.5E-7`, `0.0`, `null`,
		`18446744073709551616`, // over uint64
		`9223372036854775808`,  // over int64, which jsonrpc2 uses for requests
		`"wire-alias:-5"`,      // looks like an alias
		`"wire-alias:"`,
		`"esc\u00e9\"\\"`, // escapes
		"\"bad\xffutf8\"", // invalid UTF-8 would become U+FFFD
		`"lone\ud800"`,    // so would a lone surrogate
		`0`, `42`, `9223372036854775807`, `"abc"`, `""`, `"` + strings.Repeat("k", 100_000) + `"`,
	}
	for i, id := range ids {
		peer.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"echo","params":{"i":%d}}`, id, i))
		m := peer.next()
		if m.Kind() != KindResponse || string(m.ID) != id || string(m.Result) != fmt.Sprintf(`{"i":%d}`, i) {
			t.Errorf("request with id %.40s: reply %.120s, want the same id and the params echoed", id, m.Raw)
		}
	}
}

func TestObjectStreamSkipsMalformedLinesWithoutClosingTheConn(t *testing.T) {
	c, peer, logs := startConn(t, echo)
	peer.send(
		`{"jsonrpc":"2.0","id":1,"method":"echo","params":["one"]}`,
		`{"jsonrpc":"2.0","id":`,
		`[{"jsonrpc":"2.0","id":9,"method":"echo"}]`,
		`{"jsonrpc":"2.0","id":true,"method":"echo"}`,
		`{"jsonrpc":"2.0","id":2,"method":"echo","params":["two"]}`,
	)
	got := map[string]string{}
	for range 2 {
		m := peer.next()
		got[string(m.ID)] = string(m.Result)
	}
	if got["1"] != `["one"]` || got["2"] != `["two"]` {
		t.Errorf("replies = %v, want both valid requests answered", got)
	}
	select {
	case <-c.DisconnectNotify():
		t.Fatal("the Conn closed")
	default:
	}
	var reasons []string
	for _, rec := range logs.records() {
		if rec.Attrs["peer"] != "editor" {
			t.Errorf("log record %+v does not name the peer", rec)
		}
		reasons = append(reasons, rec.Attrs["reason"].(string))
	}
	if len(reasons) != 3 || !strings.Contains(reasons[1], "batches") {
		t.Errorf("logged reasons %q, want one per bad line", reasons)
	}
}

func TestObjectStreamKeepsNotificationOrder(t *testing.T) {
	var (
		mu  sync.Mutex
		got []int
	)
	h := handlerFunc(func(ctx context.Context, c *jsonrpc2.Conn, r *jsonrpc2.Request) {
		if r.Notif {
			var p struct{ I int }
			json.Unmarshal(*r.Params, &p)
			mu.Lock()
			got = append(got, p.I)
			mu.Unlock()
			return
		}
		go c.Reply(ctx, r.ID, "done")
	})
	_, peer, _ := startConn(t, h)
	const n = 300
	var lines []string
	for i := range n {
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"i":%d}}`, i))
		if i%50 == 25 {
			lines = append(lines, `{"jsonrpc":"2.0","method":"session/update","params":`) // malformed
		}
	}
	lines = append(lines, `{"jsonrpc":"2.0","id":-1,"method":"sync"}`)
	peer.send(lines...)
	if m := peer.next(); string(m.ID) != "-1" || string(m.Result) != `"done"` {
		t.Fatalf("sync reply = %s", m.Raw)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != n {
		t.Fatalf("handled %d notifications, want %d", len(got), n)
	}
	for i, v := range got {
		if v != i {
			t.Fatalf("notification %d handled in position %d", v, i)
		}
	}
}

func TestObjectStreamAnswersRequestJSONRPC2CannotDecode(t *testing.T) {
	c, peer, logs := startConn(t, echo)
	// Well formed, but jsonrpc2 matches "Result" to its result field
	// case-insensitively and then cannot tell request from response.
	peer.send(
		`{"jsonrpc":"2.0","id":-3,"method":"echo","Result":1}`,
		`{"jsonrpc":"2.0","method":"note","Result":1}`,
		`{"jsonrpc":"2.0","id":4,"method":"echo","params":[4]}`,
	)
	m := peer.next()
	e, err := m.DecodeError()
	if string(m.ID) != "-3" || err != nil || e.Code != CodeInvalidRequest {
		t.Errorf("reply to an undecodable request = %s, want error %d with id -3", m.Raw, CodeInvalidRequest)
	}
	if m := peer.next(); string(m.ID) != "4" || string(m.Result) != "[4]" {
		t.Errorf("next reply = %s, want the echo of request 4", m.Raw)
	}
	if n := len(logs.records()); n != 2 {
		t.Errorf("got %d log records, want 2", n)
	}
	select {
	case <-c.DisconnectNotify():
		t.Fatal("the Conn closed")
	default:
	}
}

func TestObjectStreamIgnoresResponsesThatMatchNoCall(t *testing.T) {
	c, peer, logs := startConn(t, echo)
	type result struct {
		Content string `json:"content"`
		err     error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		r.err = c.Call(t.Context(), "fs/read_text_file", map[string]string{"path": "/a"}, &r)
		done <- r
	}()
	req := peer.next()
	if req.Method != "fs/read_text_file" || string(req.ID) != "0" {
		t.Fatalf("peer got %s, want fs/read_text_file with id 0", req.Raw)
	}
	peer.send(
		// A null id would decode as 0 and resolve the call with an error.
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		`{"jsonrpc":"2.0","id":-0,"result":{"content":"minus zero"}}`,
		`{"jsonrpc":"2.0","id":0.0,"result":{"content":"fraction"}}`,
		// jsonrpc2 cannot decode this error object; it must not close the Conn.
		`{"jsonrpc":"2.0","id":0,"error":{"code":"bad","message":1}}`,
		`{"jsonrpc":"2.0","id":0,"result":{"content":"ok"}}`,
	)
	r := <-done
	if r.err != nil || r.Content != "ok" {
		t.Fatalf("Call = %q, %v; want the one proper response", r.Content, r.err)
	}
	if recs := logs.records(); len(recs) != 1 || !strings.Contains(recs[0].Msg, "cannot decode") {
		t.Errorf("log records = %+v, want one for the undecodable error object", recs)
	}
}

func TestObjectStreamLeavesOutgoingRequestIDsAlone(t *testing.T) {
	c, peer, _ := startConn(t, echo)
	done := make(chan error, 1)
	go func() {
		var s string
		err := c.Call(t.Context(), "x", nil, &s, jsonrpc2.PickID(jsonrpc2.ID{Str: "wire-alias:-1", IsString: true}))
		if err == nil && s != "ok" {
			err = fmt.Errorf("result %q", s)
		}
		done <- err
	}()
	req := peer.next()
	if string(req.ID) != `"wire-alias:-1"` {
		t.Errorf("outgoing request id = %s, want it unchanged", req.ID)
	}
	peer.send(`{"jsonrpc":"2.0","id":"wire-alias:-1","result":"ok"}`)
	if err := <-done; err != nil {
		t.Errorf("Call: %v", err)
	}
}

func TestObjectStreamEndsAtEOF(t *testing.T) {
	c, peer, _ := startConn(t, echo)
	peer.conn.Close()
	select {
	case <-c.DisconnectNotify():
	case <-time.After(10 * time.Second):
		t.Fatal("the Conn did not close when the peer hung up")
	}
}
