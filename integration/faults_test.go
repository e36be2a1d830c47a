package integration

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/fakeeditor"
	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/testagent"
)

// The fault suite against the built binary: oversized input on every
// stream and endpoint is refused with an error naming the limit, without
// the process's memory growing with the input (its peak RSS is compared
// between a small and a large overlong input, which holds under the race
// detector too); an editor that never answers meets the editor timeout;
// and writes survive SIGKILL. The in-process side, with a goroutine leak
// check, is in the bridge package (faults_test.go); the SIGKILL loop
// through a Disk is in the fsruntime package (crash_test.go).

const (
	// lineLimit is the limit on one message of every stream and HTTP body.
	lineLimit = "64.0 MiB"
	// bigLine and bigWrite are the sizes of the overlong lines and of the
	// overlong writes (200 MiB and 100 MiB, as the issue asks), and
	// smallOverlong that of the ones they are compared with: over the
	// limit, but by little.
	bigLine       = 200 << 20
	bigWrite      = 100 << 20
	smallOverlong = 65 << 20
	// rssSlack is how much more the peak RSS after a bigLine input may be
	// than after a smallOverlong one: a process that held the input would
	// grow by bigLine-smallOverlong (135 MiB) at least, and by several
	// times that under the race detector. A bounded one still varies by up
	// to one 64 MiB buffer, with when the collector runs.
	rssSlack = 96 << 20
)

// overlongLine yields one JSON-RPC message of n bytes: head, then x's,
// then tail, without holding it.
func overlongLine(head string, n int64, tail string) io.Reader {
	return io.MultiReader(strings.NewReader(head), &xReader{n: n - int64(len(head)+len(tail))}, strings.NewReader(tail))
}

// xReader yields n x's.
type xReader struct {
	n     int64
	block []byte
}

func (r *xReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	if r.block == nil {
		r.block = []byte(strings.Repeat("x", 64<<10))
	}
	k := copy(p[:min(int64(len(p)), r.n)], r.block)
	r.n -= int64(k)
	return k, nil
}

// rawMCP is an MCP client that writes raw lines to serve's stdin.
type rawMCP struct {
	t     *testing.T
	p     *proc
	lines *bufio.Scanner
}

func newRawMCP(t *testing.T, p *proc) *rawMCP {
	c := &rawMCP{t: t, p: p, lines: bufio.NewScanner(p.out)}
	c.lines.Buffer(nil, 1<<20)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if res := c.response(1); res.Error != nil {
		t.Fatalf("initialize: %+v", res.Error)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

func (c *rawMCP) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.p.stdin, line+"\n"); err != nil {
		c.t.Fatalf("writing to stdin: %v", err)
	}
}

// stream writes one line from r.
func (c *rawMCP) stream(r io.Reader) {
	c.t.Helper()
	if _, err := io.Copy(c.p.stdin, io.MultiReader(r, strings.NewReader("\n"))); err != nil {
		c.t.Fatalf("writing to stdin: %v", err)
	}
}

type rpcResponse struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// response returns the response with id, skipping notifications.
func (c *rawMCP) response(id int) rpcResponse {
	c.t.Helper()
	for c.lines.Scan() {
		var r rpcResponse
		if err := json.Unmarshal(c.lines.Bytes(), &r); err != nil {
			c.t.Fatalf("stdout line is not JSON: %q", c.lines.Text())
		}
		if string(r.ID) == fmt.Sprint(id) {
			return r
		}
	}
	c.t.Fatalf("stdout ended (%v) before the response to %d; stderr:\n%s", c.lines.Err(), id, c.p.stderr.String())
	return rpcResponse{}
}

// wantRefused fails the test unless r is an error naming what and the
// limit.
func wantRefused(t *testing.T, r rpcResponse, what ...string) {
	t.Helper()
	if r.Error == nil {
		t.Errorf("response %s: %s, want an error", r.ID, r.Result)
		return
	}
	for _, w := range append(what, "exceeds the "+lineLimit+" limit") {
		if !strings.Contains(r.Error.Message, w) {
			t.Errorf("response %s: error %q, want it to say %q", r.ID, r.Error.Message, w)
		}
	}
}

// wantToolRefused fails the test unless r is a tool error that names the
// tool and the limit: how an overlong tools/call is answered, so that the
// model that made it learns why.
func wantToolRefused(t *testing.T, r rpcResponse, tool string) {
	t.Helper()
	if r.Error != nil || !strings.Contains(string(r.Result), `"isError":true`) {
		t.Errorf("response %s: %s %+v, want a tool error", r.ID, r.Result, r.Error)
		return
	}
	for _, w := range []string{tool + ": the call of ", "exceeds the " + lineLimit + " limit"} {
		if !strings.Contains(string(r.Result), w) {
			t.Errorf("response %s: %s, want it to say %q", r.ID, r.Result, w)
		}
	}
}

// serveOverlong runs serve, sends it an overlong tools/call line of n
// bytes with its id last (as the TypeScript SDK writes), then an overlong
// write_text_file of m bytes with its id first, and then a small write,
// and returns serve's peak RSS.
func serveOverlong(t *testing.T, n, m int64) int64 {
	dir := tempDir(t)
	p := start(t, procOptions{}, "serve", "--root", dir)
	c := newRawMCP(t, p)
	c.stream(overlongLine(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"write_text_file","arguments":{"path":"big.txt","content":"`,
		n, `"}},"id":2}`))
	wantToolRefused(t, c.response(2), "write_text_file")
	c.stream(overlongLine(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"write_text_file","arguments":{"path":"big.txt","content":"`,
		m, `"}}}`))
	wantToolRefused(t, c.response(3), "write_text_file")
	c.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"write_text_file","arguments":{"path":"small.txt","content":"small\n"}}}`)
	if r := c.response(4); r.Error != nil || strings.Contains(string(r.Result), `"isError":true`) {
		t.Errorf("a write after the overlong lines: %s %+v", r.Result, r.Error)
	}
	wantFile(t, filepath.Join(dir, "small.txt"), "small\n")
	wantNoFile(t, filepath.Join(dir, "big.txt"))
	p.closeStdin()
	return peakRSS(p)
}

// TestServeRefusesOverlongInput: over MCP stdio, a 200 MiB request and a
// 100 MiB write_text_file are each answered with an error that names the
// limit, the session goes on, and serve's memory does not grow with them.
func TestServeRefusesOverlongInput(t *testing.T) {
	t.Parallel()
	small := serveOverlong(t, smallOverlong, smallOverlong)
	big := serveOverlong(t, bigLine, bigWrite)
	t.Logf("serve's peak RSS: %d MiB after %d MiB lines, %d MiB after %d MiB lines", small>>20, smallOverlong>>20, big>>20, bigLine>>20)
	if big > small+rssSlack {
		t.Errorf("serve's peak RSS grew from %d MiB to %d MiB with the size of the overlong lines: it held them", small>>20, big>>20)
	}
}

// proxyOverlong runs the proxy in mode with an editor that holds reads of
// big.txt, and sends it overlong input: a session/prompt of n bytes from
// the editor, with answers the editor's answer of n bytes to a tool's
// read, and a tools/call of m bytes to the session's own endpoint (HTTP,
// or the relay socket through mcp-acpfs relay). Each must be refused with
// an error that names the limit. It returns the proxy's peak RSS.
func proxyOverlong(t *testing.T, mode agentMode, n, m int64, answers bool) int64 {
	dir := tempDir(t)
	putFiles(t, dir, diskFiles)
	isBig := func(method string, params json.RawMessage) bool {
		return method == "fs/read_text_file" && strings.Contains(string(params), "big.txt")
	}
	r := startProxy(t, proxyOptions{mode: mode, editor: fakeeditor.Options{ReadTextFile: true, Buffers: buffers(dir, bufferFiles), Hold: isBig}})
	s := r.newSession(dir, nil)
	ctx := callContext(t)

	// The editor's request.
	if err := r.ed.WriteStream(overlongLine(`{"jsonrpc":"2.0","method":"session/prompt","params":{"sessionId":"`+s.id+`","prompt":[{"type":"text","text":"`,
		n, `"}]},"id":"big"}`)); err != nil {
		t.Fatal(err)
	}
	answer, err := r.ed.WaitFor(ctx, func(m fakeeditor.Message) bool { return string(m.ID) == `"big"` })
	if err != nil {
		t.Fatalf("no answer to the overlong prompt: %v", err)
	}
	e, err := answer.DecodeError()
	if err != nil || !strings.Contains(e.Message, `request id "big" ("session/prompt")`) || !strings.Contains(e.Message, "exceeds the "+lineLimit+" limit") {
		t.Errorf("answer to an overlong prompt: %s", answer.Raw)
	}

	if answers {
		editorOverlongAnswer(t, r, s, n)
	}

	// A write of m bytes to the session's endpoint.
	entry := s.entry(t, "acpfs")
	call := func(id int) io.Reader {
		return overlongLine(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"write_text_file","arguments":{"path":"big.txt","content":"`, id), m, `"}}}`)
	}
	if entry.Type == "http" {
		for _, known := range []bool{true, false} {
			status, body := postOverlong(t, entry, call(7), m, known)
			wantHTTPToolRefused(t, fmt.Sprintf("an HTTP call of %d MiB (length known: %v)", m>>20, known), status, body)
		}
	} else {
		relayOverlong(t, entry, call(7))
	}
	r.ed.Close()
	if code := r.p.wait("the editor disconnected"); code != 0 {
		t.Errorf("the proxy exited with %d", code)
	}
	return peakRSS(r.p)
}

// editorOverlongAnswer has the editor answer a tool's read with a line of
// n bytes; the tool call must fail with an error that names the limit.
func editorOverlongAnswer(t *testing.T, r *proxyRun, s acpSession, n int64) {
	ctx := callContext(t)
	type outcome struct {
		reps map[int]testagent.Report
		err  error
	}
	done := make(chan outcome, 1)
	go func() {
		_, reps, err := r.prompt(ctx, s, readStep("big.txt"))
		done <- outcome{reps, err}
	}()
	read, err := r.ed.WaitFor(ctx, func(m fakeeditor.Message) bool {
		return m.Method == "fs/read_text_file" && strings.Contains(string(m.Params), "big.txt")
	})
	if err != nil {
		t.Fatalf("the read of big.txt never reached the editor: %v", err)
	}
	if err := r.ed.WriteStream(overlongLine(`{"jsonrpc":"2.0","result":{"content":"`, n, `"},"id":`+string(read.ID)+`}`)); err != nil {
		t.Fatal(err)
	}
	o := <-done
	if o.err != nil {
		t.Fatalf("the prompt whose read was answered with an overlong line: %v", o.err)
	}
	wantToolError(t, o.reps[1], "fs/read_text_file", "over the "+lineLimit+" limit", "read a range")
}

// postOverlong posts body (of n bytes, announced in Content-Length if
// known) to an http entry as a stateless 2026-07-28 request, and returns
// the status and body of the answer.
func postOverlong(t *testing.T, e mcpEntry, body io.Reader, n int64, known bool) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(callContext(t), http.MethodPost, e.URL, io.NopCloser(body))
	if err != nil {
		t.Fatal(err)
	}
	if known {
		req.ContentLength = n
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	if auth := e.Header("Authorization"); auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %d MiB: %v", n>>20, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(b)
}

// wantHTTPToolRefused fails the test unless an HTTP answer (status and
// body) to what is a 200 with the tool error of an overlong call of
// write_text_file, as over a stream.
func wantHTTPToolRefused(t *testing.T, what string, status int, body string) {
	t.Helper()
	var r rpcResponse
	if err := json.Unmarshal([]byte(body), &r); status != http.StatusOK || err != nil {
		t.Errorf("%s: status %d, body %.300s; want 200 and a tool error", what, status, body)
		return
	}
	wantToolRefused(t, r, "write_text_file")
}

// TestServeHTTPRefusesOverlongInput: over serve --http, a tools/call over
// the limit gets the tool error it gets over stdio, whether its length is
// announced or not, and another request over the limit the transport's
// error that names the limit.
func TestServeHTTPRefusesOverlongInput(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	s := startHTTP(t, dir, nil, "--http-no-auth")
	e := mcpEntry{URL: s.url}
	for _, known := range []bool{true, false} {
		call := overlongLine(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"write_text_file","arguments":{"path":"big.txt","content":"`,
			smallOverlong, `"}},"id":2}`)
		status, body := postOverlong(t, e, call, smallOverlong, known)
		wantHTTPToolRefused(t, fmt.Sprintf("a call of %d MiB (length known: %v)", smallOverlong>>20, known), status, body)
		read := overlongLine(`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"file:///`, smallOverlong, `"}}`)
		if status, body := postOverlong(t, e, read, smallOverlong, known); status < 400 || !strings.Contains(body, "exceeds the "+lineLimit+" limit") {
			t.Errorf("a resources/read of %d MiB (length known: %v): status %d, body %.300s; want the limit named", smallOverlong>>20, known, status, body)
		}
	}
	wantNoFile(t, filepath.Join(dir, "big.txt"))
	s.stop()
}

// relayOverlong runs mcp-acpfs relay for a stdio entry and sends line
// through it; it must be answered with an error that names the limit.
func relayOverlong(t *testing.T, e mcpEntry, line io.Reader) {
	t.Helper()
	var env []string
	for _, nv := range e.Env {
		env = append(env, nv.Name+"="+nv.Value)
	}
	p := start(t, procOptions{env: env}, e.Args...)
	c := &rawMCP{t: t, p: p, lines: bufio.NewScanner(p.out)}
	c.lines.Buffer(nil, 1<<20)
	c.stream(line)
	wantToolRefused(t, c.response(7), "write_text_file")
	p.closeStdin()
}

// TestProxyRefusesOverlongInput: a 200 MiB request from the editor and a
// 100 MiB write to the session's HTTP endpoint or relay socket are each
// refused with an error that names the limit. With MCP_ACPFS_LONG=1 (the
// race detector makes this a matter of tens of seconds) the editor also
// answers a tool's read with 200 MiB, and the proxy's peak RSS is checked
// not to grow with the size of the lines; the in-process
// TestProxyRefusesOverlongLines checks the memory of both hops always.
func TestProxyRefusesOverlongInput(t *testing.T) {
	forEachMode(t, func(t *testing.T, mode agentMode) {
		if !longRun() {
			proxyOverlong(t, mode, bigLine, bigWrite, false)
			return
		}
		small := proxyOverlong(t, mode, smallOverlong, smallOverlong, true)
		big := proxyOverlong(t, mode, bigLine, bigWrite, true)
		t.Logf("the proxy's peak RSS: %d MiB after %d MiB lines, %d MiB after %d MiB ones", small>>20, smallOverlong>>20, big>>20, bigLine>>20)
		if big > small+rssSlack {
			t.Errorf("the proxy's peak RSS grew from %d MiB to %d MiB with the size of the overlong lines: it held them", small>>20, big>>20)
		}
	})
}

// TestProxyEditorTimeout: with --editor-timeout, a tool call whose read
// the editor never answers fails with an error that names the method, the
// path and the timeout; the editor is sent $/cancel_request for it; its
// late answer is dropped with one log line; the session goes on; and the
// proxy leaves no process behind.
func TestProxyEditorTimeout(t *testing.T) {
	forEachMode(t, func(t *testing.T, mode agentMode) {
		dir := tempDir(t)
		putFiles(t, dir, diskFiles)
		bufs := buffers(dir, bufferFiles)
		bufs.Set(filepath.Join(dir, "slow.txt"), "slow\n")
		r := startProxy(t, proxyOptions{mode: mode, proxyFlags: []string{"--editor-timeout", "1s"},
			editor: fakeeditor.Options{ReadTextFile: true, Buffers: bufs, Hold: holdSlow}})
		s := r.newSession(dir, nil)
		reps := r.mustPrompt(s, readStep("slow.txt"), readStep("a.txt"))
		wantToolError(t, reps[1], "fs/read_text_file", filepath.Join(dir, "slow.txt"), "within 1s")
		wantText(t, reps[2], "buffer a\n")

		var reads []fakeeditor.Message
		for _, m := range r.ed.Requests("fs/read_text_file") {
			if isSlowRead(m) {
				reads = append(reads, m)
			}
		}
		cancels := r.ed.Notifications("$/cancel_request")
		if len(reads) != 1 || len(cancels) != 1 {
			t.Fatalf("the editor got reads of slow.txt %v and cancellations %v, want one of each", reads, cancels)
		}
		var cp struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		json.Unmarshal(cancels[0].Params, &cp)
		if string(cp.RequestID) != string(reads[0].ID) {
			t.Errorf("$/cancel_request names request %s, want the read's id %s", cp.RequestID, reads[0].ID)
		}
		// The editor answers the cancelled read (-32800), which comes too
		// late, and is logged once.
		dropped := regexp.MustCompile(`dropping a response to no pending request`)
		r.p.stderr.waitFor(callContext(t), t, dropped)
		r.ed.Close()
		if code := r.p.wait("the editor disconnected"); code != 0 {
			t.Errorf("the proxy exited with %d, want 0", code)
		}
		if n := len(dropped.FindAllString(r.p.stderr.String(), -1)); n != 1 {
			t.Errorf("%d log lines about the late answer, want 1:\n%s", n, r.p.stderr.String())
		}
		wantGone(t, "after the proxy exited", r.knownPIDs()...)
	})
}

// killSeedEnv, if set, is the seed of the kill times, which every run
// logs, so that a failing run can be repeated.
const killSeedEnv = "MCP_ACPFS_TEST_KILL_SEED"

// TestServeWritesSurviveSIGKILL kills mcp-acpfs serve with SIGKILL while
// it writes a file of a few MiB over and over, 8 times, or more until the
// file has been seen to change (200 with MCP_ACPFS_LONG=1): the file
// always holds one whole content, and any temporary file left holds one
// too. The fsruntime package's TestWritesSurviveSIGKILL does the same 200
// times through a Disk.
func TestServeWritesSurviveSIGKILL(t *testing.T) {
	t.Parallel()
	kills, most := 8, 50
	if longRun() {
		kills, most = 200, 200
	}
	seed := uint64(time.Now().UnixNano())
	if env := os.Getenv(killSeedEnv); env != "" {
		var err error
		if seed, err = strconv.ParseUint(env, 10, 64); err != nil {
			t.Fatalf("%s=%q: %v", killSeedEnv, env, err)
		}
	}
	t.Logf("kill times from seed %d (%s=%[1]d repeats them)", seed, killSeedEnv)
	dir := tempDir(t)
	path := filepath.Join(dir, "target.txt")
	contents := [2]string{
		strings.Repeat("A "+strings.Repeat("a", 61)+"\n", 3<<20/64),
		strings.Repeat("B "+strings.Repeat("b", 61)+"\n", 2<<20/64),
	}
	writeFile(t, path, contents[0])
	var lines [2][]byte
	for i, c := range contents {
		args, _ := json.Marshal(map[string]any{"name": "write_text_file", "arguments": map[string]any{"path": path, "content": c}})
		lines[i] = []byte(`{"jsonrpc":"2.0","id":` + fmt.Sprint(10+i) + `,"method":"tools/call","params":` + string(args) + "}\n")
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	changed, leftovers := 0, 0
	last := contents[0]
	i := 0
	for ; i < most && (i < kills || changed == 0); i++ {
		// Blind writes, as fast as they go: the read guard, which would
		// refuse them, is not this test's subject.
		p := start(t, procOptions{}, "serve", "--root", dir, "--max-file-size", "16MiB", "--no-read-guard")
		c := newRawMCP(t, p)
		writing := make(chan struct{})
		go func() {
			defer close(writing)
			for j := 1; ; j++ {
				if _, err := p.stdin.Write(lines[j%2]); err != nil {
					return // killed
				}
			}
		}()
		// Once a write is done, the next ones go on for a random while:
		// the sleep is when the kill lands, not a wait for anything.
		if r := c.response(11); r.Error != nil {
			t.Fatalf("kill %d: the first write failed: %+v", i, r.Error)
		}
		time.Sleep(time.Duration(rng.Int64N(int64(50 * time.Millisecond))))
		p.cmd.Process.Signal(syscall.SIGKILL)
		p.wait("SIGKILL")
		<-writing
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("kill %d: the file is gone: %v", i, err)
		}
		if string(got) != contents[0] && string(got) != contents[1] {
			t.Fatalf("kill %d: the file holds %d bytes that are neither content (starting %.40q)", i, len(got), got)
		}
		if string(got) != last {
			changed++
			last = string(got)
		}
		names, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range names {
			if e.Name() == "target.txt" {
				continue
			}
			leftovers++
			left, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			whole := string(left) == contents[0] || string(left) == contents[1]
			// A named temporary file (no O_TMPFILE) is there from the start,
			// so a kill mid-write leaves it cut short.
			cut := namedTempFiles() && (strings.HasPrefix(contents[0], string(left)) || strings.HasPrefix(contents[1], string(left)))
			if !strings.HasPrefix(e.Name(), ".target.txt.tmp-") || !whole && !cut {
				t.Errorf("kill %d left %s, of %d bytes, which is not a temporary copy of either content", i, e.Name(), len(left))
			}
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	t.Logf("%d kills of serve: the file changed %d times; %d temporary files were left", i, changed, leftovers)
	if changed == 0 {
		t.Errorf("the file never changed: no kill came after a whole write, so the test proved nothing")
	}
}

// namedTempFiles reports whether the binary under test writes through a
// named temporary file from the start: everywhere but on Linux, and on
// Linux under the acpfs_portable tag.
func namedTempFiles() bool {
	return runtime.GOOS != "linux" || slices.Contains(strings.Split(buildTags(), ","), "acpfs_portable")
}
