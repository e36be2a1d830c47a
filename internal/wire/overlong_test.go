package wire

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// TestEnvScanFindsTheTopLevelEnvelope feeds each line to the scan split at
// every pair of points, so that every escape, key and value is cut in every
// way, and checks what it finds.
func TestEnvScanFindsTheTopLevelEnvelope(t *testing.T) {
	tests := []struct {
		line   string
		kind   Kind
		id     string
		method string
	}{
		{`{"jsonrpc":"2.0","method":"fs/write_text_file","params":{"content":"x"},"id":7}`, KindRequest, "7", "fs/write_text_file"},
		{` {"id" : "a\"b" , "method" : "m" } `, KindRequest, `"a\"b"`, "m"},
		{`{"params":{"id":1,"method":"no"},"method":"yes","id":-1.5e3}`, KindRequest, "-1.5e3", "yes"},
		{`{"params":"\"id\":1,\\","method":"s\u002fu"}`, KindNotification, "", "s/u"},
		{`{"params":["}",{"x":"]"}],"\u0069d":null,"m\u0065thod":"n"}`, KindRequest, "null", "n"},
		{`{"id":3,"result":{"id":4,"content":"\\\\\"}"}}`, KindResponse, "3", ""},
		{`{"error":{"code":1,"message":"x"},"id":"z"}`, KindResponse, `"z"`, ""},
		{`{"method":"a","params":"\\"}`, KindNotification, "", "a"},
		// Not reported: ambiguous, or not one object.
		{`{"id":1,"id":2,"result":1}`, KindInvalid, "", ""},
		{`{"id":{},"method":"m"}`, KindInvalid, "", ""},
		{`{"id":true,"method":"m"}`, KindInvalid, "", ""},
		{`{"id":1,"method":2}`, KindInvalid, "", ""},
		{`{"id":1,"method":"m","result":1}`, KindInvalid, "", ""},
		{`{"id":1,"result":1,"error":{}}`, KindInvalid, "", ""},
		{`{"id":1}`, KindInvalid, "", ""},
		{`{"id":1,"method":"m"} {}`, KindInvalid, "", ""},
		{`{"id":1,"method":"m"`, KindInvalid, "", ""},
		{`{"id":1,"method":"m","params":"\"}`, KindInvalid, "", ""},
		{`[{"id":1,"method":"m"}]`, KindInvalid, "", ""},
		{`{"id":"` + strings.Repeat("i", maxValueCapture+1) + `","method":"m"}`, KindInvalid, "", ""},
		{`{"id":1,"method":"` + strings.Repeat("m", maxValueCapture+1) + `"}`, KindInvalid, "", ""},
		{`{"` + strings.Repeat("k", maxKeyCapture+1) + `":1,"method":"m"}`, KindNotification, "", "m"},
	}
	for _, tt := range tests {
		line := []byte(tt.line)
		check := func(pieces ...[]byte) {
			t.Helper()
			var s envScan
			s.reset()
			for _, p := range pieces {
				s.feed(p)
			}
			kind, id, method := s.result()
			if kind != tt.kind || string(id) != tt.id || method != tt.method {
				t.Fatalf("%s in pieces %q: got %v id %s method %q, want %v id %s method %q",
					tt.line, pieces, kind, id, method, tt.kind, tt.id, tt.method)
			}
		}
		if len(line) > 200 {
			check(line)
			check(line[:len(line)/2], line[len(line)/2:])
			continue
		}
		for i := range len(line) + 1 {
			for j := i; j <= len(line); j++ {
				check(line[:i], line[i:j], line[j:])
			}
		}
	}
}

// TestEnvScanFindsTheToolCalled checks that the scan reports the tool a
// tools/call request names, wherever "name" stands in its params, however
// the pieces cut the line, and only when the line is such a request.
func TestEnvScanFindsTheToolCalled(t *testing.T) {
	for _, tt := range []struct {
		line, tool string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_text_file","arguments":{"path":"a","content":"x\"}"}}}`, "write_text_file"},
		{`{"params":{"arguments":{"name":"inner","content":"{[\\"},"name":"w\u0072ite"},"method":"tools/call","id":"a"}`, "write"},
		{`{"id":1,"method":"tools/call","params":{"_meta":{"name":"no"},"name" : "edit_text_file" }}`, "edit_text_file"},
		// Not reported.
		{`{"id":1,"method":"tools/list","params":{"name":"x"}}`, ""},
		{`{"method":"tools/call","params":{"name":"x"}}`, ""},
		{`{"id":1,"method":"tools/call","params":{"name":"x","name":"y"}}`, ""},
		{`{"id":1,"method":"tools/call","params":{"name":7}}`, ""},
		{`{"id":1,"method":"tools/call","params":{"arguments":{"name":"x"}}}`, ""},
		{`{"id":1,"method":"tools/call","params":["name","x"]}`, ""},
		{`{"id":1,"method":"tools/call","params":{"name":"x"}`, ""},
	} {
		line := []byte(tt.line)
		for i := range len(line) + 1 {
			for j := i; j <= len(line); j++ {
				var s envScan
				s.reset()
				s.feed(line[:i])
				s.feed(line[i:j])
				s.feed(line[j:])
				if got := s.tool(); got != tt.tool {
					t.Fatalf("%s in pieces at %d, %d: tool %q, want %q", tt.line, i, j, got, tt.tool)
				}
			}
		}
	}
}

// TestEnvScanCarriesBackslashRunsAcrossPieces checks that whether a quote
// is escaped is decided by the whole run of backslashes before it, however
// the pieces cut that run.
func TestEnvScanCarriesBackslashRunsAcrossPieces(t *testing.T) {
	for run := range 7 {
		// With an even run the string ends at the quote and the id that
		// follows is top-level; with an odd one the quote is escaped, and
		// the next one ends the string.
		line := `{"method":"m","params":"` + strings.Repeat(`\`, run) + `","id":5}`
		want := KindRequest
		if run%2 == 1 {
			line = `{"method":"m","params":"` + strings.Repeat(`\`, run) + `""}`
			want = KindNotification
		}
		if !json.Valid([]byte(line)) {
			t.Fatalf("test line %s is not JSON", line)
		}
		for cut := len(`{"method":"m","params":"`); cut <= len(`{"method":"m","params":"`)+run; cut++ {
			for _, step := range []int{1, 2, 3} {
				var s envScan
				s.reset()
				s.feed([]byte(line[:cut]))
				for i := cut; i < len(line); i += step {
					s.feed([]byte(line[i:min(i+step, len(line))]))
				}
				if kind, _, _ := s.result(); kind != want {
					t.Errorf("%d backslashes, cut at %d, pieces of %d: kind %v, want %v", run, cut, step, kind, want)
				}
			}
		}
	}
}

// TestOverlongErrorText checks the words sent back to a peer.
func TestOverlongErrorText(t *testing.T) {
	for _, tt := range []struct {
		e    OverlongError
		want string
	}{
		{OverlongError{Kind: KindRequest, ID: json.RawMessage(`"a"`), Method: "tools/call", Len: 100 << 20, Max: 64 << 20},
			`request id "a" ("tools/call") of 100.0 MiB exceeds the 64.0 MiB limit on one message`},
		{OverlongError{Kind: KindResponse, ID: json.RawMessage(`3`), Len: 1536, Max: 1024},
			`response to request id 3 of 1.5 KiB exceeds the 1.0 KiB limit on one message`},
		{OverlongError{Kind: KindNotification, Method: "session/update", Len: 3 << 30, Max: 512},
			`notification "session/update" of 3.0 GiB exceeds the 512 bytes limit on one message`},
		{OverlongError{Len: 70 << 20, Max: 64 << 20}, `message of 70.0 MiB exceeds the 64.0 MiB limit on one message`},
	} {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

// TestStreamAnswersOverlongRequestAndFailsOverlongResponse: through a
// jsonrpc2.Conn, an overlong request gets an error naming the limit, and a
// call whose response is overlong fails at once; the connection goes on.
func TestStreamAnswersOverlongRequestAndFailsOverlongResponse(t *testing.T) {
	const maxLine = 4 << 10
	a, b := net.Pipe()
	b.SetDeadline(time.Now().Add(20 * time.Second)) // a hang guard
	conn := jsonrpc2.NewConn(t.Context(), NewObjectStream(a, ReaderOptions{MaxLineSize: maxLine, Logger: discardLogger}), echo,
		jsonrpc2.SetLogger(log.New(io.Discard, "", 0)))
	defer b.Close()
	defer conn.Close()
	peer := &testPeer{t: t, conn: b, r: NewReader(b, ReaderOptions{Logger: discardLogger}), w: NewWriter(b)}

	big := strings.Repeat("x", 2*maxLine)
	peer.send(`{"jsonrpc":"2.0","method":"big","params":["` + big + `"],"id":41}`)
	reply := peer.next()
	e, err := reply.DecodeError()
	if err != nil || string(reply.ID) != "41" || e.Code != CodeInvalidRequest ||
		!strings.Contains(e.Message, `request id 41 ("big")`) || !strings.Contains(e.Message, "exceeds the 4.0 KiB limit") {
		t.Fatalf("answer to an overlong request = %s", reply.Raw)
	}

	called := make(chan error, 1)
	go func() { called <- conn.Call(context.Background(), "fetch", nil, new(json.RawMessage)) }()
	req := peer.next()
	peer.send(`{"jsonrpc":"2.0","result":"` + big + `","id":` + string(req.ID) + `}`)
	err = <-called
	var rpc *jsonrpc2.Error
	if !errors.As(err, &rpc) || rpc.Code != CodeInternalError || !strings.Contains(rpc.Message, "response to request id "+string(req.ID)) {
		t.Fatalf("call whose response is overlong = %v", err)
	}

	// The connection still works.
	go func() { called <- conn.Call(context.Background(), "fetch", nil, new(json.RawMessage)) }()
	req = peer.next()
	peer.send(`{"jsonrpc":"2.0","result":1,"id":` + string(req.ID) + `}`)
	if err := <-called; err != nil {
		t.Fatalf("call after the overlong lines = %v", err)
	}
}
