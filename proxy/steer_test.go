package proxy

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
	"github.com/mcp-acpfs/mcp-acpfs/capabilities"
)

// testSteer returns a steer for an agent run as argv, after an editor that
// advertised fs (read, write) and an agent that answered initialize with
// agentInit ("" for no answer yet).
func testSteer(t *testing.T, opts ProxyOptions, argv []string, read, write bool, agentInit string) *steer {
	t.Helper()
	opts.Bridge.Logger = slog.New(slog.DiscardHandler)
	s := newSteer(opts, argv)
	params, _ := json.Marshal(map[string]any{"protocolVersion": 1,
		"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": read, "writeTextFile": write}}})
	s.editorInitialized(params)
	if agentInit != "" {
		s.agentInitialized(json.RawMessage(agentInit))
	}
	return s
}

const (
	claudeInit  = `{"protocolVersion":1,"agentInfo":{"name":"@zed-industries/claude-agent-acp","version":"0.23.1"},"agentCapabilities":{"sessionCapabilities":{"fork":{},"resume":{}}}}`
	codexInit   = `{"protocolVersion":1,"agentInfo":{"name":"codex-acp","version":"0.16.0"},"agentCapabilities":{}}`
	geminiInit  = `{"protocolVersion":1,"agentInfo":{"name":"gemini-cli","version":"0.61.0"},"agentCapabilities":{}}`
	unknownInit = `{"protocolVersion":1,"agentInfo":{"name":"some-agent","version":"1"},"agentCapabilities":{}}`
	// standardInit advertises the unstable sessionCapabilities.systemPrompt.
	standardInit = `{"protocolVersion":1,"agentInfo":{"name":"some-agent","version":"1"},"agentCapabilities":{"sessionCapabilities":{"systemPrompt":{}}}}`
	// claudeStandardInit is claude-agent-acp advertising it too.
	claudeStandardInit = `{"protocolVersion":1,"agentInfo":{"name":"@zed-industries/claude-agent-acp"},"agentCapabilities":{"sessionCapabilities":{"systemPrompt":{}}}}`
)

var allClaude = []string{"Read", "Write", "Edit", "NotebookEdit"}

// sessionParams decodes the params of a session request.
func sessionParams(t *testing.T, msg []byte) map[string]any {
	t.Helper()
	var top struct {
		Params map[string]any `json:"params"`
	}
	if err := json.Unmarshal(msg, &top); err != nil {
		t.Fatalf("%s: %v", msg, err)
	}
	return top.Params
}

func at(v any, path ...string) any {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func strs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// The profiles change only what the editor route covers, merge with the
// editor's _meta and lists, and leave everything else in the request as
// the editor sent it.
func TestSteerSession(t *testing.T) {
	const use = "Use the tools of the acpfs MCP server for the user's files. "
	claudeReads := "Read them with mcp__acpfs__read_text_file: it returns the text open in the user's editor, unsaved changes included."
	claudeWrites := "Change them with mcp__acpfs__edit_text_file (exact replacements) or mcp__acpfs__write_text_file (whole files): the changes go into the user's editor, for the user to review."
	type want struct {
		disallowed []string // _meta.claudeCode.options.disallowedTools; nil: absent
		prompt     any      // _meta.systemPrompt; nil: absent
		standard   any      // systemPrompt; nil: absent
	}
	for _, tc := range []struct {
		name        string
		opts        ProxyOptions
		argv        []string
		read, write bool
		init        string
		meta        string // the editor's _meta; "" for none
		system      string // the editor's systemPrompt; "" for none
		unchanged   bool   // the request goes on byte for byte
		want        want
	}{
		{name: "claude, both routes, no _meta", read: true, write: true, init: claudeInit,
			want: want{disallowed: allClaude, prompt: map[string]any{"append": use + claudeReads + " " + claudeWrites}}},
		{name: "claude merges with the editor's _meta", read: true, write: true, init: claudeInit,
			meta: `{"other":[1],"claudeCode":{"options":{"model":"m","disallowedTools":["Bash","Edit"]}},"systemPrompt":{"append":"Be brief.","x":true}}`,
			want: want{disallowed: []string{"Bash", "Edit", "Read", "Write", "NotebookEdit"},
				prompt: map[string]any{"append": "Be brief.\n\n" + use + claudeReads + " " + claudeWrites, "x": true}}},
		{name: "claude keeps a prompt that replaces its own, and adds to it", read: true, write: true, init: claudeInit,
			meta: `{"systemPrompt":"You are a poet.\n"}`,
			want: want{disallowed: allClaude, prompt: "You are a poet.\n\n" + use + claudeReads + " " + claudeWrites}},
		{name: "claude, reads only: Read takes the editing tools with it", read: true, init: claudeInit,
			want: want{disallowed: allClaude, prompt: map[string]any{"append": use + claudeReads +
				" Change them with mcp__acpfs__edit_text_file (exact replacements) or mcp__acpfs__write_text_file (whole files)."}}},
		{name: "claude, reads only, read-only tools: nothing can replace the editing tools", read: true, init: claudeInit,
			opts: ProxyOptions{Bridge: bridge.BridgeOptions{ReadOnly: true}},
			want: want{prompt: map[string]any{"append": use + claudeReads}}},
		{name: "claude, writes only: Read stays", write: true, init: claudeInit,
			want: want{disallowed: []string{"Write", "Edit", "NotebookEdit"}, prompt: map[string]any{"append": use + claudeWrites}}},
		{name: "claude, writes only, read-only tools", write: true, init: claudeInit,
			opts: ProxyOptions{Bridge: bridge.BridgeOptions{ReadOnly: true}}, unchanged: true},
		{name: "claude known by its command before initialize", read: true, write: true,
			argv: []string{"npx", "@zed-industries/claude-agent-acp@0.23.1"},
			want: want{disallowed: allClaude, prompt: map[string]any{"append": use + claudeReads + " " + claudeWrites}}},
		{name: "claude's list that is not a list stays; the instruction still goes", read: true, write: true, init: claudeInit,
			meta: `{"claudeCode":{"options":{"disallowedTools":"Bash"}}}`,
			want: want{prompt: map[string]any{"append": use + claudeReads + " " + claudeWrites}}},
		{name: "claude with the standard systemPrompt", read: true, write: true, init: claudeStandardInit,
			meta: `{"systemPrompt":"mine"}`,
			want: want{disallowed: allClaude, prompt: "mine",
				standard: map[string]any{"mode": "append", "content": []any{map[string]any{"type": "text", "text": use + claudeReads + " " + claudeWrites}}}}},
		{name: "disk route", read: true, write: true, init: claudeInit,
			opts: ProxyOptions{Bridge: bridge.BridgeOptions{Policy: capabilities.PolicyDisk}}, unchanged: true},
		{name: "an editor without fs", init: claudeInit, unchanged: true},
		{name: "keep", read: true, write: true, init: claudeInit, opts: ProxyOptions{AgentTools: AgentToolsKeep}, unchanged: true},
		{name: "editor policy, editor without fs", init: claudeInit,
			opts: ProxyOptions{Bridge: bridge.BridgeOptions{Policy: capabilities.PolicyEditor}}, unchanged: true},
		{name: "an unknown agent", read: true, write: true, init: unknownInit, argv: []string{"claude-agent-acp"}, unchanged: true},
		{name: "gemini: nothing in the session request", read: true, write: true, init: geminiInit, unchanged: true},
		{name: "codex: nothing in the session request", read: true, write: true, init: codexInit, unchanged: true},
		{name: "an unknown agent with the standard systemPrompt", read: true, init: standardInit,
			want: want{standard: map[string]any{"mode": "append", "content": []any{map[string]any{"type": "text",
				"text": use + "Read them with read_text_file (find them with glob and grep): it returns the text open in the user's editor, unsaved changes included."}}}}},
		{name: "the editor's own standard systemPrompt is added to", read: true, init: standardInit,
			opts:   ProxyOptions{Bridge: bridge.BridgeOptions{Name: "files"}},
			system: `{"mode":"override","content":[{"type":"text","text":"mine"}],"_meta":{"k":1}}`,
			want: want{standard: map[string]any{"mode": "override", "_meta": map[string]any{"k": 1.0}, "content": []any{
				map[string]any{"type": "text", "text": "mine"},
				map[string]any{"type": "text", "text": "Use the tools of the files MCP server for the user's files. Read them with read_text_file (find them with glob and grep): it returns the text open in the user's editor, unsaved changes included."}}}}},
		{name: "a standard systemPrompt of an unknown mode stays", read: true, init: standardInit,
			system: `{"mode":"_custom","content":[]}`, unchanged: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testSteer(t, tc.opts, tc.argv, tc.read, tc.write, tc.init)
			params := `{"sessionId":"s","cwd":"/w","mcpServers":[{"name":"acpfs","type":"http","url":"u","headers":[]}]`
			if tc.meta != "" {
				params += `,"_meta":` + tc.meta
			}
			if tc.system != "" {
				params += `,"systemPrompt":` + tc.system
			}
			msg := []byte(`{"jsonrpc":"2.0","id":7,"method":"session/new","params":` + params + `}}`)
			out := s.session(msg)
			if tc.unchanged {
				if string(out) != string(msg) {
					t.Errorf("changed:\n%s\nto\n%s", msg, out)
				}
				return
			}
			var in, got map[string]any
			json.Unmarshal(msg, &in)
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%s: %v", out, err)
			}
			p := sessionParams(t, out)
			var disallowed []string
			if v := at(p, "_meta", "claudeCode", "options", "disallowedTools"); v != nil {
				if _, ok := v.(string); !ok {
					disallowed = strs(v)
				}
			}
			if tc.meta == "" || !strings.Contains(tc.meta, "disallowedTools") {
				if !slices.Equal(disallowed, tc.want.disallowed) {
					t.Errorf("disallowedTools %q, want %q", disallowed, tc.want.disallowed)
				}
			} else if want := tc.want.disallowed; want != nil && !slices.Equal(disallowed, want) {
				t.Errorf("disallowedTools %q, want %q", disallowed, want)
			} else if want == nil && at(p, "_meta", "claudeCode", "options", "disallowedTools") != "Bash" {
				t.Errorf("the editor's disallowedTools changed: %v", at(p, "_meta", "claudeCode", "options", "disallowedTools"))
			}
			if got := at(p, "_meta", "systemPrompt"); !reflect.DeepEqual(got, tc.want.prompt) {
				t.Errorf("_meta.systemPrompt %#v, want %#v", got, tc.want.prompt)
			}
			if got := at(p, "systemPrompt"); !reflect.DeepEqual(got, tc.want.standard) {
				t.Errorf("systemPrompt %#v, want %#v", got, tc.want.standard)
			}
			// Everything else is as the editor sent it.
			for _, k := range []string{"_meta", "systemPrompt"} {
				delete(in["params"].(map[string]any), k)
				delete(got["params"].(map[string]any), k)
			}
			if !reflect.DeepEqual(in, got) {
				t.Errorf("the rest changed:\n%v\n%v", in, got)
			}
			if tc.meta != "" {
				var editor map[string]any
				json.Unmarshal([]byte(tc.meta), &editor)
				meta := at(p, "_meta").(map[string]any)
				if v, ok := editor["other"]; ok && !reflect.DeepEqual(meta["other"], v) {
					t.Errorf("_meta.other %v, want %v", meta["other"], v)
				}
				if m := at(editor, "claudeCode", "options", "model"); m != nil && at(meta, "claudeCode", "options", "model") != m {
					t.Errorf("_meta.claudeCode.options.model lost: %v", meta)
				}
			}
		})
	}
}

// The agent is known from its command line: an executable, a script, a
// path or an npm package name, with or without a version.
func TestProfileByCommand(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want string // "" for none
	}{
		{[]string{"claude-agent-acp"}, "claude-agent-acp"},
		{[]string{"node", "/usr/lib/node_modules/@zed-industries/claude-agent-acp/dist/index.js"}, "claude-agent-acp"},
		{[]string{"npx", "-y", "@zed-industries/codex-acp@0.16.0", "-c", "model=gemini"}, "codex-acp"},
		{[]string{`C:\tools\codex-acp.exe`}, "codex-acp"},
		{[]string{"gemini", "--acp"}, "gemini-cli"},
		{[]string{"node", "/x/node_modules/@google/gemini-cli/bundle/gemini.js", "--acp"}, "gemini-cli"},
		{[]string{"npx", "@google/gemini-cli@0.61.0", "--experimental-acp"}, "gemini-cli"},
		{[]string{"my-agent", "--model=gemini"}, ""},
		{[]string{"my-agent", "--model", "gemini"}, ""},
		{[]string{"sh", "-c", "codex-acp -c model=m"}, ""},
		{[]string{"goose", "acp"}, ""},
		// A folder's name is not the agent's.
		{[]string{"my-agent", "--config", "/home/u/projects/gemini/agent.json"}, ""},
		{[]string{"/opt/codex-acp/bin/my-own-agent"}, ""},
		{[]string{"node", "/home/u/src/claude-agent-acp/fork/dist/index.js"}, ""},
		{[]string{"/x/node_modules/@zed-industries/codex-acp-linux-x64/bin/codex-acp"}, "codex-acp"},
		{nil, ""},
	} {
		got := ""
		if p := profileByCommand(tc.argv); p != nil {
			got = p.name
		}
		if got != tc.want {
			t.Errorf("%q: %q, want %q", tc.argv, got, tc.want)
		}
	}
}

// An agent's agentInfo overrides what its command line suggested.
func TestSteerAgentInfoWins(t *testing.T) {
	s := testSteer(t, ProxyOptions{}, []string{"codex-acp"}, true, true, claudeInit)
	if s.agent == nil || s.agent.name != "claude-agent-acp" {
		t.Errorf("agent %v, want claude-agent-acp", s.agent)
	}
	s = testSteer(t, ProxyOptions{}, []string{"codex-acp"}, true, true, `{"protocolVersion":1}`)
	if s.agent == nil || s.agent.name != "codex-acp" {
		t.Errorf("an agent without agentInfo: %v, want codex-acp from the command", s.agent)
	}
}

// gemini-cli and codex-acp take their settings on the command line: only
// when the editor route covers something, merged with the editor's own.
func TestSteerLaunchArgs(t *testing.T) {
	gemini := []string{"node", "/x/@google/gemini-cli/bundle/gemini.js", "--acp", "--admin-policy", "/etc/mine.toml"}
	t.Run("gemini, reads", func(t *testing.T) {
		s := testSteer(t, ProxyOptions{}, gemini, true, true, "")
		if !s.waitsForEditor() {
			t.Error("gemini does not wait for the editor")
		}
		argv, cleanup := s.launchArgs(gemini)
		n := len(gemini)
		if len(argv) != n+2 || !slices.Equal(argv[:n], gemini) || argv[n] != "--admin-policy" {
			t.Fatalf("argv %q", argv)
		}
		data, err := os.ReadFile(argv[n+1])
		if err != nil {
			t.Fatal(err)
		}
		want := `[[rule]]
toolName = ["read_file", "read_many_files"]
decision = "deny"
priority = 999
denyMessage = "Use mcp_acpfs_read_text_file instead: it reads the text open in the user's editor, unsaved changes included."
[[rule]]
mcpName = "acpfs"
toolName = ["read_text_file", "read_media_file"]
decision = "allow"
priority = 999
`
		if !strings.HasSuffix(string(data), want) {
			t.Errorf("policy file:\n%s\nwant it to end with\n%s", data, want)
		}
		if !permissionsKept(t, filepath.Dir(argv[n+1])) {
			t.Logf("the policy file's mode is not checked: this file system does not keep permission bits")
		} else if info, err := os.Stat(argv[n+1]); err != nil || info.Mode().Perm() != 0o600 {
			t.Errorf("policy file mode: %v %v", info.Mode(), err)
		}
		cleanup()
		if _, err := os.Stat(filepath.Dir(argv[n+1])); !os.IsNotExist(err) {
			t.Errorf("the policy file's directory is still there: %v", err)
		}
	})
	for _, tc := range []struct {
		name        string
		opts        ProxyOptions
		argv        []string
		read, write bool
		waits       bool
	}{
		{"gemini, no fs", ProxyOptions{}, gemini, false, false, true},
		{"gemini, keep", ProxyOptions{AgentTools: AgentToolsKeep}, gemini, true, true, false},
		{"gemini, disk", ProxyOptions{Bridge: bridge.BridgeOptions{Policy: capabilities.PolicyDisk}}, gemini, true, true, false},
		{"codex, no fs", ProxyOptions{}, []string{"codex-acp"}, false, false, true},
		{"claude: nothing on its command line", ProxyOptions{}, []string{"claude-agent-acp"}, true, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testSteer(t, tc.opts, tc.argv, tc.read, tc.write, "")
			if s.waitsForEditor() != tc.waits {
				t.Errorf("waitsForEditor %v, want %v", !tc.waits, tc.waits)
			}
			argv, cleanup := s.launchArgs(tc.argv)
			defer cleanup()
			if !slices.Equal(argv, tc.argv) {
				t.Errorf("argv %q, want it unchanged", argv)
			}
		})
	}
	t.Run("gemini, writes only: its own write tools use the editor, the reads ask nothing", func(t *testing.T) {
		s := testSteer(t, ProxyOptions{}, gemini, false, true, "")
		argv, cleanup := s.launchArgs(gemini)
		defer cleanup()
		n := len(gemini)
		if len(argv) != n+2 || argv[n] != "--admin-policy" {
			t.Fatalf("argv %q", argv)
		}
		data, err := os.ReadFile(argv[n+1])
		if err != nil {
			t.Fatal(err)
		}
		if got := string(data); strings.Contains(got, "deny") || !strings.Contains(got, `decision = "allow"`) {
			t.Errorf("policy file:\n%s\nwant only the rule that allows the reads", got)
		}
	})
	t.Run("codex, both", func(t *testing.T) {
		t.Setenv("CODEX_HOME", t.TempDir())
		s := testSteer(t, ProxyOptions{}, []string{"codex-acp", "-c", "model=m"}, true, true, codexInit)
		argv, cleanup := s.launchArgs([]string{"codex-acp", "-c", "model=m"})
		defer cleanup()
		want := []string{"codex-acp", "-c", "model=m", "-c", `developer_instructions="Use the tools of the acpfs MCP server for the user's files. Read them with read_text_file: it returns the text open in the user's editor, unsaved changes included. Do not read them with shell commands such as cat, head or sed, which see only what is saved on disk. Change them with edit_text_file (exact replacements) or write_text_file (whole files): the changes go into the user's editor, for the user to review. Do not change them with apply_patch or shell commands."`}
		if !slices.Equal(argv, want) {
			t.Errorf("argv\n%q\nwant\n%q", argv, want)
		}
		// The instruction is on the command line: the sessions carry none.
		msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`)
		if out := s.session(msg); string(out) != string(msg) {
			t.Errorf("session changed: %s", out)
		}
	})
}

// codex's developer instructions are merged with an override on the
// editor's command line; one in the user's configuration file cannot be,
// so the proxy adds none.
func TestWithCodexInstructions(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.toml")
	os.WriteFile(plain, []byte("model = \"m\"\n"), 0o600)
	set := filepath.Join(dir, "set.toml")
	os.WriteFile(set, []byte("developer_instructions = \"Mine.\"\n"), 0o600)
	for _, tc := range []struct {
		name   string
		argv   []string
		config string
		want   []string // nil: an error
	}{
		{"none", []string{"codex-acp"}, plain, []string{"codex-acp", "-c", `developer_instructions="Use acpfs."`}},
		{"no configuration file", []string{"codex-acp"}, filepath.Join(dir, "none.toml"), []string{"codex-acp", "-c", `developer_instructions="Use acpfs."`}},
		{"the user's configuration sets them", []string{"codex-acp"}, set, nil},
		{"a basic string", []string{"codex-acp", "-c", `developer_instructions="Be \"brief\"."`, "-c", "x=1"}, set,
			[]string{"codex-acp", "-c", `developer_instructions="Be \"brief\".\n\nUse acpfs."`, "-c", "x=1"}},
		{"--config=, a literal string", []string{"codex-acp", "--config=developer_instructions='Be brief.'"}, plain,
			[]string{"codex-acp", `--config=developer_instructions="Be brief.\n\nUse acpfs."`}},
		{"-ckey=, raw text", []string{"codex-acp", "-cdeveloper_instructions=Be brief."}, plain,
			[]string{"codex-acp", `-cdeveloper_instructions="Be brief.\n\nUse acpfs."`}},
		{"the last of two", []string{"codex-acp", "--config", "developer_instructions=A", "-c", "developer_instructions = 'B'"}, plain,
			[]string{"codex-acp", "--config", "developer_instructions=A", "-c", `developer_instructions ="B\n\nUse acpfs."`}},
		{"a multi-line string", []string{"codex-acp", "-c", `developer_instructions="""A"""`}, plain, nil},
		{"after --", []string{"codex-acp", "--", "-c", "developer_instructions=A"}, plain,
			[]string{"codex-acp", "--", "-c", "developer_instructions=A", "-c", `developer_instructions="Use acpfs."`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := slices.Clone(tc.argv)
			got, err := withCodexInstructions(tc.argv, "Use acpfs.", tc.config)
			if tc.want == nil {
				if err == nil {
					t.Errorf("no error; argv %q", got)
				}
			} else if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("got %q, %v\nwant %q", got, err, tc.want)
			}
			if !slices.Equal(tc.argv, before) {
				t.Errorf("the editor's argv changed: %q", tc.argv)
			}
		})
	}
}

// The shared merge helpers: a list gains only what it lacks, a member on
// the path that is not an object is an error, and nothing else changes.
func TestEditJSON(t *testing.T) {
	add := func(old json.RawMessage) (json.RawMessage, error) { return addToList(old, []string{"a", "b"}) }
	for _, tc := range []struct {
		obj, want string // want "" for an error, "same" for no change
	}{
		{``, `{"x":{"y":["a","b"]}}`},
		{`null`, `{"x":{"y":["a","b"]}}`},
		{`{"k":1}`, `{"k":1,"x":{"y":["a","b"]}}`},
		{`{"x":{"y":null,"z":2}}`, `{"x":{"y":["a","b"],"z":2}}`},
		{`{"x":{"y":["b","c"]}}`, `{"x":{"y":["b","c","a"]}}`},
		{`{"x":{"y":["b","a"]}}`, `same`},
		{`{"x":{"y":[1]}}`, ``},
		{`{"x":[]}`, ``},
		{`[]`, ``},
	} {
		got, err := editJSON(json.RawMessage(tc.obj), []string{"x", "y"}, add)
		switch {
		case tc.want == "":
			if err == nil {
				t.Errorf("%s: no error, got %s", tc.obj, got)
			}
		case tc.want == "same":
			if err != nil || got != nil {
				t.Errorf("%s: %s, %v; want no change", tc.obj, got, err)
			}
		case err != nil || string(got) != tc.want:
			t.Errorf("%s: %s, %v; want %s", tc.obj, got, err, tc.want)
		}
	}
}
