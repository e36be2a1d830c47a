package integration

import (
	"encoding/json"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// acpNextWire are the checks that node/acp-next-editor.mjs reports after a
// run's own: the proxy exited with status 0; every message the editor and
// the agent read or wrote is valid under the SDK's schema file of version;
// all that is not the proxy's own business passed through JSON-equal and in
// order; and, where order is set, every mcp/message notification reached
// the agent before the answer to its request.
func acpNextWire(run, version, file string, order bool) []string {
	c := acpNextValid(run, version, file)
	c = append(c, run+": wire: all else passes through JSON-equal and in order")
	if order {
		c = append(c, run+": wire: mcp/message notifications come before their answer")
	}
	return c
}

// acpNextValid are the checks of a run whose wires are validated but not
// compared: the proxy's exit, and every message schema-valid.
func acpNextValid(run, version, file string) []string {
	return []string{
		run + ": exits with status 0 on stdin EOF",
		run + ": wire: the editor's messages are valid under " + version + "/" + file,
		run + ": wire: the agent's messages are valid under " + version + "/" + file,
	}
}

// acpNextSummary is what node/acp-next-editor.mjs prints.
type acpNextSummary struct {
	OK       bool              `json:"ok"`
	Scenario string            `json:"scenario"`
	MCP      string            `json:"mcp"`
	Checks   []string          `json:"checks"`
	Failures []json.RawMessage `json:"failures"`
	Figures  map[string]any    `json:"figures"`
	Wires    map[string]struct {
		Editor, Agent struct {
			Records   int                       `json:"records"`
			Validated int                       `json:"validated"`
			Counts    map[string]map[string]int `json:"counts"`
		}
		Order *struct {
			Requests      int `json:"requests"`
			Notifications int `json:"notifications"`
			SameRead      int `json:"sameRead"`
		} `json:"order"`
	} `json:"wires"`
}

// runAcpNext runs node/acp-next-editor.mjs with args and checks that it
// passed exactly the checks want, and that both wires of every run were
// validated in full.
func runAcpNext(t *testing.T, node string, want []string, args ...string) acpNextSummary {
	t.Helper()
	args = append([]string{"acp-next-editor.mjs", "--bin", binPath}, args...)
	stdout, stderr, err := tryNode(t, node, args...)
	var s acpNextSummary
	if jerr := json.Unmarshal([]byte(strings.TrimSpace(stdout)), &s); jerr != nil {
		t.Fatalf("acp-next-editor.mjs printed no JSON summary (%v, exit %v):\n%s\nstderr:\n%s", jerr, err, stdout, stderr)
	}
	if !s.OK || err != nil || len(s.Failures) > 0 {
		t.Errorf("node %s failed (exit %v):\n%s\nstderr:\n%s", strings.Join(args[3:], " "), err, stdout, stderr)
	}
	if !slices.Equal(s.Checks, want) {
		t.Errorf("acp-next-editor.mjs passed checks %q, want %q", s.Checks, want)
	}
	for name, w := range s.Wires {
		if w.Editor.Validated != w.Editor.Records || w.Agent.Validated != w.Agent.Records {
			t.Errorf("%s: validated %d of the editor's %d messages and %d of the agent's %d", name,
				w.Editor.Validated, w.Editor.Records, w.Agent.Validated, w.Agent.Records)
		}
		t.Logf("%s: %d editor and %d agent messages schema-valid; the editor read %v", name,
			w.Editor.Validated, w.Agent.Validated, w.Editor.Counts["in"])
		if w.Order != nil {
			t.Logf("%s: %d mcp/message requests, %d notifications before their answers (%d in the answer's read)",
				name, w.Order.Requests, w.Order.Notifications, w.Order.SameRead)
		}
	}
	return s
}

// TestMCPOverACPEditorBuffers runs `mcp-acpfs proxy` between an editor and
// an agent on the TypeScript SDK's unstable v1 classes (node/acp-next-*.mjs)
// that advertises only mcpCapabilities.acp. It must get {type: "acp", name:
// "acpfs", serverId} and reach the tools over mcp/message (MCP 2026-07-28):
// reads see unsaved buffers, writes land in the editor and not on disk; its
// mcp/message to the editor's own acp server, and all that comes back, pass
// unchanged, nothing of the proxy's server reaching the editor; and its
// subscriptions/listen notifications precede its $/cancel_request's answer.
func TestMCPOverACPEditorBuffers(t *testing.T) {
	node := node22(t)
	t.Parallel()
	runAcpNext(t, node, append([]string{
		"initialize passes through",
		"session/new gets an acp entry after the editor's own",
		"server/discover first, MCP 2026-07-28",
		"tools/list",
		"read sees the unsaved buffer",
		"write lands in the editor",
		"read back the written buffer",
		"subscriptions/listen: notifications first, $/cancel_request ends it",
		"fs requests carry the session",
		"the editor's own acp server is forwarded unchanged",
		"the editor's own server: progress first, $/cancel_request forwarded, -32800 back",
		"nothing of ours reaches the editor",
	}, acpNextWire("buffers", "v1", "schema.unstable.json", true)...), "--scenario", "buffers")
}

// TestMCPOverACPUnknownServer checks that an mcp/message for a serverId
// that nobody declared gets an error, not a hang: the proxy forwards it to
// the editor, whose answer comes back unchanged: -33001 (serverUnavailable)
// from the SDK's McpOverAcpProvider, -32601 from an editor that serves no
// mcp/message. The agent's next call still works.
func TestMCPOverACPUnknownServer(t *testing.T) {
	node := node22(t)
	t.Parallel()
	var want []string
	for _, c := range []struct{ name, code string }{{"provider", "-33001"}, {"no-handler", "-32601"}} {
		want = append(want,
			c.name+": an unknown serverId gets "+c.code,
			c.name+": the editor answered it, unchanged on the way back",
			c.name+": the connection keeps working",
		)
		want = append(want, acpNextWire("unknown-"+c.name, "v1", "schema.unstable.json", true)...)
	}
	s := runAcpNext(t, node, want, "--scenario", "unknown")
	t.Logf("errors: %s", acpJSON(s.Figures))
}

// TestMCPOverACPSessionsApart runs two sessions on one connection: each
// gets its own serverId, which reaches its own session's buffers and files
// (fs requests under its session id) and neither read, list nor write of
// the other session's.
func TestMCPOverACPSessionsApart(t *testing.T) {
	node := node22(t)
	t.Parallel()
	s := runAcpNext(t, node, append([]string{
		"two sessions get distinct serverIds",
		"each serverId reaches its own session's buffers",
		"neither serverId reaches the other session's files",
		"the editor is asked for each session's own paths, under its id",
	}, acpNextWire("sessions", "v1", "schema.unstable.json", true)...), "--scenario", "sessions")
	t.Logf("serverIds: %s", acpJSON(s.Figures["serverIds"]))
}

// TestMCPOverACPNoListeningSocket checks, through /proc, that the proxy
// holds no listening TCP or unix socket and starts no relay for a session
// whose agent advertised only acp, both after session/new and after tool
// calls; and, as controls, that the same inspection finds the TCP listener
// of an agent with mcpCapabilities.http and the unix one of an agent with
// none.
func TestMCPOverACPNoListeningSocket(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skipf("the inspection reads /proc/PID/fd and /proc/PID/net, which %s does not have", runtime.GOOS)
	}
	node := node22(t)
	t.Parallel()
	want := []string{"acp: no listening socket", "acp: the proxy's only descendant is the agent"}
	want = append(want, acpNextWire("sockets", "v1", "schema.unstable.json", true)...)
	want = append(want,
		"control http: the inspection sees a tcp listener", "control-http: exits with status 0 on stdin EOF",
		"control stdio: the inspection sees a unix listener", "control-stdio: exits with status 0 on stdin EOF",
	)
	s := runAcpNext(t, node, want, "--scenario", "sockets")
	t.Logf("acp: %s", acpJSON(s.Figures["acp"]))
	t.Logf("controls: http %s, stdio %s", acpJSON(s.Figures["control-http"]), acpJSON(s.Figures["control-stdio"]))
}

// TestACPv2Sessions runs a v2 editor and a v2 agent (the SDK's
// experimental/v2 classes) through the proxy, the agent advertising one
// MCP transport in capabilities.session.mcp and refusing entries of any
// other: initialize passes through, two sessions and a session/resume each
// get an entry of v2's shape, the tools work on the disk (a v2 editor has
// no fs), each turn ends idle, and the editor gets no fs/* nor a request of
// the proxy's own. Over acp, a subscriptions/listen stream's notifications
// reach the agent before the answer its $/cancel_request brings.
func TestACPv2Sessions(t *testing.T) {
	node := node22(t)
	t.Parallel()
	for _, mcp := range []string{"http", "stdio", "acp"} {
		t.Run(mcp, func(t *testing.T) {
			t.Parallel()
			want := []string{"initialize passes through (protocol 2)"}
			for _, tag := range []string{"a", "b"} {
				want = append(want,
					"session "+tag+": a v2 "+mcp+" entry after the editor's own",
					"session "+tag+": the prompt answers a messageId and the turn ends idle",
					"session "+tag+": the tools work on the disk",
				)
				if mcp == "acp" {
					want = append(want, "session "+tag+": subscriptions/listen: notifications first, $/cancel_request ends it")
				}
				if tag == "a" {
					want = append(want, "session a: session/resume gets a v2 "+mcp+" entry, which works")
				}
			}
			want = append(want, "each session has its own entry", "no fs/* and no request of the proxy's own reach the editor")
			file := "schema.json"
			if mcp == "acp" {
				file = "schema.unstable.json"
			}
			want = append(want, acpNextWire("v2-"+mcp, "v2", file, mcp == "acp")...)
			s := runAcpNext(t, node, want, "--scenario", "v2", "--mcp", mcp)
			t.Logf("entries: %s", acpJSON(s.Figures["entries"]))
		})
	}
}

// TestMCPTransportChoice checks which MCP server entry the proxy gives by
// what the agent advertised and by --mcp-transport: auto prefers acp, then
// http, then stdio, on v1 and v2; a forced transport wins; and one the agent
// did not advertise fails initialize with an error naming the flag.
func TestMCPTransportChoice(t *testing.T) {
	node := node22(t)
	t.Parallel()
	var want []string
	for _, c := range []struct{ name, protocol, forced, entry string }{
		{"auto-v1", "v1", "", "acp"},
		{"auto-v1-http", "v1", "", "http"},
		{"auto-v2", "v2", "", "http"},
		{"auto-v2-acp", "v2", "", "acp"},
		{"forced-http", "v1", "http", "http"},
		{"forced-stdio-v1", "v1", "stdio", "stdio"},
		{"forced-acp-v2", "v2", "acp", "acp"},
		{"forced-acp-refused", "v1", "acp", ""},
		{"forced-http-refused-v2", "v2", "http", ""},
	} {
		if c.entry != "" {
			want = append(want, c.name+": the agent gets the "+c.entry+" entry")
			want = append(want, acpNextWire(c.name, c.protocol, "schema.unstable.json", false)...)
		} else {
			// The refusal replaces the agent's answer: no comparison.
			want = append(want, c.name+": initialize fails naming --mcp-transport "+c.forced)
			want = append(want, acpNextValid(c.name, c.protocol, "schema.unstable.json")...)
		}
	}
	s := runAcpNext(t, node, want, "--scenario", "transport")
	t.Logf("refusals: %s; %s", acpJSON(s.Figures["forced-acp-refused"]), acpJSON(s.Figures["forced-http-refused-v2"]))
}
