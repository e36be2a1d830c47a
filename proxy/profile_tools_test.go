package proxy

import (
	"slices"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
	"github.com/mcp-acpfs/mcp-acpfs/capabilities"
)

// Each known agent's sessions are offered the file tools it lacks once
// its profile applies; every other session is offered all of them.
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
