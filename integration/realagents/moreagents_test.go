//go:build linux

package realagents

import (
	"path/filepath"
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
