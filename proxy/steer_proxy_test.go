//go:build unix

package proxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
	"github.com/mcp-acpfs/mcp-acpfs/proxy"
)

// A steerRig is a proxy run in this process, between a test editor and
// the fault tests' agent process, with what each of them advertises at
// initialize given by the test.
type steerRig struct {
	editor, agent *faultPeer
	dir           string // the session's cwd
	trace         *bytes.Buffer
	exited        chan int
	sessions      chan json.RawMessage // session/new params as the agent got them
}

// startSteerRig runs the proxy with argv (nil: this test binary) as the
// agent's command, initializes both peers, and opens a session with the
// editor's _meta meta (nil for none).
func startSteerRig(t *testing.T, opts proxy.ProxyOptions, argv []string, fs map[string]any, agentInit map[string]any, meta any) *steerRig {
	leaks := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, leaks) })
	ctx, cancel := context.WithTimeout(t.Context(), hangGuard)
	defer cancel()

	sockDir, err := os.MkdirTemp("", "acpfs-steer-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(sockDir, "agent.sock"), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	t.Setenv(faultAgentEnv, filepath.Join(sockDir, "agent.sock"))
	if argv == nil {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		argv = []string{exe}
	}
	r := &steerRig{trace: &bytes.Buffer{}, exited: make(chan int, 1), sessions: make(chan json.RawMessage, 4)}
	if r.dir, err = filepath.EvalSymlinks(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	opts.Bridge.Logger = slog.New(slog.DiscardHandler)
	opts.AgentStderr = io.Discard
	opts.Trace = r.trace
	edTest, edProxy := net.Pipe()
	go func() {
		code, err := proxy.RunProxy(context.Background(), edProxy, argv, opts)
		if err != nil {
			t.Errorf("RunProxy: %v", err)
		}
		r.exited <- code
	}()
	r.editor = newFaultPeer(t, "editor", edTest, nil)
	t.Cleanup(func() { r.stop(t) })
	// The editor speaks first: an agent that takes settings on its
	// command line starts only then.
	initialized := make(chan error, 1)
	go func() {
		m, err := r.editor.call(ctx, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{"fs": fs}})
		if err == nil && m.Error != nil {
			err = fmt.Errorf("%s", m.Raw)
		}
		initialized <- err
	}()
	_, agentConn := acceptFaultAgent(t, ln)
	r.agent = newFaultPeer(t, "agent", agentConn, map[string]func(wire.Message) any{
		"initialize": func(wire.Message) any { return agentInit },
		"session/new": func(m wire.Message) any {
			r.sessions <- m.Params
			return map[string]any{"sessionId": "sess-1"}
		},
	})
	t.Cleanup(func() { r.agent.rwc.Close() })
	if err := <-initialized; err != nil {
		t.Fatalf("initialize: %v", err)
	}
	params := map[string]any{"cwd": r.dir, "mcpServers": []any{}}
	if meta != nil {
		params["_meta"] = meta
	}
	if m, err := r.editor.call(ctx, "session/new", params); err != nil || m.Error != nil {
		t.Fatalf("session/new: %v %s", err, m.Raw)
	}
	return r
}

// stop closes the editor's end and waits for the proxy to exit.
func (r *steerRig) stop(t *testing.T) {
	t.Helper()
	r.editor.rwc.Close()
	select {
	case code := <-r.exited:
		r.exited <- code // for a later stop
	case <-time.After(hangGuard):
		t.Fatal("the proxy did not exit")
	}
}

// traced returns the messages of the trace that went in direction dir
// with method.
func (r *steerRig) traced(dir, method string) []json.RawMessage {
	var out []json.RawMessage
	for _, line := range strings.Split(r.trace.String(), "\n") {
		var tl struct {
			Dir string          `json:"dir"`
			Msg json.RawMessage `json:"msg"`
		}
		var m struct {
			Method string `json:"method"`
		}
		if json.Unmarshal([]byte(line), &tl) == nil && tl.Dir == dir && json.Unmarshal(tl.Msg, &m) == nil && m.Method == method {
			out = append(out, tl.Msg)
		}
	}
	return out
}

var claudeInfo = map[string]any{"protocolVersion": 1, "agentCapabilities": map[string]any{},
	"agentInfo": map[string]any{"name": "@zed-industries/claude-agent-acp", "version": "0.23.1"}}

var bothFS = map[string]any{"readTextFile": true, "writeTextFile": true}

// Behind the proxy, claude-agent-acp's session/new carries the editor's
// _meta merged with the profile; the trace shows the request as sent. Its
// report of a call to read_text_file reaches the editor with kind and
// locations; every other message passes byte for byte.
func TestProxySteersClaude(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), hangGuard)
	defer cancel()
	meta := map[string]any{"claudeCode": map[string]any{"options": map[string]any{"disallowedTools": []any{"Bash"}}}, "mine": true}
	r := startSteerRig(t, proxy.ProxyOptions{}, nil, bothFS, claudeInfo, meta)
	var got struct {
		MCPServers []json.RawMessage `json:"mcpServers"`
		Meta       struct {
			Mine       bool `json:"mine"`
			ClaudeCode struct {
				Options struct {
					DisallowedTools []string `json:"disallowedTools"`
				} `json:"options"`
			} `json:"claudeCode"`
			SystemPrompt struct {
				Append string `json:"append"`
			} `json:"systemPrompt"`
		} `json:"_meta"`
	}
	params := <-r.sessions
	if err := json.Unmarshal(params, &got); err != nil {
		t.Fatal(err)
	}
	if want := []string{"Bash", "Read", "Write", "Edit", "NotebookEdit"}; !slices.Equal(got.Meta.ClaudeCode.Options.DisallowedTools, want) {
		t.Errorf("disallowedTools %q, want %q", got.Meta.ClaudeCode.Options.DisallowedTools, want)
	}
	if !strings.Contains(got.Meta.SystemPrompt.Append, "mcp__acpfs__read_text_file") || !got.Meta.Mine || len(got.MCPServers) != 1 {
		t.Errorf("session/new as the agent got it: %s", params)
	}

	call := map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": "sess-1", "update": map[string]any{
		"_meta": map[string]any{"claudeCode": map[string]any{"toolName": "mcp__acpfs__read_text_file"}}, "toolCallId": "toolu_1",
		"sessionUpdate": "tool_call", "rawInput": map[string]any{"path": "a.txt", "line": 3}, "status": "pending",
		"title": "mcp__acpfs__read_text_file", "kind": "other", "content": []any{}}}}
	r.agent.send(call)
	m := r.editor.nextNote(ctx, "session/update")
	var u struct {
		Params struct {
			Update struct {
				Kind      string `json:"kind"`
				Locations []struct {
					Path string `json:"path"`
					Line int    `json:"line"`
				} `json:"locations"`
			} `json:"update"`
		} `json:"params"`
	}
	json.Unmarshal(m.Raw, &u)
	if up := u.Params.Update; up.Kind != "read" || len(up.Locations) != 1 || up.Locations[0].Path != filepath.Join(r.dir, "a.txt") || up.Locations[0].Line != 3 {
		t.Errorf("the editor got %s", m.Raw)
	}
	chunk := map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": "sess-1", "update": map[string]any{
		"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": "calling \"tool_call\" mcp__acpfs__read_text_file"}}}}
	r.agent.send(chunk)
	sent, _ := json.Marshal(chunk)
	if m := r.editor.nextNote(ctx, "session/update"); !bytes.Equal(m.Raw, sent) {
		t.Errorf("a message chunk changed on the way:\n%s\n%s", sent, m.Raw)
	}

	r.stop(t)
	toAgent := r.traced("to-agent", "session/new")
	if len(toAgent) != 1 || !bytes.Contains(toAgent[0], []byte(`"disallowedTools":["Bash","Read","Write","Edit","NotebookEdit"]`)) {
		t.Errorf("the trace's session/new to the agent: %s", toAgent)
	}
	fromEditor := r.traced("from-editor", "session/new")
	if len(fromEditor) != 1 || bytes.Contains(fromEditor[0], []byte(`"Read"`)) {
		t.Errorf("the trace's session/new from the editor: %s", fromEditor)
	}
	if toEditor := r.traced("to-editor", "session/update"); len(toEditor) != 2 || !bytes.Contains(toEditor[0], []byte(`"kind":"read"`)) {
		t.Errorf("the trace's updates to the editor: %s", toEditor)
	}
}

// With --agent-tools keep, and with an editor that serves no fs, the
// agent gets the editor's _meta as it was.
func TestProxyLeavesTheAgentAlone(t *testing.T) {
	meta := map[string]any{"claudeCode": map[string]any{"options": map[string]any{"disallowedTools": []any{"Bash"}}}}
	for _, tc := range []struct {
		name string
		opts proxy.ProxyOptions
		fs   map[string]any
	}{
		{"keep", proxy.ProxyOptions{AgentTools: proxy.AgentToolsKeep}, bothFS},
		{"no fs", proxy.ProxyOptions{}, map[string]any{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := startSteerRig(t, tc.opts, nil, tc.fs, claudeInfo, meta)
			var got struct {
				Meta json.RawMessage `json:"_meta"`
			}
			json.Unmarshal(<-r.sessions, &got)
			if want, _ := json.Marshal(meta); string(got.Meta) != string(want) {
				t.Errorf("_meta %s, want %s", got.Meta, want)
			}
		})
	}
}

// agentScript writes an executable named name that records its arguments,
// one a line, in the returned file and then runs this test binary as the
// agent.
func agentScript(t *testing.T, name string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args := filepath.Join(dir, "args")
	script := filepath.Join(dir, name)
	body := "#!/bin/sh\nprintf '%s\\n' \"$@\" > '" + args + "'\nexec '" + exe + "'\n"
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	return script, args
}

func readArgs(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// codex-acp takes its instruction on its command line, so the proxy starts
// it once the editor's initialize has told what the editor serves.
func TestProxyStartsCodexWithItsInstruction(t *testing.T) {
	t.Setenv("CODEX_HOME", t.TempDir())
	codexInfo := map[string]any{"protocolVersion": 1, "agentInfo": map[string]any{"name": "codex-acp"}}
	t.Run("editor route", func(t *testing.T) {
		script, args := agentScript(t, "codex-acp")
		startSteerRig(t, proxy.ProxyOptions{}, []string{script, "-c", "model=m"}, bothFS, codexInfo, nil)
		got := readArgs(t, args)
		if len(got) != 4 || got[0] != "-c" || got[1] != "model=m" || got[2] != "-c" ||
			!strings.HasPrefix(got[3], `developer_instructions="Use the tools of the acpfs MCP server for the user's files. Read them with read_text_file`) {
			t.Errorf("codex-acp's arguments: %q", got)
		}
	})
	t.Run("no fs", func(t *testing.T) {
		script, args := agentScript(t, "codex-acp")
		startSteerRig(t, proxy.ProxyOptions{}, []string{script, "-c", "model=m"}, map[string]any{}, codexInfo, nil)
		if got := readArgs(t, args); !slices.Equal(got, []string{"-c", "model=m"}) {
			t.Errorf("codex-acp's arguments: %q", got)
		}
	})
}

// gemini-cli gets a policy file that denies its reading tools for as long
// as it runs.
func TestProxyGivesGeminiAPolicy(t *testing.T) {
	script, args := agentScript(t, "gemini")
	r := startSteerRig(t, proxy.ProxyOptions{}, []string{script, "--acp"}, bothFS,
		map[string]any{"protocolVersion": 1, "agentInfo": map[string]any{"name": "gemini-cli"}}, nil)
	got := readArgs(t, args)
	if len(got) != 3 || got[0] != "--acp" || got[1] != "--admin-policy" {
		t.Fatalf("gemini's arguments: %q", got)
	}
	if data, err := os.ReadFile(got[2]); err != nil || !bytes.Contains(data, []byte(`toolName = ["read_file", "read_many_files"]`)) {
		t.Errorf("the policy file: %s %v", data, err)
	}
	r.stop(t)
	if _, err := os.Stat(got[2]); !os.IsNotExist(err) {
		t.Errorf("the policy file outlived the proxy: %v", err)
	}
}

// An agent that waits for the editor's initialize is never started when
// the editor goes first, or the proxy is interrupted: the exit codes are
// those of the editor closing the stream (0) and of an interruption (1).
func TestProxyWaitingForTheEditor(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	defer goleak.VerifyNone(t, leaks)
	for _, tc := range []struct {
		name string
		end  func(editor net.Conn, cancel context.CancelFunc)
		code int
	}{
		{"the editor closes the stream", func(editor net.Conn, _ context.CancelFunc) { editor.Close() }, 0},
		{"interrupted", func(_ net.Conn, cancel context.CancelFunc) { cancel() }, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			script, args := agentScript(t, "codex-acp")
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			edTest, edProxy := net.Pipe()
			defer edTest.Close()
			exited := make(chan int, 1)
			go func() {
				code, err := proxy.RunProxy(ctx, edProxy, []string{script}, proxy.ProxyOptions{
					Bridge: bridge.BridgeOptions{Logger: slog.New(slog.DiscardHandler)}, AgentStderr: io.Discard})
				if err != nil {
					t.Errorf("RunProxy: %v", err)
				}
				exited <- code
			}()
			tc.end(edTest, cancel)
			select {
			case code := <-exited:
				if code != tc.code {
					t.Errorf("exit code %d, want %d", code, tc.code)
				}
			case <-time.After(hangGuard):
				t.Fatal("the proxy did not exit")
			}
			if _, err := os.Stat(args); !os.IsNotExist(err) {
				t.Errorf("the agent was started: %v", err)
			}
		})
	}
}

// stuckStream is an editor's stream whose Read, like one of a blocking
// pipe outside Go's poller, does not return when the stream is closed;
// only release ends it.
type stuckStream struct {
	reading  chan struct{} // closed by the first Read
	once     sync.Once
	released chan struct{}
	closed   chan struct{}
}

func newStuckStream() *stuckStream {
	return &stuckStream{reading: make(chan struct{}), released: make(chan struct{}), closed: make(chan struct{})}
}

func (s *stuckStream) Read([]byte) (int, error) {
	s.once.Do(func() { close(s.reading) })
	<-s.released
	return 0, io.EOF
}

func (s *stuckStream) Write(b []byte) (int, error) { return len(b), nil }

func (s *stuckStream) Close() error {
	select {
	case <-s.closed:
	default:
		close(s.closed)
	}
	return nil
}

// An interruption before the editor's initialize ends the proxy within
// the stop grace even when closing the editor's stream does not end the
// read pending on it.
func TestProxyInterruptedWhileTheEditorsReadIsStuck(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	defer goleak.VerifyNone(t, leaks)
	script, args := agentScript(t, "codex-acp")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	editor := newStuckStream()
	defer close(editor.released) // ends the read left behind, for goleak
	const grace = 200 * time.Millisecond
	exited := make(chan int, 1)
	go func() {
		code, err := proxy.RunProxy(ctx, editor, []string{script}, proxy.ProxyOptions{
			Bridge: bridge.BridgeOptions{Logger: slog.New(slog.DiscardHandler)}, AgentStderr: io.Discard,
			StopGrace: grace})
		if err != nil {
			t.Errorf("RunProxy: %v", err)
		}
		exited <- code
	}()
	<-editor.reading // the proxy waits for initialize
	cancel()
	begin := time.Now()
	select {
	case code := <-exited:
		if code != 1 {
			t.Errorf("exit code %d, want 1", code)
		}
		if d := time.Since(begin); d > grace+2*time.Second {
			t.Errorf("the proxy took %v to exit, with a grace of %v", d, grace)
		}
	case <-time.After(hangGuard):
		t.Fatal("the proxy did not exit")
	}
	select {
	case <-editor.closed:
	default:
		t.Error("the proxy did not close the editor's stream")
	}
	if _, err := os.Stat(args); !os.IsNotExist(err) {
		t.Errorf("the agent was started: %v", err)
	}
}
