package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/fakeeditor"
	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/testagent"
)

// TestProxyAgentCrash: when the agent dies in the middle of a prompt, the
// editor gets everything the agent wrote before it died and then an error
// for the prompt; the proxy exits non-zero and leaves no process behind,
// not even a child of the agent that holds its stdout.
func TestProxyAgentCrash(t *testing.T) {
	forEachMode(t, func(t *testing.T, mode agentMode) {
		dir := tempDir(t)
		putFiles(t, dir, diskFiles)
		r := startProxy(t, proxyOptions{
			mode:       mode,
			proxyFlags: []string{"--trace", filepath.Join(tempDir(t), "trace.jsonl")},
			editor:     fakeeditor.Options{ReadTextFile: true, WriteTextFile: true, Buffers: buffers(dir, bufferFiles)},
		})
		s := r.newSession(dir, nil)
		// The agent writes a burst and exits at once: the end of it is
		// still in the pipe, unread, when it has exited (the more so as
		// the trace slows the proxy's reading down).
		const flood = 1000
		stop, reps, err := r.prompt(callContext(t), s,
			readStep("a.txt"),
			testagent.Step{Spawn: &testagent.Spawn{HoldStdout: true}},
			testagent.Step{Burst: flood},
			testagent.Step{Crash: true},
		)
		if err == nil {
			t.Fatalf("the prompt ended with %q, want an error", stop)
		}
		t.Logf("the prompt failed with: %v", err)
		rpcError(t, err)
		wantText(t, reps[1], "buffer a\n")
		if len(reps[2].ChildPIDs) != 1 {
			t.Fatalf("spawn reported %+v", reps[2])
		}
		var flooded int
		for _, rep := range r.reports() {
			if rep.Kind == "flood" && rep.SessionID == s.id {
				flooded++
			}
		}
		if flooded != flood {
			t.Errorf("the editor got %d of the %d updates the agent wrote before it crashed", flooded, flood)
		}
		if code := r.p.wait("the agent crashed"); code != 3 {
			t.Errorf("the proxy exited with status %d, want the agent's 3", code)
		}
		pids := r.knownPIDs()
		if mode.name == "stdio" && len(pids) < 3 {
			t.Errorf("want the agent, its relay and its child among %v", pids)
		}
		wantGone(t, "after the agent crashed", pids...)
		wantNoRelaySocket(t, s)
	})
}

// TestProxyEditorDisconnects: when the editor closes the stream, the proxy
// stops the agent, which exits on its own, and exits 0 at once.
func TestProxyEditorDisconnects(t *testing.T) {
	forEachMode(t, func(t *testing.T, mode agentMode) {
		dir := tempDir(t)
		putFiles(t, dir, diskFiles)
		r := startProxy(t, proxyOptions{mode: mode, editor: fakeeditor.Options{ReadTextFile: true, Buffers: buffers(dir, bufferFiles), Hold: holdSlow}})
		s := r.newSession(dir, nil)
		reps := r.mustPrompt(s, readStep("a.txt"), testagent.Step{Spawn: &testagent.Spawn{}})
		wantText(t, reps[1], "buffer a\n")
		// A prompt still running when the editor goes, its tool call
		// waiting for the editor.
		go r.prompt(t.Context(), s, readStep("slow.txt"))
		if _, err := r.ed.WaitFor(callContext(t), isSlowRead); err != nil {
			t.Fatalf("the read of slow.txt never reached the editor: %v", err)
		}

		begin := time.Now()
		r.ed.Close()
		if code := r.p.wait("the editor disconnected"); code != 0 {
			t.Errorf("the proxy exited with status %d, want 0", code)
		}
		if d := time.Since(begin); d > 2*time.Second {
			t.Errorf("the proxy took %v to exit after the editor disconnected", d)
		}
		wantGone(t, "after the editor disconnected", r.knownPIDs()...)
		wantNoRelaySocket(t, s)
	})
}

// wantNoRelaySocket fails the test if the relay socket of a stdio entry is
// still there after the proxy exited. (A relay over loopback TCP, where
// the system has no unix sockets, leaves nothing on disk.)
func wantNoRelaySocket(t *testing.T, s acpSession) {
	t.Helper()
	e := s.entry(t, "acpfs")
	if socket := e.EnvValue("MCP_ACPFS_RELAY_SOCKET"); socket != "" && !strings.HasPrefix(socket, bridge.RelayTCPPrefix) {
		if _, err := os.Lstat(filepath.Dir(socket)); err == nil {
			t.Errorf("the relay socket's directory %s is left behind", filepath.Dir(socket))
		}
	}
}

// TestProxyAgentIgnoresEOF: an agent that keeps running after its input
// ends, and ignores SIGTERM too, is killed after the grace period.
func TestProxyAgentIgnoresEOF(t *testing.T) {
	forEachMode(t, func(t *testing.T, mode agentMode) {
		dir := tempDir(t)
		putFiles(t, dir, diskFiles)
		r := startProxy(t, proxyOptions{mode: mode, agentFlags: []string{"-ignore-eof", "-ignore-term"}, editor: fakeeditor.Options{ReadTextFile: true, Buffers: buffers(dir, bufferFiles)}})
		s := r.newSession(dir, nil)
		reps := r.mustPrompt(s, readStep("a.txt"), testagent.Step{Spawn: &testagent.Spawn{}})
		wantText(t, reps[1], "buffer a\n")
		r.ed.Close()
		if code := r.p.wait("the editor disconnected"); code != 0 {
			t.Errorf("the proxy exited with status %d, want 0", code)
		}
		wantGone(t, "after the editor disconnected", r.knownPIDs()...)
	})
}

// TestProxyCancel: cancellation reaches every peer under the ids of its
// hop.
func TestProxyCancel(t *testing.T) {
	forEachMode(t, func(t *testing.T, mode agentMode) {
		dir := tempDir(t)
		putFiles(t, dir, diskFiles)
		bufs := buffers(dir, bufferFiles)
		bufs.Set(filepath.Join(dir, "slow.txt"), "slow\n")
		r := startProxy(t, proxyOptions{mode: mode, editor: fakeeditor.Options{
			ReadTextFile: true, WriteTextFile: true, Buffers: bufs,
			Hold: holdSlow,
		}})
		s := r.newSession(dir, nil)

		// session/cancel reaches the agent, which cancels its MCP tool
		// call; the proxy then cancels the editor read it was waiting
		// for, with $/cancel_request naming the read's id.
		type outcome struct {
			stop string
			err  error
		}
		done := make(chan outcome, 1)
		go func() {
			stop, _, err := r.prompt(callContext(t), s, readStep("slow.txt"))
			done <- outcome{stop, err}
		}()
		ctx := callContext(t)
		read, err := r.ed.WaitFor(ctx, isSlowRead)
		if err != nil {
			t.Fatalf("the read of slow.txt never reached the editor: %v", err)
		}
		if err := r.ed.Notify(ctx, "session/cancel", map[string]any{"sessionId": s.id}); err != nil {
			t.Fatal(err)
		}
		cancel, err := r.ed.WaitFor(ctx, func(m fakeeditor.Message) bool { return m.Method == "$/cancel_request" })
		if err != nil {
			t.Fatalf("no $/cancel_request reached the editor: %v", err)
		}
		var cp struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		json.Unmarshal(cancel.Params, &cp)
		if string(cp.RequestID) != string(read.ID) {
			t.Errorf("$/cancel_request names request %s, want the read's id %s", cp.RequestID, read.ID)
		}
		select {
		case o := <-done:
			if o.err != nil || o.stop != "cancelled" {
				t.Errorf("the cancelled prompt ended with %q, %v; want stopReason cancelled", o.stop, o.err)
			}
		case <-ctx.Done():
			t.Fatal("the cancelled prompt never ended")
		}

		// The agent's $/cancel_request for its own request to the editor
		// reaches the editor under the id the request has there.
		reps := r.mustPrompt(s, testagent.Step{CallFS: &testagent.Call{Params: mustJSON(map[string]any{"path": filepath.Join(dir, "slow.txt")}), Cancel: true}})
		if reps[1].Code != -32800 {
			t.Errorf("the agent's cancelled fs request ended with %+v, want the editor's -32800", reps[1])
		}
		var reads []fakeeditor.Message
		for _, m := range r.ed.Requests("fs/read_text_file") {
			if isSlowRead(m) {
				reads = append(reads, m)
			}
		}
		cancels := r.ed.Notifications("$/cancel_request")
		if len(reads) != 2 || len(cancels) != 2 {
			t.Fatalf("the editor got reads %v and cancellations %v, want two of each", reads, cancels)
		}
		json.Unmarshal(cancels[1].Params, &cp)
		if string(cp.RequestID) != string(reads[1].ID) {
			t.Errorf("the agent's $/cancel_request reached the editor for request %s, want %s", cp.RequestID, reads[1].ID)
		}

		// An editor's $/cancel_request for its pending session/prompt
		// reaches the agent under the id the prompt has on the agent's
		// hop.
		n := len(r.ed.Messages())
		errc := make(chan error, 1)
		go func() {
			_, err := r.ed.Prompt(callContext(t), s.id, []testagent.Step{{WaitCancel: true}}, jsonrpc2.PickID(jsonrpc2.ID{Str: "prompt-7", IsString: true}))
			errc <- err
		}()
		started := r.waitReportAfter(ctx, n, func(rep testagent.Report) bool { return rep.Kind == "prompt" && rep.SessionID == s.id })
		if string(started.RequestID) == `"prompt-7"` {
			t.Errorf("the agent got the prompt under the editor's id %s; want an id of its own hop", started.RequestID)
		}
		if err := r.ed.Notify(ctx, "$/cancel_request", map[string]any{"requestId": "prompt-7"}); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-errc:
			if err == nil {
				t.Fatal("the cancelled prompt succeeded; want -32800")
			}
			e := rpcError(t, err)
			if e.Code != -32800 {
				t.Errorf("the cancelled prompt failed with %d %s, want -32800", e.Code, e.Message)
			}
			var data struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			if e.Data != nil {
				json.Unmarshal(*e.Data, &data)
			}
			if string(data.RequestID) != string(started.RequestID) {
				t.Errorf("the agent was cancelled for request %s, want its prompt's id %s", data.RequestID, started.RequestID)
			}
		case <-ctx.Done():
			t.Fatal("the prompt cancelled with $/cancel_request never ended: the agent did not get the cancellation")
		}
	})
}

// holdSlow makes the editor answer a read of slow.txt only when it is
// cancelled.
func holdSlow(method string, params json.RawMessage) bool {
	return method == "fs/read_text_file" && strings.Contains(string(params), "slow.txt")
}

// isSlowRead is the editor's read of slow.txt.
func isSlowRead(m fakeeditor.Message) bool {
	return m.Method == "fs/read_text_file" && strings.Contains(string(m.Params), "slow.txt")
}

// TestProxyKilled: when the proxy itself is killed (SIGKILL), the agent
// sees its input end and exits, and its relay with it. An agent that
// ignores the end of its input is killed by the system where the proxy has
// it die with the proxy: Pdeathsig on Linux and FreeBSD (not under the
// acpfs_portable tag, which runs macOS's code), the job object on Windows,
// which also takes a child the agent started. Elsewhere nothing outlives
// the proxy to kill such a child.
func TestProxyKilled(t *testing.T) {
	forEachMode(t, func(t *testing.T, mode agentMode) {
		for _, deaf := range []bool{false, true} {
			if deaf && !agentDiesWithProxy() {
				t.Log("an agent that ignores the end of its input outlives a killed proxy on this build")
				continue
			}
			dir := tempDir(t)
			putFiles(t, dir, diskFiles)
			var flags []string
			if deaf {
				flags = []string{"-ignore-eof", "-ignore-term"}
			}
			steps := []testagent.Step{readStep("a.txt")}
			if runtime.GOOS == "windows" {
				steps = append(steps, testagent.Step{Spawn: &testagent.Spawn{}})
			}
			r := startProxy(t, proxyOptions{mode: mode, agentFlags: flags, editor: fakeeditor.Options{ReadTextFile: true, Buffers: buffers(dir, bufferFiles)}})
			s := r.newSession(dir, nil)
			wantText(t, r.mustPrompt(s, steps...)[1], "buffer a\n")
			killPID(r.p.cmd.Process.Pid)
			r.p.wait("the proxy was killed")
			pids := r.knownPIDs()
			if mode.name == "stdio" && len(pids) < 2 {
				t.Errorf("want the agent and its relay among %v", pids)
			}
			wantGone(t, fmt.Sprintf("after the proxy was killed (the agent ignores the end of its input: %v)", deaf), pids...)
		}
	})
}

// agentDiesWithProxy reports whether the system kills the agent when the
// proxy dies, whatever the agent does.
func agentDiesWithProxy() bool {
	switch runtime.GOOS {
	case "windows":
		return true
	case "linux", "freebsd":
		return !strings.Contains(buildTags(), "acpfs_portable")
	}
	return false
}

// TestWaitGone checks the helper the tests above rely on: a running
// process is not gone when the wait ends, and a killed one is, at once.
func TestWaitGone(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(testAgentPath, testagent.SleepArg)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	pid := cmd.Process.Pid
	if waitGone(pid, time.Now().Add(50*time.Millisecond)) {
		t.Errorf("a running process is gone")
	}
	cmd.Process.Kill()
	begin := time.Now()
	if !waitGone(pid, time.Now().Add(time.Minute)) {
		t.Errorf("a killed process is still running after a minute")
	}
	t.Logf("the killed process was gone after %v", time.Since(begin))
}
