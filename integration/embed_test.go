package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/gobuild"
)

// embedEditorChecks are the checks node/embed-editor.mjs must report, all
// of them, in this order.
var embedEditorChecks = []string{
	"initialize",
	"two sessions",
	"reads see the unsaved buffer, writes land in the editor",
	"roots",
	"the second session sees its own files",
	"a timeout sends $/cancel_request",
	"session/cancel sends $/cancel_request",
	"session/close",
	"an editor without fs gets the disk",
	"the agents exit with status 0 on stdin EOF",
}

// TestEmbeddedAgent builds examples/agent, the Go agent that
// docs/embedding.md shows (it embeds package bridge), and drives it with
// node/embed-editor.mjs, an editor on the official ACP SDK, with the
// model's MCP client in process, over http and over the stdio relay:
// unsaved-buffer reads, editor writes, roots, two sessions, a timeout and
// a session/cancel that each reach the editor as $/cancel_request,
// session/close, the disk for an editor without fs, and a clean exit on
// stdin EOF. Afterwards no process of the agent's binary (the agents and
// their relays) is left.
func TestEmbeddedAgent(t *testing.T) {
	node := node22(t)
	dir := t.TempDir()
	if err := gobuild.Build(dir, raceEnabled, "github.com/mcp-acpfs/mcp-acpfs/examples/agent"); err != nil {
		t.Fatal(err)
	}
	agent := filepath.Join(dir, "agent"+exeSuffix)
	for _, mode := range []string{"in-process", "http", "stdio"} {
		t.Run(mode, func(t *testing.T) {
			stdout, stderr, _ := tryNode(t, node, "embed-editor.mjs", "--agent", agent, "--mode", mode)
			var summary struct {
				OK       bool              `json:"ok"`
				Checks   []string          `json:"checks"`
				Failures []json.RawMessage `json:"failures"`
				PIDs     []int             `json:"pids"`
			}
			if err := json.Unmarshal([]byte(strings.TrimSpace(stdout)), &summary); err != nil {
				t.Fatalf("embed-editor.mjs printed no JSON summary (%v):\n%s\nstderr:\n%s", err, stdout, stderr)
			}
			if !summary.OK || len(summary.Failures) > 0 {
				t.Errorf("embed-editor.mjs --mode %s failed:\n%s\nstderr:\n%s", mode, stdout, stderr)
			}
			if !slices.Equal(summary.Checks, embedEditorChecks) {
				t.Errorf("embed-editor.mjs passed checks %q, want %q", summary.Checks, embedEditorChecks)
			}
			if left := processesOf(t, agent); len(left) > 0 {
				t.Errorf("processes of the agent's binary left running: %v (the agents were %v)", left, summary.PIDs)
			}
		})
	}
}

// processesOf returns the ids of the running processes whose executable
// is bin. It looks only where /proc says (Linux); elsewhere it finds none.
func processesOf(t *testing.T, bin string) []int {
	if runtime.GOOS != "linux" {
		return nil
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err == nil && exe == bin {
			pids = append(pids, pid)
		}
	}
	return pids
}
