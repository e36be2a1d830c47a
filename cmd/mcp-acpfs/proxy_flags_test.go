package main

import (
	"io"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/capabilities"
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

// TestMCPTransportFlag: --mcp-transport is auto unless set to acp, http or
// stdio; anything else is a usage error that names the values; -h
// describes it.
func TestMCPTransportFlag(t *testing.T) {
	e := &env{stderr: io.Discard, getenv: func(string) string { return "" }}
	for _, tc := range []struct {
		args []string
		want capabilities.Transport
	}{
		{nil, capabilities.TransportAuto},
		{[]string{"--mcp-transport", "acp"}, capabilities.TransportACP},
		{[]string{"--mcp-transport=http"}, capabilities.TransportHTTP},
		{[]string{"--mcp-transport", "stdio"}, capabilities.TransportStdio},
		{[]string{"--mcp-transport", "auto"}, capabilities.TransportAuto},
	} {
		var cfg proxyConfig
		if err := proxyFlags(&cfg, e).Parse(tc.args); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if cfg.transport != tc.want {
			t.Errorf("%v: %v, want %v", tc.args, cfg.transport, tc.want)
		}
	}
	r := runWith(t, nil, "proxy", "--mcp-transport", "sse", "--", "agent")
	if r.code != exitUsage || !strings.Contains(r.stderr, `flag -mcp-transport: invalid MCP transport "sse": want auto, acp, http or stdio`) {
		t.Errorf("--mcp-transport sse: code %d, stderr %q", r.code, r.stderr)
	}
	r = runWith(t, nil, "proxy", "-h")
	for _, s := range []string{"--mcp-transport auto|acp|http|stdio", "mcpCapabilities.acp", "capabilities.session.mcp"} {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("proxy -h does not say %q", s)
		}
	}
}

// TestAgentProfileFlag: --agent-profile takes auto, none or a profile's
// name (for ProxyOptions.AgentProfile); anything else is a usage error naming them.
func TestAgentProfileFlag(t *testing.T) {
	e := &env{stderr: io.Discard, getenv: func(string) string { return "" }}
	for _, v := range []string{"auto", "none", "gemini-cli", "codex-acp", "claude-agent-acp"} {
		var cfg proxyConfig
		if err := proxyFlags(&cfg, e).Parse([]string{"--agent-profile", v, "--", "agent"}); err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		if cfg.profile != v {
			t.Errorf("--agent-profile %s: %q", v, cfg.profile)
		}
	}
	r := runWith(t, nil, "proxy", "--agent-profile", "gemini", "--", "agent")
	if r.code != exitUsage || !strings.Contains(r.stderr, `unknown agent profile "gemini": want auto, none or one of claude-agent-acp, gemini-cli, codex-acp`) {
		t.Errorf("--agent-profile gemini: code %d, stderr %q", r.code, r.stderr)
	}
}
