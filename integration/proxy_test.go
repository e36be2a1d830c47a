package integration

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/fakeeditor"
	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/mcpclient"
	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/testagent"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
)

// The proxy tests run `mcp-acpfs proxy -- testagent ...` with the test as
// the editor: a fakeeditor on the proxy's standard input and output, whose
// buffers differ from the disk. The test agent runs the prompts' scripts
// (testagent.Step) and reports every outcome in a session/update.

// An agentMode is how the test agent takes the MCP server the proxy
// injects: an http entry if it advertises mcpCapabilities.http, else a
// stdio entry that runs `mcp-acpfs relay`.
type agentMode struct {
	name  string
	flags []string
}

var agentModes = []agentMode{
	{"http", []string{"-http"}},
	{"stdio", nil},
}

// forEachMode runs f as a parallel subtest for each agent mode.
func forEachMode(t *testing.T, f func(t *testing.T, mode agentMode)) {
	for _, mode := range agentModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			f(t, mode)
		})
	}
}

// proxyOptions configure [startProxy].
type proxyOptions struct {
	mode       agentMode
	agentFlags []string // after the mode's
	proxyFlags []string // before --
	editor     fakeeditor.Options
	unrecorded bool // keep no copy of the proxy's stdout (procOptions.unrecorded)
}

// A proxyRun is a running proxy with its agent, and the fake editor on its
// standard input and output.
type proxyRun struct {
	t  *testing.T
	p  *proc
	ed *fakeeditor.Editor

	mu   sync.Mutex
	pids []int // every process the agent reported
}

// startProxy runs the proxy and its agent, connects the fake editor and
// sends initialize. When the test ends the editor disconnects, the proxy
// must exit, and every process the agent reported is killed should it be
// left running.
func startProxy(t *testing.T, o proxyOptions) *proxyRun {
	t.Helper()
	args := append([]string{"proxy", "--log-level", "debug"}, o.proxyFlags...)
	args = append(args, "--", testAgentPath)
	args = append(args, o.mode.flags...)
	args = append(args, o.agentFlags...)
	p := start(t, procOptions{unrecorded: o.unrecorded}, args...)
	if o.editor.Log == nil {
		o.editor.Log = io.Discard
	}
	r := &proxyRun{t: t, p: p}
	r.ed = fakeeditor.New(t.Context(), io.NopCloser(p.out), p.stdin, o.editor)
	t.Cleanup(func() {
		r.ed.Close()
		select {
		case <-p.exited:
		case <-time.After(exitTimeout):
			t.Errorf("the proxy did not exit within %v of the editor's disconnecting", exitTimeout)
		}
		pids := r.knownPIDs()
		wantGone(t, "after the proxy exited", pids...)
		for _, pid := range pids {
			if alive(pid) {
				killPID(pid)
			}
		}
		if strings.Contains(p.stderr.String(), "DATA RACE") {
			t.Errorf("the race detector found a data race:\n%s", p.stderr.String())
		}
		if got := r.ed.Unadvertised(); len(got) > 0 {
			t.Errorf("the editor received fs methods it did not advertise: %v", got)
		}
	})
	ctx := callContext(t)
	if _, err := r.ed.Initialize(ctx); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return r
}

// callContext returns a context for one exchange with the proxy.
func callContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), callTimeout)
	t.Cleanup(cancel)
	return ctx
}

// acpSession is an ACP session opened through the proxy.
type acpSession struct {
	id     string
	cwd    string
	report testagent.Report // the agent's report of the session/new
}

// newSession opens a session in cwd and returns it with the agent's report
// of it, which names the MCP servers the agent was given.
func (r *proxyRun) newSession(cwd string, extra map[string]any) acpSession {
	r.t.Helper()
	ctx := callContext(r.t)
	id, err := r.ed.NewSession(ctx, cwd, extra)
	if err != nil {
		r.t.Fatalf("session/new %s: %v", cwd, err)
	}
	rep := r.waitReport(ctx, func(rep testagent.Report) bool { return rep.Kind == "session" && rep.SessionID == id })
	return acpSession{id: id, cwd: cwd, report: rep}
}

// entry returns the MCP server entry named name that the agent was given.
func (s acpSession) entry(t *testing.T, name string) mcpEntry {
	t.Helper()
	for _, raw := range s.report.MCPServers {
		var e mcpEntry
		if err := json.Unmarshal(raw, &e); err == nil && e.Name == name {
			return e
		}
	}
	t.Fatalf("session %s: the agent got no MCP server %q: %s", s.id, name, s.report.MCPServers)
	return mcpEntry{}
}

// mcpEntry is an ACP McpServer.
type mcpEntry = mcpclient.Entry

// reports returns the agent's reports received so far.
func (r *proxyRun) reports() []testagent.Report {
	var out []testagent.Report
	for _, m := range r.ed.Notifications("session/update") {
		if rep, ok := decodeReport(m); ok {
			out = append(out, rep)
		}
	}
	return out
}

func decodeReport(m fakeeditor.Message) (testagent.Report, bool) {
	text := fakeeditor.Text(m)
	if !strings.HasPrefix(text, "{") {
		return testagent.Report{}, false
	}
	var rep testagent.Report
	if json.Unmarshal([]byte(text), &rep) != nil || rep.Kind == "" {
		return testagent.Report{}, false
	}
	return rep, true
}

// waitReport waits for a report that satisfies ok.
func (r *proxyRun) waitReport(ctx context.Context, ok func(testagent.Report) bool) testagent.Report {
	r.t.Helper()
	return r.waitReportAfter(ctx, 0, ok)
}

// waitReportAfter waits for a report that satisfies ok among the messages
// the editor received after the first n.
func (r *proxyRun) waitReportAfter(ctx context.Context, n int, ok func(testagent.Report) bool) testagent.Report {
	r.t.Helper()
	var found testagent.Report
	i := 0
	_, err := r.ed.WaitFor(ctx, func(m fakeeditor.Message) bool {
		i++
		if i <= n {
			return false
		}
		rep, isReport := decodeReport(m)
		if isReport && ok(rep) {
			found = rep
			return true
		}
		return false
	})
	if err != nil {
		r.t.Fatalf("waiting for a report from the agent: %v", err)
	}
	r.notePIDs(found)
	return found
}

// notePIDs remembers the processes a report names, to check on them and to
// clean them up.
func (r *proxyRun) notePIDs(reps ...testagent.Report) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rep := range reps {
		for _, pid := range append([]int{rep.PID}, rep.ChildPIDs...) {
			if pid > 0 && !slices.Contains(r.pids, pid) {
				r.pids = append(r.pids, pid)
			}
		}
	}
}

// knownPIDs returns every process the agent has reported.
func (r *proxyRun) knownPIDs() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.pids)
}

// prompt runs a script in a session and returns the stop reason and the
// reports of its steps, by step. A JSON-RPC error is returned as such.
func (r *proxyRun) prompt(ctx context.Context, s acpSession, steps ...testagent.Step) (string, map[int]testagent.Report, error) {
	before := len(r.ed.Messages())
	stop, err := r.ed.Prompt(ctx, s.id, steps)
	out := make(map[int]testagent.Report)
	for _, m := range r.ed.Messages()[before:] {
		if m.Kind() != wire.KindNotification || m.Method != "session/update" {
			continue
		}
		if rep, ok := decodeReport(m); ok && rep.SessionID == s.id && rep.Kind == "step" {
			out[rep.Step] = rep
			r.notePIDs(rep)
		}
	}
	return stop, out, err
}

// mustPrompt runs a script that must end the turn normally.
func (r *proxyRun) mustPrompt(s acpSession, steps ...testagent.Step) map[int]testagent.Report {
	r.t.Helper()
	stop, reps, err := r.prompt(callContext(r.t), s, steps...)
	if err != nil {
		r.t.Fatalf("session/prompt in %s: %v", s.id, err)
	}
	if stop != "end_turn" {
		r.t.Fatalf("session/prompt in %s: stopReason %q, want end_turn", s.id, stop)
	}
	if len(reps) != len(steps) {
		r.t.Fatalf("session/prompt in %s: %d step reports for %d steps: %v", s.id, len(reps), len(steps), reps)
	}
	return reps
}

// Steps.

func readStep(path string) testagent.Step {
	return testagent.Step{Server: "acpfs", Tool: "read_text_file", Args: map[string]any{"path": path}}
}

func readRangeStep(path string, line, limit int) testagent.Step {
	return testagent.Step{Server: "acpfs", Tool: "read_text_file", Args: map[string]any{"path": path, "line": line, "limit": limit}}
}

func writeStep(path, content string) testagent.Step {
	return testagent.Step{Server: "acpfs", Tool: "write_text_file", Args: map[string]any{"path": path, "content": content}}
}

// toolResult is an MCP CallToolResult as a report carries it.
type toolResult struct {
	IsError bool `json:"isError"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

// toolOf decodes the tool result of a step report.
func toolOf(t *testing.T, rep testagent.Report) toolResult {
	t.Helper()
	if rep.Error != "" {
		t.Fatalf("step %d: the tool call failed: %s", rep.Step, rep.Error)
	}
	var res toolResult
	if err := json.Unmarshal(rep.Result, &res); err != nil {
		t.Fatalf("step %d: result %s: %v", rep.Step, rep.Result, err)
	}
	if !oneText(res.Content) {
		t.Fatalf("step %d: result %s, want one text content (and a read's note)", rep.Step, rep.Result)
	}
	return res
}

// oneText reports a result content of one text, which a read may follow
// with its status line (where it stands, where the text came from).
func oneText(content []struct {
	Type string `json:"type"`
	Text string `json:"text"`
}) bool {
	switch {
	case len(content) == 0 || content[0].Type != "text":
		return false
	case len(content) == 2:
		return content[1].Type == "text" && strings.HasPrefix(content[1].Text, "[") && strings.HasSuffix(content[1].Text, "]")
	}
	return len(content) == 1
}

// wantText fails the test unless the step's tool succeeded with text.
func wantText(t *testing.T, rep testagent.Report, want string) {
	t.Helper()
	res := toolOf(t, rep)
	if res.IsError {
		t.Errorf("step %d: error result %q, want %q", rep.Step, res.Content[0].Text, want)
	} else if got := res.Content[0].Text; got != want {
		t.Errorf("step %d: text %q, want %q", rep.Step, got, want)
	}
}

// wantSuccess fails the test unless the step's tool succeeded.
func wantSuccess(t *testing.T, rep testagent.Report) {
	t.Helper()
	if res := toolOf(t, rep); res.IsError {
		t.Errorf("step %d: error result %q, want success", rep.Step, res.Content[0].Text)
	}
}

// wantToolError fails the test unless the step's tool failed with an
// error result containing each of want ("a|b" means a or b), and returns
// its text.
func wantToolError(t *testing.T, rep testagent.Report, want ...string) string {
	t.Helper()
	res := toolOf(t, rep)
	text := res.Content[0].Text
	if !res.IsError {
		t.Errorf("step %d: success %q, want an error result", rep.Step, text)
		return text
	}
	for _, w := range want {
		if !slices.ContainsFunc(strings.Split(w, "|"), func(alt string) bool { return strings.Contains(text, alt) }) {
			t.Errorf("step %d: error %q does not contain %q", rep.Step, text, w)
		}
	}
	return text
}

// fsRequest is the params of an fs request the editor received.
type fsRequest struct {
	Method    string
	ID        json.RawMessage
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	Line      *int   `json:"line"`
	Limit     *int   `json:"limit"`
	Content   *string
}

// fsRequests returns the fs requests the editor received.
func (r *proxyRun) fsRequests() []fsRequest {
	var out []fsRequest
	for _, m := range r.ed.Requests("fs/read_text_file", "fs/write_text_file") {
		var p struct {
			SessionID string  `json:"sessionId"`
			Path      string  `json:"path"`
			Line      *int    `json:"line"`
			Limit     *int    `json:"limit"`
			Content   *string `json:"content"`
		}
		json.Unmarshal(m.Params, &p)
		out = append(out, fsRequest{Method: m.Method, ID: m.ID, SessionID: p.SessionID, Path: p.Path, Line: p.Line, Limit: p.Limit, Content: p.Content})
	}
	return out
}

// Files.

// tempDir returns a new temporary directory with symlinks resolved.
func tempDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// putFiles writes files (relative path → content) under dir, dated an
// hour back: a buffer that differs has unsaved changes, and no reload of
// the file is pending.
func putFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	saved := time.Now().Add(-time.Hour)
	for name, content := range files {
		p := filepath.Join(dir, name)
		ostest.WriteFile(t, p, content)
		if err := os.Chtimes(p, saved, saved); err != nil {
			t.Fatal(err)
		}
	}
}

// buffers returns a MemFS holding files (relative path → content) under
// dir.
func buffers(dir string, files map[string]string) *fsruntimetest.MemFS {
	m := fsruntimetest.NewMemFS()
	for name, content := range files {
		m.Set(filepath.Join(dir, name), content)
	}
	return m
}

// onDisk fails the test unless path holds want on disk.
func onDisk(t *testing.T, path, want string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("on disk: %v, want %q", err, want)
	} else if string(got) != want {
		t.Errorf("on disk, %s = %q, want %q", path, got, want)
	}
}

// notOnDisk fails the test if path exists.
func notOnDisk(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); err == nil {
		t.Errorf("%s is on disk; want nothing written there", path)
	}
}

// inBuffers fails the test unless the editor has a buffer path holding want.
func inBuffers(t *testing.T, m *fsruntimetest.MemFS, path, want string) {
	t.Helper()
	got, ok := m.Get(path)
	if !ok {
		t.Errorf("the editor has no buffer %s, want %q", path, want)
	} else if got != want {
		t.Errorf("the editor's buffer %s = %q, want %q", path, got, want)
	}
}

// notInBuffers fails the test if the editor has a buffer path.
func notInBuffers(t *testing.T, m *fsruntimetest.MemFS, path string) {
	t.Helper()
	if got, ok := m.Get(path); ok {
		t.Errorf("the editor has a buffer %s = %q; want none", path, got)
	}
}

// Processes.

// wantGone fails the test unless every process in pids is gone within a
// few seconds.
func wantGone(t *testing.T, what string, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for _, pid := range pids {
		if !waitGone(pid, deadline) {
			t.Errorf("%s: process %d is still running", what, pid)
		}
	}
}

// pollGone is waitGone where the system gives nothing to wait on for a
// process that is not a child: it looks at the process table every 10 ms.
func pollGone(pid int, deadline time.Time) bool {
	for alive(pid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// JSON.

// jsonEqual reports whether a and b are the same JSON value.
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(va, vb)
}

// withoutID returns the JSON object msg without its top-level id.
func withoutID(t *testing.T, msg []byte) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(msg, &m); err != nil {
		t.Fatalf("%s: %v", msg, err)
	}
	delete(m, "id")
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// rpcError returns err as a JSON-RPC error, failing the test if it is not
// one.
func rpcError(t *testing.T, err error) *jsonrpc2.Error {
	t.Helper()
	var e *jsonrpc2.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T), want a JSON-RPC error", err, err)
	}
	return e
}

// mustJSON marshals v, which must marshal.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
