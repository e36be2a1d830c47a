//go:build linux

package realagents

import (
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/fakeeditor"
	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/modelserver"
)

// TestOpencodeSharedRegistry runs opencode, which keeps one MCP server
// per directory and name, behind the proxy with two sessions in one
// directory, each with its own editor buffer of notes.txt. Each session's
// model reads the file with acpfs's read_text_file, and gets its own
// session's buffer: prompting alone, and both at once (each call then goes
// to the session that reported it). When both make the same call at once,
// a call reported by both gets the tool error that says it cannot be tied
// to one of them, and no model gets the other's buffer. Once one session
// is closed, the other keeps reading its own buffer.
func TestOpencodeSharedRegistry(t *testing.T) {
	i := slices.IndexFunc(agents, func(a agent) bool { return a.name == "opencode" })
	if i < 0 {
		t.Fatal("no opencode in agents")
	}
	a := agents[i]
	nm := nodeModules(t)
	home, ws := t.TempDir(), t.TempDir()
	file := filepath.Join(ws, fileName)
	writeFile(t, file, diskText)

	readTool := a.tool("read_text_file")
	var sameArgs atomic.Bool // both sessions' models read with the same arguments
	model := modelserver.Start(a.api, func(req modelserver.Request) modelserver.Reply {
		// A prompt's turn reads the file; the turn after its result
		// ends. Requests without the tools (opencode's title) get text.
		if !containsString(req.Tools, readTool) || lastRole(req.Body) != "user" {
			return modelserver.Reply{Text: "done"}
		}
		args := map[string]any{"path": file}
		if !sameArgs.Load() && strings.Contains(req.Prompt, "session B") {
			args["limit"] = 5
		}
		return modelserver.Reply{Call: &modelserver.Call{Name: readTool, Args: mustJSON(args)}}
	})
	t.Cleanup(model.Close)

	argv, extra := a.command(t, nm, model.URL, home)
	argv = append([]string{binPath, "proxy", "--log-level", "debug", "--"}, argv...)
	marker := randomHex(t)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = ws
	cmd.Env = agentEnv(home, marker, extra)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 2 * time.Second
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	cmd.Stdout = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		pw.Close()
		close(exited)
	}()

	var mu sync.Mutex
	buffers := map[string]*fsruntimetest.MemFS{} // by session id
	ctx, cancel := context.WithTimeout(t.Context(), runTimeout)
	defer cancel()
	ed := fakeeditor.New(ctx, pr, stdin, fakeeditor.Options{
		ReadTextFile: true, WriteTextFile: true,
		SessionBuffers: func(id string) *fsruntimetest.MemFS {
			mu.Lock()
			defer mu.Unlock()
			if b := buffers[id]; b != nil {
				return b
			}
			return fsruntimetest.NewMemFS() // another session's: no buffers
		},
	})
	defer func() {
		if t.Failed() {
			t.Logf("stderr:\n%s", tail(stderr.String(), 20000))
			for i, q := range model.Requests() {
				t.Logf("model request %d: %s", i, truncate(string(q.Body), 1500))
			}
		}
		ed.Close()
		select {
		case <-exited:
		case <-time.After(exitTimeout):
			t.Errorf("the proxy did not exit within %v of the editor's disconnecting", exitTimeout)
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		if left := waitGone(marker); len(left) > 0 {
			t.Errorf("processes of the run still running %v after it ended: %v", goneTimeout, left)
			for _, pid := range left {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}()

	if _, err := ed.Initialize(ctx); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	text := map[string]string{}
	var ids []string
	names := map[string]string{} // session id → A or B
	for _, name := range []string{"A", "B"} {
		id, err := ed.NewSession(ctx, ws, nil)
		if err != nil {
			t.Fatalf("session/new: %v", err)
		}
		text[id] = "notes in the unsaved buffer of session " + name + "\n"
		b := fsruntimetest.NewMemFS()
		b.Set(file, text[id])
		mu.Lock()
		buffers[id] = b
		mu.Unlock()
		ids = append(ids, id)
		names[id] = name
	}
	sessA, sessB := ids[0], ids[1]

	prompt := func(id string) {
		t.Helper()
		params := map[string]any{"sessionId": id,
			"prompt": []any{map[string]any{"type": "text", "text": "Read " + fileName + " for session " + names[id] + "."}}}
		var res struct {
			StopReason string `json:"stopReason"`
		}
		if err := ed.Call(ctx, "session/prompt", params, &res); err != nil {
			t.Errorf("session/prompt of %s: %v", id, err)
		}
	}
	// results returns the tool results the model received since turn n
	// (of the model's turns), by the session (A or B) whose conversation
	// it is, and how many turns there are now.
	results := func(n int) (map[string][]string, int) {
		t.Helper()
		turns := model.Turns()
		out := map[string][]string{}
		for _, q := range turns[n:] {
			if lastRole(q.Body) != "tool" || len(q.Results) == 0 {
				continue
			}
			name := "?"
			for _, nm := range []string{"A", "B"} {
				if strings.Contains(q.Prompt, "session "+nm) {
					name = nm
				}
			}
			if name == "?" {
				t.Errorf("a tool result in a conversation of neither session: %s", truncate(string(q.Body), 2000))
			}
			out[name] = append(out[name], q.Results[len(q.Results)-1].Text)
		}
		return out, len(turns)
	}
	wantOwn := func(what, id string, got map[string][]string) {
		t.Helper()
		own := got[names[id]]
		if len(own) != 1 || !strings.Contains(own[0], text[id]) {
			t.Errorf("%s: the model of session %s received %q, want one result with its buffer %q", what, names[id], own, text[id])
		}
	}
	both := func() {
		var wg sync.WaitGroup
		for _, id := range []string{sessA, sessB} {
			wg.Go(func() { prompt(id) })
		}
		wg.Wait()
	}

	n := 0
	var got map[string][]string
	for _, id := range []string{sessA, sessB} {
		prompt(id)
		got, n = results(n)
		wantOwn("prompting alone", id, got)
	}

	// Both at once, each call with arguments of its own: each goes to
	// the session that reported it.
	both()
	got, n = results(n)
	wantOwn("both prompting", sessA, got)
	wantOwn("both prompting", sessB, got)
	if !strings.Contains(stderr.String(), "gave a call to a directory's shared MCP server to the session that reported it") {
		t.Error("no call was given to a session by its report: the two prompts did not overlap")
	}

	// Both at once, with the same arguments: a call that both reported
	// cannot be tied to either, and is refused; none gets the other's
	// buffer.
	sameArgs.Store(true)
	both()
	got, n = results(n)
	refused := 0
	for _, id := range []string{sessA, sessB} {
		if len(got[names[id]]) != 1 {
			t.Errorf("both prompting with the same call, the model of session %s received %q, want one result",
				names[id], got[names[id]])
		}
		for _, r := range got[names[id]] {
			switch {
			case strings.Contains(r, "2 sessions in "+ws+" are prompting at once"):
				refused++
			case !strings.Contains(r, text[id]):
				t.Errorf("both prompting with the same call, the model of session %s received %q", names[id], r)
			}
		}
	}
	t.Logf("both prompting with the same call: %d of the calls refused", refused)
	sameArgs.Store(false)

	if err := ed.Call(ctx, "session/close", map[string]any{"sessionId": sessB}, nil); err != nil {
		t.Fatalf("session/close: %v", err)
	}
	prompt(sessA)
	got, _ = results(n)
	wantOwn("after the other session closed", sessA, got)
}

// lastRole returns the role of the last message of a Chat Completions
// request body.
func lastRole(body []byte) string {
	var b struct {
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &b) != nil || len(b.Messages) == 0 {
		return ""
	}
	return b.Messages[len(b.Messages)-1].Role
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
