package mcptransport

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

// overlongServer serves a file server of its own over HTTP, as
// NewHTTPHandler does with token "tok", but with a limit of 1 MiB on a
// request body, read on up to scan bytes past it. It returns the
// endpoint's URL and the directory served.
func overlongServer(t *testing.T, scan int64) (string, string) {
	t.Helper()
	dir := t.TempDir()
	disk, err := fsruntime.OpenDisk([]string{dir}, fsruntime.DiskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { disk.Close() })
	files := mcpfs.DiskFiles(disk, false)
	srv, err := mcpfs.NewServer(files, mcpfs.Options{Tools: structuredTools})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(newHTTPHandler(srv, "tok", mcpfs.TransportOptions(files, nil), 1<<20, scan))
	t.Cleanup(ts.Close)
	return ts.URL + EndpointPath, dir
}

// xs yields n x's without holding them.
type xs struct{ n int64 }

var xBlock = []byte(strings.Repeat("x", 32<<10))

func (r *xs) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(int64(len(p)), r.n)], xBlock)
	r.n -= int64(n)
	return n, nil
}

// longBody is a request body of n bytes: head, x's, tail.
func longBody(head string, n int64, tail string) io.Reader {
	return io.MultiReader(strings.NewReader(head), &xs{n - int64(len(head)+len(tail))}, strings.NewReader(tail))
}

// writeCall is the head and tail of a tools/call of write_text_file with
// id after the arguments (as the TypeScript SDK writes), or before them.
func writeCall(id string, idLast bool) (string, string) {
	if idLast {
		return `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"write_text_file","arguments":{"path":"big.txt","content":"`,
			`"}},"id":` + id + `}`
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"write_text_file","arguments":{"path":"big.txt","content":"`,
		`"}}}`
}

// longPost posts body to url with the bearer token "tok", the headers of
// hdr, and a Content-Length of n if known, and returns the status and the
// body of the answer.
func longPost(t *testing.T, url string, body io.Reader, n int64, known bool, hdr map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, io.NopCloser(body))
	if err != nil {
		t.Fatal(err)
	}
	if known {
		req.ContentLength = n
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer tok")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST of %d bytes: %v", n, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(b)
}

// modern marks a request as one of the stateless 2026-07-28 era.
var modern = map[string]string{"Mcp-Protocol-Version": "2026-07-28"}

// wantToolError fails unless an answer is a 200 with the tool error of
// stdio for a call of write_text_file of size with id.
func wantToolError(t *testing.T, what string, status int, body, id, size string) {
	t.Helper()
	var m struct {
		ID     json.RawMessage `json:"id"`
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	want := "write_text_file: the call of " + size + " exceeds the 1.0 MiB limit on one message, and was not carried out; send less content"
	if err := json.Unmarshal([]byte(body), &m); status != http.StatusOK || err != nil || string(m.ID) != id ||
		!m.Result.IsError || len(m.Result.Content) != 1 || m.Result.Content[0].Text != want {
		t.Errorf("%s: status %d, body %.400s; want 200 and a tool error for id %s: %q", what, status, body, id, want)
	}
}

// A body over the limit that is one tools/call request is read to its end
// through the envelope scan, without being kept, and answered as stdio
// answers such a line: a tool error that names the tool and the sizes, in
// a JSON-RPC result for its id; the call is not carried out. The session
// is checked first: in the 2025-11-25 era, one that is unknown gets 404
// and a missing one 400, and a wrong token gets 401 before anything.
func TestHTTPOverlongToolCall(t *testing.T) {
	url, dir := overlongServer(t, overlongScan)
	const n = 3 << 20
	for _, known := range []bool{false, true} {
		for _, idLast := range []bool{false, true} {
			head, tail := writeCall(`"w"`, idLast)
			status, body := longPost(t, url, longBody(head, n, tail), n, known, modern)
			wantToolError(t, fmt.Sprintf("stateless call (length known: %v, id last: %v)", known, idLast), status, body, `"w"`, "3.0 MiB")
		}
	}

	// A session of the 2025-11-25 era.
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(init))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer tok")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: status %d, session %q", resp.StatusCode, sid)
	}
	head, tail := writeCall("7", true)
	status, body := longPost(t, url, longBody(head, n, tail), n, false, map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"})
	wantToolError(t, "call in a session", status, body, "7", "3.0 MiB")

	for _, c := range []struct {
		what   string
		hdr    map[string]string
		status int
		text   string
	}{
		{"unknown session", map[string]string{"Mcp-Session-Id": "never-issued"}, http.StatusNotFound, "session not found"},
		{"no session", nil, http.StatusBadRequest, "Mcp-Session-Id header is missing"},
		{"wrong token", map[string]string{"Authorization": "Bearer wrong", "Mcp-Protocol-Version": "2026-07-28"}, http.StatusUnauthorized, "bearer token is wrong"},
	} {
		for _, known := range []bool{false, true} {
			status, body := longPost(t, url, longBody(head, n, tail), n, known, c.hdr)
			if status != c.status || !strings.Contains(body, c.text) {
				t.Errorf("%s (length known: %v): status %d, body %.300s; want %d and %q", c.what, known, status, body, c.status, c.text)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "big.txt")); err == nil {
		t.Error("an overlong write was carried out")
	}
}

// A body over the limit that is not one tools/call request keeps the
// transport's error, which names the limit: another method, a
// notification, a call that names no tool, a batch, garbage. The body is
// read on only while it may be such a call: the error names the size of
// a body of unknown length only when it was read to its end. A tools/call
// past the bound of the scan, or announced as such, is refused too.
func TestHTTPOverlongOtherwiseRefused(t *testing.T) {
	const n = 3 << 20
	url, _ := overlongServer(t, overlongScan)
	for _, c := range []struct {
		what, head, tail string
		read             bool // to its end
	}{
		{"another method", `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///`, `"}}`, false},
		{"a batch", `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_text_file","arguments":{"content":"`, `"}}}]`, false},
		{"garbage", `xx`, ``, false},
		{"a notification", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"write_text_file","arguments":{"content":"`, `"}}}`, true},
		{"no tool named", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"content":"`, `"}}}`, true},
		{"a call cut short", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_text_file","arguments":{"content":"`, ``, true},
	} {
		for _, known := range []bool{false, true} {
			want := "the request body exceeds the 1.0 MiB limit on one message"
			if known || c.read {
				want = "the request body of 3.0 MiB exceeds the 1.0 MiB limit on one message"
			}
			status, body := longPost(t, url, longBody(c.head, n, c.tail), n, known, modern)
			if status < 400 || !strings.Contains(body, want) || strings.Contains(body, "isError") {
				t.Errorf("%s (length known: %v): status %d, body %.300s; want a transport error: %q", c.what, known, status, body, want)
			}
		}
	}

	// Past the bound of the scan: a body of 3 MiB with a limit of 1 MiB
	// read on for at most 1 MiB more.
	url, _ = overlongServer(t, 1<<20)
	head, tail := writeCall("2", false)
	status, body := longPost(t, url, longBody(head, n, tail), n, false, modern)
	if status < 400 || !strings.Contains(body, "exceeds the 1.0 MiB limit on one message") {
		t.Errorf("a call past the bound of the scan: status %d, body %.300s; want a transport error naming the limit", status, body)
	}
	// Announced past it: refused unread.
	status, body = longPost(t, url, longBody(head, n, tail), n, true, modern)
	if status != http.StatusRequestEntityTooLarge || !strings.Contains(body, "the request body of 3.0 MiB exceeds the 1.0 MiB limit on one message") {
		t.Errorf("a call announced past the bound of the scan: status %d, body %.300s; want 413 naming the sizes", status, body)
	}
}

// The scan of an overlong body holds what the limit allows and a buffer:
// a 200 MiB call with a limit of 1 MiB is answered with its tool error
// while the process allocates far less than the body in all.
func TestHTTPOverlongBoundedMemory(t *testing.T) {
	url, _ := overlongServer(t, overlongScan)
	const n = 200 << 20
	head, tail := writeCall("9", true)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	status, body := longPost(t, url, longBody(head, n, tail), n, false, modern)
	runtime.ReadMemStats(&after)
	wantToolError(t, "a 200 MiB call", status, body, "9", "200.0 MiB")
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated %.1f MiB for a %d MiB body", float64(alloc)/(1<<20), n>>20)
	if alloc > 32<<20 {
		t.Errorf("allocated %d MiB for a %d MiB body with a 1 MiB limit: the body was held", alloc>>20, n>>20)
	}
}
