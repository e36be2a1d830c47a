package proxy

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
)

// Edits that follow the session's mode.
//
// claude-agent-acp asks the user (session/request_permission) before every
// call of an MCP tool, whatever its mode, until the user picks "Always
// Allow" for that tool; its own Edit and Write ask too, except in the
// modes acceptEdits and bypassPermissions. The difference lies in Claude
// Code itself (cli.js of @anthropic-ai/claude-agent-sdk 0.2.83): its Edit
// and Write tools' checkPermissions allow a path inside the working
// directories when the mode is acceptEdits, while an MCP tool's
// checkPermissions always answers "passthrough" ("MCPTool requires
// permission."), which sends the call to claude-agent-acp's canUseTool,
// and that asks the editor (dist/acp-agent.js, canUseTool). Nothing that a
// session request can carry makes an MCP tool follow the mode:
// allowedTools rules (which the proxy uses for the reading tools) allow it
// in every mode; hooks in the SDK options are functions, not JSON; hooks
// in a settings object would have to run a command or call an HTTP
// endpoint for every call, and a settings path of the editor's could not
// be merged with.
//
// So the proxy follows the mode itself: it keeps each session's current
// mode as the agent reports it (the result of session/new, load, resume
// and fork; the editor's session/set_mode and session/set_config_option
// once the agent accepts them; the agent's current_mode_update and
// config_option_update notifications), and in acceptEdits or
// bypassPermissions it answers the agent's permission request for a call
// of a writing file tool with the request's allow_once option, without
// asking the editor. (In bypassPermissions Claude Code does not ask at
// all.) In every other mode, and for every other tool, the request goes to
// the editor as before.

// acceptsEdits are the modes in which the agent's own edits ask nothing.
var acceptsEdits = []string{"acceptEdits", "bypassPermissions"}

// sessionModes holds the current mode of each session, by ACP session id.
type sessionModes struct {
	mu sync.Mutex
	m  map[string]string
}

// maxModes bounds sessionModes: a connection with more sessions than this
// forgets the modes of the others, whose edits then ask the editor.
const maxModes = 4096

func (s *sessionModes) set(session, mode string) {
	if session == "" || mode == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil || len(s.m) >= maxModes {
		s.m = make(map[string]string)
	}
	s.m[session] = mode
}

func (s *sessionModes) get(session string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[session]
}

func (s *sessionModes) forget(session string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, session)
}

// modeState is what carries a session's mode: a session response's
// result, a set_config_option's result, or a session/update's update.
type modeState struct {
	Modes *struct {
		CurrentModeID string `json:"currentModeId"`
	} `json:"modes"`
	CurrentModeID string `json:"currentModeId"` // current_mode_update
	ConfigOptions []struct {
		ID           string          `json:"id"`
		Category     string          `json:"category"`
		CurrentValue json.RawMessage `json:"currentValue"`
	} `json:"configOptions"`
}

// mode returns the mode v says the session is in, or "".
func (v modeState) mode() string {
	for _, o := range v.ConfigOptions {
		var s string
		if (o.ID == "mode" || o.Category == "mode") && json.Unmarshal(o.CurrentValue, &s) == nil && s != "" {
			return s
		}
	}
	if v.Modes != nil && v.Modes.CurrentModeID != "" {
		return v.Modes.CurrentModeID
	}
	return v.CurrentModeID
}

// learn records the mode that a result or an update, raw, carries for
// session, if any.
func (s *sessionModes) learn(session string, raw json.RawMessage) {
	var v modeState
	if json.Unmarshal(raw, &v) == nil {
		s.set(session, v.mode())
	}
}

var (
	modeUpdateMarker   = []byte(`"current_mode_update"`)
	configUpdateMarker = []byte(`"config_option_update"`)
)

// update learns from a session/update notification of the agent's; only
// those that mention a mode change are decoded.
func (s *sessionModes) update(m wire.Message) {
	if !bytes.Contains(m.Params, modeUpdateMarker) && !bytes.Contains(m.Params, configUpdateMarker) {
		return
	}
	var p struct {
		SessionID string          `json:"sessionId"`
		Update    json.RawMessage `json:"update"`
	}
	if json.Unmarshal(m.Params, &p) == nil {
		s.learn(p.SessionID, p.Update)
	}
}

// allowEdit answers the agent's session/request_permission m itself, and
// reports whether it did: when the agent's profile has edits follow the
// mode, the call is of a writing file tool, the session's mode accepts
// edits, and the request offers an allow_once option.
func (p *proxy) allowEdit(m wire.Message) bool {
	if !p.steer.editsFollowMode() {
		return false
	}
	var params struct {
		SessionID string                     `json:"sessionId"`
		ToolCall  map[string]json.RawMessage `json:"toolCall"`
		Options   []struct {
			OptionID string `json:"optionId"`
			Kind     string `json:"kind"`
		} `json:"options"`
	}
	if json.Unmarshal(m.Params, &params) != nil || params.ToolCall == nil {
		return false
	}
	mode := p.modes.get(params.SessionID)
	if !contains(acceptsEdits, mode) {
		return false
	}
	tool, _ := p.follow.identify(params.ToolCall, "")
	if !contains(writingTools, tool) {
		return false
	}
	for _, o := range params.Options {
		if o.Kind != "allow_once" {
			continue
		}
		line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID,
			"result": map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": o.OptionID}}})
		if err != nil {
			return false
		}
		p.log.Debug("allowing an edit without asking, as the session's mode accepts edits",
			"session", params.SessionID, "mode", mode, "tool", tool)
		p.agent.send(line)
		return true
	}
	return false
}
