package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcp-acpfs/mcp-acpfs/capabilities"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

// waitsForEditor reports whether the agent takes part of its profile on
// its command line (see launchKind). The proxy then starts it once the
// editor's initialize has told what the editor serves, so that the
// command line matches the routes; an agent that needs nothing there
// starts at once.
func (s *steer) waitsForEditor() bool {
	return s.mode == AgentToolsAuto && s.policy != capabilities.PolicyDisk &&
		s.byCommand != nil && s.byCommand.launch != launchNone
}

// launchArgs returns argv with the settings the agent takes on its command
// line, and a function that removes what was written for them (call it
// once the agent is gone). Without any, argv comes back as it was. It
// drops the environment that launch adds.
func (s *steer) launchArgs(argv []string) ([]string, func()) {
	argv, _, cleanup := s.launch(argv, os.Environ())
	return argv, cleanup
}

// launch returns argv with the settings the agent takes on its command
// line, the variables to add to its environment env (merged with what env
// sets), and a function that removes what was written for them (call it
// once the agent is gone).
func (s *steer) launch(argv, env []string) ([]string, []string, func()) {
	none := func() {}
	cov := s.coverage()
	p := s.byCommand
	if p == nil || cov&(coverReads|coverWrites) == 0 {
		return argv, nil, none
	}
	switch p.launch {
	case launchOpencodeConfig:
		out, err := withOpencodeTools(lookupEnv(env, opencodeConfigEnv), p.removed(cov))
		if err != nil {
			s.log.Warn("not turning off the agent's own file tools", "agent", p.name, "error", err)
			return argv, nil, none
		}
		s.log.Info("steering the agent's model to the file tools", "agent", p.name, "denied", p.removed(cov), "changed", opencodeConfigEnv)
		return argv, []string{opencodeConfigEnv + "=" + out}, none
	case launchCopilotFlags:
		out := withCopilotFlags(argv, p.removed(cov))
		s.log.Info("steering the agent's model to the file tools", "agent", p.name, "denied", p.removed(cov))
		return out, nil, none
	case launchQwenFlags:
		return s.launchQwen(p, cov, argv, env)
	}
	argv, cleanup := s.launchCommandLine(p, cov, argv)
	return argv, nil, cleanup
}

// launchCommandLine applies the profiles that go on the command line only.
func (s *steer) launchCommandLine(p *profile, cov coverage, argv []string) ([]string, func()) {
	none := func() {}
	switch p.launch {
	case launchGeminiPolicy:
		tools := p.removed(cov)
		var reads []string // the file tools that only read: asked for nothing, as gemini's own read_file
		for _, t := range readingTools {
			if offers(p.offered(cov), t) {
				reads = append(reads, t)
			}
		}
		if len(tools) == 0 && len(reads) == 0 {
			return argv, none
		}
		// gemini reads the policy again at every session/new: the
		// directory lives as long as the agent.
		dir, err := newLaunchDir()
		if err != nil {
			s.log.Warn("not turning off the agent's own file tools", "agent", p.name, "error", err)
			return argv, none
		}
		path := filepath.Join(dir.path, "acpfs.toml")
		msg := fmt.Sprintf("Use %s instead: it reads the text open in the user's editor, unsaved changes included.",
			fmt.Sprintf(p.toolRef, s.server, mcpfs.ReadTextFile))
		if err := os.WriteFile(path, geminiPolicy(tools, msg, s.server, reads), 0o600); err != nil {
			dir.remove()
			s.log.Warn("not turning off the agent's own file tools", "agent", p.name, "error", err)
			return argv, none
		}
		s.log.Info("steering the agent's model to the file tools", "agent", p.name, "denied", tools, "allowed", reads, "policy", path)
		return append(clip(argv), "--admin-policy", path), dir.remove
	case launchCodexConfig:
		text := p.instruction(s.server, cov)
		out, err := withCodexInstructions(argv, text, codexConfigFile())
		if err != nil {
			s.log.Warn("not adding the instruction to the agent's", "agent", p.name, "error", err)
			return argv, none
		}
		s.mu.Lock()
		s.launched = true
		s.mu.Unlock()
		s.log.Info("steering the agent's model to the file tools", "agent", p.name, "changed", "developer_instructions")
		return out, none
	}
	return argv, none
}

// clip returns s with no room to grow, so that appending copies it.
func clip(s []string) []string { return s[:len(s):len(s)] }

// geminiPolicy is a gemini-cli policy file that denies tools, which takes
// them out of the model's tool list (msg is what a call to one of them
// would answer), and allows the tools reads of the MCP server called
// server, which gemini would otherwise ask the user about at every call.
func geminiPolicy(tools []string, msg, server string, reads []string) []byte {
	var b bytes.Buffer
	b.WriteString("# Written by mcp-acpfs proxy for this run of the agent: the file tools of\n")
	b.WriteString("# its MCP server take the place of these.\n")
	if len(tools) > 0 {
		b.WriteString("[[rule]]\ntoolName = ")
		b.WriteString(tomlList(tools))
		b.WriteString("\ndecision = \"deny\"\npriority = 999\ndenyMessage = ")
		b.WriteString(tomlString(msg))
		b.WriteString("\n")
	}
	if len(reads) > 0 {
		b.WriteString("[[rule]]\nmcpName = ")
		b.WriteString(tomlString(server))
		b.WriteString("\ntoolName = ")
		b.WriteString(tomlList(reads))
		b.WriteString("\ndecision = \"allow\"\npriority = 999\n")
	}
	return b.Bytes()
}

// tomlList writes list as a TOML array of strings.
func tomlList(list []string) string {
	quoted := make([]string, len(list))
	for i, s := range list {
		quoted[i] = tomlString(s)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// tomlString quotes s as a TOML basic string: Go's JSON string encoding
// uses only escapes TOML also has.
func tomlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// codexDeveloperInstructions is the codex configuration key whose text
// codex gives the model as developer instructions.
const codexDeveloperInstructions = "developer_instructions"

// codexConfigFile returns the user's codex configuration file:
// $CODEX_HOME/config.toml, or ~/.codex/config.toml.
func codexConfigFile() string {
	if home := os.Getenv("CODEX_HOME"); home != "" {
		return filepath.Join(home, "config.toml")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".codex", "config.toml")
}

// withCodexInstructions returns argv with text added to codex's developer
// instructions through its -c key=value overrides. When argv already sets
// them, text goes after that value, in its place; otherwise a new override
// comes last. An override replaces what the user's configuration file
// (config) sets, so when that file sets developer instructions of its own
// and argv does not, nothing is added: the proxy cannot merge with it.
func withCodexInstructions(argv []string, text, config string) ([]string, error) {
	out := clip(argv)
	at, value := -1, ""
	var prefix string
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			break
		}
		var kv, pre string
		j := i
		switch {
		case (a == "-c" || a == "--config") && i+1 < len(argv):
			j, kv = i+1, argv[i+1]
			i++
		case strings.HasPrefix(a, "--config="):
			pre, kv = "--config=", strings.TrimPrefix(a, "--config=")
		case strings.HasPrefix(a, "-c") && !strings.HasPrefix(a, "--"):
			pre, kv = "-c", a[2:]
		default:
			continue
		}
		if k, v, ok := strings.Cut(kv, "="); ok && strings.TrimSpace(k) == codexDeveloperInstructions {
			at, value, prefix = j, v, pre+k+"="
		}
	}
	if at < 0 {
		if data, err := os.ReadFile(config); err == nil && bytes.Contains(data, []byte(codexDeveloperInstructions)) {
			return nil, fmt.Errorf("%s sets %s, which an override would replace", config, codexDeveloperInstructions)
		}
		return append(out, "-c", codexDeveloperInstructions+"="+tomlString(text)), nil
	}
	theirs, ok := tomlStringValue(value)
	if !ok {
		return nil, fmt.Errorf("the command line sets %s to %s, which the proxy cannot add to", codexDeveloperInstructions, value)
	}
	out = append([]string(nil), argv...)
	out[at] = prefix + tomlString(joinText(theirs, text))
	return out, nil
}

// tomlStringValue decodes the value of a codex -c override that is a
// string: a one-line TOML basic or literal string, or, as codex takes a
// value that is not TOML, the raw text.
func tomlStringValue(v string) (string, bool) {
	v = strings.TrimSpace(v)
	switch {
	case strings.HasPrefix(v, `"""`), strings.HasPrefix(v, "'''"):
		return "", false
	case strings.HasPrefix(v, `"`):
		var s string
		if err := json.Unmarshal([]byte(v), &s); err != nil {
			return "", false
		}
		return s, true
	case strings.HasPrefix(v, "'"):
		if len(v) < 2 || !strings.HasSuffix(v, "'") {
			return "", false
		}
		return v[1 : len(v)-1], true
	}
	return v, v != ""
}
