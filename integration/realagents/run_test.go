//go:build linux

package realagents

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/fakeeditor"
	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/modelserver"
	"golang.org/x/sys/unix"
)

// Bounds. An agent run takes 5 to 20 seconds on 2 cores; these only bound
// how long a broken one can hang the suite. A busy machine stretches a run
// of several turns far: at a load average of 20 on 2 cores, opencode's
// model-view run took over 90 seconds.
const (
	runTimeout  = 180 * time.Second // one whole run, from start to the end of the prompt
	exitTimeout = 20 * time.Second  // from the editor's disconnecting to the exit
	goneTimeout = 5 * time.Second   // for the agent's processes to be gone after that
)

// runMarkerEnv names the variable, set to a value unique to each run, by
// which the processes of a run are found: every process the agent starts
// inherits it.
const runMarkerEnv = "REALAGENTS_RUN"

// The file the scenarios read and write: its text on disk, and the
// editor's unsaved buffer of it, which differs.
const (
	fileName   = "notes.txt"
	diskText   = "notes as saved on disk\n"
	bufferText = "notes in the unsaved buffer of the editor\n"
	newText    = "notes as the model wrote them\n"
)

// runOptions configure one [runAgent].
type runOptions struct {
	// direct runs the agent without the proxy: the editor talks to it
	// directly.
	direct     bool
	proxyFlags []string // before --
	// noFS makes the editor advertise no fs methods.
	noFS bool
	// prepare, if not nil, is called with the run before the agent
	// starts and before script: to add files to its workspace and the
	// editor's buffers.
	prepare func(t *testing.T, r *run)
	// trace has the proxy write its --trace file, to run.trace.
	trace bool
	// script answers the model's turns; nil answers every turn with a
	// final text.
	script func(a agent, file string) modelserver.Script
	// beforePrompt, if not nil, runs between session/new (whose id is
	// sid) and the prompt.
	beforePrompt func(ctx context.Context, t *testing.T, ed *fakeeditor.Editor, sid string)
	// wrapped starts the agent through a shell script of its own, whose
	// name and command line say nothing of the agent, as users wrap an
	// agent to set its environment; it passes its arguments on.
	wrapped bool
}

// A run is what one agent run left to check.
type run struct {
	model      *modelserver.Server
	ed         *fakeeditor.Editor
	buffers    *fsruntimetest.MemFS
	ws, file   string // the session's cwd, and the absolute path of the file
	stopReason string
	stderr     string
	trace      string // the proxy's trace file, if runOptions.trace
}

// runAgent runs a with a fake editor on its standard input and output
// (through the proxy unless o.direct): initialize, session/new in a fresh
// workspace holding fileName, one prompt, and the editor's disconnecting.
// It fails the test if the run takes too long or leaves a process behind.
func runAgent(t *testing.T, a agent, o runOptions) *run {
	t.Helper()
	nm := nodeModules(t)
	home, ws := t.TempDir(), t.TempDir()
	r := &run{ws: ws, file: filepath.Join(ws, fileName), buffers: fsruntimetest.NewMemFS()}
	writeFile(t, r.file, diskText)
	r.buffers.Set(r.file, bufferText)

	if o.prepare != nil {
		o.prepare(t, r)
	}
	script := func(modelserver.Request) modelserver.Reply { return modelserver.Reply{Text: "done"} }
	if o.script != nil {
		script = o.script(a, r.file)
	}
	r.model = modelserver.Start(a.api, script)
	t.Cleanup(r.model.Close)

	argv, extra := a.command(t, nm, r.model.URL, home)
	if o.wrapped {
		script := filepath.Join(t.TempDir(), "my-agent.sh")
		var quoted []string
		for _, arg := range argv {
			quoted = append(quoted, "'"+strings.ReplaceAll(arg, "'", `'\''`)+"'")
		}
		writeFile(t, script, "#!/bin/sh\nexec "+strings.Join(quoted, " ")+` "$@"`+"\n")
		if err := os.Chmod(script, 0o755); err != nil {
			t.Fatal(err)
		}
		argv = []string{script}
	}
	if !o.direct {
		args := append([]string{"proxy", "--log-level", "debug"}, o.proxyFlags...)
		if o.trace {
			r.trace = filepath.Join(t.TempDir(), "trace.jsonl")
			args = append(args, "--trace", r.trace)
		}
		argv = append(append(append([]string{binPath}, args...), "--"), argv...)
	}
	marker := randomHex(t)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = ws
	cmd.Env = agentEnv(home, marker, extra)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Wait returns when the output is closed by every process holding it;
	// one that escaped the group must not hang the test.
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
		t.Fatalf("starting %s: %v", argv[0], err)
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		pw.Close()
		close(exited)
	}()
	defer func() {
		r.stderr = stderr.String()
		if t.Failed() {
			t.Logf("stderr of %s:\n%s", a.name, tail(r.stderr, 20000))
			for i, q := range r.model.Requests() {
				t.Logf("model request %d: %s %s: %s", i, q.Method, q.Path, truncate(string(q.Body), 2000))
			}
		}
	}()

	ctx, cancel := context.WithTimeout(t.Context(), runTimeout)
	defer cancel()
	r.ed = fakeeditor.New(ctx, pr, stdin, fakeeditor.Options{
		ReadTextFile:  !o.noFS,
		WriteTextFile: !o.noFS,
		Buffers:       r.buffers,
	})
	defer func() {
		r.ed.Close()
		if o.direct {
			// Without the proxy, ending the agent and what it started is
			// ours to do; how it ends is not under test.
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
		select {
		case <-exited:
		case <-time.After(exitTimeout):
			t.Errorf("%s did not exit within %v of the editor's disconnecting", argv[0], exitTimeout)
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		if left := waitGone(marker); len(left) > 0 {
			t.Errorf("processes of the run still running %v after it ended: %v", goneTimeout, left)
			for _, pid := range left {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		for _, m := range launchFilePattern.FindAllStringSubmatch(stderr.String(), -1) {
			if _, err := os.Stat(m[1]); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the file the proxy wrote for the agent's launch, %s, is still there after it exited (%v; %v)", m[1], err, cmd.ProcessState)
			}
		}
		if got := r.ed.Unadvertised(); len(got) > 0 {
			t.Errorf("the editor received fs methods it did not advertise: %v", got)
		}
	}()

	if _, err := r.ed.Initialize(ctx); err != nil {
		t.Fatalf("%s: initialize: %v", a.name, err)
	}
	sid, err := r.ed.NewSession(ctx, ws, nil)
	if err != nil {
		t.Fatalf("%s: session/new: %v", a.name, err)
	}
	if o.beforePrompt != nil {
		o.beforePrompt(ctx, t, r.ed, sid)
	}
	params := map[string]any{
		"sessionId": sid,
		"prompt":    []any{map[string]any{"type": "text", "text": "Read " + fileName + ", then rewrite it."}},
	}
	var res struct {
		StopReason string `json:"stopReason"`
	}
	if err := r.ed.Call(ctx, "session/prompt", params, &res); err != nil {
		t.Fatalf("%s: session/prompt: %v", a.name, err)
	}
	r.stopReason = res.StopReason
	if !slices.Contains(processesWith(runMarkerEnv+"="+marker), cmd.Process.Pid) {
		// Else the check that none is left behind would prove nothing.
		t.Errorf("process %d, running, is not found by its %s", cmd.Process.Pid, runMarkerEnv)
	}
	return r
}

// launchFilePattern finds, in the proxy's log, a file it wrote for the
// agent's launch (gemini-cli's policy file, Qwen Code's system defaults),
// which it must remove.
var launchFilePattern = regexp.MustCompile(`(?:policy|settings)=(\S+)`)

// waitGone waits up to goneTimeout for every process carrying marker in
// its environment to be gone, and returns those that are not. It waits for
// the exit of each process it finds, on a pidfd, then looks again for any
// started meanwhile.
func waitGone(marker string) []int {
	deadline := time.Now().Add(goneTimeout)
	for {
		left := processesWith(runMarkerEnv + "=" + marker)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		for _, pid := range left {
			waitExit(pid, deadline)
		}
	}
}

// waitExit waits until pid has exited or deadline passes.
func waitExit(pid int, deadline time.Time) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		if !errors.Is(err, unix.ESRCH) {
			time.Sleep(20 * time.Millisecond) // no pidfds: poll the process table
		}
		return
	}
	defer unix.Close(fd)
	for {
		wait := time.Until(deadline)
		if wait <= 0 {
			return
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, int(wait.Milliseconds())+1); err != unix.EINTR {
			return
		}
	}
}

// processesWith returns the live processes whose environment holds kv.
func processesWith(kv string) []int {
	entries, _ := os.ReadDir("/proc")
	want := []byte(kv + "\x00")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(append([]byte{0}, env...), append([]byte{0}, want...)) {
			continue // gone, a zombie (empty), or another's
		}
		pids = append(pids, pid)
	}
	return pids
}

func randomHex(t *testing.T) string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// lockedBuffer is a bytes.Buffer safe for a writer and readers.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

// toolCallUpdates returns the params.update of every session/update of
// kind tool_call or tool_call_update the editor received, in order.
func toolCallUpdates(ed *fakeeditor.Editor) []map[string]any {
	var out []map[string]any
	for _, m := range ed.Notifications("session/update") {
		var p struct {
			Update map[string]any `json:"update"`
		}
		if json.Unmarshal(m.Params, &p) != nil {
			continue
		}
		if isToolCallUpdate(p.Update) {
			out = append(out, p.Update)
		}
	}
	return out
}

func isToolCallUpdate(u map[string]any) bool {
	k, _ := u["sessionUpdate"].(string)
	return k == "tool_call" || k == "tool_call_update"
}

// toolCallMessage returns the params of a message that reports a tool
// call (a tool_call or tool_call_update session/update, or a
// session/request_permission), and its tool call: params.update or
// params.toolCall.
func toolCallMessage(raw []byte) (params, call map[string]any, ok bool) {
	var m struct {
		Method string         `json:"method"`
		Params map[string]any `json:"params"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return nil, nil, false
	}
	switch m.Method {
	case "session/update":
		u, _ := m.Params["update"].(map[string]any)
		return m.Params, u, u != nil && isToolCallUpdate(u)
	case "session/request_permission":
		c, _ := m.Params["toolCall"].(map[string]any)
		return m.Params, c, c != nil
	}
	return nil, nil, false
}

// agentToolCallMessages returns, from the proxy's trace, the messages
// reporting tool calls as the agent sent them, in order.
func agentToolCallMessages(t *testing.T, trace string) []json.RawMessage {
	t.Helper()
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var out []json.RawMessage
	for _, line := range bytes.Split(data, []byte("\n")) {
		var l struct {
			Dir string          `json:"dir"`
			Msg json.RawMessage `json:"msg"`
		}
		if json.Unmarshal(line, &l) != nil || l.Dir != "from-agent" {
			continue
		}
		if _, _, ok := toolCallMessage(l.Msg); ok {
			out = append(out, l.Msg)
		}
	}
	return out
}
