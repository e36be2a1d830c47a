package integration

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/fakeeditor"
	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/testagent"
)

// TestProxySessionLoadAndEarlyConnect: the tools work in a session/load as
// in a session/new, also for an agent that connects to its MCP servers
// and lists their tools before it answers, while the proxy does not yet
// know the session id of a new session.
func TestProxySessionLoadAndEarlyConnect(t *testing.T) {
	forEachMode(t, func(t *testing.T, mode agentMode) {
		dir := tempDir(t)
		putFiles(t, dir, diskFiles)
		bufs := buffers(dir, bufferFiles)
		r := startProxy(t, proxyOptions{mode: mode, agentFlags: []string{"-connect-early"}, editor: fakeeditor.Options{ReadTextFile: true, WriteTextFile: true, Buffers: bufs}})
		s := r.newSession(dir, nil)
		if got := slices.Sorted(slices.Values(s.report.Tools)); !slices.Equal(got, prefixed("acpfs/", allTools)) {
			t.Errorf("before answering session/new the agent saw the tools %v, want %v", s.report.Tools, prefixed("acpfs/", allTools))
		}
		wantText(t, r.mustPrompt(s, readStep("a.txt"))[1], "buffer a\n")

		const loaded = "sess-from-history"
		n := len(r.ed.Messages())
		var res any
		if err := r.ed.Call(callContext(t), "session/load", map[string]any{"sessionId": loaded, "cwd": dir, "mcpServers": []any{}}, &res); err != nil {
			t.Fatalf("session/load: %v", err)
		}
		rep := r.waitReportAfter(callContext(t), n, func(rep testagent.Report) bool { return rep.Kind == "session" && rep.SessionID == loaded })
		if got := slices.Sorted(slices.Values(rep.Tools)); !slices.Equal(got, prefixed("acpfs/", allTools)) {
			t.Errorf("before answering session/load the agent saw the tools %v, want %v", rep.Tools, prefixed("acpfs/", allTools))
		}
		sl := acpSession{id: loaded, cwd: dir, report: rep}
		checkEntry(t, mode, sl.entry(t, "acpfs"))
		reps := r.mustPrompt(sl, readStep("lines.txt"), writeStep("l.txt", "loaded\n"))
		wantText(t, reps[1], "one\ntwo\nthree\nfour\n")
		wantSuccess(t, reps[2])
		inBuffers(t, bufs, filepath.Join(dir, "l.txt"), "loaded\n")
		for _, q := range r.fsRequests() {
			if want := map[bool]string{true: loaded, false: s.id}[filepath.Base(q.Path) == "l.txt" || filepath.Base(q.Path) == "lines.txt"]; q.SessionID != want {
				t.Errorf("%s %s carries sessionId %q, want %q", q.Method, q.Path, q.SessionID, want)
			}
		}
	})
}

// prefixed returns names, each with prefix before it.
func prefixed(prefix string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = prefix + n
	}
	return out
}

// TestProxyFlags: --route, --name and --read-only shape what the agent
// gets; a session whose cwd does not exist here gets no file tools but
// still works.
func TestProxyFlags(t *testing.T) {
	dir := tempDir(t)
	putFiles(t, dir, diskFiles)
	r := startProxy(t, proxyOptions{
		mode:       agentModes[0],
		proxyFlags: []string{"--route", "editor", "--name", "files", "--read-only"},
		editor:     fakeeditor.Options{ReadTextFile: true, Buffers: buffers(dir, bufferFiles)},
	})
	s := r.newSession(dir, nil)
	s.entry(t, "files")
	read := func(path string) testagent.Step {
		return testagent.Step{Server: "files", Tool: "read_text_file", Args: map[string]any{"path": path}}
	}
	reps := r.mustPrompt(s, read("a.txt"), testagent.Step{Server: "files", Tool: "write_text_file", Args: map[string]any{"path": "w.txt", "content": "x"}})
	wantText(t, reps[1], "buffer a\n")
	if reps[2].Error == "" {
		if res := toolOf(t, reps[2]); !res.IsError {
			t.Errorf("write_text_file with --read-only: %s, want no such tool", reps[2].Result)
		}
	}
	notOnDisk(t, filepath.Join(dir, "w.txt"))

	// A cwd that does not exist on this machine: the session opens
	// without the tools.
	missing := filepath.Join(dir, "no", "such", "dir")
	sm := r.newSession(missing, nil)
	if len(sm.report.MCPServers) != 0 {
		t.Errorf("a session in a missing cwd got MCP servers %s", sm.report.MCPServers)
	}
	r.mustPrompt(sm, testagent.Step{SleepMS: 1})

	// With --route editor and an editor that cannot write, a write fails
	// rather than going to disk.
	r2 := startProxy(t, proxyOptions{
		mode:       agentModes[0],
		proxyFlags: []string{"--route", "editor"},
		editor:     fakeeditor.Options{ReadTextFile: true, Buffers: buffers(dir, bufferFiles)},
	})
	s2 := r2.newSession(dir, nil)
	reps = r2.mustPrompt(s2, writeStep("w.txt", "x"), readStep("a.txt"))
	wantToolError(t, reps[1], "not advertise|not supported")
	wantText(t, reps[2], "buffer a\n")
	notOnDisk(t, filepath.Join(dir, "w.txt"))
}

// TestProxySignal: SIGTERM or SIGINT to the proxy answers the editor's
// pending requests with an error, stops the agent and everything it
// started (its relay, with a stdio entry), and exits non-zero. (On
// Windows SIGINT is a CTRL_BREAK_EVENT, and there is no SIGTERM to send.)
func TestProxySignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			dir := tempDir(t)
			putFiles(t, dir, diskFiles)
			r := startProxy(t, proxyOptions{mode: agentModes[1], editor: fakeeditor.Options{ReadTextFile: true, Buffers: buffers(dir, bufferFiles)}})
			s := r.newSession(dir, nil)
			wantText(t, r.mustPrompt(s, readStep("a.txt"), testagent.Step{Spawn: &testagent.Spawn{}})[1], "buffer a\n")
			n := len(r.ed.Messages())
			errc := make(chan error, 1)
			go func() {
				_, _, err := r.prompt(callContext(t), s, testagent.Step{WaitCancel: true})
				errc <- err
			}()
			r.waitReportAfter(callContext(t), n, func(rep testagent.Report) bool { return rep.Kind == "prompt" })
			if code := r.p.signal(sig); code == 0 {
				t.Errorf("the proxy exited with status 0 on %v, want non-zero", sig)
			}
			select {
			case err := <-errc:
				if err == nil {
					t.Errorf("the pending prompt succeeded; want an error")
				} else {
					rpcError(t, err)
				}
			case <-callContext(t).Done():
				t.Errorf("the pending prompt was never answered")
			}
			wantGone(t, fmt.Sprintf("after %v", sig), r.knownPIDs()...)
		})
	}
}

// TestProxyConcurrentLoad: many prompts at once in two sessions, each
// making many tool calls, all get their own answers.
func TestProxyConcurrentLoad(t *testing.T) {
	forEachMode(t, func(t *testing.T, mode agentMode) {
		base := tempDir(t)
		bufs := buffers(base, nil)
		var cwds []string
		for i := range 2 {
			cwd := filepath.Join(base, fmt.Sprint("s", i))
			putFiles(t, cwd, map[string]string{"keep": ""})
			cwds = append(cwds, cwd)
			for j := range 10 {
				bufs.Set(filepath.Join(cwd, fmt.Sprintf("f%d.txt", j)), fmt.Sprintf("session %d file %d\n", i, j))
			}
		}
		r := startProxy(t, proxyOptions{mode: mode, editor: fakeeditor.Options{ReadTextFile: true, WriteTextFile: true, Buffers: bufs}})
		sessions := []acpSession{r.newSession(cwds[0], nil), r.newSession(cwds[1], nil)}
		var wg sync.WaitGroup
		for p := range 8 {
			i := p % 2
			s := sessions[i]
			wg.Go(func() {
				var steps []testagent.Step
				for j := range 10 {
					steps = append(steps, readStep(fmt.Sprintf("f%d.txt", j)), writeStep(fmt.Sprintf("p%d-%d.txt", p, j), fmt.Sprintf("%d %d\n", p, j)))
				}
				stop, reps, err := r.prompt(callContext(t), s, steps...)
				if err != nil || stop != "end_turn" {
					t.Errorf("prompt %d: %q, %v", p, stop, err)
					return
				}
				for j := range 10 {
					wantText(t, reps[2*j+1], fmt.Sprintf("session %d file %d\n", i, j))
					wantSuccess(t, reps[2*j+2])
				}
			})
		}
		wg.Wait()
		for p := range 8 {
			for j := range 10 {
				inBuffers(t, bufs, filepath.Join(cwds[p%2], fmt.Sprintf("p%d-%d.txt", p, j)), fmt.Sprintf("%d %d\n", p, j))
			}
		}
		for _, q := range r.fsRequests() {
			if want := sessions[slices.Index(cwds, filepath.Dir(q.Path))].id; q.SessionID != want {
				t.Errorf("%s %s carries sessionId %q, want %q", q.Method, q.Path, q.SessionID, want)
			}
		}
	})
}

// TestProxyLargeFiles: content larger than every buffer on the way (the
// codec's 64 KiB, a pipe's) goes through both hops and the MCP transport
// intact. (It is kept small: mcp-go and the test peers re-encode it several
// times, which takes seconds per megabyte under the race detector.)
func TestProxyLargeFiles(t *testing.T) {
	forEachMode(t, func(t *testing.T, mode agentMode) {
		dir := tempDir(t)
		var b strings.Builder
		for i := 0; b.Len() < 300<<10; i++ {
			fmt.Fprintf(&b, "line %d: %s \"quoted\" \\ é ✓\n", i, strings.Repeat("x", i%200))
		}
		big := b.String()
		bufs := buffers(dir, map[string]string{"big.txt": big})
		r := startProxy(t, proxyOptions{mode: mode, editor: fakeeditor.Options{ReadTextFile: true, WriteTextFile: true, Buffers: bufs}})
		s := r.newSession(dir, nil)
		reps := r.mustPrompt(s, readStep("big.txt"), writeStep("copy.txt", big), readRangeStep("big.txt", 1000, 2))
		wantText(t, reps[1], big)
		wantSuccess(t, reps[2])
		inBuffers(t, bufs, filepath.Join(dir, "copy.txt"), big)
		lines := strings.SplitAfter(big, "\n")
		wantText(t, reps[3], lines[999]+lines[1000])
	})
}

// TestProxyCommandLine: a proxy without an agent, or with one that cannot
// start, fails at once with a message.
func TestProxyCommandLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"proxy"}, 2, "no agent command"},
		{[]string{"proxy", "--"}, 2, "no agent command"},
		{[]string{"proxy", "--route", "sideways", "--", testAgentPath}, 2, "sideways"},
		{[]string{"proxy", "--", filepath.Join(t.TempDir(), "no-such-agent")}, 1, "no-such-agent"},
	} {
		code, stdout, stderr := runCommand(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("mcp-acpfs %s: status %d, stderr %q; want status %d and %q", strings.Join(tc.args, " "), code, stderr, tc.code, tc.want)
		}
		if stdout != "" {
			t.Errorf("mcp-acpfs %s wrote on stdout: %q", strings.Join(tc.args, " "), stdout)
		}
	}
}
