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
