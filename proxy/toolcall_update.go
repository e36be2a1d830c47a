package proxy

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"strings"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fspath"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

// toolKinds are the ACP tool kinds of the file tools.
var toolKinds = map[string]string{
	mcpfs.ReadTextFile: "read", mcpfs.ReadMediaFile: "read", mcpfs.GetFileInfo: "read", mcpfs.ListDirectory: "read", mcpfs.DirectoryTree: "read",
	mcpfs.WriteTextFile: "edit", mcpfs.EditTextFile: "edit", mcpfs.CreateDirectory: "edit",
	mcpfs.DeleteFile: "delete",
	mcpfs.MoveFile:   "move",
	mcpfs.Glob:       "search", mcpfs.Grep: "search",
}

// A follower completes the agent's reports of calls to the file tools
// (session/update tool_call and tool_call_update, and the toolCall of
// session/request_permission) with what the agent cannot know and the
// editor needs to follow the agent into the files: the kind of the call
// and its locations. It fills in only a kind that is absent or "other"
// (the schema's default, which agents send for tools they do not know)
// and locations that are absent or empty. To a report of a call that
// writes or edits a file and that has no content, it adds a diff of what
// the call would change (diff.go). Everything else is left as the agent
// sent it. It is used by the proxy's reader of the agent only.
type follower struct {
	server string                      // the MCP server's name
	cwd    func(session string) string // a session's working directory; "" if unknown
	home   string                      // the user's home directory, for ~/ as the tools expand it
	// seen holds the locations of calls whose arguments came in an
	// earlier report (gemini sends them once, in the permission request),
	// by session and toolCallId (unique only within a session), until the
	// call completes or fails.
	seen map[string]json.RawMessage
	// fsys, if not nil, returns a session's files, as its tools see them
	// (nil if unknown), for the diffs.
	fsys func(session string) fsruntime.FS
	// diffs holds the diff content made for a call, by session and
	// toolCallId, with the arguments it was made from, until the call
	// completes or fails: the next report of the call reuses it.
	diffs map[string]madeDiff
	log   *slog.Logger
}

// newFollower returns a follower of the calls to the tools of server,
// whose sessions' working directories cwd gives.
func newFollower(server string, cwd func(session string) string) *follower {
	home, _ := os.UserHomeDir() // without one, ~/ stays a relative name, as for the tools
	return &follower{server: server, cwd: cwd, home: home, seen: map[string]json.RawMessage{}, diffs: map[string]madeDiff{},
		log: slog.New(slog.DiscardHandler)}
}

// maxSeen bounds follower.seen: calls that never complete are forgotten.
const maxSeen = 1024

var (
	toolCallMarker = []byte(`"tool_call`)
	otherKind      = []byte(`"other"`)
)

// update returns a session/update notification with a tool call's kind
// and locations filled in, or nil when it is not a report of a call to a
// file tool or lacks nothing. Other notifications are not decoded.
func (f *follower) update(m wire.Message) []byte {
	if !bytes.Contains(m.Params, toolCallMarker) {
		return nil
	}
	return f.rewrite(m, "update")
}

// permission does the same for a session/request_permission request.
func (f *follower) permission(m wire.Message) []byte {
	return f.rewrite(m, "toolCall")
}

func (f *follower) rewrite(m wire.Message, member string) []byte {
	var params map[string]json.RawMessage
	if json.Unmarshal(m.Params, &params) != nil {
		return nil
	}
	var call map[string]json.RawMessage
	if json.Unmarshal(params[member], &call) != nil || call == nil {
		return nil
	}
	if member == "update" {
		var kind string
		json.Unmarshal(call["sessionUpdate"], &kind)
		if kind != "tool_call" && kind != "tool_call_update" {
			return nil
		}
	}
	var id, status, session string
	json.Unmarshal(call["toolCallId"], &id)
	json.Unmarshal(call["status"], &status)
	json.Unmarshal(params["sessionId"], &session)
	tool, args := f.identify(call, status)
	done := status == "completed" || status == "failed"
	key := session + "\x00" + id
	locs := f.seen[key]
	// Empty arguments are unknown ones: claude-agent-acp's first report
	// of a call has rawInput {}.
	if tool != "" && len(args) > 0 {
		if l := f.locations(tool, args, session); l != nil {
			locs = l
		}
	}
	var diff json.RawMessage
	if tool != "" && len(args) > 0 && !done && emptyList(call["content"]) {
		diff = f.diff(key, session, tool, args)
	}
	if done {
		delete(f.seen, key)
		delete(f.diffs, key)
	} else if locs != nil && id != "" {
		if len(f.seen) >= maxSeen {
			clear(f.seen)
		}
		f.seen[key] = locs
	}
	changed := false
	if k, ok := toolKinds[tool]; ok && (call["kind"] == nil || bytes.Equal(bytes.TrimSpace(call["kind"]), otherKind)) {
		call["kind"], _ = json.Marshal(k)
		changed = true
	}
	if locs != nil && tool != "" && emptyList(call["locations"]) {
		call["locations"] = locs
		changed = true
	}
	if diff != nil {
		call["content"] = diff
		changed = true
	}
	if !changed {
		return nil
	}
	var err error
	if params[member], err = json.Marshal(call); err != nil {
		return nil
	}
	line, err := replaceParams(m.Raw, params)
	if err != nil {
		return nil
	}
	return line
}

// emptyList reports whether v is absent, null or an empty list.
func emptyList(v json.RawMessage) bool {
	var list []json.RawMessage
	return v == nil || (json.Unmarshal(v, &list) == nil && len(list) == 0)
}

// identify returns the file tool a reported call is to, and its
// arguments when the report carries them, from the shapes the agents
// send: claude-agent-acp titles the call mcp__SERVER__TOOL and sends the
// arguments as rawInput, as Qwen Code does with the name in
// _meta.toolName (whatever its title: "TOOL (SERVER MCP Server)", or the
// arguments in its permission request; only the permission request has
// them), opencode with the title SERVER_TOOL and Copilot CLI with
// SERVER-TOOL; codex-acp titles it "Tool: SERVER/TOOL" with
// rawInput {server, tool, arguments}; gemini-cli titles it
// "TOOL (SERVER MCP Server)" and shows the arguments as JSON text in the
// content of the report that asks for permission or starts the call.
func (f *follower) identify(call map[string]json.RawMessage, status string) (string, map[string]any) {
	var title string
	json.Unmarshal(call["title"], &title)
	var meta struct {
		ClaudeCode struct {
			ToolName string `json:"toolName"`
		} `json:"claudeCode"`
		ToolName string `json:"toolName"`
	}
	json.Unmarshal(call["_meta"], &meta)
	var raw map[string]any
	json.Unmarshal(call["rawInput"], &raw)
	known := func(t string) bool { _, ok := toolKinds[t]; return ok }

	for _, name := range []string{meta.ClaudeCode.ToolName, meta.ToolName, title} {
		for _, prefix := range []string{"mcp__" + f.server + "__", f.server + "_", f.server + "-"} {
			if t, ok := strings.CutPrefix(name, prefix); ok && known(t) {
				return t, raw
			}
		}
	}
	if t, ok := strings.CutPrefix(title, "Tool: "+f.server+"/"); ok && known(t) {
		args, _ := raw["arguments"].(map[string]any)
		return t, args
	}
	if raw["server"] == f.server {
		if t, _ := raw["tool"].(string); known(t) {
			args, _ := raw["arguments"].(map[string]any)
			return t, args
		}
	}
	if t, ok := strings.CutSuffix(title, " ("+f.server+" MCP Server)"); ok && known(t) {
		if raw != nil || status == "completed" || status == "failed" {
			return t, raw // a finished call's content is its result
		}
		var content []struct {
			Type    string `json:"type"`
			Content struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		}
		json.Unmarshal(call["content"], &content)
		for _, c := range content {
			var args map[string]any
			if c.Type == "content" && c.Content.Type == "text" && json.Unmarshal([]byte(c.Content.Text), &args) == nil {
				return t, args
			}
		}
		return t, nil
	}
	return "", nil
}

// locations returns the ACP locations of a call to tool with args, as a
// JSON list, or nil when they are unknown: the file or directory it works
// on (a move's destination; a search's directory, the working directory by
// default), with the line a read starts at. The path resolves as the
// tools resolve it: ~/ is the home directory, a file URI its path, and a
// relative path is joined to the session's working directory.
func (f *follower) locations(tool string, args map[string]any, session string) json.RawMessage {
	key := "path"
	if tool == mcpfs.MoveFile {
		key = "destination"
	}
	p, _ := args[key].(string)
	if p == "" && (tool == mcpfs.Glob || tool == mcpfs.Grep) {
		p = "."
	}
	if p == "" {
		return nil
	}
	cwd := ""
	if f.cwd != nil {
		cwd = f.cwd(session)
	}
	p, err := fspath.Abs(cwd, fspath.ExpandHome(f.home, p))
	if err != nil {
		return nil // relative with no known working directory, or not a path
	}
	loc := map[string]any{"path": p}
	if line, ok := args["line"].(float64); ok && tool == mcpfs.ReadTextFile && line >= 1 && line == float64(int64(line)) {
		loc["line"] = int64(line)
	}
	out, err := json.Marshal([]any{loc})
	if err != nil {
		return nil
	}
	return out
}
