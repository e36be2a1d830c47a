package mcptransport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpfstest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpserve"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
	"github.com/mcp-acpfs/mcp-acpfs/mcptransport"
)

// bigText is n bytes or more of text with everything JSON escapes.
func bigText(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%d: a \"quote\" a \\ backslash\\\" a tab\t a bell\x07 \u2028 é 😀 <&>\n", i)
	}
	return b.String()
}

// Large contents pass through the stdio transport unchanged both ways,
// in both protocol eras and every serving: written, read back (text and structured content),
// and edited with large old and new texts.
func TestStdioLargeContents(t *testing.T) {
	for _, era := range mcpfstest.Eras {
		for _, sv := range mcpfstest.Servings {
			t.Run(era.Name+"/"+sv.Name, func(t *testing.T) {
				f := mcpfstest.NewFixtureMax(t, 4<<20)
				c := mcpfstest.StdioClient(t, f.Srv, sv.Transport(t, f), era.Version)
				content := bigText(300 << 10)

				mcpfstest.WantOK(t, mcpfstest.Call(t, c, mcpfs.WriteTextFile, map[string]any{"path": "big.txt", "content": content}))
				if got, _ := os.ReadFile(f.Path("big.txt")); string(got) != content {
					t.Fatalf("the file written has %d bytes, want the %d sent", len(got), len(content))
				}

				res := mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": "big.txt"})
				if got := mcpfstest.WantOK(t, res); got != content {
					t.Errorf("read back %d bytes of text, want %d", len(got), len(content))
				}
				var out struct {
					Content   string `json:"content"`
					LineCount int    `json:"lineCount"`
					SHA256    string `json:"sha256"`
				}
				raw, _ := json.Marshal(res.StructuredContent)
				if err := json.Unmarshal(raw, &out); err != nil || out.Content != content || out.LineCount != strings.Count(content, "\n") {
					t.Errorf("structured content: %d bytes, %d lines, %v", len(out.Content), out.LineCount, err)
				}

				// Whole lines from about 1 KB to about 40 KB.
				from := strings.IndexByte(content[1000:], '\n') + 1001
				to := strings.IndexByte(content[40000:], '\n') + 40001
				old := content[from:to]
				repl := strings.ToUpper(old) + "new" + bigText(20<<10)
				mcpfstest.WantOK(t, mcpfstest.Call(t, c, mcpfs.EditTextFile, map[string]any{"path": "big.txt", "expectedHash": out.SHA256,
					"edits": []map[string]any{{"oldText": old, "newText": repl}}}))
				if got, _ := os.ReadFile(f.Path("big.txt")); string(got) != content[:from]+repl+content[to:] {
					t.Errorf("the file edited has %d bytes, want %d", len(got), len(content)-len(old)+len(repl))
				}
			})
		}
	}
}

// A server served with the zero Options gets its arguments as sent:
// nothing is lifted unless the options name it.
func TestStdioOtherServerGetsArgumentsAsSent(t *testing.T) {
	srv := server.NewMCPServer("other", "1")
	srv.AddTool(mcp.NewTool(mcpfs.WriteTextFile, mcp.WithString("content")),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(req.GetString("content", "")), nil
		})
	c := mcpfstest.StdioClient(t, srv, mcptransport.Options{}, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	content := bigText(64 << 10)
	if got := mcpfstest.WantOK(t, mcpfstest.Call(t, c, mcpfs.WriteTextFile, map[string]any{"content": content})); got != content {
		t.Errorf("the tool got %d bytes starting %.60q, want the %d sent", len(got), got, len(content))
	}
}

// A request too long to read is answered, and the stream goes on: a tool
// call with a tool error that names the tool and the sizes (the model
// that made the call sees it), any other request with a JSON-RPC error.
func TestStdioOverlongRequest(t *testing.T) {
	f := mcpfstest.NewFixture(t, false)
	f.WriteFile(t, "a.txt", "a\n")
	toServer, r := mcpfstest.RawStdio(t, f.Srv, f.Transport(t))
	go func() {
		chunk := strings.Repeat("x", 1<<20)
		for _, line := range [][2]string{
			{`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"write_text_file","arguments":{"path":"x.txt","content":"`, `"}}}`},
			{`{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"file:///`, `"}}`},
		} {
			io.WriteString(toServer, line[0])
			for range 65 {
				if _, err := io.WriteString(toServer, chunk); err != nil {
					return
				}
			}
			io.WriteString(toServer, line[1]+"\n")
		}
		io.WriteString(toServer, `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"a.txt"}}}`+"\n")
	}()
	got := map[string]string{}
	for len(got) < 3 {
		id, line := mcpfstest.ResponseID(t, r)
		got[id] = line
	}
	if !strings.Contains(got["5"], `"isError":true`) ||
		!strings.Contains(got["5"], "write_text_file: the call of 65.0 MiB exceeds the 64.0 MiB limit on one message") {
		t.Errorf("the overlong tool call's response: %.300s", got["5"])
	}
	if !strings.Contains(got["7"], `"error"`) || !strings.Contains(got["7"], `request id 7 (\"resources/read\")`) ||
		!strings.Contains(got["7"], "exceeds the 64.0 MiB limit") {
		t.Errorf("the overlong request's response: %.300s", got["7"])
	}
	if !strings.Contains(got["6"], `"text":"a\n"`) {
		t.Errorf("the next request's response: %.300s", got["6"])
	}
	if _, err := os.Stat(f.Path("x.txt")); err == nil {
		t.Error("the overlong write was carried out")
	}
}

// A file size limit over what the default message limit can carry raises
// the message limit with it: a write of 34 MiB of newlines, a 68 MiB
// line once JSON-escaped, is refused by a server at the default limits
// and carried out by one whose file size limit is 40 MiB.
func TestStdioMessageLimitFollowsMaxFileSize(t *testing.T) {
	if got, want := mcpserve.MessageLimit(0), 64<<20; got != want {
		t.Errorf("MessageLimit(0) = %d, want the default %d", got, want)
	}
	if got, want := mcpserve.MessageLimit(100<<20), 601<<20; got != want {
		t.Errorf("MessageLimit(100 MiB) = %d, want %d", got, want)
	}
	if got := mcpserve.MessageLimit(math.MaxInt64); got <= 64<<20 {
		t.Errorf("MessageLimit(MaxInt64) = %d, an overflow", got)
	}
	const size = 34 << 20
	content := strings.Repeat("\n", size)
	line := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"write_text_file","arguments":{"path":"big.txt","content":"` +
		strings.Repeat(`\n`, size) + `"}}}` + "\n"
	for _, tc := range []struct {
		maxFileSize int64
		want        string
	}{
		{0, "exceeds the 64.0 MiB limit"},
		{40 << 20, `"bytesWritten":` + strconv.Itoa(size)},
	} {
		dir := t.TempDir()
		d, err := fsruntime.OpenDisk([]string{dir}, fsruntime.DiskOptions{MaxFileSize: tc.maxFileSize, NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		files := mcpfs.DiskFiles(d, false)
		srv, err := mcpfs.NewServer(files, mcpfs.Options{Tools: mcpfstest.Structured})
		if err != nil {
			t.Fatal(err)
		}
		toServer, r := mcpfstest.RawStdio(t, srv, mcpfs.TransportOptions(files, nil))
		go io.WriteString(toServer, line)
		if _, resp := mcpfstest.ResponseID(t, r); !strings.Contains(resp, tc.want) {
			t.Errorf("max file size %d: the response %.300s lacks %s", tc.maxFileSize, resp, tc.want)
		}
		got, err := os.ReadFile(filepath.Join(dir, "big.txt"))
		if written := err == nil && string(got) == content; written != (tc.maxFileSize > 0) {
			t.Errorf("max file size %d: the file written %v (%d bytes, %v)", tc.maxFileSize, written, len(got), err)
		}
		d.Close()
	}
}

// A file at the size limit fits in a message however much of it JSON
// escapes: a write of 11 MiB of control characters, each one \u00XX (six
// bytes) in the message, to a server whose file size limit is 11 MiB.
func TestStdioFileAtTheLimitFitsEscaped(t *testing.T) {
	const size = 11 << 20
	dir := t.TempDir()
	d, err := fsruntime.OpenDisk([]string{dir}, fsruntime.DiskOptions{MaxFileSize: size, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	files := mcpfs.DiskFiles(d, false)
	srv, err := mcpfs.NewServer(files, mcpfs.Options{Tools: mcpfstest.Structured})
	if err != nil {
		t.Fatal(err)
	}
	toServer, r := mcpfstest.RawStdio(t, srv, mcpfs.TransportOptions(files, nil))
	go io.WriteString(toServer, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"write_text_file","arguments":{"path":"ctl.txt","content":"`+
		strings.Repeat(`\u0001`, size)+`"}}}`+"\n")
	if _, resp := mcpfstest.ResponseID(t, r); !strings.Contains(resp, `"bytesWritten":`+strconv.Itoa(size)) {
		t.Errorf("the response %.300s, want the write done", resp)
	}
	if info, err := os.Stat(filepath.Join(dir, "ctl.txt")); err != nil || info.Size() != size {
		t.Errorf("ctl.txt: %v, %v", info, err)
	}
}

// At most 64 requests are served at once: the 65th is read only when one
// of them is answered.
func TestStdioBoundsRequestsInFlight(t *testing.T) {
	const bound = 64
	release := make(chan struct{})
	var running atomic.Int32
	started := make(chan struct{}, 2*bound)
	fsys := funcFS{read: func(ctx context.Context, path string, _, _ int) (string, error) {
		running.Add(1)
		started <- struct{}{}
		defer running.Add(-1)
		select {
		case <-release:
			return "content of " + path, nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}}
	files := mcpfs.Files{WorkDir: ostest.HostPath("/w"), FS: fsys}
	srv, err := mcpfs.NewServer(files, mcpfs.Options{Tools: mcpfstest.Structured})
	if err != nil {
		t.Fatal(err)
	}
	toServer, r := mcpfstest.RawStdio(t, srv, mcpfs.TransportOptions(files, nil))
	var reqs strings.Builder
	for i := 1; i <= bound; i++ {
		fmt.Fprintf(&reqs, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"f%d"}}}`+"\n", i, i)
	}
	reqs.WriteString(`{"jsonrpc":"2.0","id":"ping","method":"ping"}` + "\n")
	go io.WriteString(toServer, reqs.String())
	for range bound {
		select {
		case <-started:
		case <-time.After(time.Minute): // a hang guard
			t.Fatalf("%d reads started, want %d", running.Load(), bound)
		}
	}
	// Answer one read: its response comes first, then the ping's, which
	// waited for its place.
	release <- struct{}{}
	if id, line := mcpfstest.ResponseID(t, r); id == `"ping"` {
		t.Fatalf("the ping was answered while %d requests were in flight: %s", bound, line)
	}
	if id, line := mcpfstest.ResponseID(t, r); id != `"ping"` {
		t.Errorf("after one read was answered, got %s, want the ping's response", line)
	}
	close(release)
	for range bound - 1 {
		mcpfstest.ResponseID(t, r)
	}
}

// A notification that a tool's handler sends goes before the tool's
// response, even while the writer is still encoding it and the response,
// ready at once, finds nothing else being written.
func TestStdioNotificationBeforeResponse(t *testing.T) {
	srv := server.NewMCPServer("notify", "1")
	payload := strings.Repeat("n", 1<<20) // slow enough to encode to leave the writer busy
	srv.AddTool(mcp.NewTool("notify", mcp.WithString("call")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			call := req.GetString("call", "")
			err := srv.SendNotificationToClient(ctx, "notifications/test", map[string]any{"call": call, "payload": payload})
			if err != nil {
				return nil, err
			}
			return mcp.NewToolResultText("answered " + call), nil
		})
	toServer, r := mcpfstest.RawStdio(t, srv, mcptransport.Options{})
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(toServer, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"notify","arguments":{"call":"%d"}}}`+"\n", i, i)
		var got []string
		for range 2 {
			line, err := r.ReadBytes('\n')
			if err != nil {
				t.Fatal(err)
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					Call string `json:"call"`
				} `json:"params"`
			}
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatalf("%v: %.200s", err, line)
			}
			if m.Method != "" {
				got = append(got, "notification "+m.Params.Call)
			} else {
				got = append(got, "response "+string(m.ID))
			}
		}
		if want := []string{"notification " + strconv.Itoa(i), "response " + strconv.Itoa(i)}; !slices.Equal(got, want) {
			t.Fatalf("call %d: the client read %q, want %q", i, got, want)
		}
	}
}

// failingWriter fails every write.
type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }

// A write to the client that fails ends ServeStdio with that error, though
// the input is still open: here the first response, which its worker
// writes itself.
func TestStdioWriteFails(t *testing.T) {
	srv := server.NewMCPServer("x", "1")
	inR, inW := io.Pipe()
	defer inW.Close()
	errFull := errors.New("no space left on device")
	served := make(chan error, 1)
	go func() {
		served <- mcptransport.ServeStdio(t.Context(), srv, inR, failingWriter{errFull}, mcptransport.Options{})
	}()
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`+"\n")
	select {
	case err := <-served:
		if !errors.Is(err, errFull) {
			t.Errorf("ServeStdio: %v, want the write's error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStdio did not end after its write failed")
	}
}

// A malformed escape in a large string is refused as a malformed line is:
// the request is dropped with a warning that shows its first 200 bytes,
// and the stream goes on. Where the transport lifts large strings (the
// reader then leaves their escapes to be checked where they are decoded),
// a malformed escape in a text the tool gets is the one difference: the
// tool answers that its argument is invalid.
func TestStdioMalformedEscapesInLargeStrings(t *testing.T) {
	long := strings.Repeat("a", 64) + strings.Repeat(`\nline of text`, 200) // a long run, then escapes
	bad := `"` + long + `\x"`
	for _, sv := range mcpfstest.Servings {
		t.Run(sv.Name, func(t *testing.T) {
			f := mcpfstest.NewFixture(t, false)
			f.WriteFile(t, "a.txt", "a\n")
			opts := sv.Transport(t, f)
			logs := make(chan []byte, 256)
			opts.Logger = slog.New(slog.NewJSONHandler(chanWriter(logs), nil))
			toServer, r := mcpfstest.RawStdio(t, f.Srv, opts)
			call := func(id int, args string) string {
				return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, "write_text_file", args) + "\n"
			}
			io.WriteString(toServer, call(1, `{"path":"bad.txt","content":`+bad+`}`))                                    // the text the tool gets
			io.WriteString(toServer, call(2, `{"path":`+bad+`,"content":"x"}`))                                          // a string no tool gets
			io.WriteString(toServer, call(3, `{"path":"bad.txt","content":`+bad+`,"content":"x"}`))                      // a text shadowed
			io.WriteString(toServer, `{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":`+bad+`}}`+"\n") // not a tool call
			io.WriteString(toServer, `{"jsonrpc":"2.0","id":7,"method":`+bad+`}`+"\n")                                   // a method
			io.WriteString(toServer, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"a.txt"}}}`+"\n")
			got := map[string]string{}
			want := []string{"5"}
			if sv.Lift {
				want = []string{"1", "5"}
			}
			for len(got) < len(want) {
				id, line := mcpfstest.ResponseID(t, r)
				got[id] = line
			}
			io.WriteString(toServer, `{"jsonrpc":"2.0","id":6,"method":"ping"}`+"\n")
			if id, line := mcpfstest.ResponseID(t, r); id != "6" {
				t.Fatalf("after the answers to %v, a response to %s: %.200s", want, id, line)
			}
			if ids := slices.Sorted(maps.Keys(got)); !slices.Equal(ids, want) {
				t.Fatalf("answered %v, want %v", ids, want)
			}
			if sv.Lift && (!strings.Contains(got["1"], `"isError":true`) || !strings.Contains(got["1"], `invalid arguments`) ||
				!strings.Contains(got["1"], `invalid escape`)) {
				t.Errorf("the write of a malformed text: %.300s", got["1"])
			}
			if !strings.Contains(got["5"], `"text":"a\n"`) {
				t.Errorf("the read after: %.300s", got["5"])
			}
			f.MustNotExist(t, "bad.txt")
			dropped := map[string]bool{"2": true, "3": true, "4": true, "7": true}
			if !sv.Lift {
				dropped["1"] = true
			}
			for len(dropped) > 0 {
				var line []byte
				select {
				case line = <-logs:
				case <-time.After(10 * time.Second):
					t.Fatalf("no warning of the drops of %v", slices.Sorted(maps.Keys(dropped)))
				}
				var rec struct{ Msg, Prefix, ID, Method string }
				if err := json.Unmarshal(line, &rec); err != nil || rec.Msg != "wire: skipping malformed JSON-RPC line" {
					continue
				}
				id, _, _ := strings.Cut(strings.TrimPrefix(rec.Prefix, `{"jsonrpc":"2.0","id":`), ",")
				if !dropped[id] || len(rec.Prefix) != 200 {
					t.Fatalf("a drop logged with the prefix %q", rec.Prefix)
				}
				// The reader's own drops cannot name the request; the
				// transport's (all of them where it lifts, the reader then
				// leaving escapes to it) name it, and its method unless
				// that is the malformed string.
				if (sv.Lift || rec.ID != "") && (rec.ID != id || rec.Method != "" && !strings.Contains(rec.Prefix, `"method":"`+rec.Method+`"`)) {
					t.Fatalf("the drop of %s logged as id %q, method %q", id, rec.ID, rec.Method)
				}
				delete(dropped, id)
			}
		})
	}
}

// chanWriter sends each write, a log record, on its channel, or drops it
// when the channel is full.
type chanWriter chan []byte

func (c chanWriter) Write(p []byte) (int, error) {
	select {
	case c <- bytes.Clone(p):
	default:
	}
	return len(p), nil
}
