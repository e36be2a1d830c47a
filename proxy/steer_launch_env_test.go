package proxy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// opencode, Copilot CLI and Qwen Code are recognised by their command
// lines and by the agentInfo names they answer initialize with (opencode
// 1.18.33: "OpenCode", Copilot CLI 1.0.102: "Copilot", Qwen Code 0.24.4:
// "qwen-code").
func TestMoreAgentsRecognised(t *testing.T) {
	for _, tc := range []struct {
		argv      []string
		agentInfo string
		want      string
	}{
		{[]string{"opencode", "acp"}, "OpenCode", "opencode"},
		{[]string{"npx", "/x/node_modules/opencode-ai/bin/opencode", "acp"}, "OpenCode", "opencode"},
		{[]string{"/usr/lib/node_modules/@github/copilot/index.js", "--acp"}, "Copilot", "copilot"},
		{[]string{"copilot", "--acp"}, "Copilot", "copilot"},
		{[]string{"node", "/x/@qwen-code/qwen-code/cli.js", "--acp"}, "qwen-code", "qwen-code"},
		{[]string{"qwen", "--acp"}, "qwen-code", "qwen-code"},
	} {
		if p := profileByCommand(tc.argv); p == nil || p.name != tc.want {
			t.Errorf("command %q: profile %v, want %s", tc.argv, p, tc.want)
		}
		if p := profileByName(tc.agentInfo); p == nil || p.name != tc.want {
			t.Errorf("agentInfo %q: profile %v, want %s", tc.agentInfo, p, tc.want)
		}
	}
}

// opencode's tools go through OPENCODE_CONFIG_CONTENT, merged with the
// one the environment has; a tool the user set keeps the user's setting.
func TestOpencodeLaunch(t *testing.T) {
	argv := []string{"opencode", "acp"}
	s := testSteer(t, ProxyOptions{}, argv, true, true, "")
	if !s.waitsForEditor() {
		t.Error("opencode does not wait for the editor")
	}
	env := []string{"PATH=/bin", `OPENCODE_CONFIG_CONTENT={"model":"m","tools":{"write":true,"bash":false}}`}
	out, add, cleanup := s.launch(argv, env)
	defer cleanup()
	if !slices.Equal(out, argv) || len(add) != 1 {
		t.Fatalf("argv %q, env %q", out, add)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(strings.TrimPrefix(add[0], opencodeConfigEnv+"=")), &got); err != nil {
		t.Fatal(add[0], err)
	}
	want := map[string]any{"model": "m", "tools": map[string]any{"read": false, "edit": false, "write": true, "bash": false}}
	if b, w := jsonText(got), jsonText(want); b != w {
		t.Errorf("%s\nwant %s", b, w)
	}
	if _, err := withOpencodeTools(`["not an object"]`, []string{"read"}); err == nil || !strings.Contains(err.Error(), opencodeConfigEnv) {
		t.Errorf("a list: error %v, want one naming %s", err, opencodeConfigEnv)
	}
	// Reads only: edit and write go with read, which they depend on.
	s = testSteer(t, ProxyOptions{}, argv, true, false, "")
	_, add, _ = s.launch(argv, nil)
	if len(add) != 1 || !strings.Contains(add[0], `"edit":false`) {
		t.Errorf("reads only: %q", add)
	}
	// Keep mode and the disk route change nothing.
	s = testSteer(t, ProxyOptions{AgentTools: AgentToolsKeep}, argv, true, true, "")
	if out, add, _ := s.launch(argv, nil); !slices.Equal(out, argv) || add != nil {
		t.Errorf("keep: %q %q", out, add)
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Copilot's tools go through --excluded-tools, merged with the command
// line's, and it is told to show the servers' instructions.
func TestCopilotLaunch(t *testing.T) {
	for _, tc := range []struct{ argv, want []string }{
		{[]string{"copilot", "--acp"},
			[]string{"copilot", "--acp", "--excluded-tools=view,edit,create", "--allow-all-mcp-server-instructions"}},
		{[]string{"copilot", "--excluded-tools", "web_fetch", "shell", "--acp", "--allow-all-mcp-server-instructions"},
			[]string{"copilot", "--acp", "--allow-all-mcp-server-instructions", "--excluded-tools=web_fetch,shell,view,edit,create"}},
		{[]string{"copilot", "--excluded-tools=view,grep", "--acp"},
			[]string{"copilot", "--acp", "--excluded-tools=view,grep,edit,create", "--allow-all-mcp-server-instructions"}},
	} {
		s := testSteer(t, ProxyOptions{}, tc.argv, true, true, "")
		out, add, cleanup := s.launch(tc.argv, nil)
		cleanup()
		if !slices.Equal(out, tc.want) || add != nil {
			t.Errorf("%q:\n got %q %q\nwant %q", tc.argv, out, add, tc.want)
		}
	}
}

// Qwen Code gets the instruction appended to its system prompt, its MCP
// tools directly in the model's tools through a copy of its system
// defaults (the lowest settings layer, so the user's settings win), its
// discovery before the first prompt, and no relaunch.
func TestQwenLaunch(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	defaults := filepath.Join(dir, "defaults.json")
	if err := os.WriteFile(defaults, []byte(`{"ui":{"theme":"x"},"tools":{"core":["a"]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	argv := []string{"qwen", "--acp", "--append-system-prompt", "Be brief."}
	s := testSteer(t, ProxyOptions{}, argv, true, true, "")
	out, add, cleanup := s.launch(argv, []string{qwenDefaultsEnv + "=" + defaults, qwenNoRelaunchEnv + "=false"})
	if len(out) != 4 || !strings.HasPrefix(out[3], "Be brief.\n\nYour own tools") ||
		!strings.Contains(out[3], "mcp__acpfs__read_media_file") {
		t.Errorf("argv %q", out)
	}
	if lookupEnv(add, qwenMCPBlockingEnv) != "1" || lookupEnv(add, qwenNoRelaunchEnv) != "" {
		t.Errorf("env %q", add)
	}
	path := lookupEnv(add, qwenDefaultsEnv)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	json.Unmarshal(data, &got)
	want := `{"tools":{"core":["a"],"toolSearch":{"enabled":false}},"ui":{"theme":"x"}}`
	if jsonText(got) != want {
		t.Errorf("defaults %s\nwant %s", jsonText(got), want)
	}
	cleanup()
	if _, err := os.Stat(filepath.Dir(path)); err == nil {
		t.Error("cleanup left the defaults' directory")
	}
	if b, err := qwenDefaults(filepath.Join(dir, "absent.json")); err != nil || string(b) != "{\n  \"tools\": {\n    \"toolSearch\": {\n      \"enabled\": false\n    }\n  }\n}" {
		t.Errorf("no defaults: %s %v", b, err)
	}
	if _, err := withAppendedFlag([]string{"qwen", "--append-system-prompt"}, qwenAppendPrompt, "x"); err == nil {
		t.Error("a flag without its value: no error")
	}
}
