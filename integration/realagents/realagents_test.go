//go:build linux

package realagents

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/modelserver"
)

// acpfsTools are the tools of the injected MCP server, by their own names.
var acpfsTools = []string{
	"create_directory", "delete_file", "directory_tree", "edit_text_file", "get_file_info", "glob", "grep",
	"list_directory", "move_file", "read_media_file", "read_text_file", "write_text_file",
}

// TestRealAgents runs each agent four times: without the proxy (the
// baseline: what it offers its model alone, its editor serving both fs
// methods), and behind it steered (--agent-tools auto, the default), kept
// (--agent-tools keep), and with an editor that advertises no fs method,
// also compared with the baseline (none of these agents offers other tools
// then). With -short, each runs the baseline and the steered run only.
func TestRealAgents(t *testing.T) {
	nodeModules(t)
	for _, a := range agents {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			baseline := runAgent(t, a, runOptions{direct: true})
			t.Run("steered", func(t *testing.T) {
				r := runAgent(t, a, runOptions{script: editScript, trace: true})
				checkStopped(t, r)
				checkSteeredTools(t, a, r, baseline)
				checkInstructions(t, a, r)
				checkReadSawBuffer(t, a, r)
				checkWriteInEditor(t, r)
				checkToolCallUpdates(t, a, r)
				checkOnlyKindAndLocations(t, r)
				checkRecordedShapes(t, a, r)
				checkQuietLog(t, a, r)
			})
			t.Run("keep", func(t *testing.T) {
				skipShort(t)
				r := runAgent(t, a, runOptions{proxyFlags: []string{"--agent-tools", "keep"}})
				checkStopped(t, r)
				checkUnsteeredTools(t, a, r, baseline)
			})
			t.Run("no-fs", func(t *testing.T) {
				skipShort(t)
				r := runAgent(t, a, runOptions{noFS: true})
				checkStopped(t, r)
				checkUnsteeredTools(t, a, r, baseline)
			})
		})
	}
}

// skipShort skips the runs that -short leaves out.
func skipShort(t *testing.T) {
	if testing.Short() {
		t.Skip("-short runs the baseline and the steered run only")
	}
}

// editScript reads the file through acpfs, then writes it, then ends the
// turn; a request that does not offer acpfs (a utility call) gets a text.
func editScript(a agent, file string) modelserver.Script {
	read, write := a.tool("read_text_file"), a.tool("write_text_file")
	return func(r modelserver.Request) modelserver.Reply {
		if !slices.Contains(r.Tools, read) {
			return modelserver.Reply{Text: "done"}
		}
		switch len(r.Results) {
		case 0:
			return modelserver.Reply{Call: &modelserver.Call{Name: read, Args: mustJSON(map[string]any{"path": file})}}
		case 1:
			if a.ownWrite != nil {
				return modelserver.Reply{Call: a.ownWrite(file, newText)}
			}
			return modelserver.Reply{Call: &modelserver.Call{Name: write,
				Args: mustJSON(map[string]any{"path": file, "content": newText})}}
		}
		return modelserver.Reply{Text: "done"}
	}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func checkStopped(t *testing.T, r *run) {
	t.Helper()
	if r.stopReason != "end_turn" {
		t.Errorf("the prompt stopped with %q, want end_turn", r.stopReason)
	}
}

// firstTurn returns the first model turn that offers tools: the request
// whose tool list and instructions the model starts from.
func firstTurn(t *testing.T, r *run) modelserver.Request {
	t.Helper()
	for _, q := range r.model.Turns() {
		if len(q.Tools) > 0 {
			return q
		}
	}
	t.Fatalf("the model got no request offering tools; requests: %d", len(r.model.Requests()))
	return modelserver.Request{}
}

// withoutAcpfs returns tools less those of the acpfs server and those the
// agent adds for any MCP server, sorted, and whether every acpfs tool was
// there.
func withoutAcpfs(a agent, tools []string) (rest []string, all bool) {
	rest, acpfs := splitAcpfs(a, tools)
	return rest, len(acpfs) == len(acpfsTools)
}

// splitAcpfs returns tools less those of the acpfs server and those the
// agent adds for any MCP server, sorted, and the acpfs tools by their own
// names, sorted.
func splitAcpfs(a agent, tools []string) (rest, acpfs []string) {
	for _, name := range tools {
		if isAcpfs(a, name) {
			acpfs = append(acpfs, strings.TrimPrefix(name, a.tool("")))
			continue
		}
		if !slices.Contains(a.mcpTools, name) {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	slices.Sort(acpfs)
	return rest, acpfs
}

func isAcpfs(a agent, name string) bool {
	return slices.ContainsFunc(acpfsTools, func(tool string) bool { return a.tool(tool) == name })
}

// checkSteeredTools checks the tool list of the model's first request
// against the baseline: the acpfs tools the profile offers are there (all
// of them where mcpfs does not yet honour ToolOptions.Only), the agent's
// own tools that the profile removes are not, and every other tool is.
func checkSteeredTools(t *testing.T, a agent, r, baseline *run) {
	t.Helper()
	got, acpfs := splitAcpfs(a, firstTurn(t, r).Tools)
	if want := steeredTools(a); !slices.Equal(acpfs, want) {
		t.Errorf("the model's acpfs tools are %q, want %q: %v", acpfs, want, firstTurn(t, r).Tools)
	}
	base, _ := withoutAcpfs(a, firstTurn(t, baseline).Tools)
	var want []string
	for _, name := range base {
		if !slices.Contains(a.removed, name) {
			want = append(want, name)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("the model's own tools (acpfs aside):\n got %v\nwant %v\n(the agent alone offers %v; the proxy removes %v)",
			got, want, base, a.removed)
	}
	for _, name := range a.removed {
		if !slices.Contains(base, name) {
			t.Errorf("the agent alone does not offer %s, which the test expects the proxy to remove: %v", name, base)
		}
	}
}

// checkUnsteeredTools checks that the model is offered exactly what the
// agent offers on its own, plus the acpfs tools.
func checkUnsteeredTools(t *testing.T, a agent, r, baseline *run) {
	t.Helper()
	got, all := withoutAcpfs(a, firstTurn(t, r).Tools)
	if !all {
		t.Errorf("the model's tools lack some acpfs tools: %v", firstTurn(t, r).Tools)
	}
	base, _ := withoutAcpfs(a, firstTurn(t, baseline).Tools)
	if !slices.Equal(got, base) {
		t.Errorf("the model's own tools (acpfs aside):\n got %v\nwant %v (as the agent alone offers them)", got, base)
	}
}

// checkInstructions checks that the model's instructions tell it to use
// the acpfs tools for files: its system instructions, or for gemini-cli
// the session context of its first message.
func checkInstructions(t *testing.T, a agent, r *run) {
	t.Helper()
	q := firstTurn(t, r)
	text, where := q.System, "system instructions"
	if a.contextInPrompt {
		text, where = q.Prompt, "first message"
	}
	for _, want := range []string{"acpfs", "read_text_file", "write_text_file"} {
		if want == "write_text_file" && !slices.Contains(steeredTools(a), want) {
			continue
		}
		if !strings.Contains(text, want) {
			t.Errorf("the model's %s do not name %q:\n%s", where, want, tail(text, 3000))
		}
	}
}

// callResult returns the result of the model's call of tool, as the model
// got it in a later request.
func callResult(t *testing.T, a agent, r *run, tool string) string {
	t.Helper()
	turns := r.model.Turns()
	if len(turns) == 0 {
		t.Fatal("the model got no request")
	}
	last := turns[len(turns)-1]
	for _, c := range last.Calls {
		if c.Name != a.tool(tool) {
			continue
		}
		for _, res := range last.Results {
			// Gemini results carry no id of the model's; its calls have
			// none either.
			if res.CallID == c.ID || c.ID == "" {
				return res.Text
			}
		}
	}
	t.Fatalf("the model's last request holds no result of %s: calls %v", a.tool(tool), last.Calls)
	return ""
}

// checkReadSawBuffer checks that the read through acpfs returned the
// editor's unsaved buffer, not the disk.
func checkReadSawBuffer(t *testing.T, a agent, r *run) {
	t.Helper()
	got := callResult(t, a, r, "read_text_file")
	if !strings.Contains(got, strings.TrimSuffix(bufferText, "\n")) || strings.Contains(got, strings.TrimSuffix(diskText, "\n")) {
		t.Errorf("the model got from read_text_file %q; want the editor's buffer %q", got, bufferText)
	}
}

// checkWriteInEditor checks that the write went to the editor, once, and
// not to the disk.
func checkWriteInEditor(t *testing.T, r *run) {
	t.Helper()
	writes := r.ed.Requests("fs/write_text_file")
	if len(writes) != 1 {
		t.Errorf("the editor got %d fs/write_text_file requests, want 1", len(writes))
	}
	for _, w := range writes {
		var p struct{ Path, Content string }
		json.Unmarshal(w.Params, &p)
		if p.Path != r.file || p.Content != newText {
			t.Errorf("fs/write_text_file %s; want path %s, content %q", w.Params, r.file, newText)
		}
	}
	if got, _ := r.buffers.Get(r.file); got != newText {
		t.Errorf("the editor's buffer holds %q, want %q", got, newText)
	}
	if disk, err := os.ReadFile(r.file); err != nil || string(disk) != diskText {
		t.Errorf("the file on disk holds %q (%v); want it untouched, %q", disk, err, diskText)
	}
}

// checkToolCallUpdates checks that the editor could follow each acpfs call:
// some session/update about it carries the kind and the file's location.
func checkToolCallUpdates(t *testing.T, a agent, r *run) {
	t.Helper()
	byID := map[string][]map[string]any{}
	var ids []string
	for _, u := range toolCallUpdates(r.ed) {
		id, _ := u["toolCallId"].(string)
		if _, ok := byID[id]; !ok {
			ids = append(ids, id)
		}
		byID[id] = append(byID[id], u)
	}
	want := map[string]string{"read_text_file": "read", "write_text_file": "edit"}
	if a.ownWrite != nil {
		delete(want, "write_text_file")
	}
	seen := map[string]bool{}
	for _, id := range ids {
		updates := byID[id]
		tool := acpfsToolOf(id, updates)
		kind, ok := want[tool]
		if !ok {
			continue
		}
		seen[tool] = true
		if !slices.ContainsFunc(updates, func(u map[string]any) bool { return u["kind"] == kind && hasLocation(u, r.file) }) {
			t.Errorf("no session/update of the %s call %s has kind %q and the location %s:\n%s",
				tool, id, kind, r.file, mustJSON(updates))
		}
	}
	for tool := range want {
		if !seen[tool] {
			t.Errorf("the editor got no session/update about the %s call", tool)
		}
	}
}

// acpfsToolOf returns which acpfs tool a call is of, from how each agent
// names it (in its title, rawInput, _meta or id), or "".
func acpfsToolOf(id string, updates []map[string]any) string {
	var b strings.Builder
	b.WriteString(id)
	for _, u := range updates {
		b.WriteString(" ")
		b.Write(mustJSON([]any{u["title"], u["rawInput"], u["_meta"]}))
	}
	s := b.String()
	if !strings.Contains(s, "acpfs") {
		return ""
	}
	for _, tool := range acpfsTools {
		if strings.Contains(s, tool) {
			return tool
		}
	}
	return ""
}

func hasLocation(u map[string]any, path string) bool {
	locs, _ := u["locations"].([]any)
	for _, l := range locs {
		if m, _ := l.(map[string]any); m["path"] == path {
			return true
		}
	}
	return false
}

// checkOnlyKindAndLocations checks that the proxy changed nothing in the
// agent's reports of tool calls but kind and locations, and those only
// where the agent left them absent, "other" or empty, and content, only
// where the agent left it absent or empty, and only with a diff: each
// report the editor got is compared with the agent's, from the proxy's
// trace.
func checkOnlyKindAndLocations(t *testing.T, r *run) {
	t.Helper()
	var sent, got []map[string]any
	for _, m := range agentToolCallMessages(t, r.trace) {
		params, _, _ := toolCallMessage(m)
		sent = append(sent, params)
	}
	for _, m := range r.ed.Messages() {
		if params, _, ok := toolCallMessage(m.Raw); ok {
			got = append(got, params)
		}
	}
	if len(got) != len(sent) {
		t.Fatalf("the agent sent %d tool call reports, the editor got %d", len(sent), len(got))
	}
	for i := range sent {
		a, e := callOf(sent[i]), callOf(got[i])
		if k, _ := a["kind"].(string); k != "" && k != "other" && e["kind"] != k {
			t.Errorf("report %d: the agent's kind %q became %v", i, k, e["kind"])
		}
		if locs, _ := a["locations"].([]any); len(locs) > 0 && string(mustJSON(locs)) != string(mustJSON(e["locations"])) {
			t.Errorf("report %d: the agent's locations %s became %s", i, mustJSON(locs), mustJSON(e["locations"]))
		}
		if content, _ := a["content"].([]any); len(content) == 0 && isDiff(e["content"]) {
			delete(a, "content") // the proxy's diff of a write (diff.go)
			delete(e, "content")
		}
		for _, c := range []map[string]any{a, e} {
			delete(c, "kind")
			delete(c, "locations")
		}
		if string(mustJSON(sent[i])) != string(mustJSON(got[i])) {
			t.Errorf("report %d changed beyond kind and locations:\nagent  %s\neditor %s", i, mustJSON(sent[i]), mustJSON(got[i]))
		}
	}
}

// isDiff reports whether content is a list of one diff.
func isDiff(content any) bool {
	list, _ := content.([]any)
	d, _ := func() (map[string]any, bool) {
		if len(list) != 1 {
			return nil, false
		}
		m, ok := list[0].(map[string]any)
		return m, ok
	}()
	return d["type"] == "diff"
}

// callOf returns the tool call of a report's params (update or toolCall),
// which the caller may change.
func callOf(params map[string]any) map[string]any {
	if u, ok := params["update"].(map[string]any); ok {
		return u
	}
	c, _ := params["toolCall"].(map[string]any)
	return c
}

// checkQuietLog checks that the proxy logged no warning or error in a run
// of an agent whose quirks it must take quietly (agent.quietLog).
func checkQuietLog(t *testing.T, a agent, r *run) {
	t.Helper()
	if !a.quietLog {
		return
	}
	for _, line := range strings.Split(r.stderr, "\n") {
		if strings.Contains(line, "level=WARN") || strings.Contains(line, "level=ERROR") {
			t.Errorf("the proxy logged: %s", line)
		}
	}
}
