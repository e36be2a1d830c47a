// Command mcp-acpfs gives a coding agent's model file tools over MCP.
//
// The tools see what the editor sees. Usage:
//
//	mcp-acpfs serve [--root DIR]... [--read-only] [--max-file-size N]
//	                [--allow-hard-links] [--no-fsync] [TOOL FLAGS]
//	                [--http ADDR] [--http-no-auth] [--log-level LEVEL] [DIR...]
//	mcp-acpfs proxy [--root DIR]... [--route auto|editor|disk] [--name NAME]
//	                [--read-only] [--max-file-size N] [--allow-hard-links]
//	                [--no-fsync] [TOOL FLAGS] [--editor-timeout D]
//	                [--agent-tools auto|keep] [--agent-profile NAME|auto|none]
//	                [--mcp-transport auto|acp|http|stdio] [--trace FILE]
//	                [--log-level LEVEL] -- AGENT [ARGS...]
//	mcp-acpfs relay
//	mcp-acpfs version (or --version)
//	mcp-acpfs help [COMMAND]
//
// where TOOL FLAGS are [--page-size N] [--line-numbers auto|on|off]
// [--no-read-guard] [--structured-content].
//
// serve is an MCP server on local disk: it speaks MCP on standard input and
// output, or with --http on a loopback address over Streamable HTTP. proxy
// is what an ACP editor launches as its agent: it runs AGENT and gives each
// of its sessions an MCP server whose tools go through the editor. relay is
// what an agent runs to reach that server over stdio. Run
// "mcp-acpfs help COMMAND" for the flags of a command.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcp-acpfs/mcp-acpfs/internal/heapfloor"
)

// heapFloor is the heap goal the collector keeps while the live heap is
// small, unless GOGC is set: a server's live heap is 1 to 3 MiB, and the
// runtime's goal of 4 MiB made it collect after every one or two 1 MiB
// writes. See DESIGN.md, "A floor under the heap goal".
const heapFloor = 12 << 20

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// A write to stdout or stderr after the editor closed its end then
	// fails with EPIPE, which the proxy handles, rather than killing the
	// process before it stops its agent and removes its launch files.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	startHeapFloor(os.Getenv) // until the process exits
	growPipe(os.Stdin)
	growPipe(os.Stdout)
	stdin, restoreStdin := polledStdin()
	code := run(ctx, os.Args[1:], &env{
		stdin:  stdin,
		stdout: os.Stdout,
		stderr: os.Stderr,
		getenv: os.Getenv,
	})
	stop()
	restoreStdin()
	os.Exit(code)
}

// startHeapFloor starts the floor under the heap goal (heapFloor), unless
// getenv gives a GOGC: then the owner of the process chose, and it
// returns nil.
func startHeapFloor(getenv func(string) string) *heapfloor.Floor {
	if getenv("GOGC") != "" {
		return nil
	}
	return heapfloor.Start(heapFloor)
}

// env is what a command may use of the process. Only main builds one from
// the real process.
type env struct {
	stdin  io.Reader
	stdout io.Writer // protocol bytes only, for serve
	stderr io.Writer
	getenv func(string) string
}

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1 // the command failed
	exitUsage = 2 // bad command line
)

// A command is a subcommand of mcp-acpfs.
type command struct {
	name    string
	summary string
	// usage prints the full help of the command.
	usage func(w io.Writer)
	// run runs the command c, itself, with the arguments after its name
	// and returns the exit code.
	run func(ctx context.Context, c *command, args []string, e *env) int
	// check parses the arguments as run does, and runs nothing: no
	// server, agent or relay starts and no file is opened. ok is false
	// when run would stop after parsing; code is then its exit code.
	check func(c *command, args []string, e *env) (code int, ok bool)
}

// commands are the subcommands, in the order help lists them.
var commands []*command

func init() {
	commands = []*command{serveCmd, proxyCmd, relayCmd, versionCmd, helpCmd}
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// run runs mcp-acpfs with args, the arguments after the program name.
func run(ctx context.Context, args []string, e *env) int {
	c, rest, code, ok := resolve(args, e)
	if !ok {
		return code
	}
	return c.run(ctx, c, rest, e)
}

// checkArgs parses args, the arguments after the program name, as run
// does, and runs nothing. It returns the exit code run would return if
// it stopped after parsing (0 after -h, exitUsage for a bad command
// line), and ok when run would go on to run the command.
func checkArgs(args []string, e *env) (code int, ok bool) {
	c, rest, code, ok := resolve(args, e)
	if !ok {
		return code, false
	}
	return c.check(c, rest, e)
}

// resolve finds the command that args, the arguments after the program
// name, name, and the arguments after its name. ok is false when there is
// none to run; code is then the exit code.
func resolve(args []string, e *env) (c *command, rest []string, code int, ok bool) {
	if len(args) == 0 {
		mainUsage(e.stderr)
		return nil, nil, exitUsage, false
	}
	switch name := args[0]; name {
	case "-h", "-help", "--help":
		mainUsage(e.stderr)
		return nil, nil, exitOK, false
	case "-version", "--version":
		return versionCmd, args[1:], exitOK, true
	default:
		c := lookup(name)
		if c == nil {
			fmt.Fprintf(e.stderr, "mcp-acpfs: unknown command %q\n", name)
			fmt.Fprintln(e.stderr, "usage: mcp-acpfs <command> [arguments]; run 'mcp-acpfs help' for the commands")
			return nil, nil, exitUsage, false
		}
		return c, args[1:], exitOK, true
	}
}

// parseNoOperands parses args for c, a command that takes flags only.
func parseNoOperands(c *command, args []string, e *env) (code int, ok bool) {
	fs := newFlagSet(c.name, e)
	if code, ok := parse(fs, args, e, c); !ok {
		return code, false
	}
	if fs.NArg() > 0 {
		usageLine(e.stderr, c)
		return exitUsage, false
	}
	return exitOK, true
}

func mainUsage(w io.Writer) {
	fmt.Fprint(w, "mcp-acpfs gives a coding agent's model file tools over MCP that see what the editor sees.\n\n")
	fmt.Fprint(w, "Usage:\n\n\tmcp-acpfs <command> [arguments]\n\nThe commands are:\n\n")
	for _, c := range commands {
		fmt.Fprintf(w, "\t%-8s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, "\nRun 'mcp-acpfs help <command>' or 'mcp-acpfs <command> -h' for more about a command.\n")
}

var helpCmd = &command{
	name:    "help",
	summary: "show help for mcp-acpfs or one of its commands",
	usage: func(w io.Writer) {
		fmt.Fprint(w, "usage: mcp-acpfs help [command]\n\nhelp shows the commands of mcp-acpfs, or the help of one of them.\n")
	},
	run: func(ctx context.Context, help *command, args []string, e *env) int {
		c, code, ok := parseHelp(help, args, e)
		if !ok {
			return code
		}
		if c == nil {
			mainUsage(e.stdout)
		} else {
			c.usage(e.stdout)
		}
		return exitOK
	},
	check: func(help *command, args []string, e *env) (int, bool) {
		_, code, ok := parseHelp(help, args, e)
		return code, ok
	},
}

// parseHelp parses the command line of help: c is the command whose help
// to show, nil for the list of commands.
func parseHelp(help *command, args []string, e *env) (c *command, code int, ok bool) {
	fs := newFlagSet("help", e)
	if code, ok := parse(fs, args, e, help); !ok {
		return nil, code, false
	}
	switch fs.NArg() {
	case 0:
		return nil, exitOK, true
	case 1:
		c := lookup(fs.Arg(0))
		if c == nil {
			fmt.Fprintf(e.stderr, "mcp-acpfs help: unknown command %q; run 'mcp-acpfs help' for the commands\n", fs.Arg(0))
			return nil, exitUsage, false
		}
		return c, exitOK, true
	}
	fmt.Fprintln(e.stderr, "usage: mcp-acpfs help [command]")
	return nil, exitUsage, false
}
