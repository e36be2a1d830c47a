//go:build unix

package proxy_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
	"github.com/mcp-acpfs/mcp-acpfs/proxy"
)

// claudePermission is claude-agent-acp's session/request_permission for a
// call of the MCP tool named tool.
func claudePermission(tool string) map[string]any {
	return map[string]any{"sessionId": "sess-1",
		"options": []any{
			map[string]any{"kind": "allow_always", "name": "Always Allow", "optionId": "allow_always"},
			map[string]any{"kind": "allow_once", "name": "Allow", "optionId": "allow"},
			map[string]any{"kind": "reject_once", "name": "Reject", "optionId": "reject"},
		},
		"toolCall": map[string]any{"toolCallId": "toolu_" + tool, "rawInput": map[string]any{"path": "a.txt", "content": "x"},
			"title": tool, "kind": "other", "content": []any{}}}
}

// askOrAllowed has the agent ask for permission to call tool, and returns
// the option the agent got and whether the editor was asked (then it
// answers allow_always).
func askOrAllowed(ctx context.Context, t *testing.T, r *steerRig, tool string) (string, bool) {
	t.Helper()
	type answer struct {
		m   wire.Message
		err error
	}
	got := make(chan answer, 1)
	go func() {
		m, err := r.agent.call(ctx, "session/request_permission", claudePermission(tool))
		got <- answer{m, err}
	}()
	asked := false
	var a answer
	for done := false; !done; {
		select {
		case a = <-got:
			done = true
		case m := <-r.editor.requests:
			switch m.Method {
			case "fs/read_text_file": // for the diff of the call
				r.editor.reply(m.ID, map[string]any{"content": "old\n"})
			case "session/request_permission":
				asked = true
				r.editor.reply(m.ID, map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "allow_always"}})
			default:
				t.Fatalf("the editor got %s", m.Raw)
			}
		}
	}
	if a.err != nil {
		t.Fatal(a.err)
	}
	var res struct {
		Outcome struct {
			Outcome  string `json:"outcome"`
			OptionID string `json:"optionId"`
		} `json:"outcome"`
	}
	if err := json.Unmarshal(a.m.Result, &res); err != nil || res.Outcome.Outcome != "selected" {
		t.Fatalf("the agent got %s", a.m.Raw)
	}
	return res.Outcome.OptionID, asked
}

// The writing file tools follow claude's mode: its permission requests for
// them reach the editor in the default mode, and are answered with allow
// once by the proxy in acceptEdits, as the editor's session/set_mode and
// the agent's mode updates set it. The reading tools are allowed in the
// session request; other tools always ask.
func TestProxyEditsFollowClaudesMode(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), hangGuard)
	defer cancel()
	meta := map[string]any{"claudeCode": map[string]any{"options": map[string]any{"allowedTools": []any{"Bash(ls:*)"}}}}
	r := startSteerRig(t, proxy.ProxyOptions{}, nil, bothFS, claudeInfo, meta)
	var params struct {
		Meta struct {
			ClaudeCode struct {
				Options struct {
					AllowedTools []string `json:"allowedTools"`
				} `json:"options"`
			} `json:"claudeCode"`
		} `json:"_meta"`
	}
	json.Unmarshal(<-r.sessions, &params)
	if got, want := params.Meta.ClaudeCode.Options.AllowedTools, []string{"Bash(ls:*)", "mcp__acpfs__read_text_file", "mcp__acpfs__read_media_file"}; !slices.Equal(got, want) {
		t.Errorf("allowedTools %q, want %q", got, want)
	}

	check := func(step, tool string, wantAsked bool) {
		t.Helper()
		opt, asked := askOrAllowed(ctx, t, r, tool)
		if asked != wantAsked {
			t.Errorf("%s: %s: the editor asked: %v, want %v", step, tool, asked, wantAsked)
		}
		if want := map[bool]string{true: "allow_always", false: "allow"}[asked]; opt != want {
			t.Errorf("%s: %s: the agent got option %q, want %q", step, tool, opt, want)
		}
	}
	check("default mode", "mcp__acpfs__write_text_file", true)

	setMode := func(modeID string) {
		t.Helper()
		done := make(chan error, 1)
		go func() {
			m, err := r.editor.call(ctx, "session/set_mode", map[string]any{"sessionId": "sess-1", "modeId": modeID})
			if err == nil && m.Error != nil {
				err = &json.UnsupportedValueError{Str: string(m.Raw)}
			}
			done <- err
		}()
		m := r.agent.nextRequest(ctx)
		if m.Method != "session/set_mode" {
			t.Fatalf("the agent got %s", m.Raw)
		}
		r.agent.reply(m.ID, map[string]any{})
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	setMode("acceptEdits")
	for _, tool := range []string{"mcp__acpfs__write_text_file", "mcp__acpfs__edit_text_file", "mcp__acpfs__delete_file"} {
		check("acceptEdits", tool, false)
	}
	check("acceptEdits", "Bash", true)
	check("acceptEdits", "mcp__other__write_text_file", true)

	// The agent leaves the mode itself (its plan mode tools do).
	r.agent.send(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": "sess-1",
		"update": map[string]any{"sessionUpdate": "current_mode_update", "currentModeId": "plan"}}})
	r.editor.nextNote(ctx, "session/update")
	check("plan", "mcp__acpfs__edit_text_file", true)
	r.agent.send(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": "sess-1",
		"update": map[string]any{"sessionUpdate": "config_option_update", "configOptions": []any{
			map[string]any{"id": "mode", "category": "mode", "type": "select", "currentValue": "bypassPermissions"}}}}})
	r.editor.nextNote(ctx, "session/update")
	check("bypassPermissions", "mcp__acpfs__edit_text_file", false)
	setMode("default")
	check("default again", "mcp__acpfs__write_text_file", true)
}

// With --agent-tools keep, the proxy answers no permission request.
func TestProxyKeepAsksForEdits(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), hangGuard)
	defer cancel()
	r := startSteerRig(t, proxy.ProxyOptions{AgentTools: proxy.AgentToolsKeep}, nil, bothFS, claudeInfo, nil)
	<-r.sessions
	r.agent.send(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": "sess-1",
		"update": map[string]any{"sessionUpdate": "current_mode_update", "currentModeId": "acceptEdits"}}})
	r.editor.nextNote(ctx, "session/update")
	if _, asked := askOrAllowed(ctx, t, r, "mcp__acpfs__write_text_file"); !asked {
		t.Error("the proxy answered a permission request in keep mode")
	}
}
