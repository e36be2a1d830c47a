package proxy

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"testing"
)

// TestAgentProfileForced checks --agent-profile: a profile named applies
// to an agent started through a wrapper, launch settings included, and
// what the agent says at initialize does not change it; none applies none.
func TestAgentProfileForced(t *testing.T) {
	wrapper := []string{"./my-gemini.sh", "--acp"}
	s := testSteer(t, ProxyOptions{AgentProfile: "gemini-cli"}, wrapper, true, true, "")
	if !s.waitsForEditor() {
		t.Error("a forced gemini profile does not wait for the editor")
	}
	argv, cleanup := s.launchArgs(wrapper)
	defer cleanup()
	if len(argv) != len(wrapper)+2 || argv[len(wrapper)] != "--admin-policy" {
		t.Errorf("argv %q, want gemini's policy file after the wrapper's own", argv)
	}
	s.agentInitialized(json.RawMessage(codexInit))
	if p, _ := s.profile(); p == nil || p.name != "gemini-cli" {
		t.Errorf("after an initialize naming codex-acp the profile is %v, want gemini-cli still", p)
	}

	gemini := []string{"node", "/x/@google/gemini-cli/bundle/gemini.js", "--acp"}
	s = testSteer(t, ProxyOptions{AgentProfile: "none"}, gemini, true, true, geminiInit)
	if p, _ := s.profile(); p != nil || s.waitsForEditor() {
		t.Errorf("--agent-profile none: profile %v, waits %v; want none", p, s.waitsForEditor())
	}
	if argv, cleanup := s.launchArgs(gemini); !slices.Equal(argv, gemini) {
		cleanup()
		t.Errorf("--agent-profile none: argv %q, want it unchanged", argv)
	}

	for _, bad := range []string{"gemini", "claude", "x"} {
		if err := CheckAgentProfile(bad); err == nil || !strings.Contains(err.Error(), "gemini-cli") {
			t.Errorf("CheckAgentProfile(%q) = %v, want an error naming the profiles", bad, err)
		}
	}
	for _, good := range append(ProfileNames(), "", "auto", "none") {
		if err := CheckAgentProfile(good); err != nil {
			t.Errorf("CheckAgentProfile(%q) = %v", good, err)
		}
	}
}

// TestAgentProfileNotice checks that an agent that names itself at
// initialize as one whose profile has command-line settings, which its
// command line did not let the proxy apply, gets a warning with the flag
// that applies them; and no warning where nothing was missed.
func TestAgentProfileNotice(t *testing.T) {
	for _, tc := range []struct {
		name       string
		argv       []string
		opts       ProxyOptions
		init       string
		read, warn bool
	}{
		{"gemini through a wrapper", []string{"./my-gemini.sh"}, ProxyOptions{}, geminiInit, true, true},
		{"codex through a wrapper", []string{"./codex.sh"}, ProxyOptions{}, codexInit, true, true},
		{"gemini recognised", []string{"gemini", "--acp"}, ProxyOptions{}, geminiInit, true, false},
		{"claude: nothing on its command line", []string{"./claude.sh"}, ProxyOptions{}, claudeInit, true, false},
		{"gemini, editor without fs", []string{"./my-gemini.sh"}, ProxyOptions{}, geminiInit, false, false},
		{"gemini, keep", []string{"./my-gemini.sh"}, ProxyOptions{AgentTools: AgentToolsKeep}, geminiInit, true, false},
		{"gemini forced", []string{"./my-gemini.sh"}, ProxyOptions{AgentProfile: "gemini-cli"}, geminiInit, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			s := testSteer(t, tc.opts, tc.argv, tc.read, tc.read, "")
			s.log = slog.New(slog.NewTextHandler(&logs, nil))
			s.agentInitialized(json.RawMessage(tc.init))
			got := strings.Contains(logs.String(), "--agent-profile")
			if got != tc.warn {
				t.Errorf("warned %v, want %v:\n%s", got, tc.warn, logs.String())
			}
		})
	}
}
