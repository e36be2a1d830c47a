package main

import (
	"io"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/proxy"
)

// TestAgentToolsFlag: --agent-tools is auto unless set to keep; anything
// else is a usage error that names the flag and the values it takes; -h
// lists the profiles.
func TestAgentToolsFlag(t *testing.T) {
	e := &env{stderr: io.Discard, getenv: func(string) string { return "" }}
	for _, tc := range []struct {
		args []string
		want proxy.AgentTools
	}{
		{nil, proxy.AgentToolsAuto},
		{[]string{"--agent-tools", "keep"}, proxy.AgentToolsKeep},
		{[]string{"--agent-tools=auto"}, proxy.AgentToolsAuto},
	} {
		var cfg proxyConfig
		if err := proxyFlags(&cfg, e).Parse(tc.args); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if cfg.agentTools != tc.want {
			t.Errorf("%v: %v, want %v", tc.args, cfg.agentTools, tc.want)
		}
	}
	r := runWith(t, nil, "proxy", "--agent-tools", "off", "--", "agent")
	if r.code != exitUsage || !strings.Contains(r.stderr, `flag -agent-tools: invalid agent tools mode "off": want auto or keep`) {
		t.Errorf("--agent-tools off: code %d, stderr %q", r.code, r.stderr)
	}
	r = runWith(t, nil, "proxy", "-h")
	for _, s := range []string{"--agent-tools auto|keep", "claude-agent-acp:", "gemini-cli:", "codex-acp:", "sessionCapabilities.systemPrompt"} {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("proxy -h does not say %q", s)
		}
	}
}
