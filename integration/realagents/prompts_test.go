//go:build linux

package realagents

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/fakeeditor"
	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/modelserver"
)

// editedText is the editor's buffer after the edit of promptScript.
var editedText = strings.Replace(bufferText, "unsaved", "edited", 1)

// promptScript reads the file through acpfs, then edits it (the word
// "unsaved", which only the editor's buffer has), then ends the turn.
func promptScript(a agent, file string) modelserver.Script {
	read, edit := a.tool("read_text_file"), a.tool("edit_text_file")
	return func(r modelserver.Request) modelserver.Reply {
		if !slices.Contains(r.Tools, read) {
			return modelserver.Reply{Text: "done"}
		}
		switch len(r.Results) {
		case 0:
			return modelserver.Reply{Call: &modelserver.Call{Name: read, Args: mustJSON(map[string]any{"path": file})}}
		case 1:
			return modelserver.Reply{Call: &modelserver.Call{Name: edit, Args: mustJSON(map[string]any{"path": file,
				"edits": []any{map[string]any{"oldText": "unsaved", "newText": "edited"}}})}}
		}
		return modelserver.Reply{Text: "done"}
	}
}

// TestRealAgentPrompts runs claude-agent-acp behind the proxy, reading and
// then editing a file: the read asks the user nothing, as claude's own Read
// does not; the edit asks in the default mode and not in acceptEdits, as
// claude's own Edit; and the edit's reports carry a diff whose oldText is
// the editor's unsaved buffer.
func TestRealAgentPrompts(t *testing.T) {
	nodeModules(t)
	i := slices.IndexFunc(agents, func(a agent) bool { return a.name == "claude-agent-acp" })
	a := agents[i]
	t.Run(a.name, func(t *testing.T) {
		t.Run("default", func(t *testing.T) {
			t.Parallel()
			r := runAgent(t, a, runOptions{script: promptScript})
			checkStopped(t, r)
			asked := permissionsAsked(r.ed)
			if slices.Contains(asked, "read_text_file") {
				t.Errorf("the editor was asked for permission to read: %v", asked)
			}
			if !slices.Contains(asked, "edit_text_file") {
				t.Errorf("the editor was not asked for permission to edit in the default mode: %v", asked)
			}
			checkEditDiff(t, r, true)
			checkEdited(t, r)
		})
		t.Run("acceptEdits", func(t *testing.T) {
			t.Parallel()
			r := runAgent(t, a, runOptions{script: promptScript, beforePrompt: setMode("acceptEdits")})
			checkStopped(t, r)
			if asked := permissionsAsked(r.ed); len(asked) > 0 {
				t.Errorf("the editor was asked for permission in acceptEdits: %v", asked)
			}
			checkEditDiff(t, r, false)
			checkEdited(t, r)
		})
	})
}

// TestRealAgentPromptsCodex runs codex-acp behind the proxy, reading and
// then editing a file: the read asks nothing (readOnlyHint) and the edit
// asks. codex-acp 0.16's permission request carries content of its own (a
// text naming the tool and its arguments), so the proxy adds no diff to
// it, and it reports the call's start as it runs it, when a read of the
// file may already see the edit: no diff is checked.
func TestRealAgentPromptsCodex(t *testing.T) {
	nodeModules(t)
	i := slices.IndexFunc(agents, func(a agent) bool { return a.name == "codex-acp" })
	r := runAgent(t, agents[i], runOptions{script: promptScript})
	checkStopped(t, r)
	asked := permissionsAsked(r.ed)
	if slices.ContainsFunc(asked, func(s string) bool { return strings.Contains(s, "read_text_file") }) {
		t.Errorf("the editor was asked for permission to read: %v", asked)
	}
	if len(asked) == 0 {
		t.Fatalf("the editor was not asked for permission to edit: %v", asked)
	}
	checkEdited(t, r)
}

// TestRealAgentPromptsGemini runs gemini-cli behind the proxy, reading a
// file through acpfs: the read asks the user nothing, as gemini's own
// read_file does not (the proxy's policy file allows the reading tools).
func TestRealAgentPromptsGemini(t *testing.T) {
	nodeModules(t)
	i := slices.IndexFunc(agents, func(a agent) bool { return a.name == "gemini-cli" })
	a := agents[i]
	readOnly := func(a agent, file string) modelserver.Script {
		read := a.tool("read_text_file")
		return func(r modelserver.Request) modelserver.Reply {
			if slices.Contains(r.Tools, read) && len(r.Results) == 0 {
				return modelserver.Reply{Call: &modelserver.Call{Name: read, Args: mustJSON(map[string]any{"path": file})}}
			}
			return modelserver.Reply{Text: "done"}
		}
	}
	r := runAgent(t, a, runOptions{script: readOnly})
	checkStopped(t, r)
	if asked := permissionsAsked(r.ed); slices.ContainsFunc(asked, func(s string) bool { return strings.Contains(s, "read_text_file") }) {
		t.Errorf("the editor was asked for permission to read: %v", asked)
	}
	if got := callResult(t, a, r, "read_text_file"); !strings.Contains(got, "unsaved") {
		t.Errorf("the read gave the model %q, want the editor's buffer", got)
	}
}

// TestRealAgentWrapped runs gemini-cli through a wrapper script whose
// command line says nothing of gemini: without --agent-profile its
// read_file stays and the proxy says so, once, naming the flag; with
// --agent-profile gemini-cli it goes, as for gemini run directly. The same
// for Copilot CLI and its view, opencode and its read, and Qwen Code,
// whose launch settings take none of its tools but append the instruction
// to its system prompt.
func TestRealAgentWrapped(t *testing.T) {
	nodeModules(t)
	// Whether the agent's first request shows its profile's launch
	// settings: its own reading tool gone, or for Qwen the instruction.
	ownGone := func(own string) func(q modelserver.Request) (bool, string) {
		return func(q modelserver.Request) (bool, string) {
			return !slices.Contains(q.Tools, own), "its own " + own + " is gone"
		}
	}
	launched := map[string]func(q modelserver.Request) (bool, string){
		"gemini-cli": ownGone("read_file"),
		"copilot":    ownGone("view"),
		"opencode":   ownGone("read"),
		"qwen-code": func(q modelserver.Request) (bool, string) {
			return strings.Contains(q.System, "go through the user's editor"), "its system prompt has the instruction"
		},
	}
	for _, name := range []string{"gemini-cli", "copilot", "opencode", "qwen-code"} {
		all := append(slices.Clone(agents), moreAgents...)
		a := all[slices.IndexFunc(all, func(a agent) bool { return a.name == name })]
		for _, tc := range []struct {
			flags   []string
			applied bool
		}{
			{nil, false},
			{[]string{"--agent-profile", name}, true},
		} {
			t.Run(strings.Join(append([]string{name, "flags"}, tc.flags...), " "), func(t *testing.T) {
				t.Parallel()
				r := runAgent(t, a, runOptions{wrapped: true, proxyFlags: tc.flags})
				checkStopped(t, r)
				if got, what := launched[name](firstTurn(t, r)); got != tc.applied {
					t.Errorf("%s: %v, want %v", what, got, tc.applied)
				}
				if n := strings.Count(r.stderr, "--agent-profile "+name); n != 0 == tc.applied || n > 1 {
					t.Errorf("the proxy named --agent-profile %s on stderr %d times, want it %v (once)", name, n, !tc.applied)
				}
			})
		}
	}
}

// setMode returns a beforePrompt that sets the session's mode.
func setMode(mode string) func(ctx context.Context, t *testing.T, ed *fakeeditor.Editor, sid string) {
	return func(ctx context.Context, t *testing.T, ed *fakeeditor.Editor, sid string) {
		if err := ed.Call(ctx, "session/set_mode", map[string]any{"sessionId": sid, "modeId": mode}, nil); err != nil {
			t.Fatalf("session/set_mode %s: %v", mode, err)
		}
	}
}

// permissionsAsked returns the acpfs tools the editor was asked to allow,
// one per session/request_permission (any other tool as its title).
func permissionsAsked(ed *fakeeditor.Editor) []string {
	var out []string
	for _, m := range ed.Requests("session/request_permission") {
		var p struct {
			ToolCall struct {
				Title string `json:"title"`
			} `json:"toolCall"`
		}
		json.Unmarshal(m.Params, &p)
		out = append(out, strings.TrimPrefix(p.ToolCall.Title, "mcp__acpfs__"))
	}
	return out
}

// checkEditDiff checks that the reports of the edit the editor got (its
// session/updates, and its permission request if asked) carry a diff of
// the file from the editor's unsaved buffer to the edited text.
func checkEditDiff(t *testing.T, r *run, asked bool) {
	t.Helper()
	want := map[string]any{"type": "diff", "path": r.file, "oldText": bufferText, "newText": editedText}
	inUpdate, inPermission := false, false
	for _, m := range r.ed.Messages() {
		_, call, ok := toolCallMessage(m.Raw)
		if !ok || !strings.Contains(string(mustJSON([]any{call["title"], call["_meta"]})), "edit_text_file") {
			continue
		}
		content, _ := call["content"].([]any)
		if len(content) == 0 {
			continue
		}
		if string(mustJSON(content)) != string(mustJSON([]any{want})) {
			if call["status"] != "completed" && call["status"] != "failed" {
				t.Errorf("a report of the edit has the content %s; want %s", mustJSON(content), mustJSON([]any{want}))
			}
			continue
		}
		if m.Method == "session/request_permission" {
			inPermission = true
		} else {
			inUpdate = true
		}
	}
	if !inUpdate {
		t.Errorf("no session/update of the edit carries the diff %s", mustJSON(want))
	}
	if asked && !inPermission {
		t.Errorf("the permission request for the edit does not carry the diff %s", mustJSON(want))
	}
}

// checkEdited checks that the edit landed in the editor's buffer.
func checkEdited(t *testing.T, r *run) {
	t.Helper()
	if got, _ := r.buffers.Get(r.file); got != editedText {
		t.Errorf("the editor's buffer holds %q, want %q", got, editedText)
	}
}
