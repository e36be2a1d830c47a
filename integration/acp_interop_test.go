package integration

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
)

// acpClientChecks are the checks node/acp-client.mjs must report, all of
// them, in this order.
var acpClientChecks = []string{
	"initialize",
	"session/new",
	"session/prompt",
	"mcp server entry",
	"tools/list",
	"read sees the unsaved buffer",
	"read range (line 2, limit 2)",
	"read relative (line 4)",
	"write lands in the editor",
	"read back the written buffer",
	"outside the roots is refused",
	"fs requests",
	"exits with status 0 on stdin EOF",
	"trace: schema-valid, ids consistent, forwarding faithful",
}

// acpWritten are the messages the proxy must have written in one run of
// acp-client.mjs, by trace direction and kind and method: what it
// forwarded, and on the editor's hop its own fs requests.
var acpWritten = map[string]map[string]int{
	"to-agent": {
		"request initialize":     1,
		"request session/new":    1,
		"request session/prompt": 1,
	},
	"to-editor": {
		"response initialize":         1,
		"response session/new":        1,
		"request fs/read_text_file":   4,
		"request fs/write_text_file":  1,
		"notification session/update": 1,
		"response session/prompt":     1,
	},
}

// TestAcpSDKInterop runs `mcp-acpfs proxy` between an ACP client and agent
// on the official TypeScript SDK (node/acp-client.mjs, acp-agent.mjs), the
// agent advertising mcpCapabilities.http (it gets an http entry) or nothing
// (a stdio entry running `mcp-acpfs relay`). It calls the tools with the
// MCP SDK's client: reads must see the client's unsaved buffers, writes
// land in them, the proxy exit 0 when its stdin ends, and every message on
// either hop be valid under the ACP v1 JSON schema, with consistent ids
// and faithful forwarding.
func TestAcpSDKInterop(t *testing.T) {
	node := node22(t)
	t.Parallel()
	for _, mode := range []string{"http", "stdio"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			stdout, stderr := runNode(t, node, "acp-client.mjs", "--bin", binPath, "--mode", mode)
			var summary struct {
				OK     bool     `json:"ok"`
				Mode   string   `json:"mode"`
				Checks []string `json:"checks"`
				Entry  struct {
					Type    string   `json:"type"`
					Name    string   `json:"name"`
					Command string   `json:"command"`
					Args    []string `json:"args"`
				} `json:"entry"`
				ProxyExit struct {
					Code   *int    `json:"code"`
					Signal *string `json:"signal"`
				} `json:"proxyExit"`
				Validated     int                       `json:"validated"`
				Counts        map[string]map[string]int `json:"counts"`
				Failures      []json.RawMessage         `json:"failures"`
				TraceFailures []json.RawMessage         `json:"traceFailures"`
			}
			if err := json.Unmarshal([]byte(strings.TrimSpace(stdout)), &summary); err != nil {
				t.Fatalf("acp-client.mjs printed no JSON summary (%v):\n%s\nstderr:\n%s", err, stdout, stderr)
			}
			if !summary.OK || len(summary.Failures) > 0 || len(summary.TraceFailures) > 0 {
				t.Errorf("acp-client.mjs --mode %s failed:\n%s\nstderr:\n%s", mode, stdout, stderr)
			}
			if summary.Mode != mode {
				t.Errorf("mode %q, want %q", summary.Mode, mode)
			}
			if !slices.Equal(summary.Checks, acpClientChecks) {
				t.Errorf("acp-client.mjs passed checks %q, want %q", summary.Checks, acpClientChecks)
			}
			wantType := mode
			if mode == "stdio" {
				wantType = "" // the stdio variant has no type
			}
			if summary.Entry.Name != "acpfs" || summary.Entry.Type != wantType {
				t.Errorf("the agent got the entry %+v, want name acpfs and type %q", summary.Entry, wantType)
			}
			if mode == "stdio" && !slices.Equal(summary.Entry.Args, []string{"relay"}) {
				t.Errorf("stdio entry args %q, want [relay]", summary.Entry.Args)
			}
			if c := summary.ProxyExit.Code; c == nil || *c != 0 || summary.ProxyExit.Signal != nil {
				t.Errorf("the proxy's exit after stdin EOF: %s", acpJSON(summary.ProxyExit))
			}
			written := 0
			for dir, want := range acpWritten {
				if got := summary.Counts[dir]; !maps.Equal(got, want) {
					t.Errorf("%s messages %v, want %v", dir, got, want)
				}
				for _, n := range want {
					written += n
				}
			}
			if summary.Validated != written {
				t.Errorf("%d messages validated against the ACP schema, want all %d the proxy wrote", summary.Validated, written)
			}
			t.Logf("mode %s: %d checks passed; %d messages the proxy wrote are schema-valid: to-agent %v, to-editor %v",
				mode, len(summary.Checks), summary.Validated, summary.Counts["to-agent"], summary.Counts["to-editor"])
		})
	}
}

func acpJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}
