package proxy

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mcp-acpfs/mcp-acpfs/capabilities"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

// AgentTools says whether the proxy steers the agent's model to the file
// tools. The zero value is AgentToolsAuto.
type AgentTools int

const (
	// AgentToolsAuto applies the agent's profile (see [Profiles]) to each
	// session whose files go through the editor.
	AgentToolsAuto AgentTools = iota
	// AgentToolsKeep leaves the agent's own tools and instructions as they
	// are.
	AgentToolsKeep
)

// String returns "auto" or "keep".
func (a AgentTools) String() string {
	switch a {
	case AgentToolsAuto:
		return "auto"
	case AgentToolsKeep:
		return "keep"
	}
	return fmt.Sprintf("AgentTools(%d)", int(a))
}

// MarshalText returns the name, so an AgentTools works with flag.TextVar.
func (a AgentTools) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalText accepts "auto" or "keep".
func (a *AgentTools) UnmarshalText(b []byte) error {
	switch string(b) {
	case "auto":
		*a = AgentToolsAuto
	case "keep":
		*a = AgentToolsKeep
	default:
		return fmt.Errorf("invalid agent tools mode %q: want auto or keep", b)
	}
	return nil
}

// coverage is what the file tools take over from the agent on one
// connection, as bits: reads and writes that go to the editor, and whether
// the tools that write are there at all (not --read-only).
type coverage uint8

const (
	coverReads      coverage = 1 << iota // reads go through the editor
	coverWrites                          // writes go through the editor, and the writing tools are there
	coverWriteTools                      // the writing tools are there, on whatever route
)

// coverageOf returns the coverage under policy p of an editor that
// advertised c.
func coverageOf(c capabilities.Client, p capabilities.Policy, readOnly bool) coverage {
	var cov coverage
	if capabilities.Decide(c, p, capabilities.OpRead) == capabilities.RouteEditor {
		cov |= coverReads
	}
	if !readOnly {
		cov |= coverWriteTools
		if capabilities.Decide(c, p, capabilities.OpWrite) == capabilities.RouteEditor {
			cov |= coverWrites
		}
	}
	return cov
}

// has reports whether every bit of need is in c.
func (c coverage) has(need coverage) bool { return need != 0 && c&need == need }

// A profile is what the proxy knows of one ACP agent: how to recognise it,
// which of its own file tools the file tools replace, and how to turn
// those off and to add an instruction. It is data; steer.go and
// steer_launch.go apply it.
type profile struct {
	name       string   // as -h and docs/proxy.md list it
	agentNames []string // agentInfo.name values at initialize
	// commands are words of the agent's command line: an executable's or
	// a script's base name, or a path element or npm package name in it.
	commands []string

	// removals are the agent's tools that go, each set when the coverage
	// has all its bits. Tools that depend on each other go as one set.
	removals []removal
	// disallow, if set, is where in the params of a session request the
	// removed tools are listed (a list of names, merged with the editor's).
	disallow []string
	// metaPrompt, if set, is where in the params of a session request the
	// instruction goes: a string that replaces the agent's system prompt,
	// or an object whose append string is added to it.
	metaPrompt []string
	// launch is how the agent takes settings that a session request cannot
	// carry: on its command line, decided before it starts.
	launch launchKind

	// toolRef is how the model sees a tool of an MCP server: a format of
	// the server name and the tool name.
	toolRef string
	// avoidReads and avoidWrites name, in the instruction, what the model
	// should not read or change files with; empty when those tools go.
	avoidReads, avoidWrites string
	// writesGoWithReads says that the agent's writing tools go with its
	// reading ones, so that the instruction names the writing file tools
	// even when writes do not go through the editor.
	writesGoWithReads bool
	// ownFileTools says that the agent's own reading and writing tools
	// already go through the editor and stay: the instruction sends the
	// model to them, and to the file tools only for what they lack.
	ownFileTools bool

	// tools, if not nil, are the file tools the agent's sessions are
	// offered when the profile applies: what the agent lacks once its
	// own tools that the editor route covers are gone. Each tool's
	// definition costs model context on every request, so the tools that
	// duplicate what the agent keeps (its search, its shell) stay out.
	tools []string
	// allow, if set, is where in the params of a session request the
	// agent takes a list of tools it runs without asking the user (merged
	// with the editor's): the file tools that only read go there, as the
	// agent's own reads ask nothing.
	allow []string
	// editsFollowMode says that the agent's own editing tools ask the
	// user except in its session modes acceptEdits and bypassPermissions,
	// and that it asks for every MCP tool call whatever the mode: the
	// proxy then answers its permission requests for the writing file
	// tools itself in those modes (see modes.go).
	editsFollowMode bool
	// sharedRegistry says that the agent keeps one MCP server registry
	// per working directory, keyed by the server's name, so that the
	// sessions of a directory share one entry (see shared_registry.go).
	sharedRegistry bool
}

// A removal is a set of an agent's tools that the file tools replace when
// they cover need.
type removal struct {
	need  coverage
	tools []string
}

// launchKind names a way of giving an agent settings at launch.
type launchKind int

const (
	launchNone           launchKind = iota
	launchGeminiPolicy              // an admin policy file that denies tools (--admin-policy)
	launchCodexConfig               // -c developer_instructions=…
	launchOpencodeConfig            // OPENCODE_CONFIG_CONTENT that turns tools off, merged
	launchCopilotFlags              // --excluded-tools and --allow-all-mcp-server-instructions
	launchQwenFlags                 // --append-system-prompt, and system defaults without tool search
)

// claudeEditTools are the tools of claude-agent-acp that refuse a file its
// Read has not read: without Read they can only fail. (Claude Code 2.1.83,
// which claude-agent-acp 0.23.1 runs, has no MultiEdit.)
var claudeEditTools = []string{"Write", "Edit", "NotebookEdit"}

// readingTools are the file tools that change nothing, and writingTools
// the others.
var (
	readingTools = []string{mcpfs.ReadTextFile, mcpfs.ReadMediaFile, mcpfs.GetFileInfo, mcpfs.ListDirectory,
		mcpfs.DirectoryTree, mcpfs.Glob, mcpfs.Grep}
	writingTools = []string{mcpfs.WriteTextFile, mcpfs.EditTextFile, mcpfs.CreateDirectory, mcpfs.MoveFile, mcpfs.DeleteFile}
)

// profiles are the agents the proxy knows. See docs/proxy.md, "What the model
// sees", for the evidence behind each entry.
var profiles = []*profile{
	{
		name:       "claude-agent-acp",
		agentNames: []string{"@zed-industries/claude-agent-acp", "@zed-industries/claude-code-acp"},
		commands:   []string{"claude-agent-acp", "claude-code-acp"},
		removals: []removal{
			// Read takes its dependants with it, and the file tools that
			// write take their place (on disk if the editor does not
			// write).
			{need: coverReads | coverWriteTools, tools: append([]string{"Read"}, claudeEditTools...)},
			{need: coverWrites, tools: claudeEditTools},
		},
		disallow:          []string{"_meta", "claudeCode", "options", "disallowedTools"},
		metaPrompt:        []string{"_meta", "systemPrompt"},
		toolRef:           "mcp__%s__%s",
		writesGoWithReads: true,
		// It keeps Glob and Grep (which search the same disk as the file
		// tools' glob and grep would) and Bash (ls, mkdir, mv, rm);
		// read_media_file takes the place of Read for images.
		tools: []string{mcpfs.ReadTextFile, mcpfs.ReadMediaFile, mcpfs.WriteTextFile, mcpfs.EditTextFile},
		// _meta.claudeCode.options goes into its SDK options, whose
		// allowedTools are rules that allow a tool without asking.
		allow:           []string{"_meta", "claudeCode", "options", "allowedTools"},
		editsFollowMode: true,
	},
	{
		name:       "gemini-cli",
		agentNames: []string{"gemini-cli"},
		commands:   []string{"gemini", "gemini-cli"},
		// Its replace and write_file already read and write through the
		// editor's fs methods; read_file and read_many_files read the disk.
		removals: []removal{{need: coverReads, tools: []string{"read_file", "read_many_files"}}},
		launch:   launchGeminiPolicy,
		toolRef:  "mcp_%s_%s",
		// It keeps list_directory, glob and grep_search, and its replace
		// and write_file, which go through the editor already (with its
		// own diff review); read_media_file takes the place of read_file
		// for images and PDFs.
		tools: []string{mcpfs.ReadTextFile, mcpfs.ReadMediaFile},
	},
	{
		name:       "codex-acp",
		agentNames: []string{"codex-acp"},
		commands:   []string{"codex-acp"},
		// apply_patch is always on (codex-acp sets it for every session)
		// and the shell stays: only the instruction steers it.
		launch:      launchCodexConfig,
		toolRef:     "%[2]s", // in the mcp__SERVER namespace
		avoidReads:  "shell commands such as cat, head or sed",
		avoidWrites: "apply_patch or shell commands",
		// Its shell lists, finds, searches, moves and deletes files on
		// disk as the other file tools would. Its view_image reads an image
		// from disk as read_media_file would (codex-acp 0.16 passes an MCP
		// image on too), so read_media_file stays out.
		tools: []string{mcpfs.ReadTextFile, mcpfs.WriteTextFile, mcpfs.EditTextFile},
	},
	{
		name:       "opencode",
		agentNames: []string{"OpenCode"},
		commands:   []string{"opencode", "opencode-ai"},
		// Its read, edit and write use the disk (an edit reaches the
		// editor only after an approved prompt, computed from the disk);
		// its edit refuses a file its read has not read, so they go as one.
		removals: []removal{
			{need: coverReads | coverWriteTools, tools: []string{"read", "edit", "write"}},
			{need: coverWrites, tools: []string{"edit", "write"}},
		},
		// OPENCODE_CONFIG_CONTENT; the MCP server's instructions reach
		// the model already (<mcp_instructions>).
		launch:            launchOpencodeConfig,
		toolRef:           "%s_%s",
		writesGoWithReads: true,
		sharedRegistry:    true,
		// It keeps glob, grep and bash (ls, mkdir, mv, rm), which search
		// and change the same disk as the other file tools would;
		// read_media_file takes the place of read for images.
		tools: []string{mcpfs.ReadTextFile, mcpfs.ReadMediaFile, mcpfs.WriteTextFile, mcpfs.EditTextFile},
	},
	{
		name:       "copilot",
		agentNames: []string{"Copilot"},
		commands:   []string{"copilot"},
		// It never calls the editor's fs methods: view, edit and create
		// read and write the disk, and its edit refuses a file view has
		// not read.
		removals: []removal{
			{need: coverReads | coverWriteTools, tools: []string{"view", "edit", "create"}},
			{need: coverWrites, tools: []string{"edit", "create"}},
		},
		// --excluded-tools, and --allow-all-mcp-server-instructions, without
		// which it shows the model no server's instructions.
		launch:            launchCopilotFlags,
		toolRef:           "%s-%s",
		writesGoWithReads: true,
		// It keeps grep, glob and its shell (ls, mkdir, mv, rm);
		// read_media_file takes the place of view for images. It skips
		// the permission prompt for tools annotated readOnlyHint, as the
		// reading file tools are.
		tools: []string{mcpfs.ReadTextFile, mcpfs.ReadMediaFile, mcpfs.WriteTextFile, mcpfs.EditTextFile},
	},
	{
		name:       "qwen-code",
		agentNames: []string{"qwen-code"},
		commands:   []string{"qwen", "qwen-code"},
		// Its read_file, edit and write_file already go through the
		// editor's fs methods (and its edit refuses a file read_file has
		// not read): none of its tools go.
		launch:       launchQwenFlags,
		toolRef:      "mcp__%s__%s",
		ownFileTools: true,
		// Its read_file reads the text through the editor, and it keeps
		// glob, grep_search and its shell: only read_media_file, which
		// returns an image or PDF as the model's own content, is added.
		tools: []string{mcpfs.ReadMediaFile},
	},
}

// unknownAgent is the profile of an agent the proxy does not know: it only
// takes the standard systemPrompt, if it advertises it.
var unknownAgent = &profile{name: "unknown", toolRef: "%[2]s"}

// ProfileNames are the names of the agents' profiles, as --agent-profile
// takes them.
func ProfileNames() []string {
	names := make([]string, len(profiles))
	for i, p := range profiles {
		names[i] = p.name
	}
	return names
}

// CheckAgentProfile reports a value of [ProxyOptions.AgentProfile] that
// names no profile.
func CheckAgentProfile(name string) error {
	switch {
	case name == "" || name == "auto" || name == "none" || profileNamed(name) != nil:
		return nil
	}
	return fmt.Errorf("unknown agent profile %q: want auto, none or one of %s", name, strings.Join(ProfileNames(), ", "))
}

// profileNamed returns the profile called name, or nil.
func profileNamed(name string) *profile {
	for _, p := range profiles {
		if p.name == name {
			return p
		}
	}
	return nil
}

// profileByName returns the profile of the agent whose agentInfo.name is
// name, or nil.
func profileByName(name string) *profile {
	for _, p := range profiles {
		for _, n := range p.agentNames {
			if n == name {
				return p
			}
		}
	}
	return nil
}

// profileByCommand returns the profile of the agent that argv runs, or nil.
// It looks at the program and at every later word that is a path or a
// scoped npm package (not a flag, and not a bare word, which may be any
// flag's value). Of a path it takes only the file's name and the package
// named after an @scope, never a folder's name, so that
// /usr/lib/node_modules/@google/gemini-cli/bundle/gemini.js and
// npx @zed-industries/codex-acp@0.16.0 are recognised but
// --config /home/me/gemini/agent.json is not.
func profileByCommand(argv []string) *profile {
	isSep := func(r rune) bool { return r == '/' || r == '\\' }
	for i, word := range argv {
		if i > 0 && (strings.HasPrefix(word, "-") || !strings.ContainsFunc(word, isSep)) {
			continue
		}
		elems := strings.FieldsFunc(word, isSep)
		if len(elems) == 0 {
			continue
		}
		names := []string{elems[len(elems)-1]}
		for j, elem := range elems[:len(elems)-1] {
			if strings.HasPrefix(elem, "@") {
				names = append(names, elems[j+1])
			}
		}
		for _, name := range names {
			if p := profileByFile(name); p != nil {
				return p
			}
		}
	}
	return nil
}

// profileByFile returns the profile whose command is name, less a
// package's @version and a script's or program's extension, or nil.
func profileByFile(name string) *profile {
	if at := strings.LastIndexByte(name, '@'); at > 0 {
		name = name[:at]
	}
	switch ext := filepath.Ext(name); ext {
	case ".js", ".mjs", ".cjs", ".cmd", ".exe", ".ps1":
		name = strings.TrimSuffix(name, ext)
	}
	for _, p := range profiles {
		if contains(p.commands, name) {
			return p
		}
	}
	return nil
}

// removed returns the tools of p that go under cov, each once, in the
// order of the table.
func (p *profile) removed(cov coverage) []string {
	var out []string
	for _, r := range p.removals {
		if !cov.has(r.need) {
			continue
		}
		for _, t := range r.tools {
			if !contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// offered returns the file tools p's sessions are offered under cov: nil
// (all of them) unless the profile applies and names them.
func (p *profile) offered(cov coverage) []string {
	if !cov.has(coverReads) && !cov.has(coverWrites) {
		return nil
	}
	return p.tools
}

// offers reports whether a session offered tools (nil: all) has tool.
func offers(tools []string, tool string) bool { return tools == nil || contains(tools, tool) }

// allowed returns the tools of the MCP server called server, as p's model
// sees them, that p's sessions run without asking under cov: those of
// the offered ones that only read.
func (p *profile) allowed(server string, cov coverage) []string {
	var out []string
	for _, t := range readingTools {
		if offers(p.offered(cov), t) {
			out = append(out, fmt.Sprintf(p.toolRef, server, t))
		}
	}
	return out
}

// instruction is what the model is told under cov, naming the tools of
// the MCP server called server as p's model sees them; "" when the editor
// covers nothing.
func (p *profile) instruction(server string, cov coverage) string {
	if !cov.has(coverReads) && !cov.has(coverWrites) {
		return ""
	}
	ref := func(tool string) string { return fmt.Sprintf(p.toolRef, server, tool) }
	var b strings.Builder
	if p.ownFileTools {
		b.WriteString("Your own tools that read and change files go through the user's editor: what they read is the text open there, unsaved changes included.")
		if offers(p.offered(cov), mcpfs.ReadMediaFile) {
			fmt.Fprintf(&b, " Read images and PDF files with %s.", ref(mcpfs.ReadMediaFile))
		}
		return b.String()
	}
	fmt.Fprintf(&b, "Use the tools of the %s MCP server for the user's files.", server)
	if cov.has(coverReads) {
		fmt.Fprintf(&b, " Read them with %s", ref(mcpfs.ReadTextFile))
		if tools := p.offered(cov); offers(tools, mcpfs.Glob) && offers(tools, mcpfs.Grep) {
			fmt.Fprintf(&b, " (find them with %s and %s)", ref(mcpfs.Glob), ref(mcpfs.Grep))
		}
		b.WriteString(": it returns the text open in the user's editor, unsaved changes included.")
		if p.avoidReads != "" {
			fmt.Fprintf(&b, " Do not read them with %s, which see only what is saved on disk.", p.avoidReads)
		}
	}
	switch {
	case cov.has(coverWrites):
		fmt.Fprintf(&b, " Change them with %s (exact replacements) or %s (whole files): the changes go into the user's editor, for the user to review.",
			ref(mcpfs.EditTextFile), ref(mcpfs.WriteTextFile))
		if p.avoidWrites != "" {
			fmt.Fprintf(&b, " Do not change them with %s.", p.avoidWrites)
		}
	case p.writesGoWithReads && cov.has(coverReads|coverWriteTools):
		// The agent's own writing tools went with its reading ones.
		fmt.Fprintf(&b, " Change them with %s (exact replacements) or %s (whole files).", ref(mcpfs.EditTextFile), ref(mcpfs.WriteTextFile))
	}
	return b.String()
}
