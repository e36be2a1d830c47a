package proxy

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// opencodeConfigEnv is the variable whose JSON opencode merges over its
// configuration files.
const opencodeConfigEnv = "OPENCODE_CONFIG_CONTENT"

// lookupEnv returns the value of key in env, a list of key=value; the last
// one wins, as for exec.Cmd.
func lookupEnv(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

// withOpencodeTools returns the JSON of opencode's configuration content
// config (empty: none) with tools turned off in its tools object. A tool
// that config already names keeps the user's setting.
func withOpencodeTools(config string, tools []string) (string, error) {
	top := map[string]json.RawMessage{}
	if strings.TrimSpace(config) != "" {
		if err := json.Unmarshal([]byte(config), &top); err != nil || top == nil {
			return "", fmt.Errorf("%s is not a JSON object the proxy can add to: %v", opencodeConfigEnv, err)
		}
	}
	set := map[string]json.RawMessage{}
	if raw, ok := top["tools"]; ok {
		if err := json.Unmarshal(raw, &set); err != nil || set == nil {
			return "", fmt.Errorf("%s sets tools to %s, not an object", opencodeConfigEnv, raw)
		}
	}
	for _, t := range tools {
		if _, ok := set[t]; !ok {
			set[t] = json.RawMessage("false")
		}
	}
	var err error
	if top["tools"], err = json.Marshal(set); err != nil {
		return "", err
	}
	out, err := json.Marshal(top)
	return string(out), err
}

// Copilot CLI's flags that the profile sets.
const (
	copilotExcluded     = "--excluded-tools"
	copilotInstructions = "--allow-all-mcp-server-instructions"
)

// withCopilotFlags returns argv with tools added to Copilot CLI's
// --excluded-tools (the values of every one already there, =-joined or
// the words that follow it, become one flag with tools after them) and
// --allow-all-mcp-server-instructions, without which the model sees no
// MCP server's instructions.
func withCopilotFlags(argv []string, tools []string) []string {
	out := []string{}
	var excluded []string
	instructions := false
	add := func(list string) {
		for _, t := range strings.Split(list, ",") {
			if t = strings.TrimSpace(t); t != "" && !contains(excluded, t) {
				excluded = append(excluded, t)
			}
		}
	}
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		switch {
		case i == 0:
		case a == "--":
			out = append(out, argv[i:]...)
			i = len(argv)
			continue
		case a == copilotExcluded:
			for i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-") {
				i++
				add(argv[i])
			}
			continue
		case strings.HasPrefix(a, copilotExcluded+"="):
			add(strings.TrimPrefix(a, copilotExcluded+"="))
			continue
		case a == copilotInstructions:
			instructions = true
		}
		out = append(out, a)
	}
	for _, t := range tools {
		add(t)
	}
	// The flags go before a "--", where the loop put the rest.
	tail := []string{}
	if at := indexOf(out, "--"); at > 0 {
		out, tail = out[:at:at], out[at:]
	}
	if len(excluded) > 0 {
		out = append(out, copilotExcluded+"="+strings.Join(excluded, ","))
	}
	if !instructions {
		out = append(out, copilotInstructions)
	}
	return append(out, tail...)
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// Qwen Code's flag and variables that the profile sets.
const (
	qwenAppendPrompt   = "--append-system-prompt"
	qwenDefaultsEnv    = "QWEN_CODE_SYSTEM_DEFAULTS_PATH"
	qwenSettingsEnv    = "QWEN_CODE_SYSTEM_SETTINGS_PATH"
	qwenMCPBlockingEnv = "QWEN_CODE_LEGACY_MCP_BLOCKING"
	qwenNoRelaunchEnv  = "QWEN_CODE_NO_RELAUNCH"
)

// launchQwen applies the profile of Qwen Code: the instruction appended
// to its system prompt (--append-system-prompt, merged with one argv
// has); its system defaults, the settings layer below the user's and the
// workspace's, copied with tools.toolSearch.enabled false, so that the
// MCP tools are in the model's tools rather than behind tool_search
// unless the user's own settings say otherwise; its MCP discovery
// finished before session/new answers, so that the first prompt has the
// file tools; and no relaunch of itself, so that the proxy's child is the
// agent. A variable env sets already is left as it is.
func (s *steer) launchQwen(p *profile, cov coverage, argv, env []string) ([]string, []string, func()) {
	none := func() {}
	out, err := withAppendedFlag(argv, qwenAppendPrompt, p.instruction(s.server, cov))
	if err != nil {
		s.log.Warn("not adding the instruction to the agent's", "agent", p.name, "error", err)
		out = argv
	} else {
		s.mu.Lock()
		s.launched = true
		s.mu.Unlock()
	}
	var add []string
	for _, kv := range [][2]string{{qwenMCPBlockingEnv, "1"}, {qwenNoRelaunchEnv, "true"}} {
		if lookupEnv(env, kv[0]) == "" {
			add = append(add, kv[0]+"="+kv[1])
		}
	}
	cleanup := none
	defaults, err := qwenDefaults(qwenDefaultsPath(env))
	if err == nil {
		var dir *launchDir
		if dir, err = newLaunchDir(); err == nil {
			path := filepath.Join(dir.path, "system-defaults.json")
			if err = os.WriteFile(path, defaults, 0o600); err != nil {
				dir.remove()
			} else {
				add = append(add, qwenDefaultsEnv+"="+path)
				cleanup = dir.remove
			}
		}
	}
	if err != nil {
		s.log.Warn("the agent's MCP tools stay behind its tool_search", "agent", p.name, "error", err)
	}
	s.log.Info("steering the agent's model to the file tools", "agent", p.name,
		"changed", []string{qwenAppendPrompt, qwenDefaultsEnv}, "settings", lookupEnv(add, qwenDefaultsEnv))
	return out, add, cleanup
}

// qwenDefaultsPath returns the system defaults file that Qwen Code reads
// in the environment env.
func qwenDefaultsPath(env []string) string {
	if p := lookupEnv(env, qwenDefaultsEnv); p != "" {
		return p
	}
	settings := lookupEnv(env, qwenSettingsEnv)
	if settings == "" {
		switch runtime.GOOS {
		case "darwin":
			settings = "/Library/Application Support/QwenCode/settings.json"
		case "windows":
			settings = `C:\ProgramData\qwen-code\settings.json`
		default:
			settings = "/etc/qwen-code/settings.json"
		}
	}
	return filepath.Join(filepath.Dir(settings), "system-defaults.json")
}

// qwenDefaults returns the system defaults file at path (absent: none)
// with tools.toolSearch.enabled false, unless it sets that already.
func qwenDefaults(path string) ([]byte, error) {
	top := map[string]any{}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		if err := json.Unmarshal(data, &top); err != nil || top == nil {
			return nil, fmt.Errorf("%s is not a JSON object the proxy can add to: %v", path, err)
		}
	}
	obj := func(m map[string]any, key string) (map[string]any, error) {
		v, ok := m[key]
		if !ok {
			n := map[string]any{}
			m[key] = n
			return n, nil
		}
		n, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s sets %s to a value that is not an object", path, key)
		}
		return n, nil
	}
	tools, err := obj(top, "tools")
	if err != nil {
		return nil, err
	}
	search, err := obj(tools, "toolSearch")
	if err != nil {
		return nil, err
	}
	if _, ok := search["enabled"]; !ok {
		search["enabled"] = false
	}
	return json.MarshalIndent(top, "", "  ")
}

// withAppendedFlag returns argv with text added to the value of flag:
// after the value of the last one there (flag VALUE or flag=VALUE), or in
// a new one at the end.
func withAppendedFlag(argv []string, flag, text string) ([]string, error) {
	if text == "" {
		return argv, nil
	}
	at, prefix := -1, ""
	for i := 1; i < len(argv); i++ {
		switch a := argv[i]; {
		case a == "--":
			i = len(argv)
		case a == flag:
			if i+1 >= len(argv) {
				return nil, fmt.Errorf("the command line ends with %s and no value", flag)
			}
			at, prefix = i+1, ""
			i++
		case strings.HasPrefix(a, flag+"="):
			at, prefix = i, flag+"="
		}
	}
	if at < 0 {
		return append(clip(argv), flag, text), nil
	}
	out := append([]string(nil), argv...)
	out[at] = prefix + joinText(strings.TrimPrefix(argv[at], prefix), text)
	return out, nil
}
