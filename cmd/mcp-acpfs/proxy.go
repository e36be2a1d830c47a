package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
	"github.com/mcp-acpfs/mcp-acpfs/capabilities"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
	"github.com/mcp-acpfs/mcp-acpfs/proxy"
)

var proxyCmd = &command{
	name:    "proxy",
	summary: "run an ACP agent and give each of its sessions the editor's files over MCP",
	usage: func(w io.Writer) {
		fmt.Fprint(w, `usage: mcp-acpfs proxy [--root DIR]... [--route auto|editor|disk] [--name NAME] [--read-only] [--max-file-size N] [--allow-hard-links] [--no-fsync] [--page-size N] [--line-numbers auto|on|off] [--no-read-guard] [--structured-content] [--editor-timeout D] [--agent-tools auto|keep] [--agent-profile NAME|auto|none] [--mcp-transport auto|acp|http|stdio] [--trace FILE] [--log-level LEVEL] -- AGENT [ARGS...]

proxy is what an editor launches as its ACP agent. It starts AGENT as its
child, forwards every ACP message between the two, and adds an MCP server
named NAME to every session the editor opens (session/new, load, resume
and fork). That server's tools read and write the editor's files: through
the editor's fs/read_text_file and fs/write_text_file where the editor
advertised them, so reads see unsaved buffers and writes land in the
editor, and on the local disk otherwise. Every path must lie inside the
session's roots: its cwd, its additional directories and any --root.
Where the editor serves files, the agent's model is also steered to those
tools (see --agent-tools), and the agent's reports of calls to them get
the kind and locations the editor needs to follow along, and, for a write
or an edit reported without content, a diff from the file's text as the
tools read it (the editor's buffer) to the text after the call. Nothing
else in a message changes.

The agent reaches the server on the transport --mcp-transport names; by
default the first it advertised of: MCP over the ACP connection itself
(mcp/message requests to the proxy, no port and no socket), Streamable HTTP
on loopback, and running this binary in relay mode, which connects back
over a unix socket in a private directory (over loopback TCP where the
system has no unix sockets: Windows before 10 1803). Over HTTP and the
relay the session's secret is required.

An editor and agent that agree on the ACP v2 draft (protocolVersion 2)
get the same MCP server, in v2's shape, on a transport the agent
advertised in capabilities.session.mcp; v2 has no fs methods, so its files
are on the local disk. Every other v2 message passes unchanged.

Flags:

  --root DIR
	a directory every session may use besides its own; repeatable.
  --route auto|editor|disk
	auto (the default) uses the editor for each fs method it advertised
	and the disk otherwise; editor never uses the disk (a method the
	editor lacks fails); disk never uses the editor.
  --name NAME
	the name of the MCP server given to the agent; default acpfs.
  --read-only
	leave out the tools that change files: write_text_file,
	edit_text_file, create_directory, move_file and delete_file.
  --max-file-size N
	the largest content a read returns or a write accepts: 512KiB,
	10MiB (the default), 1GiB. Above 10.5MiB it also raises the message
	limit (64MiB) to six times the size plus 1MiB.
  --allow-hard-links
	let the tools read and write a file that has more than one name
	(hard links). By default such a file is refused: a hard link made
	inside a root to a file outside it would otherwise reach that file.
  --no-fsync
	do not wait for the files the tools write on the local disk to
	reach it (writes through the editor are the editor's). A write
	stays atomic: if this process crashes or is killed, the file holds
	its old content or the new, never a mix. But a power loss or a
	crash of the system may lose the latest writes, and on some file
	systems leave a newly written file empty. By default each write
	syncs the file before renaming it into place, and the directory
	after.
`+toolFlagsUsage+`  --editor-timeout D
	how long a tool waits for the editor to answer one fs request, such
	as 500ms, 30s (the default) or 2m; 0 means no limit. When it passes,
	the tool call fails with an error naming the request, the path and
	the timeout, and the editor is sent $/cancel_request for it.
  --agent-tools auto|keep
	auto (the default) steers the agent's model to the file tools in
	every session whose reads or writes go through the editor: the
	agent's own file tools that the editor route replaces are turned
	off, the session offers only the file tools the agent then lacks,
	and its instructions say to read and write files through NAME.
	Every change is merged with what the editor sent. Agents the proxy
	knows, by agentInfo or by command:
	  claude-agent-acp: _meta.claudeCode.options.disallowedTools gets
	    Read, Write, Edit and NotebookEdit (without Read the others
	    fail, so they go together; when only writes go through the
	    editor, Read stays), _meta.systemPrompt.append the instruction,
	    and _meta.claudeCode.options.allowedTools the reading file
	    tools, which then ask the user nothing. Its permission requests
	    for the writing file tools are answered by the proxy (allow
	    once) in the modes acceptEdits and bypassPermissions, as its own
	    Edit and Write ask nothing there. Tools: read_text_file,
	    read_media_file, write_text_file, edit_text_file.
	  gemini-cli: when reads go through the editor, read_file and
	    read_many_files are denied by a policy file given with
	    --admin-policy (its write_file and replace already use the
	    editor's fs methods, and stay). It is started once the editor
	    has sent initialize. Tools: read_text_file, read_media_file.
	  codex-acp: -c developer_instructions= gets the instruction
	    (apply_patch and the shell cannot be turned off). It is started
	    once the editor has sent initialize. Tools: read_text_file,
	    write_text_file, edit_text_file.
	  opencode: its read, edit and write are turned off through
	    OPENCODE_CONFIG_CONTENT (merged with yours); it shows the
	    server's instructions itself. The sessions of one directory
	    share one server, which gives each call to the session that
	    is prompting. Tools: read_text_file, read_media_file,
	    write_text_file, edit_text_file.
	  copilot: --excluded-tools=view,edit,create (merged with yours)
	    and --allow-all-mcp-server-instructions. Tools: as opencode.
	  qwen-code: its own file tools use the editor and stay;
	    --append-system-prompt gets the instruction, and a copy of its
	    system defaults turns off tool search, so the tools are there
	    on the first prompt. Tools: read_media_file.
	Any agent that advertises sessionCapabilities.systemPrompt gets the
	instruction there instead. Other agents, and sessions on the disk
	route, are left as they are, with every file tool. keep changes
	nothing, and offers every file tool.
  --agent-profile NAME|auto|none
	which profile to apply: auto (the default) knows the agent by its
	agentInfo at initialize, or by its command line, which is how the
	settings that go on it are decided; NAME (claude-agent-acp,
	gemini-cli, codex-acp, opencode, copilot or qwen-code) applies that profile to an agent started
	through a wrapper script, which must pass its arguments on to the
	agent ("$@"); none applies none. When an agent names
	itself at initialize as one whose profile has command-line settings
	that its command line did not let the proxy apply, the proxy says so
	on stderr, with this flag.
  --mcp-transport auto|acp|http|stdio
	how the agent reaches the sessions' MCP server. auto (the default)
	takes acp (MCP over ACP, mcpCapabilities.acp), then http
	(mcpCapabilities.http), then stdio, as the agent advertised them.
	Any other value must be advertised by the agent, or the editor's
	initialize fails with an error that names the flag and what the
	agent advertised. (Every ACP v1 agent takes stdio.)
  --trace FILE
	append every message of both hops to FILE as JSON lines, with
	direction and time. FILE is created with mode 0600: it holds file
	contents and the sessions' secrets.
  --log-level LEVEL
	debug, info, warn or error. The default is info.

proxy exits when the editor closes the stream (status 0, after stopping
the agent and everything it started) or when the agent exits (non-zero).
`)
	},
	run: runProxy,
	check: func(c *command, args []string, e *env) (int, bool) {
		_, _, code, ok := parseProxy(c, args, e)
		return code, ok
	},
}

// proxyConfig is the parsed command line of proxy.
type proxyConfig struct {
	roots       rootsFlag
	route       capabilities.Policy
	name        string
	readOnly    bool
	maxFileSize sizeFlag
	hardLinks   bool
	noSync      bool
	edTimeout   time.Duration
	tracePath   string
	level       levelFlag
	agentTools  proxy.AgentTools
	profile     string
	transport   capabilities.Transport
	tools       mcpfs.ToolOptions
}

// proxyFlags returns the flags of proxy, which set cfg.
func proxyFlags(cfg *proxyConfig, e *env) *flag.FlagSet {
	fs := newFlagSet("proxy", e)
	fs.Var(&cfg.roots, "root", "a directory every session may use (repeatable)")
	fs.TextVar(&cfg.route, "route", capabilities.PolicyAuto, "auto, editor or disk")
	fs.StringVar(&cfg.name, "name", "acpfs", "the MCP server name")
	fs.BoolVar(&cfg.readOnly, "read-only", false, "leave out the tools that change files")
	fs.Var(&cfg.maxFileSize, "max-file-size", "the size limit of a read or a write")
	fs.BoolVar(&cfg.hardLinks, "allow-hard-links", false, "allow files that have other hard links")
	fs.BoolVar(&cfg.noSync, "no-fsync", false, "do not sync written files to the disk")
	toolFlags(fs, &cfg.tools)
	fs.DurationVar(&cfg.edTimeout, "editor-timeout", bridge.DefaultEditorTimeout, "how long to wait for the editor's answer to an fs request; 0 means no limit")
	fs.TextVar(&cfg.agentTools, "agent-tools", proxy.AgentToolsAuto, "auto or keep")
	fs.Func("agent-profile", "the profile to apply: auto, none, or "+strings.Join(proxy.ProfileNames(), ", "), func(v string) error {
		if err := proxy.CheckAgentProfile(v); err != nil {
			return err
		}
		cfg.profile = v
		return nil
	})
	fs.TextVar(&cfg.transport, "mcp-transport", capabilities.TransportAuto, "auto, acp, http or stdio")
	fs.StringVar(&cfg.tracePath, "trace", "", "append every message to this file")
	fs.Var(&cfg.level, "log-level", "debug, info, warn or error")
	return fs
}

// bridgeOptions are the options of the bridge that gives the sessions
// their tools, logging to logger.
func (cfg *proxyConfig) bridgeOptions(logger *slog.Logger) bridge.BridgeOptions {
	timeout := cfg.edTimeout
	if timeout <= 0 {
		timeout = -1 // BridgeOptions: no limit
	}
	return bridge.BridgeOptions{
		Name:           cfg.name,
		Roots:          cfg.roots,
		Policy:         cfg.route,
		MaxFileSize:    int64(cfg.maxFileSize),
		ReadOnly:       cfg.readOnly,
		AllowHardLinks: cfg.hardLinks,
		NoSync:         cfg.noSync,
		EditorTimeout:  timeout,
		Tools:          cfg.tools,
		Version:        version(),
		Logger:         logger,
	}
}

// parseProxy parses the command line of proxy c: cfg is the flags, argv
// the agent's command line. ok is false when proxy must not go on; code
// is then its exit code.
func parseProxy(c *command, args []string, e *env) (cfg *proxyConfig, argv []string, code int, ok bool) {
	cfg = new(proxyConfig)
	fs := proxyFlags(cfg, e)
	if code, ok := parse(fs, args, e, c); !ok {
		return nil, nil, code, false
	}
	argv = fs.Args()
	if len(argv) == 0 {
		fmt.Fprintln(e.stderr, "mcp-acpfs proxy: no agent command given after --")
		usageLine(e.stderr, c)
		return nil, nil, exitUsage, false
	}
	return cfg, argv, exitOK, true
}

func runProxy(ctx context.Context, c *command, args []string, e *env) int {
	cfg, argv, code, ok := parseProxy(c, args, e)
	if !ok {
		return code
	}
	logger := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: &cfg.level})).With("component", "mcp-acpfs")

	var trace io.Writer
	if cfg.tracePath != "" {
		f, err := os.OpenFile(cfg.tracePath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			fmt.Fprintf(e.stderr, "mcp-acpfs proxy: --trace: %v\n", err)
			return exitFail
		}
		defer f.Close()
		trace = f
	}
	// Should the editor that launched the proxy exit (watched on macOS and
	// FreeBSD; elsewhere its end of stdin is the sign), stop as on SIGTERM.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer watchParent(func() {
		logger.Info("the parent process exited")
		cancel()
	})()
	code, err := proxy.RunProxy(ctx, stdio{e.stdin, e.stdout}, argv, proxy.ProxyOptions{
		Bridge:       cfg.bridgeOptions(logger),
		Trace:        trace,
		AgentStderr:  e.stderr,
		AgentTools:   cfg.agentTools,
		AgentProfile: cfg.profile,
		MCPTransport: cfg.transport,
	})
	if err != nil {
		logger.Error("proxy failed", "error", err)
		if code == 0 {
			code = exitFail
		}
	}
	return code
}

// stdio is the editor's end of the proxy: standard input and output.
type stdio struct {
	io.Reader
	io.Writer
}

// Close closes both ends, if they can be closed.
func (s stdio) Close() error {
	if c, ok := s.Reader.(io.Closer); ok {
		c.Close()
	}
	if c, ok := s.Writer.(io.Closer); ok {
		c.Close()
	}
	return nil
}

var relayCmd = &command{
	name:    "relay",
	summary: "connect an agent's stdio MCP client to a running proxy (used by proxy itself)",
	usage: func(w io.Writer) {
		fmt.Fprint(w, `usage: mcp-acpfs relay

relay is what an agent runs for the stdio MCP server that mcp-acpfs proxy
adds to a session when the agent does not take HTTP servers. It connects to
the proxy's relay endpoint named by $`+bridge.EnvRelaySocket+` (a unix
socket's path, or tcp: and a loopback address and port), presents the
session's secret from $`+bridge.EnvRelaySecret+`, and then relays MCP between
its standard input and output and the proxy. It is not meant to be run by
hand.
`)
	},
	run: func(ctx context.Context, c *command, args []string, e *env) int {
		if code, ok := parseNoOperands(c, args, e); !ok {
			return code
		}
		if err := bridge.Relay(ctx, e.stdin, e.stdout, e.getenv(bridge.EnvRelaySocket), e.getenv(bridge.EnvRelaySecret)); err != nil {
			fmt.Fprintf(e.stderr, "mcp-acpfs %v\n", err)
			return exitFail
		}
		return exitOK
	},
	check: parseNoOperands,
}
