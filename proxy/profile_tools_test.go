package proxy

import (
	"slices"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
	"github.com/mcp-acpfs/mcp-acpfs/capabilities"
)

// Each known agent's sessions are offered the file tools it lacks once
// its profile applies; every other session is offered all of them. The
// reading ones among them go to claude's allowedTools.
func TestSteerTools(t *testing.T) {
	claude := []string{"read_text_file", "read_media_file", "write_text_file", "edit_text_file"}
	for _, tc := range []struct {
		name        string
		opts        ProxyOptions
		read, write bool
		init        string
		want        []string // nil: all
	}{
		{"claude", ProxyOptions{}, true, true, claudeInit, claude},
		{"claude, reads only", ProxyOptions{}, true, false, claudeInit, claude},
		{"claude, writes only", ProxyOptions{}, false, true, claudeInit, claude},
		{"gemini", ProxyOptions{}, true, true, geminiInit, []string{"read_text_file", "read_media_file"}},
		{"codex", ProxyOptions{}, true, true, codexInit, []string{"read_text_file", "write_text_file", "edit_text_file"}},
		{"an unknown agent", ProxyOptions{}, true, true, unknownInit, nil},
		{"an unknown agent with the standard systemPrompt", ProxyOptions{}, true, true, standardInit, nil},
		{"keep", ProxyOptions{AgentTools: AgentToolsKeep}, true, true, claudeInit, nil},
		{"an editor without fs", ProxyOptions{}, false, false, claudeInit, nil},
		{"disk route", ProxyOptions{Bridge: bridge.BridgeOptions{Policy: capabilities.PolicyDisk}}, true, true, claudeInit, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testSteer(t, tc.opts, nil, tc.read, tc.write, tc.init)
			if got := s.tools(); !slices.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
				t.Errorf("tools %q, want %q", got, tc.want)
			}
		})
	}
}

// claude's allowedTools get the reading tools its sessions are offered,
// after the editor's own; a list that is not one stays as it was.
func TestSteerAllowsReads(t *testing.T) {
	for _, tc := range []struct {
		name, meta string
		opts       ProxyOptions
		want       any
	}{
		{"no _meta", "", ProxyOptions{}, []any{"mcp__acpfs__read_text_file", "mcp__acpfs__read_media_file"}},
		{"the editor's list", `{"claudeCode":{"options":{"allowedTools":["Bash(ls:*)","mcp__acpfs__read_text_file"]}}}`, ProxyOptions{},
			[]any{"Bash(ls:*)", "mcp__acpfs__read_text_file", "mcp__acpfs__read_media_file"}},
		{"not a list", `{"claudeCode":{"options":{"allowedTools":"Bash"}}}`, ProxyOptions{}, "Bash"},
		{"another server name", "", ProxyOptions{Bridge: bridge.BridgeOptions{Name: "files"}},
			[]any{"mcp__files__read_text_file", "mcp__files__read_media_file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testSteer(t, tc.opts, nil, true, true, claudeInit)
			params := `{"sessionId":"s","cwd":"/w","mcpServers":[]`
			if tc.meta != "" {
				params += `,"_meta":` + tc.meta
			}
			out := s.session([]byte(`{"jsonrpc":"2.0","id":7,"method":"session/new","params":` + params + `}}`))
			got := at(sessionParams(t, out), "_meta", "claudeCode", "options", "allowedTools")
			if !slices.Equal(strsOr(got), strsOr(tc.want)) || fmtT(got) != fmtT(tc.want) {
				t.Errorf("allowedTools %#v, want %#v", got, tc.want)
			}
		})
	}
}

func strsOr(v any) []string {
	if l, ok := v.([]any); ok {
		return strs(l)
	}
	return nil
}

func fmtT(v any) string {
	if s, ok := v.(string); ok {
		return "string " + s
	}
	return "list"
}
