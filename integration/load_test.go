package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/fakeeditor"
	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/testagent"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
)

// The load test runs many sessions at once through one proxy, each making
// a long mix of tool calls while its agent streams numbered updates, and
// checks every result, every fs request and every update.

// Sizes of the load test.
const (
	// loadSessions is the number of sessions at once; loadSessionsShort
	// that with -short.
	loadSessions      = 100
	loadSessionsShort = 20
	// loadCallsLong is each session's number of tool calls with
	// MCP_ACPFS_LONG=1 set; loadCallsShort is the ordinary (CI) run's.
	loadCallsLong  = 1000
	loadCallsShort = 50
	// loadCallsPerPrompt is how many tool calls one prompt's script makes.
	loadCallsPerPrompt = 25
	// loadBurstEvery is after how many tool calls the script has the agent
	// write a burst of loadBurst numbered updates.
	loadBurstEvery = 10
	loadBurst      = 10
	// loadPromptTimeout only bounds how long a hung prompt can stall the
	// test: a prompt of loadCallsPerPrompt calls shares the machine with
	// the prompts of every other session.
	loadPromptTimeout = 3 * time.Minute
)

// longRun reports whether MCP_ACPFS_LONG asks for the full-size runs of
// the load and fault suites.
func longRun() bool {
	long, _ := strconv.ParseBool(os.Getenv("MCP_ACPFS_LONG"))
	return long
}

// TestProxyLoad runs loadSessions sessions (loadSessionsShort with -short)
// through one proxy at once, in each injection mode, each making mixed
// calls (loadCallsShort; loadCallsLong with MCP_ACPFS_LONG=1): reads,
// writes and edits to the editor, file info, listings, globs and greps to
// the disk, as the agent streams bursts of updates. Every result, fs
// request and update must be its own session's (each cwd's files name it),
// whole, once and in order; the buffers must end with each session's
// writes and edits alone, and the proxy exit 0 leaving no process behind.
func TestProxyLoad(t *testing.T) {
	sessions, calls := loadSessions, loadCallsShort
	if longRun() {
		calls = loadCallsLong
	} else if testing.Short() {
		sessions = loadSessionsShort
	}
	for _, mode := range agentModes {
		t.Run(mode.name, func(t *testing.T) {
			testLoad(t, mode, sessions, calls)
		})
	}
}

// loadRun is one load test: the sessions and what the editor observed.
type loadRun struct {
	t    *testing.T
	base string // every session's cwd is base/<tag>

	mu       sync.Mutex
	byTag    map[string]*loadSession
	byID     map[string]*loadSession
	opened   map[string]testagent.Report // session reports, by session id
	started  bool                        // every session is open
	pids     map[int]bool                // processes the agent reported
	mismatch atomic.Int64                // fs requests with a wrong session id; the first 10 are reported

	fsRequests atomic.Int64 // received by the editor
	updates    atomic.Int64 // checked in their sessions' order
}

// loadSession is one session of a load run.
type loadSession struct {
	tag string // "s007": in its cwd's name and in every file's content
	cwd string
	id  string

	reads, writes atomic.Int64 // fs requests the editor received for it
	failed        atomic.Bool  // its run stopped at an error

	mu      sync.Mutex
	updates []json.RawMessage // session/update params, in arrival order
}

func testLoad(t *testing.T, mode agentMode, sessions, calls int) {
	run := &loadRun{
		t:      t,
		base:   tempDir(t),
		byTag:  make(map[string]*loadSession),
		byID:   make(map[string]*loadSession),
		opened: make(map[string]testagent.Report),
		pids:   make(map[int]bool),
	}
	bufs := fsruntimetest.NewMemFS()
	all := make([]*loadSession, sessions)
	for i := range all {
		ls := &loadSession{tag: fmt.Sprintf("s%03d", i)}
		ls.cwd = filepath.Join(run.base, ls.tag)
		putFiles(t, ls.cwd, ls.diskFiles())
		for name, content := range ls.bufferFiles() {
			bufs.Set(filepath.Join(ls.cwd, name), content)
		}
		run.byTag[ls.tag] = ls
		all[i] = ls
	}
	r := startProxy(t, proxyOptions{
		mode: mode,
		// The calls write and edit files they have not read: the read
		// guard, which has tests of its own, is not this test's subject.
		proxyFlags: []string{"--log-level", "warn", "--no-read-guard"},
		editor:     fakeeditor.Options{ReadTextFile: true, WriteTextFile: true, Buffers: bufs, Observe: run.observe},
		unrecorded: true,
	})
	for _, ls := range all {
		id, err := r.ed.NewSession(callContext(t), ls.cwd, nil)
		if err != nil {
			t.Fatalf("session/new %s: %v", ls.cwd, err)
		}
		ls.id = id
		run.mu.Lock()
		if run.byID[id] != nil {
			t.Fatalf("two sessions got the id %s", id)
		}
		run.byID[id] = ls
		run.mu.Unlock()
	}
	run.mu.Lock()
	run.started = true
	run.mu.Unlock()

	begin := time.Now()
	var wg sync.WaitGroup
	var failed atomic.Int64
	for _, ls := range all {
		wg.Go(func() {
			if err := run.drive(r.ed, ls, calls); err != nil {
				failed.Add(1)
				ls.failed.Store(true)
				t.Errorf("session %s (%s): %v", ls.tag, ls.id, err)
			}
		})
	}
	wg.Wait()
	wall := time.Since(begin)

	// Everything each session wrote and edited is in its buffers; the
	// disk is as it was.
	for _, ls := range all {
		if ls.failed.Load() {
			continue // its error says why
		}
		for c := range calls {
			if loadKindOf(c) == kindWrite {
				inBuffers(t, bufs, filepath.Join(ls.cwd, ls.writeName(c)), ls.writeContent(c))
			}
		}
		inBuffers(t, bufs, filepath.Join(ls.cwd, "e.txt"), ls.counter(loadEdits(calls)))
		for name, content := range ls.diskFiles() {
			onDisk(t, filepath.Join(ls.cwd, name), content)
		}
		notOnDisk(t, filepath.Join(ls.cwd, "w"))
		if got, want := ls.reads.Load(), loadEditorReads(calls); got != want {
			t.Errorf("session %s: the editor received %d reads, want %d", ls.tag, got, want)
		}
		if got, want := ls.writes.Load(), loadEditorWrites(calls); got != want {
			t.Errorf("session %s: the editor received %d writes, want %d", ls.tag, got, want)
		}
	}
	if n := run.mismatch.Load(); n > 0 {
		t.Errorf("%d fs requests carried the wrong session id", n)
	}

	// The proxy exits cleanly and leaves nothing running.
	r.ed.Close()
	if code := r.p.wait("the editor disconnected"); code != 0 {
		t.Errorf("the proxy exited with status %d, want 0", code)
	}
	// Nothing went wrong on the way: no dropped response, refused relay
	// or failed write was logged, by the proxy or its agent.
	for line := range strings.SplitSeq(r.p.stderr.String(), "\n") {
		if strings.Contains(line, "level=WARN") || strings.Contains(line, "level=ERROR") {
			t.Errorf("logged under load: %s", line)
		}
	}
	pids := run.knownPIDs()
	r.notePIDs(testagent.Report{ChildPIDs: pids}) // killed in cleanup if left
	if mode.name == "stdio" && len(pids) < sessions+1 {
		t.Errorf("the agent reported %d processes, want itself and a relay per session", len(pids))
	}
	wantGone(t, "after the proxy exited", pids...)
	if mode.name == "stdio" {
		run.mu.Lock()
		rep := run.opened[all[0].id]
		run.mu.Unlock()
		wantNoRelaySocket(t, acpSession{id: all[0].id, report: rep})
	}

	total := int64(sessions) * int64(calls)
	st := r.p.cmd.ProcessState
	t.Logf("%s: %d sessions × %d tool calls = %d calls in %v (%.0f calls/s, proxy CPU %v); %d fs requests and %d session/update notifications checked; %d agent processes gone; %d sessions failed",
		mode.name, sessions, calls, total, wall.Round(time.Millisecond), float64(total)/wall.Seconds(), (st.UserTime() + st.SystemTime()).Round(time.Millisecond),
		run.fsRequests.Load(), run.updates.Load(), len(pids), failed.Load())
}

// observe is the editor's observer: it checks every fs request's session
// id against the session whose cwd holds the path, and queues every
// session/update for its session, in arrival order.
func (run *loadRun) observe(m fakeeditor.Message) {
	if m.Malformed {
		run.t.Errorf("the editor received a malformed line: %s", m)
		return
	}
	switch {
	case m.Kind() == wire.KindRequest && (m.Method == "fs/read_text_file" || m.Method == "fs/write_text_file"):
		run.fsRequests.Add(1)
		var p struct {
			SessionID string `json:"sessionId"`
			Path      string `json:"path"`
		}
		json.Unmarshal(m.Params, &p)
		tag, _, _ := strings.Cut(strings.TrimPrefix(p.Path, run.base+string(filepath.Separator)), string(filepath.Separator))
		run.mu.Lock()
		ls := run.byTag[tag]
		run.mu.Unlock()
		switch {
		case ls == nil || !strings.HasPrefix(p.Path, ls.cwd+string(filepath.Separator)):
			if run.mismatch.Add(1) <= 10 {
				run.t.Errorf("%s of %s, a path in no session's cwd (sessionId %q)", m.Method, p.Path, p.SessionID)
			}
		case p.SessionID != ls.id:
			if run.mismatch.Add(1) <= 10 {
				run.t.Errorf("%s of %s carries sessionId %q, want %q (session %s)", m.Method, p.Path, p.SessionID, ls.id, ls.tag)
			}
		case m.Method == "fs/read_text_file":
			ls.reads.Add(1)
		default:
			ls.writes.Add(1)
		}
	case m.Kind() == wire.KindNotification && m.Method == "session/update":
		id := fakeeditor.SessionID(m)
		run.mu.Lock()
		ls, started := run.byID[id], run.started
		if ls == nil {
			if rep, ok := decodeReport(m); ok && rep.Kind == "session" {
				run.opened[rep.SessionID] = rep
				run.notePID(rep.PID)
			}
		}
		run.mu.Unlock()
		switch {
		case ls != nil:
			ls.mu.Lock()
			ls.updates = append(ls.updates, m.Params)
			ls.mu.Unlock()
		case started:
			run.t.Errorf("a session/update for no open session: %s", truncate(m.String(), 300))
		}
	}
}

// notePID remembers a process the agent reported; run.mu is held.
func (run *loadRun) notePID(pid int) {
	if pid > 0 {
		run.pids[pid] = true
	}
}

func (run *loadRun) knownPIDs() []int {
	run.mu.Lock()
	defer run.mu.Unlock()
	pids := make([]int, 0, len(run.pids))
	for pid := range run.pids {
		pids = append(pids, pid)
	}
	slices.Sort(pids)
	return pids
}

// drive runs a session's calls, loadCallsPerPrompt per prompt, and checks
// each prompt's updates and results once it has ended.
func (run *loadRun) drive(ed *fakeeditor.Editor, ls *loadSession, calls int) error {
	for first := 0; first < calls; first += loadCallsPerPrompt {
		last := min(first+loadCallsPerPrompt, calls) - 1
		var steps []testagent.Step
		var callOf []int // the call number of each step; -1 for a burst
		for c := first; c <= last; c++ {
			steps = append(steps, ls.step(c))
			callOf = append(callOf, c)
			if (c+1)%loadBurstEvery == 0 {
				steps = append(steps, testagent.Step{Burst: loadBurst})
				callOf = append(callOf, -1)
			}
		}
		ctx, cancel := context.WithTimeout(run.t.Context(), loadPromptTimeout)
		stop, err := ed.Prompt(ctx, ls.id, steps)
		cancel()
		if err != nil {
			return fmt.Errorf("the prompt of calls %d to %d: %w", first, last, err)
		}
		if stop != "end_turn" {
			return fmt.Errorf("the prompt of calls %d to %d ended with %q, want end_turn", first, last, stop)
		}
		// The prompt's answer follows its updates on the wire, so all of
		// them are in.
		ls.mu.Lock()
		updates := ls.updates
		ls.updates = nil
		ls.mu.Unlock()
		if err := run.checkUpdates(ls, updates, callOf); err != nil {
			return fmt.Errorf("the prompt of calls %d to %d: %w", first, last, err)
		}
	}
	return nil
}

// checkUpdates checks a prompt's updates: the prompt's report, then for
// each step its burst's updates 1 to loadBurst if it is a burst, and its
// report, whose result must be the call's; nothing else, nothing twice,
// nothing out of order.
func (run *loadRun) checkUpdates(ls *loadSession, updates []json.RawMessage, callOf []int) error {
	var want []string // what is due, in order, to name in an error
	want = append(want, "the prompt's report")
	for i, c := range callOf {
		if c < 0 {
			for n := 1; n <= loadBurst; n++ {
				want = append(want, fmt.Sprintf("update %d of the burst of step %d", n, i+1))
			}
		}
		want = append(want, fmt.Sprintf("the report of step %d", i+1))
	}
	run.updates.Add(int64(len(updates)))
	if len(updates) != len(want) {
		return fmt.Errorf("%d updates arrived, want %d", len(updates), len(want))
	}
	k := 0
	next := func() (testagent.Report, string, error) {
		raw, due := updates[k], want[k]
		k++
		rep, ok := decodeReport(fakeeditor.Message{Message: wire.Message{Method: "session/update", Params: raw}})
		if !ok {
			return rep, due, fmt.Errorf("update %d is not a report where %s was due: %s", k, due, truncate(string(raw), 300))
		}
		if rep.SessionID != ls.id {
			return rep, due, fmt.Errorf("update %d is a report of session %q where %s was due", k, rep.SessionID, due)
		}
		return rep, due, nil
	}
	rep, due, err := next()
	if err != nil {
		return err
	}
	if rep.Kind != "prompt" {
		return fmt.Errorf("a %s report arrived where %s was due", rep.Kind, due)
	}
	run.mu.Lock()
	run.notePID(rep.PID)
	run.mu.Unlock()
	for i, c := range callOf {
		if c < 0 {
			for n := 1; n <= loadBurst; n++ {
				if rep, due, err = next(); err != nil {
					return err
				}
				if rep.Kind != "flood" || rep.N != n {
					return fmt.Errorf("a %s report (n %d) arrived where %s was due", rep.Kind, rep.N, due)
				}
			}
		}
		if rep, due, err = next(); err != nil {
			return err
		}
		if rep.Kind != "step" || rep.Step != i+1 {
			return fmt.Errorf("a %s report (step %d) arrived where %s was due", rep.Kind, rep.Step, due)
		}
		if rep.Error != "" {
			return fmt.Errorf("step %d (call %d): %s", i+1, c, rep.Error)
		}
		run.mu.Lock()
		for _, pid := range rep.ChildPIDs {
			run.notePID(pid)
		}
		run.mu.Unlock()
		if c >= 0 {
			if err := ls.check(c, rep.Result); err != nil {
				return fmt.Errorf("call %d (%s): %w", c, loadKindOf(c), err)
			}
		}
	}
	return nil
}

// A loadKind is an operation of the mix; a session cycles through them in
// this order.
type loadKind int

const (
	kindRead      loadKind = iota // a.txt, whole: the editor's buffer, not the disk
	kindReadRange                 // lines.txt, a range
	kindWrite                     // w/<call>.txt, a new buffer
	kindReadBack                  // the file the previous write wrote
	kindEdit                      // e.txt: counter K becomes counter K+1
	kindInfo                      // get_file_info of a note on disk
	kindList                      // list_directory notes
	kindGlob                      // **/*.md
	kindGrep                      // needle in notes
	kindReadTail                  // lines.txt from a line to the end
	kindCount
)

func (k loadKind) String() string {
	return [...]string{"read", "ranged read", "write", "read back", "edit", "get_file_info", "list_directory", "glob", "grep", "read to the end"}[k]
}

// loadKindOf returns the kind of call c.
func loadKindOf(c int) loadKind { return loadKind(c % int(kindCount)) }

// loadEdits returns how many edits the first calls calls make.
func loadEdits(calls int) int { return loadCount(calls, kindEdit) }

// loadCount returns how many of the first calls calls are of kind k.
func loadCount(calls int, k loadKind) int {
	n := calls / int(kindCount)
	if calls%int(kindCount) > int(k) {
		n++
	}
	return n
}

// loadEditorReads and loadEditorWrites are the fs requests the first
// calls calls make: each read is one whole-buffer read, each write one
// write, and each edit a read and a write.
func loadEditorReads(calls int) int64 {
	return int64(loadCount(calls, kindRead) + loadCount(calls, kindReadRange) + loadCount(calls, kindReadBack) + loadCount(calls, kindEdit) + loadCount(calls, kindReadTail))
}

func loadEditorWrites(calls int) int64 {
	return int64(loadCount(calls, kindWrite) + loadCount(calls, kindEdit))
}

// The files of a session.

const (
	loadLines = 40 // lines of lines.txt
	loadNotes = 4  // notes/<tag>-<k>.txt on disk
)

func (ls *loadSession) diskFiles() map[string]string {
	files := map[string]string{
		"a.txt":                   "disk a of " + ls.tag + "\n",
		"notes/" + ls.tag + ".md": "# " + ls.tag + "\n",
	}
	for k := range loadNotes {
		files[ls.note(k)] = ls.noteContent(k)
	}
	return files
}

func (ls *loadSession) bufferFiles() map[string]string {
	var lines strings.Builder
	for i := 1; i <= loadLines; i++ {
		fmt.Fprintf(&lines, "%s buffer line %d\n", ls.tag, i)
	}
	return map[string]string{
		"a.txt":     "buffer a of " + ls.tag + "\n",
		"lines.txt": lines.String(),
		"e.txt":     ls.counter(0),
	}
}

func (ls *loadSession) note(k int) string { return fmt.Sprintf("notes/%s-%d.txt", ls.tag, k) }

func (ls *loadSession) noteContent(k int) string {
	return fmt.Sprintf("%s note %d\n%s note %d needle\n%s note %d end\n", ls.tag, k, ls.tag, k, ls.tag, k)
}

func (ls *loadSession) counter(n int) string { return fmt.Sprintf("%s counter %d\n", ls.tag, n) }

func (ls *loadSession) writeName(c int) string { return fmt.Sprintf("w/%d.txt", c) }

func (ls *loadSession) writeContent(c int) string { return fmt.Sprintf("%s wrote %d\n", ls.tag, c) }

// loadRange returns the line and limit of call c's ranged read.
func loadRange(c int) (line, limit int) { return 1 + c%(loadLines-5), 1 + c%5 }

// loadTail returns the first line of call c's read to the end.
func loadTail(c int) int { return 1 + c%loadLines }

// step returns call c's step.
func (ls *loadSession) step(c int) testagent.Step {
	tool := func(name string, args map[string]any) testagent.Step {
		return testagent.Step{Server: "acpfs", Tool: name, Args: args}
	}
	switch loadKindOf(c) {
	case kindRead:
		return readStep("a.txt")
	case kindReadRange:
		line, limit := loadRange(c)
		return readRangeStep("lines.txt", line, limit)
	case kindWrite:
		return writeStep(ls.writeName(c), ls.writeContent(c))
	case kindReadBack:
		return readStep(ls.writeName(c - 1))
	case kindEdit:
		k := c / int(kindCount)
		return tool("edit_text_file", map[string]any{"path": "e.txt", "edits": []any{map[string]any{"oldText": ls.counter(k), "newText": ls.counter(k + 1)}}})
	case kindInfo:
		return tool("get_file_info", map[string]any{"path": ls.note(c % loadNotes)})
	case kindList:
		return tool("list_directory", map[string]any{"path": "notes"})
	case kindGlob:
		return tool("glob", map[string]any{"pattern": "**/*.md"})
	case kindGrep:
		return tool("grep", map[string]any{"pattern": "needle", "path": "notes"})
	default:
		return tool("read_text_file", map[string]any{"path": "lines.txt", "line": loadTail(c)})
	}
}

// loadResult is a CallToolResult as a step report carries it.
type loadResult struct {
	IsError bool `json:"isError"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	Structured json.RawMessage `json:"structuredContent"`
}

// check checks call c's result: exactly this session's data.
func (ls *loadSession) check(c int, raw json.RawMessage) error {
	var res loadResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return fmt.Errorf("result %s: %w", truncate(string(raw), 300), err)
	}
	if !oneText(res.Content) {
		return fmt.Errorf("result %s, want one text content (and a read's note)", truncate(string(raw), 300))
	}
	text := res.Content[0].Text
	if res.IsError {
		return fmt.Errorf("error result %q", text)
	}
	abs := func(name string) string { return filepath.Join(ls.cwd, name) }
	wantText := func(want string) error {
		if text != want {
			return fmt.Errorf("text %q, want %q", text, want)
		}
		return nil
	}
	structured := func(v any) error {
		if err := json.Unmarshal(res.Structured, v); err != nil {
			return fmt.Errorf("structured content %s: %w", truncate(string(res.Structured), 300), err)
		}
		return nil
	}
	lines := strings.SplitAfter(ls.bufferFiles()["lines.txt"], "\n")
	switch loadKindOf(c) {
	case kindRead:
		return wantText(ls.bufferFiles()["a.txt"])
	case kindReadRange:
		line, limit := loadRange(c)
		return wantText(strings.Join(lines[line-1:line-1+limit], ""))
	case kindReadTail:
		return wantText(strings.Join(lines[loadTail(c)-1:], ""))
	case kindReadBack:
		return wantText(ls.writeContent(c - 1))
	case kindWrite:
		var out struct {
			Path         string `json:"path"`
			BytesWritten int    `json:"bytesWritten"`
		}
		if err := structured(&out); err != nil {
			return err
		}
		if out.Path != abs(ls.writeName(c)) || out.BytesWritten != len(ls.writeContent(c)) {
			return fmt.Errorf("wrote %d bytes to %s, want %d to %s", out.BytesWritten, out.Path, len(ls.writeContent(c)), abs(ls.writeName(c)))
		}
	case kindEdit:
		var out struct {
			Path string `json:"path"`
			Diff string `json:"diff"`
		}
		if err := structured(&out); err != nil {
			return err
		}
		k := c / int(kindCount)
		if out.Path != abs("e.txt") || !strings.Contains(out.Diff, "\n-"+ls.counter(k)) || !strings.Contains(out.Diff, "\n+"+ls.counter(k+1)) {
			return fmt.Errorf("edited %s with the diff %q, want %s from %q to %q", out.Path, out.Diff, abs("e.txt"), ls.counter(k), ls.counter(k+1))
		}
	case kindInfo:
		var out struct {
			Path string `json:"path"`
			Type string `json:"type"`
			Size int    `json:"size"`
		}
		if err := structured(&out); err != nil {
			return err
		}
		k := c % loadNotes
		if out.Path != abs(ls.note(k)) || out.Type != "file" || out.Size != len(ls.noteContent(k)) {
			return fmt.Errorf("info %+v, want the file %s of %d bytes", out, abs(ls.note(k)), len(ls.noteContent(k)))
		}
	case kindList:
		var out struct {
			Path    string `json:"path"`
			Entries []struct {
				Name string `json:"name"`
			} `json:"entries"`
		}
		if err := structured(&out); err != nil {
			return err
		}
		var names []string
		for _, e := range out.Entries {
			names = append(names, e.Name)
		}
		want := []string{ls.tag + ".md"}
		for k := range loadNotes {
			want = append(want, filepath.Base(ls.note(k)))
		}
		slices.Sort(want)
		if out.Path != abs("notes") || !slices.Equal(names, want) {
			return fmt.Errorf("listed %v in %s, want %v in %s", names, out.Path, want, abs("notes"))
		}
	case kindGlob:
		var out struct {
			Root    string `json:"root"`
			Matches []struct {
				Path string `json:"path"`
			} `json:"matches"`
		}
		if err := structured(&out); err != nil {
			return err
		}
		if out.Root != ls.cwd || len(out.Matches) != 1 || out.Matches[0].Path != abs("notes/"+ls.tag+".md") {
			return fmt.Errorf("glob matched %+v in %s, want %s in %s", out.Matches, out.Root, abs("notes/"+ls.tag+".md"), ls.cwd)
		}
	case kindGrep:
		var out struct {
			Root    string `json:"root"`
			Matches []struct {
				Path string `json:"path"`
				Line int    `json:"line"`
				Text string `json:"text"`
			} `json:"matches"`
		}
		if err := structured(&out); err != nil {
			return err
		}
		var got, want []string
		for _, m := range out.Matches {
			got = append(got, fmt.Sprintf("%s:%d:%s", m.Path, m.Line, m.Text))
		}
		for k := range loadNotes {
			want = append(want, fmt.Sprintf("%s:2:%s note %d needle", abs(ls.note(k)), ls.tag, k))
		}
		if out.Root != abs("notes") || !slices.Equal(got, want) {
			return fmt.Errorf("grep found %q in %s, want %q in %s", got, out.Root, want, abs("notes"))
		}
	}
	return nil
}
