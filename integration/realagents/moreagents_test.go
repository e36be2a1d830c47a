//go:build linux

package realagents

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/modelserver"
)

// Where the three agents that speak Chat Completions are, inside
// node_modules.
const (
	opencodeRel = "opencode-linux-x64/bin/opencode" // npm 11 does not run opencode-ai's postinstall
	copilotRel  = "@github/copilot-linux-x64/copilot"
	qwenRel     = "@qwen-code/qwen-code/cli.js"
)

// moreAgents are agents whose profile the real-agent checks do not cover
// yet. TestModelView runs them; TestRealAgents, whose checks are those of
// the profiles, does not. Qwen Code's profile keeps its own file tools,
// which go through the editor already, and offers only read_media_file:
// the steered scenario, which reads with read_text_file, does not fit it.
var moreAgents = []agent{
	{
		name: "qwen-code",
		api:  modelserver.OpenAIChat,
		command: func(t *testing.T, nm, modelURL, home string) ([]string, []string) {
			// Without tools.toolSearch.enabled false, the MCP tools are
			// deferred: not in the model's tools, but behind tool_search.
			writeFile(t, filepath.Join(mkdir(t, home, ".qwen"), "settings.json"), `{
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "security": {"auth": {"selectedType": "openai"}},
  "tools": {"toolSearch": {"enabled": false}}
}`)
			argv := []string{filepath.Join(nm, node22Rel), filepath.Join(nm, qwenRel), "--acp", "--auth-type", "openai"}
			return argv, []string{
				"OPENAI_API_KEY=dummy",
				"OPENAI_BASE_URL=" + modelURL + "/v1",
				// A model that Qwen Code takes images for (its
				// MODALITY_PATTERNS); qwen3-coder-* is text only, and an
				// image becomes "[image: image/png]".
				"OPENAI_MODEL=qwen3.6-plus",
				"QWEN_CODE_NO_RELAUNCH=true",
				// MCP discovery runs in the background otherwise: the
				// first prompt would find no acpfs tools.
				"QWEN_CODE_LEGACY_MCP_BLOCKING=1",
			}
		},
		tool: func(name string) string { return "mcp__acpfs__" + name },
	},
}

// TestQwenProfile runs Qwen Code steered with none of the run's own
// settings that the profile stands in for: no tools.toolSearch in its
// settings, and its MCP discovery left in the background. The first
// prompt's first request must offer the profile's acpfs tool directly
// (not behind tool_search), keep Qwen's own file tools, which go through
// the editor, and carry the instruction; the proxy logs no warning. The
// model then reads a PNG with read_media_file: the editor's reports of
// the call get kind read and the file's location, and nothing else of
// Qwen's reports changes (testdata/qwen-code.toolcalls.jsonl);
// the model's next request carries the image.
func TestQwenProfile(t *testing.T) {
	nodeModules(t)
	a := moreAgents[slices.IndexFunc(moreAgents, func(a agent) bool { return a.name == "qwen-code" })]
	command := a.command
	a.command = func(t *testing.T, nm, modelURL, home string) ([]string, []string) {
		argv, env := command(t, nm, modelURL, home)
		writeFile(t, filepath.Join(home, ".qwen", "settings.json"), `{
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "security": {"auth": {"selectedType": "openai"}}
}`)
		env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "QWEN_CODE_LEGACY_MCP_BLOCKING=") })
		return argv, env
	}
	a.quietLog = true
	media := a.tool("read_media_file")
	var png []byte
	var pngPath string
	r := runAgent(t, a, runOptions{
		trace: true,
		prepare: func(t *testing.T, r *run) {
			png, pngPath = pixelPNG(t), filepath.Join(r.ws, mediaName)
			if err := os.WriteFile(pngPath, png, 0o600); err != nil {
				t.Fatal(err)
			}
		},
		script: func(a agent, _ string) modelserver.Script {
			return func(q modelserver.Request) modelserver.Reply {
				if slices.Contains(q.Tools, media) && len(q.Results) == 0 {
					return modelserver.Reply{Call: &modelserver.Call{Name: media, Args: mustJSON(map[string]any{"path": pngPath})}}
				}
				return modelserver.Reply{Text: "done"}
			}
		},
	})
	checkStopped(t, r)
	q := firstTurn(t, r)
	if !slices.Contains(q.Tools, media) {
		t.Errorf("the first request offers no %s: %q", media, q.Tools)
	}
	for _, own := range []string{"read_file", "edit", "write_file"} {
		if !slices.Contains(q.Tools, own) {
			t.Errorf("the first request lacks Qwen's own %s, which goes through the editor: %q", own, q.Tools)
		}
	}
	if slices.Contains(q.Tools, a.tool("read_text_file")) {
		t.Errorf("the first request offers %s, which Qwen's read_file makes redundant", a.tool("read_text_file"))
	}
	for _, want := range []string{"go through the user's editor", media} {
		if !strings.Contains(q.System, want) {
			t.Errorf("the system prompt lacks %q:\n%s", want, tail(q.System, 3000))
		}
	}
	checkQuietLog(t, a, r)
	checkMediaRead(t, a, r, pngPath, png)
	checkOnlyKindAndLocations(t, r)
	checkRecordedShapes(t, a, r)
}

// checkMediaRead checks that the editor could follow the model's
// read_media_file call of path, whose bytes are png (a session/update of
// it has kind read and the file's location), and that the model's next
// request carries the image.
func checkMediaRead(t *testing.T, a agent, r *run, path string, png []byte) {
	t.Helper()
	byID := map[string][]map[string]any{}
	for _, u := range toolCallUpdates(r.ed) {
		id, _ := u["toolCallId"].(string)
		byID[id] = append(byID[id], u)
	}
	calls := 0
	for id, updates := range byID {
		if acpfsToolOf(id, updates) != "read_media_file" {
			continue
		}
		calls++
		if !slices.ContainsFunc(updates, func(u map[string]any) bool { return u["kind"] == "read" && hasLocation(u, path) }) {
			t.Errorf("no session/update of the read_media_file call %s has kind read and the location %s:\n%s",
				id, path, mustJSON(updates))
		}
	}
	if calls != 1 {
		t.Errorf("the editor got session/updates about %d read_media_file calls, want 1: %s", calls, mustJSON(byID))
	}
	found := false
	for _, q := range r.model.Turns() {
		if len(q.Results) == 0 {
			continue
		}
		res, ok := resultOf(t, a, q, "read_media_file", path)
		if !ok {
			return
		}
		for _, img := range append(res.Images, q.Images...) {
			found = found || bytes.Equal(img.Data, png)
		}
		break
	}
	if !found {
		t.Errorf("the model's request after the read_media_file call does not carry the image")
	}
}
