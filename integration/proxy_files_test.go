package integration

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/fakeeditor"
	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/mcpclient"
	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/testagent"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
)

// The disk and the editor's buffers of a session's cwd differ.
var (
	diskFiles = map[string]string{
		"a.txt":     "disk a\n",
		"lines.txt": "disk 1\ndisk 2\n",
	}
	bufferFiles = map[string]string{
		"a.txt":           "buffer a\n",
		"lines.txt":       "one\ntwo\nthree\nfour\n",
		"unsaved-new.txt": "only in the editor\n",
	}
)

// TestProxyEditorBuffers: with an editor that serves both fs methods, the
// tools read its unsaved buffers and write into it, never to the disk; the
// editor's fs requests carry the session id and absolute paths.
func TestProxyEditorBuffers(t *testing.T) {
	forEachMode(t, func(t *testing.T, mode agentMode) {
		for _, legacy := range []bool{false, true} {
			name := "mcp-latest"
			var flags []string
			if legacy {
				name, flags = "mcp-2025-11-25", []string{"-legacy-mcp"}
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				testEditorBuffers(t, mode, flags)
			})
		}
	})
}

func testEditorBuffers(t *testing.T, mode agentMode, agentFlags []string) {
	dir := tempDir(t)
	putFiles(t, dir, diskFiles)
	bufs := buffers(dir, bufferFiles)
	r := startProxy(t, proxyOptions{
		mode:       mode,
		agentFlags: agentFlags,
		editor:     fakeeditor.Options{ReadTextFile: true, WriteTextFile: true, Buffers: bufs},
	})
	// The editor's own MCP server comes first and unchanged; acpfs is added.
	theirs := map[string]any{"name": "theirs", "command": "/bin/true", "args": []string{"x"}, "env": []any{map[string]string{"name": "K", "value": "V"}}}
	s := r.newSession(dir, map[string]any{"mcpServers": []any{theirs}})
	if n := len(s.report.MCPServers); n != 2 {
		t.Fatalf("the agent got %d MCP servers, want 2 (the editor's and acpfs): %s", n, s.report.MCPServers)
	}
	if !jsonEqual(t, s.report.MCPServers[0], mustJSON(theirs)) {
		t.Errorf("the editor's MCP server reached the agent as %s, want %s", s.report.MCPServers[0], mustJSON(theirs))
	}
	checkEntry(t, mode, s.entry(t, "acpfs"))

	abs := func(name string) string { return filepath.Join(dir, name) }
	reps := r.mustPrompt(s,
		readStep("a.txt"),
		readStep(abs("a.txt")),
		readRangeStep("lines.txt", 2, 2),
		readStep("unsaved-new.txt"),
		readStep("missing.txt"),
		readRangeStep("lines.txt", 9, 1),
		writeStep("out/b.txt", "written\n"),
		writeStep("a.txt", "rewritten\n"),
		testagent.Step{CallFS: &testagent.Call{Params: mustJSON(map[string]any{"path": abs("a.txt")})}},
	)
	wantText(t, reps[1], "buffer a\n")
	wantText(t, reps[2], "buffer a\n")
	wantText(t, reps[3], "two\nthree\n")
	wantText(t, reps[4], "only in the editor\n")
	wantToolError(t, reps[5], "not exist|not found")
	wantToolError(t, reps[6], "past the end|beyond the end")
	wantSuccess(t, reps[7])
	wantSuccess(t, reps[8])
	if got := string(reps[9].Result); !jsonEqual(t, reps[9].Result, mustJSON(map[string]string{"content": "rewritten\n"})) {
		t.Errorf("the agent's own fs/read_text_file through the proxy: %s (error %d %s), want the new buffer", got, reps[9].Code, reps[9].Message)
	}

	inBuffers(t, bufs, abs("a.txt"), "rewritten\n")
	inBuffers(t, bufs, abs("out/b.txt"), "written\n")
	onDisk(t, abs("a.txt"), "disk a\n")
	notOnDisk(t, abs("out"))

	reqs := r.fsRequests()
	var reads, writes int
	for _, q := range reqs {
		if q.SessionID != s.id {
			t.Errorf("%s %s has sessionId %q, want %q", q.Method, q.Path, q.SessionID, s.id)
		}
		if !filepath.IsAbs(q.Path) || filepath.Clean(q.Path) != q.Path || !strings.HasPrefix(q.Path, dir+string(filepath.Separator)) {
			t.Errorf("%s path %q is not an absolute, clean path in %s", q.Method, q.Path, dir)
		}
		if q.Method == "fs/read_text_file" {
			reads++
		} else {
			writes++
		}
	}
	wantReads := 7 + 2 // the read guard reads each file a session writes first
	if reads != wantReads || writes != 2 {
		t.Errorf("the editor received %d reads and %d writes, want %d and 2: %+v", reads, writes, wantReads, reqs)
	}
	// read_text_file reports the hash of the whole buffer, so a ranged
	// read asks the editor for the whole buffer once and cuts the range
	// itself (the line ranges the editor serves are covered by the
	// runtime's Editor tests).
	if i := slices.IndexFunc(reqs, func(q fsRequest) bool { return q.Line != nil || q.Limit != nil }); i >= 0 {
		t.Errorf("a tool's read reached the editor as a range, want one whole-buffer read: %+v", reqs[i])
	}
	r.p.checkStdoutJSONLines()
}

// checkEntry checks the MCP server entry the proxy injected for mode.
func checkEntry(t *testing.T, mode agentMode, e mcpEntry) {
	t.Helper()
	switch mode.name {
	case "http":
		if e.Type != "http" || !strings.HasPrefix(e.URL, "http://127.0.0.1:") || !strings.HasPrefix(e.Header("Authorization"), "Bearer ") {
			t.Errorf("injected entry %+v, want an http entry on loopback with a bearer token", e)
		}
	case "stdio":
		if e.Type != "" || e.Command != binPath || !slices.Equal(e.Args, []string{"relay"}) ||
			e.EnvValue("MCP_ACPFS_RELAY_SOCKET") == "" || e.EnvValue("MCP_ACPFS_RELAY_SECRET") == "" {
			t.Errorf("injected entry %+v, want a stdio entry running %s relay with the socket and secret", e, binPath)
		}
	}
}

// TestProxyFallsBackToDisk: what the editor does not advertise goes to the
// disk, and the editor is never sent a method it did not advertise.
func TestProxyFallsBackToDisk(t *testing.T) {
	forEachMode(t, func(t *testing.T, mode agentMode) {
		for _, tc := range []struct {
			name        string
			read, write bool
		}{
			{"no-fs", false, false},
			{"read-only", true, false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				dir := tempDir(t)
				putFiles(t, dir, diskFiles)
				bufs := buffers(dir, bufferFiles)
				r := startProxy(t, proxyOptions{mode: mode, editor: fakeeditor.Options{ReadTextFile: tc.read, WriteTextFile: tc.write, Buffers: bufs}})
				s := r.newSession(dir, nil)
				reps := r.mustPrompt(s, readStep("a.txt"), writeStep("b.txt", "to disk\n"), writeStep("a.txt", "overwritten\n"), readStep("a.txt"))
				if tc.read {
					wantText(t, reps[1], "buffer a\n")
					wantText(t, reps[4], "buffer a\n") // the write went to disk, not to the buffer
				} else {
					wantText(t, reps[1], "disk a\n")
					wantText(t, reps[4], "overwritten\n")
				}
				wantSuccess(t, reps[2])
				wantSuccess(t, reps[3])
				onDisk(t, filepath.Join(dir, "b.txt"), "to disk\n")
				onDisk(t, filepath.Join(dir, "a.txt"), "overwritten\n")
				notInBuffers(t, bufs, filepath.Join(dir, "b.txt"))
				inBuffers(t, bufs, filepath.Join(dir, "a.txt"), "buffer a\n")
				for _, q := range r.fsRequests() {
					if q.Method != "fs/read_text_file" || !tc.read {
						t.Errorf("the editor received %s %s", q.Method, q.Path)
					}
				}
			})
		}
	})
}

// TestProxySessionsIsolated: two sessions of one editor, in two cwds, each
// see their own buffers and roots only, and the secret of one never
// reaches the other's files.
func TestProxySessionsIsolated(t *testing.T) {
	forEachMode(t, func(t *testing.T, mode agentMode) {
		base := tempDir(t)
		dirA, dirB := filepath.Join(base, "A"), filepath.Join(base, "B")
		putFiles(t, dirA, map[string]string{"a.txt": "disk of A\n"})
		putFiles(t, dirB, map[string]string{"a.txt": "disk of B\n"})
		bufs := buffers(dirA, map[string]string{"a.txt": "buffer of A\n"})
		bufs.Set(filepath.Join(dirB, "a.txt"), "buffer of B\n")
		r := startProxy(t, proxyOptions{mode: mode, editor: fakeeditor.Options{ReadTextFile: true, WriteTextFile: true, Buffers: bufs}})
		sa, sb := r.newSession(dirA, nil), r.newSession(dirB, nil)
		if sa.id == sb.id {
			t.Fatalf("both sessions are %s", sa.id)
		}

		// Both prompts at once.
		var wg sync.WaitGroup
		results := make([]map[int]testagent.Report, 2)
		for i, s := range []acpSession{sa, sb} {
			other := map[int]string{0: dirB, 1: dirA}[i]
			wg.Go(func() {
				stop, reps, err := r.prompt(callContext(t), s,
					readStep("a.txt"),
					readStep(filepath.Join(other, "a.txt")),
					writeStep("c.txt", "from "+s.id+"\n"),
					writeStep(filepath.Join(other, "c.txt"), "from "+s.id+"\n"),
					readStep("a.txt"),
				)
				if err != nil || stop != "end_turn" || len(reps) != 5 {
					t.Errorf("prompt in %s: stop %q, %d reports, error %v", s.id, stop, len(reps), err)
					return
				}
				results[i] = reps
			})
		}
		wg.Wait()
		if t.Failed() {
			return
		}
		for i, s := range []acpSession{sa, sb} {
			reps, name := results[i], map[int]string{0: "A", 1: "B"}[i]
			wantText(t, reps[1], "buffer of "+name+"\n")
			wantToolError(t, reps[2], "outside")
			wantSuccess(t, reps[3])
			wantToolError(t, reps[4], "outside")
			wantText(t, reps[5], "buffer of "+name+"\n")
			inBuffers(t, bufs, filepath.Join(s.cwd, "c.txt"), "from "+s.id+"\n")
		}
		for _, q := range r.fsRequests() {
			want := map[string]string{dirA: sa.id, dirB: sb.id}[filepath.Dir(q.Path)]
			if q.SessionID != want {
				t.Errorf("%s %s carries sessionId %q, want %q", q.Method, q.Path, q.SessionID, want)
			}
		}

		// The secrets: one per session, and each reaches its own session.
		ea, eb := sa.entry(t, "acpfs"), sb.entry(t, "acpfs")
		switch mode.name {
		case "http":
			ta, tb := ea.Header("Authorization"), eb.Header("Authorization")
			if ta == tb {
				t.Fatalf("both sessions have the token %q", ta)
			}
			// A's URL with B's token is B's session.
			c := connectEntryHTTP(t, ea.URL, tb)
			n := len(r.fsRequests())
			if got := callRead(t, c, "a.txt"); got != "buffer of B\n" {
				t.Errorf("A's URL with B's token read %q, want B's buffer", got)
			}
			if reqs := r.fsRequests()[n:]; len(reqs) != 1 || reqs[0].SessionID != sb.id {
				t.Errorf("the read with B's token reached the editor as %+v, want one request of %s", reqs, sb.id)
			}
			for _, auth := range []string{"", "Bearer not-a-token", "Bearer " + strings.TrimPrefix(ta, "Bearer ") + "x", strings.TrimPrefix(ta, "Bearer ")} {
				if code := postInitialize(t, ea.URL, auth); code != http.StatusUnauthorized {
					t.Errorf("POST with Authorization %q: status %d, want 401", auth, code)
				}
			}
		case "stdio":
			secretA, secretB := ea.EnvValue("MCP_ACPFS_RELAY_SECRET"), eb.EnvValue("MCP_ACPFS_RELAY_SECRET")
			if secretA == secretB {
				t.Fatalf("both sessions have the secret %q", secretA)
			}
			socketA := ea.EnvValue("MCP_ACPFS_RELAY_SOCKET")
			c := connectRelay(t, socketA, secretB)
			if got := callRead(t, c, "a.txt"); got != "buffer of B\n" {
				t.Errorf("A's relay socket with B's secret read %q, want B's buffer", got)
			}
			for _, secret := range []string{"bogus", secretA + "x"} {
				if code, stderr := runRelay(t, socketA, secret); code == 0 || !strings.Contains(stderr, "refused") {
					t.Errorf("relay with secret %q: status %d, stderr %q; want it refused", secret, code, stderr)
				}
			}
		}

		// Once B is closed, its secret is worthless.
		if err := r.ed.Call(callContext(t), "session/close", map[string]any{"sessionId": sb.id}, nil); err != nil {
			t.Fatalf("session/close: %v", err)
		}
		switch mode.name {
		case "http":
			if code := postInitialize(t, eb.URL, eb.Header("Authorization")); code != http.StatusUnauthorized {
				t.Errorf("POST with a closed session's token: status %d, want 401", code)
			}
		case "stdio":
			if code, stderr := runRelay(t, eb.EnvValue("MCP_ACPFS_RELAY_SOCKET"), eb.EnvValue("MCP_ACPFS_RELAY_SECRET")); code == 0 || !strings.Contains(stderr, "refused") {
				t.Errorf("relay with a closed session's secret: status %d, stderr %q; want it refused", code, stderr)
			}
		}
		// A still works.
		reps := r.mustPrompt(sa, readStep("a.txt"))
		wantText(t, reps[1], "buffer of A\n")

		// The secrets are in no log line (debug included).
		for _, e := range []mcpEntry{ea, eb} {
			for _, secret := range []string{strings.TrimPrefix(e.Header("Authorization"), "Bearer "), e.EnvValue("MCP_ACPFS_RELAY_SECRET")} {
				if secret != "" && strings.Contains(r.p.stderr.String(), secret) {
					t.Errorf("the proxy's stderr has a session's secret in it")
				}
			}
		}
	})
}

// connectEntryHTTP connects an MCP client to url with an Authorization
// header.
func connectEntryHTTP(t *testing.T, url, auth string) *client.Client {
	t.Helper()
	return connectEntry(t, mcpclient.Entry{Type: "http", URL: url, Headers: []mcpclient.NameValue{{Name: "Authorization", Value: auth}}}, nil)
}

// connectRelay runs mcp-acpfs relay with a socket and secret and connects
// an MCP client to it.
func connectRelay(t *testing.T, socket, secret string) *client.Client {
	t.Helper()
	e := mcpclient.Entry{Command: binPath, Args: []string{"relay"},
		Env: []mcpclient.NameValue{{Name: "MCP_ACPFS_RELAY_SOCKET", Value: socket}, {Name: "MCP_ACPFS_RELAY_SECRET", Value: secret}}}
	return connectEntry(t, e, func(name string, args, env []string) *exec.Cmd {
		cmd := exec.Command(name, args...)
		cmd.Env = childEnv(env...)
		return cmd
	})
}

// connectEntry connects an MCP client to e for the rest of the test, a
// stdio server's process made by command (see mcpclient.Options).
func connectEntry(t *testing.T, e mcpclient.Entry, command func(name string, args, env []string) *exec.Cmd) *client.Client {
	t.Helper()
	c, err := mcpclient.Connect(t.Context(), e, mcpclient.Options{Hello: clientHello(""), Command: command})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// callRead reads path with the read_text_file tool and returns the text of
// a success.
func callRead(t *testing.T, c *client.Client, path string) string {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = "read_text_file"
	req.Params.Arguments = map[string]any{"path": path}
	res, err := c.CallTool(callContext(t), req)
	if err != nil {
		t.Fatalf("read_text_file %s: %v", path, err)
	}
	if n := len(res.Content); n != 1 && n != 2 { // the text, and a note if it is not the disk's
		t.Fatalf("read_text_file %s: %d contents", path, n)
	}
	text, _ := mcp.AsTextContent(res.Content[0])
	if res.IsError || text == nil {
		t.Fatalf("read_text_file %s: error result %+v", path, res.Content[0])
	}
	return text.Text
}

// postInitialize posts an MCP initialize to url with an Authorization
// header (none if auth is "") and returns the status.
func postInitialize(t *testing.T, url, auth string) int {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	req, err := http.NewRequestWithContext(callContext(t), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// runRelay runs mcp-acpfs relay with no input and returns its exit code
// and standard error.
func runRelay(t *testing.T, socket, secret string) (int, string) {
	t.Helper()
	cmd := exec.CommandContext(callContext(t), binPath, "relay")
	cmd.Env = childEnv("MCP_ACPFS_RELAY_SOCKET="+socket, "MCP_ACPFS_RELAY_SECRET="+secret)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	if err != nil && cmd.ProcessState == nil {
		t.Fatalf("relay: %v", err)
	}
	return cmd.ProcessState.ExitCode(), stderr.String()
}

// TestProxyOutsideRoots: paths outside the session's roots (its cwd, its
// additionalDirectories and --root) are refused with error results, and
// nothing about them is sent to the editor, whatever its buffers hold.
func TestProxyOutsideRoots(t *testing.T) {
	forEachMode(t, func(t *testing.T, mode agentMode) {
		base := tempDir(t)
		root, sibling, outside, shared := filepath.Join(base, "root"), filepath.Join(base, "rootx"), filepath.Join(base, "outside"), filepath.Join(base, "shared")
		extra := filepath.Join(base, "extra")
		putFiles(t, extra, map[string]string{"e.txt": "disk extra\n"})
		const secret = "SECRET on disk\n"
		putFiles(t, root, map[string]string{"in.txt": "disk in\n"})
		putFiles(t, sibling, map[string]string{"secret.txt": secret})
		putFiles(t, outside, map[string]string{"secret.txt": secret})
		putFiles(t, shared, map[string]string{"s.txt": "disk shared\n"})
		links := ostest.NoSymlinks(t, base)
		if links == nil {
			for link, target := range map[string]string{"link-out.txt": filepath.Join("..", "outside", "secret.txt"), "link-dir": filepath.Join("..", "outside")} {
				if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
					t.Fatal(err)
				}
			}
		}
		const bufSecret = "SECRET in a buffer\n"
		bufs := buffers(base, map[string]string{
			"root/in.txt":            "buffer in\n",
			"rootx/secret.txt":       bufSecret,
			"outside/secret.txt":     bufSecret,
			"root/link-out.txt":      bufSecret,
			"root/link-dir/x.txt":    bufSecret,
			"shared/s.txt":           "buffer shared\n",
			"extra/e.txt":            "buffer extra\n",
			"rootx/unsaved-only.txt": bufSecret,
		})
		before := bufs.Paths()
		r := startProxy(t, proxyOptions{
			mode:       mode,
			proxyFlags: []string{"--root", shared},
			editor:     fakeeditor.Options{ReadTextFile: true, WriteTextFile: true, Buffers: bufs},
		})
		s := r.newSession(root, map[string]any{"additionalDirectories": []string{extra, filepath.Join(base, "missing")}})
		refused := []testagent.Step{
			readStep("../outside/secret.txt"),
			readStep(filepath.Join(sibling, "secret.txt")),
			readStep(filepath.Join(sibling, "unsaved-only.txt")),
			readStep(filepath.Join(root, "..", "rootx", "secret.txt")),
			readStep("/etc/passwd"),
			writeStep("../outside/new.txt", "x"),
			writeStep(filepath.Join(sibling, "new.txt"), "x"),
		}
		if links == nil {
			refused = append(refused,
				readStep("link-out.txt"),
				readStep("link-dir/secret.txt"),
				writeStep("link-out.txt", "x"),
				writeStep("link-dir/new.txt", "x"),
			)
		} else {
			t.Logf("no symlinks out of the root can be made here, so none is tried: %v", links)
		}
		reps := r.mustPrompt(s, refused...)
		for i := range refused {
			text := wantToolError(t, reps[i+1], "outside|permission")
			if strings.Contains(text, "SECRET") {
				t.Errorf("step %d: the error leaks content: %q", i+1, text)
			}
		}
		if reqs := r.fsRequests(); len(reqs) > 0 {
			t.Errorf("the editor was asked about paths outside the roots: %+v", reqs)
		}
		onDisk(t, filepath.Join(outside, "secret.txt"), secret)
		notOnDisk(t, filepath.Join(outside, "new.txt"))
		notOnDisk(t, filepath.Join(sibling, "new.txt"))
		if after := bufs.Paths(); !slices.Equal(before, after) {
			t.Errorf("the editor's buffers changed from %v to %v", before, after)
		}

		// Inside the roots (the cwd, the additional directories and
		// --root), the editor serves.
		reps = r.mustPrompt(s, readStep("in.txt"), readStep(filepath.Join(shared, "s.txt")), readStep("link-dir/../in.txt"), readStep(filepath.Join(extra, "e.txt")))
		wantText(t, reps[1], "buffer in\n")
		wantText(t, reps[2], "buffer shared\n")
		wantText(t, reps[3], "buffer in\n") // cleaned lexically to root/in.txt
		wantText(t, reps[4], "buffer extra\n")
	})
}

// TestProxySymlinkedCwd: a session whose cwd is a symlink (as /tmp or a
// home directory can be) sends the editor paths under the cwd it named,
// which are the paths the editor knows its buffers by.
func TestProxySymlinkedCwd(t *testing.T) {
	base := tempDir(t)
	ostest.NeedSymlinks(t, base)
	target, link := filepath.Join(base, "real"), filepath.Join(base, "link")
	putFiles(t, target, diskFiles)
	if err := os.Symlink("real", link); err != nil {
		t.Fatal(err)
	}
	bufs := buffers(link, bufferFiles)
	r := startProxy(t, proxyOptions{mode: agentModes[0], editor: fakeeditor.Options{ReadTextFile: true, WriteTextFile: true, Buffers: bufs}})
	s := r.newSession(link, nil)
	reps := r.mustPrompt(s, readStep("a.txt"), readStep(filepath.Join(link, "lines.txt")), writeStep("new.txt", "new\n"))
	wantText(t, reps[1], "buffer a\n")
	wantText(t, reps[2], "one\ntwo\nthree\nfour\n")
	wantSuccess(t, reps[3])
	inBuffers(t, bufs, filepath.Join(link, "new.txt"), "new\n")
	for _, q := range r.fsRequests() {
		if filepath.Dir(q.Path) != link {
			t.Errorf("%s %s: want a path in %s", q.Method, q.Path, link)
		}
	}
}
