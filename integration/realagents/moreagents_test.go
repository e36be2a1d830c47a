//go:build linux

package realagents

import (
	"os"
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

// moreAgents are agents that mcp-acpfs proxy has no profile for yet: it
// treats them as unknown agents. TestModelView runs them; TestRealAgents,
// whose checks are those of the profiles, does not.
var moreAgents = []agent{
	{
		name: "opencode",
		api:  modelserver.OpenAIChat,
		command: func(t *testing.T, nm, modelURL, home string) ([]string, []string) {
			// A model that takes images, or opencode gives it none.
			writeFile(t, filepath.Join(mkdir(t, home, ".config", "opencode"), "opencode.json"), `{
  "model": "mock/mock-model",
  "small_model": "mock/mock-model",
  "autoupdate": false,
  "share": "disabled",
  "provider": {"mock": {
    "npm": "@ai-sdk/openai-compatible",
    "name": "Mock",
    "options": {"baseURL": "`+modelURL+`/v1", "apiKey": "dummy"},
    "models": {"mock-model": {"name": "Mock", "tool_call": true, "attachment": true,
      "modalities": {"input": ["text", "image"], "output": ["text"]},
      "limit": {"context": 200000, "output": 8192}}}
  }}
}`)
			return []string{filepath.Join(nm, opencodeRel), "acp"}, []string{
				"OPENCODE_DISABLE_MODELS_FETCH=1",
				"OPENCODE_DISABLE_AUTOUPDATE=1",
				"OPENCODE_DISABLE_LSP_DOWNLOAD=1",
				"OPENCODE_DISABLE_SHARE=1",
				"OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
			}
		},
		tool: func(name string) string { return "acpfs_" + name },
	},
	{
		name: "copilot",
		api:  modelserver.OpenAIChat,
		command: func(t *testing.T, nm, modelURL, home string) ([]string, []string) {
			argv := []string{filepath.Join(nm, copilotRel), "--acp", "--no-auto-update", "--disable-client-telemetry"}
			if err := os.MkdirAll(sharedCache, 0o700); err != nil {
				t.Fatal(err)
			}
			return argv, []string{
				"COPILOT_HOME=" + mkdir(t, home, ".copilot"),
				"XDG_CACHE_HOME=" + sharedCache,
				"COPILOT_OFFLINE=true",
				"COPILOT_AUTO_UPDATE=false",
				"COPILOT_PROVIDER_BASE_URL=" + modelURL + "/v1",
				"COPILOT_PROVIDER_TYPE=openai",
				"COPILOT_PROVIDER_API_KEY=dummy",
				"COPILOT_PROVIDER_WIRE_API=completions",
				"COPILOT_MODEL=gpt-4.1",
			}
		},
		tool: func(name string) string { return "acpfs-" + name },
	},
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
