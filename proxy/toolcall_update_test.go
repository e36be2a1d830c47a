package proxy

import (
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

func parseLine(t *testing.T, line string) wire.Message {
	t.Helper()
	m, err := wire.Parse([]byte(line))
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return m
}

// The follower fills in kind and locations in the reports of calls to the
// file tools, in the shapes the six agents send, and nothing else.
func TestFollowerFillsKindAndLocations(t *testing.T) {
	note := func(update string) string {
		return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":` + update + `}}`
	}
	for _, tc := range []struct {
		name      string
		line      string
		kind      string // want; "" for unchanged
		locations any    // want; nil for unchanged
	}{
		{"claude: tool_call, relative path, line",
			note(`{"_meta":{"claudeCode":{"toolName":"mcp__acpfs__read_text_file"}},"toolCallId":"toolu_1","sessionUpdate":"tool_call","rawInput":{"path":"src/a.go","line":12,"limit":5},"status":"pending","title":"mcp__acpfs__read_text_file","kind":"other","content":[]}`),
			"read", []any{map[string]any{"path": ostest.HostPath("/w/src/a.go"), "line": 12.0}}},
		{"claude: tool_call_update of an edit",
			note(`{"_meta":{"claudeCode":{"toolName":"mcp__acpfs__edit_text_file"}},"toolCallId":"toolu_2","sessionUpdate":"tool_call_update","rawInput":{"path":"/w/b.go","edits":[]},"title":"mcp__acpfs__edit_text_file","kind":"other","content":[]}`),
			"edit", []any{map[string]any{"path": ostest.HostPath("/w/b.go")}}},
		{"codex: a move",
			note(`{"sessionUpdate":"tool_call","toolCallId":"call_1","title":"Tool: acpfs/move_file","status":"in_progress","rawInput":{"server":"acpfs","tool":"move_file","arguments":{"source":"a","destination":"b/c"}}}`),
			"move", []any{map[string]any{"path": ostest.HostPath("/w/b/c")}}},
		{"codex: a search of the working directory",
			note(`{"sessionUpdate":"tool_call","toolCallId":"call_2","title":"Tool: acpfs/grep","status":"in_progress","rawInput":{"server":"acpfs","tool":"grep","arguments":{"pattern":"x"}}}`),
			"search", []any{map[string]any{"path": ostest.HostPath("/w")}}},
		{"codex: a delete, arguments absent",
			note(`{"sessionUpdate":"tool_call","toolCallId":"call_3","title":"Tool: acpfs/delete_file","status":"in_progress","rawInput":{"server":"acpfs","tool":"delete_file"}}`),
			"delete", nil},
		{"gemini: an in-progress call with its arguments as text",
			note(`{"sessionUpdate":"tool_call","toolCallId":"mcp_acpfs_write_text_file-1-1","status":"in_progress","title":"write_text_file (acpfs MCP Server)","content":[{"type":"content","content":{"type":"text","text":"{\"path\":\"/w/n.txt\",\"content\":\"x\"}"}}],"locations":[],"kind":"other"}`),
			"edit", []any{map[string]any{"path": ostest.HostPath("/w/n.txt")}}},
		{"opencode: the title names the tool, rawInput its arguments",
			note(`{"sessionUpdate":"tool_call","toolCallId":"call_o1","title":"acpfs_read_text_file","kind":"other","status":"pending","locations":[],"rawInput":{"path":"a.go"}}`),
			"read", []any{map[string]any{"path": ostest.HostPath("/w/a.go")}}},
		{"copilot: the title names the tool with a dash",
			note(`{"sessionUpdate":"tool_call","toolCallId":"call_c1","title":"acpfs-write_text_file","kind":"other","status":"pending","rawInput":{"path":"/w/n.txt","content":"x"}}`),
			"edit", []any{map[string]any{"path": ostest.HostPath("/w/n.txt")}}},
		{"qwen: _meta.toolName names the tool, the title is the arguments",
			note(`{"sessionUpdate":"tool_call","toolCallId":"call_q1","title":"{\"path\":\"/w/q.go\"}","kind":"other","status":"pending","rawInput":{"path":"/w/q.go"},"_meta":{"toolName":"mcp__acpfs__read_text_file"}}`),
			"read", []any{map[string]any{"path": ostest.HostPath("/w/q.go")}}},
		{"another server whose name starts with ours",
			note(`{"sessionUpdate":"tool_call","toolCallId":"t","title":"acpfs2_read_text_file","rawInput":{"path":"/w/a"},"kind":"other"}`),
			"", nil},
		{"locations the agent gave stay",
			note(`{"sessionUpdate":"tool_call","toolCallId":"t","title":"mcp__acpfs__read_text_file","rawInput":{"path":"/w/a"},"kind":"read","locations":[{"path":"/elsewhere"}]}`),
			"", nil},
		{"another server's tool",
			note(`{"sessionUpdate":"tool_call","toolCallId":"t","title":"mcp__git__read_text_file","rawInput":{"path":"/w/a"},"kind":"other"}`),
			"", nil},
		{"an unknown tool of ours",
			note(`{"sessionUpdate":"tool_call","toolCallId":"t","title":"mcp__acpfs__nope","rawInput":{"path":"/w/a"},"kind":"other"}`),
			"", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &follower{server: "acpfs", cwd: func(s string) string { return map[string]string{"s1": ostest.HostPath("/w")}[s] }, seen: map[string]json.RawMessage{}}
			line := hostJSON(tc.line)
			m := parseLine(t, line)
			out := f.update(m)
			if tc.kind == "" && tc.locations == nil {
				if out != nil {
					t.Errorf("changed to %s", out)
				}
				return
			}
			if out == nil {
				t.Fatal("not changed")
			}
			var in, got map[string]any
			json.Unmarshal([]byte(line), &in)
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%s: %v", out, err)
			}
			gu := got["params"].(map[string]any)["update"].(map[string]any)
			iu := in["params"].(map[string]any)["update"].(map[string]any)
			if tc.kind != "" && gu["kind"] != tc.kind {
				t.Errorf("kind %v, want %v", gu["kind"], tc.kind)
			}
			if tc.locations != nil && !reflect.DeepEqual(gu["locations"], tc.locations) {
				t.Errorf("locations %#v, want %#v", gu["locations"], tc.locations)
			}
			if tc.locations == nil && !reflect.DeepEqual(gu["locations"], iu["locations"]) {
				t.Errorf("locations changed to %#v", gu["locations"])
			}
			delete(gu, "kind")
			delete(gu, "locations")
			delete(iu, "kind")
			delete(iu, "locations")
			if !reflect.DeepEqual(in, got) {
				t.Errorf("something else changed:\n%v\n%v", in, got)
			}
		})
	}
}

// gemini sends the arguments once, in the permission request; its
// tool_call_update when the call completes has kind "other" and empty
// locations again, which would undo the first fill.
func TestFollowerRemembersArguments(t *testing.T) {
	f := &follower{server: "acpfs", cwd: func(string) string { return ostest.HostPath("/w") }, seen: map[string]json.RawMessage{}}
	want := `{"line":3,"path":` + jsonString(ostest.HostPath("/w/a.txt")) + `}`
	perm := parseLine(t, `{"jsonrpc":"2.0","id":4,"method":"session/request_permission","params":{"sessionId":"s1","options":[],"toolCall":{"toolCallId":"c1","status":"pending","title":"read_text_file (acpfs MCP Server)","content":[{"type":"content","content":{"type":"text","text":"{\"path\":\"a.txt\",\"line\":3}"}}],"locations":[],"kind":"other"}}}`)
	out := f.permission(perm)
	var p struct {
		ID     int `json:"id"`
		Params struct {
			ToolCall struct {
				Kind      string            `json:"kind"`
				Locations []json.RawMessage `json:"locations"`
			} `json:"toolCall"`
			Options []any `json:"options"`
		} `json:"params"`
	}
	if err := json.Unmarshal(out, &p); err != nil || p.ID != 4 || p.Params.Options == nil {
		t.Fatalf("%s: %v", out, err)
	}
	if p.Params.ToolCall.Kind != "read" || len(p.Params.ToolCall.Locations) != 1 || string(p.Params.ToolCall.Locations[0]) != want {
		t.Errorf("permission toolCall: %s", out)
	}
	done := parseLine(t, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed","title":"read_text_file (acpfs MCP Server)","content":[{"type":"content","content":{"type":"text","text":"{\"path\":\"not the arguments\"}"}}],"locations":[],"kind":"other"}}}`)
	out = f.update(done)
	var u struct {
		Params struct {
			Update struct {
				Kind      string            `json:"kind"`
				Locations []json.RawMessage `json:"locations"`
			} `json:"update"`
		} `json:"params"`
	}
	json.Unmarshal(out, &u)
	if u.Params.Update.Kind != "read" || len(u.Params.Update.Locations) != 1 || string(u.Params.Update.Locations[0]) != want {
		t.Errorf("completed update: %s", out)
	}
	if len(f.seen) != 0 {
		t.Errorf("a completed call is still remembered: %v", f.seen)
	}
}

// Notifications that are not tool calls are not decoded at all.
func TestFollowerSkipsOtherUpdates(t *testing.T) {
	f := &follower{server: "acpfs", seen: map[string]json.RawMessage{}}
	for _, line := range []string{
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"mcp__acpfs__read_text_file"}}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"\"tool_call\" mcp__acpfs__read_text_file"}}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"plan","entries":[]}}}`,
	} {
		if out := f.update(parseLine(t, line)); out != nil {
			t.Errorf("%s changed to %s", line, out)
		}
	}
}

// The sequences the agents send for one call, as recorded behind the
// proxy (trimmed): once the arguments have come, every report that names
// the call's kind or locations names the right ones, to the end.
func TestFollowerRecordedSequences(t *testing.T) {
	const upd = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":`
	const perm = `{"jsonrpc":"2.0","id":9,"method":"session/request_permission","params":{"sessionId":"s1","options":[],"toolCall":`
	notes, pixel := ostest.HostPath("/w/notes.txt"), ostest.HostPath("/w/pixel.png")
	for _, tc := range []struct {
		agent string
		lines []string
		kinds []string // after each line: the kind the editor sees ("" absent)
		paths []string // after each line: the location path ("" none)
	}{
		{"claude-agent-acp", []string{
			upd + `{"_meta":{"claudeCode":{"toolName":"mcp__acpfs__write_text_file"}},"toolCallId":"call_2","sessionUpdate":"tool_call","rawInput":{},"status":"pending","title":"mcp__acpfs__write_text_file","kind":"other","content":[]}}}`,
			upd + `{"_meta":{"claudeCode":{"toolName":"mcp__acpfs__write_text_file"}},"toolCallId":"call_2","sessionUpdate":"tool_call_update","rawInput":{"content":"x\n","path":"/w/notes.txt"},"title":"mcp__acpfs__write_text_file","kind":"other","content":[]}}}`,
			perm + `{"toolCallId":"call_2","rawInput":{"content":"x\n","path":"/w/notes.txt"},"title":"mcp__acpfs__write_text_file","kind":"other","content":[]}}}`,
			upd + `{"_meta":{"claudeCode":{"toolResponse":"{}","toolName":"mcp__acpfs__write_text_file"}},"toolCallId":"call_2","sessionUpdate":"tool_call_update"}}}`,
			upd + `{"_meta":{"claudeCode":{"toolName":"mcp__acpfs__write_text_file"}},"toolCallId":"call_2","sessionUpdate":"tool_call_update","status":"completed","rawOutput":"{}","content":[]}}}`,
		}, []string{"edit", "edit", "edit", "edit", "edit"}, []string{"", notes, notes, notes, notes}},
		{"gemini-cli", []string{
			perm + `{"toolCallId":"mcp_acpfs_read_text_file__mcp_acpfs_read_text_file_1_0","status":"pending","title":"read_text_file (acpfs MCP Server)","content":[{"type":"content","content":{"type":"text","text":"{\"path\":\"/w/notes.txt\"}"}}],"locations":[],"kind":"other"}}}`,
			upd + `{"sessionUpdate":"tool_call_update","toolCallId":"mcp_acpfs_read_text_file__mcp_acpfs_read_text_file_1_0","status":"completed","title":"read_text_file (acpfs MCP Server)","content":[{"type":"content","content":{"type":"text","text":"notes\n"}}],"locations":[],"kind":"other"}}}`,
		}, []string{"read", "read"}, []string{notes, notes}},
		// Qwen Code 0.24.4 as captured (integration/realagents/testdata/
		// qwen-code.toolcalls.jsonl): its tool_call has kind read already
		// and no arguments, its permission request titles the call with
		// its arguments, and the completed update has no kind: each names
		// the tool in _meta.toolName.
		{"qwen-code", []string{
			upd + `{"_meta":{"phase":"preparing","provenance":"mcp","serverId":"acpfs","toolName":"mcp__acpfs__read_media_file"},"content":[],"kind":"read","locations":[],"rawInput":{},"sessionUpdate":"tool_call","status":"pending","title":"read_media_file (acpfs MCP Server)","toolCallId":"call_1"}}}`,
			perm + `{"_meta":{"toolName":"mcp__acpfs__read_media_file"},"content":[],"kind":"read","locations":[],"rawInput":{"path":"/w/pixel.png"},"status":"pending","title":"{\"path\":\"/w/pixel.png\"}","toolCallId":"call_1"}}}`,
			upd + `{"_meta":{"provenance":"mcp","serverId":"acpfs","toolName":"mcp__acpfs__read_media_file"},"content":[{"content":{"text":"/w/pixel.png: image/png, 73 bytes","type":"text"},"type":"content"}],"rawOutput":"/w/pixel.png: image/png, 73 bytes","sessionUpdate":"tool_call_update","status":"completed","toolCallId":"call_1"}}}`,
		}, []string{"read", "read", "read"}, []string{"", pixel, pixel}},
		{"codex-acp", []string{
			upd + `{"sessionUpdate":"tool_call","toolCallId":"call_1","title":"Tool: acpfs/read_text_file","status":"in_progress","rawInput":{"server":"acpfs","tool":"read_text_file","arguments":{"path":"/w/notes.txt"}}}}}`,
			upd + `{"sessionUpdate":"tool_call_update","toolCallId":"call_1","status":"completed","content":[],"rawOutput":{"content":[]}}}}`,
		}, []string{"read", ""}, []string{notes, ""}},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			f := &follower{server: "acpfs", cwd: func(string) string { return ostest.HostPath("/w") }, seen: map[string]json.RawMessage{}}
			for i, line := range tc.lines {
				line = hostJSON(line)
				m := parseLine(t, line)
				var out []byte
				if m.Method == "session/request_permission" {
					out = f.permission(m)
				} else {
					out = f.update(m)
				}
				if out == nil {
					out = []byte(line)
				}
				var msg struct {
					Params struct {
						Update   *reported `json:"update"`
						ToolCall *reported `json:"toolCall"`
					} `json:"params"`
				}
				if err := json.Unmarshal(out, &msg); err != nil {
					t.Fatalf("%s: %v", out, err)
				}
				r := msg.Params.Update
				if r == nil {
					r = msg.Params.ToolCall
				}
				path := ""
				if len(r.Locations) > 0 {
					path = r.Locations[0].Path
				}
				if r.Kind != tc.kinds[i] || path != tc.paths[i] {
					t.Errorf("line %d: kind %q, location %q; want %q, %q\n%s", i+1, r.Kind, path, tc.kinds[i], tc.paths[i], out)
				}
			}
			if len(f.seen) != 0 {
				t.Errorf("calls still remembered after they ended: %v", f.seen)
			}
		})
	}
}

type reported struct {
	Kind      string `json:"kind"`
	Locations []struct {
		Path string `json:"path"`
	} `json:"locations"`
}

// The cost per agent message: a message chunk is only scanned; a report of
// a call to a file tool is decoded and rewritten.
func BenchmarkFollower(b *testing.B) {
	chunk := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"` + strings.Repeat("Some words of the answer. ", 40) + `"}}}}`
	call := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"_meta":{"claudeCode":{"toolName":"mcp__acpfs__read_text_file"}},"toolCallId":"toolu_1","sessionUpdate":"tool_call_update","rawInput":{"path":"/w/src/a.go","line":12},"title":"mcp__acpfs__read_text_file","kind":"other","content":[]}}}`
	for _, bc := range []struct{ name, line string }{{"chunk", chunk}, {"tool_call", hostJSON(call)}} {
		m, err := wire.Parse([]byte(bc.line))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			f := &follower{server: "acpfs", cwd: func(string) string { return ostest.HostPath("/w") }, seen: map[string]json.RawMessage{}}
			b.SetBytes(int64(len(bc.line)))
			for b.Loop() {
				f.update(m)
			}
		})
	}
}

// locationsOf returns the locations f fills into a claude-style report of
// a call to tool with rawInput in session, as JSON text ("" for none).
func locationsOf(t *testing.T, f *follower, session, id, tool, rawInput string) string {
	t.Helper()
	line := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"` + session + `","update":{"sessionUpdate":"tool_call","toolCallId":"` + id + `","status":"pending","title":"mcp__acpfs__` + tool + `","kind":"other","rawInput":` + rawInput + `}}}`
	out := f.update(parseLine(t, line))
	var u struct {
		Params struct {
			Update struct {
				Locations json.RawMessage `json:"locations"`
			} `json:"update"`
		} `json:"params"`
	}
	if out != nil {
		json.Unmarshal(out, &u)
	}
	return string(u.Params.Update.Locations)
}

// Locations resolve as the tools resolve paths (~/ and file URIs
// included), are remembered per session, and come only from arguments
// that are there.
func TestFollowerLocationsAsTheToolsResolve(t *testing.T) {
	cwds := map[string]string{"s1": ostest.HostPath("/w"), "s2": ostest.HostPath("/v")}
	f := newFollower("acpfs", func(s string) string { return cwds[s] })
	f.home = ostest.HostPath("/home/me")
	locAt := func(slash string) string { return `[{"path":` + jsonString(ostest.HostPath(slash)) + `}]` }
	// A file URI with a host is not a path the tools take, but on Windows,
	// where it names a share: \\host\x.
	hostURI := ``
	if runtime.GOOS == "windows" {
		hostURI = `[{"path":` + jsonString(`\\host\x`) + `}]`
	}
	for i, tc := range []struct{ input, want string }{
		{`{"path":"~/notes.txt"}`, locAt("/home/me/notes.txt")},
		{`{"path":"file:///w/a.txt"}`, locAt("/w/a.txt")},
		{`{"path":"file:/w/b.txt"}`, locAt("/w/b.txt")},
		{`{"path":"sub/../c.txt"}`, locAt("/w/c.txt")},
		{`{"path":"file://host/x"}`, hostURI},
	} {
		if got := locationsOf(t, f, "s1", fmt.Sprint("c", i), mcpfs.ReadTextFile, hostJSON(tc.input)); got != tc.want {
			t.Errorf("%s: locations %s, want %s", tc.input, got, tc.want)
		}
	}

	// claude's first report of a call has rawInput {}: no placeholder.
	if got := locationsOf(t, f, "s1", "g1", mcpfs.Grep, `{}`); got != "" {
		t.Errorf("a grep with unknown arguments got locations %s", got)
	}

	// The same call id in two sessions names two calls.
	if got := locationsOf(t, f, "s1", "call_1", mcpfs.Grep, `{"pattern":"x","path":"src"}`); got != locAt("/w/src") {
		t.Fatalf("s1 grep: %s", got)
	}
	if got := locationsOf(t, f, "s2", "call_1", mcpfs.ReadTextFile, `{}`); got != "" {
		t.Errorf("session s2 got session s1's location %s", got)
	}
}
