package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
)

// countingFS counts the reads of an FS, and holds each until release is
// closed, if it is not nil.
type countingFS struct {
	fsruntime.FS
	reads   atomic.Int32
	release chan struct{}
}

func (c *countingFS) ReadTextFile(ctx context.Context, path string, line, limit int) (string, error) {
	c.reads.Add(1)
	if c.release != nil {
		select {
		case <-c.release:
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	return c.FS.ReadTextFile(ctx, path, line, limit)
}

// diffFollower returns a follower whose sessions have cwd /w and the
// files of fsys.
func diffFollower(fsys fsruntime.FS) *follower {
	f := newFollower("acpfs", func(string) string { return ostest.HostPath("/w") })
	f.fsys = func(session string) fsruntime.FS {
		if session != "s1" {
			return nil
		}
		return fsys
	}
	return f
}

// contentOf returns the content of the tool call a message reports, or
// nil when it has none.
func contentOf(t *testing.T, line []byte) []map[string]any {
	t.Helper()
	var msg struct {
		Params struct {
			Update   map[string]any `json:"update"`
			ToolCall map[string]any `json:"toolCall"`
		} `json:"params"`
	}
	if err := json.Unmarshal(line, &msg); err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	call := msg.Params.Update
	if call == nil {
		call = msg.Params.ToolCall
	}
	list, _ := call["content"].([]any)
	var out []map[string]any
	for _, c := range list {
		out = append(out, c.(map[string]any))
	}
	return out
}

// handle passes a line of the agent's through f, as the proxy does, and
// returns what the editor gets.
func handle(t *testing.T, f *follower, line string) []byte {
	t.Helper()
	line = hostJSON(line)
	m := parseLine(t, line)
	var out []byte
	if m.Method == "session/request_permission" {
		out = f.permission(m)
	} else {
		out = f.update(m)
	}
	if out == nil {
		return []byte(line)
	}
	return out
}

const (
	updLine  = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":`
	permLine = `{"jsonrpc":"2.0","id":9,"method":"session/request_permission","params":{"sessionId":"s1","options":[],"toolCall":`
)

// claude-agent-acp's reports of an edit, as recorded: the diff, of the
// editor's text, goes on every report that has the arguments and no
// content, until the call completes; it is read once.
func TestFollowerAddsDiffs(t *testing.T) {
	notes := ostest.HostPath("/w/notes.txt")
	buffers := fsruntimetest.NewMemFS()
	buffers.Set(notes, "one\ntwo (unsaved)\nthree\n")
	fsys := &countingFS{FS: buffers}
	f := diffFollower(fsys)
	edit := `{"path":"notes.txt","edits":[{"oldText":"two (unsaved)","newText":"2"}]}`
	want := []map[string]any{{"type": "diff", "path": notes, "oldText": "one\ntwo (unsaved)\nthree\n", "newText": "one\n2\nthree\n"}}
	for i, tc := range []struct {
		line string
		diff bool
	}{
		{updLine + `{"_meta":{"claudeCode":{"toolName":"mcp__acpfs__edit_text_file"}},"toolCallId":"c2","sessionUpdate":"tool_call","rawInput":{},"status":"pending","title":"mcp__acpfs__edit_text_file","kind":"other","content":[]}}}`, false},
		{updLine + `{"_meta":{"claudeCode":{"toolName":"mcp__acpfs__edit_text_file"}},"toolCallId":"c2","sessionUpdate":"tool_call_update","rawInput":` + edit + `,"title":"mcp__acpfs__edit_text_file","kind":"other","content":[]}}}`, true},
		{permLine + `{"toolCallId":"c2","rawInput":` + edit + `,"title":"mcp__acpfs__edit_text_file","kind":"other","content":[]}}}`, true},
		{updLine + `{"_meta":{"claudeCode":{"toolResponse":"{}","toolName":"mcp__acpfs__edit_text_file"}},"toolCallId":"c2","sessionUpdate":"tool_call_update"}}}`, false},
		{updLine + `{"_meta":{"claudeCode":{"toolName":"mcp__acpfs__edit_text_file"}},"toolCallId":"c2","sessionUpdate":"tool_call_update","status":"completed","rawOutput":"{}","content":[]}}}`, false},
	} {
		got := contentOf(t, handle(t, f, tc.line))
		if tc.diff && string(mustMarshal(t, got)) != string(mustMarshal(t, want)) {
			t.Errorf("report %d: content %s, want %s", i+1, mustMarshal(t, got), mustMarshal(t, want))
		}
		if !tc.diff && len(got) > 0 {
			t.Errorf("report %d: content %s, want none", i+1, mustMarshal(t, got))
		}
	}
	if n := fsys.reads.Load(); n != 1 {
		t.Errorf("%d reads for the diffs of one call, want 1", n)
	}
	if len(f.diffs) != 0 {
		t.Errorf("diffs still kept after the call ended: %v", f.diffs)
	}
}

// The diffs of the shapes each agent sends, and the reports that get none.
func TestFollowerDiffCases(t *testing.T) {
	notes := ostest.HostPath("/w/notes.txt")
	buffers := fsruntimetest.NewMemFS()
	buffers.Set(notes, "saved\n")
	for _, tc := range []struct {
		name string
		line string
		want any // the content; nil for none added
	}{
		{"claude: a write over a file", permLine + `{"toolCallId":"c1","rawInput":{"path":"/w/notes.txt","content":"new\n"},"title":"mcp__acpfs__write_text_file","kind":"other","content":[]}}}`,
			[]any{map[string]any{"type": "diff", "path": notes, "oldText": "saved\n", "newText": "new\n"}}},
		{"claude: a write of a new file", permLine + `{"toolCallId":"c1","rawInput":{"path":"new.txt","content":"n"},"title":"mcp__acpfs__write_text_file","kind":"other","content":[]}}}`,
			[]any{map[string]any{"type": "diff", "path": ostest.HostPath("/w/new.txt"), "oldText": nil, "newText": "n"}}},
		{"codex: an edit, content absent", updLine + `{"sessionUpdate":"tool_call","toolCallId":"call_1","title":"Tool: acpfs/edit_text_file","status":"in_progress","rawInput":{"server":"acpfs","tool":"edit_text_file","arguments":{"path":"notes.txt","edits":[{"oldText":"saved","newText":"edited"}]}}}}}`,
			[]any{map[string]any{"type": "diff", "path": notes, "oldText": "saved\n", "newText": "edited\n"}}},
		{"content the agent sent stays", permLine + `{"toolCallId":"c1","rawInput":{"path":"notes.txt","content":"new\n"},"title":"mcp__acpfs__write_text_file","kind":"edit","content":[{"type":"content","content":{"type":"text","text":"mine"}}]}}}`, nil},
		{"an edit that does not match", permLine + `{"toolCallId":"c1","rawInput":{"path":"notes.txt","edits":[{"oldText":"nowhere","newText":"x"}]},"title":"mcp__acpfs__edit_text_file","kind":"other","content":[]}}}`, nil},
		{"a write that changes nothing", permLine + `{"toolCallId":"c1","rawInput":{"path":"notes.txt","content":"saved\n"},"title":"mcp__acpfs__write_text_file","kind":"other","content":[]}}}`, nil},
		{"a read", permLine + `{"toolCallId":"c1","rawInput":{"path":"notes.txt"},"title":"mcp__acpfs__read_text_file","kind":"other","content":[]}}}`, nil},
		{"another server's write", permLine + `{"toolCallId":"c1","rawInput":{"path":"notes.txt","content":"x"},"title":"mcp__git__write_text_file","kind":"other","content":[]}}}`, nil},
		{"a session without files", strings.Replace(permLine, `"s1"`, `"s2"`, 1) + `{"toolCallId":"c1","rawInput":{"path":"notes.txt","content":"x"},"title":"mcp__acpfs__write_text_file","kind":"other","content":[]}}}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := diffFollower(buffers)
			got := contentOf(t, handle(t, f, tc.line))
			if tc.want == nil {
				var sent []map[string]any
				if strings.Contains(tc.line, `"mine"`) {
					sent = []map[string]any{{"type": "content", "content": map[string]any{"type": "text", "text": "mine"}}}
				}
				if string(mustMarshal(t, got)) != string(mustMarshal(t, sent)) {
					t.Errorf("content %s, want the agent's %s", mustMarshal(t, got), mustMarshal(t, sent))
				}
				return
			}
			if string(mustMarshal(t, got)) != string(mustMarshal(t, tc.want)) {
				t.Errorf("content %s, want %s", mustMarshal(t, got), mustMarshal(t, tc.want))
			}
		})
	}
	if got, _ := buffers.Get(notes); got != "saved\n" {
		t.Errorf("the file changed: %q", got)
	}
}

// A read that does not come back in diffTimeout is given up: the report
// goes on without a diff, that long after.
func TestFollowerDiffTimeout(t *testing.T) {
	defer func(d time.Duration) { diffTimeout = d }(diffTimeout)
	diffTimeout = 50 * time.Millisecond
	buffers := fsruntimetest.NewMemFS()
	buffers.Set(ostest.HostPath("/w/notes.txt"), "x\n")
	fsys := &countingFS{FS: buffers, release: make(chan struct{})}
	f := diffFollower(fsys)
	start := time.Now()
	got := contentOf(t, handle(t, f, permLine+`{"toolCallId":"c1","rawInput":{"path":"notes.txt","content":"y\n"},"title":"mcp__acpfs__write_text_file","kind":"other","content":[]}}}`))
	if took := time.Since(start); took < diffTimeout || took > diffTimeout+time.Second {
		t.Errorf("the report took %v, want about %v", took, diffTimeout)
	}
	if len(got) != 0 || fsys.reads.Load() != 1 {
		t.Errorf("content %v after %d reads; want none after 1", got, fsys.reads.Load())
	}
}

// Above maxDiffText, a diff has the lines that change and diffContext
// lines around them.
func TestDiffOfALargeFile(t *testing.T) {
	var b strings.Builder
	for i := range 40000 {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	old := b.String()
	updated := strings.Replace(old, "\nline 20000\n", "\nchanged\n", 1)
	buffers := fsruntimetest.NewMemFS()
	buffers.Set(ostest.HostPath("/w/big.txt"), old)
	f := diffFollower(buffers)
	args := `{"path":"big.txt","edits":[{"oldText":"\nline 20000\n","newText":"\nchanged\n"}]}`
	got := contentOf(t, handle(t, f, permLine+`{"toolCallId":"c1","rawInput":`+args+`,"title":"mcp__acpfs__edit_text_file","kind":"other","content":[]}}}`))
	if len(got) != 1 {
		t.Fatalf("content %v", got)
	}
	want := []string{"line 19997\nline 19998\nline 19999\nline 20000\nline 20001\nline 20002\nline 20003\n",
		"line 19997\nline 19998\nline 19999\nchanged\nline 20001\nline 20002\nline 20003\n"}
	if got[0]["oldText"] != want[0] || got[0]["newText"] != want[1] || !strings.Contains(updated, want[1]) {
		t.Errorf("oldText %q, newText %q; want %q", got[0]["oldText"], got[0]["newText"], want)
	}
}

func TestChangedLines(t *testing.T) {
	for _, tc := range []struct {
		a, b, wantA, wantB string
	}{
		{"1\n2\n3\n4\n5\n6\n7\n", "1\n2\n3\nX\n5\n6\n7\n", "3\n4\n5\n", "3\nX\n5\n"},
		{"1\n2\n3\n", "1\n2\n3\n4\n", "3\n", "3\n4\n"},
		{"a\n", "b\n", "a\n", "b\n"},
		{"1\n2\nab\n3\n4\n", "1\n2\naXb\n3\n4\n", "2\nab\n3\n", "2\naXb\n3\n"},
		{"", "new\n", "", "new\n"},
	} {
		a, b := changedLines(tc.a, tc.b, 1)
		if a != tc.wantA || b != tc.wantB {
			t.Errorf("changedLines(%q, %q, 1) = %q, %q; want %q, %q", tc.a, tc.b, a, b, tc.wantA, tc.wantB)
		}
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
