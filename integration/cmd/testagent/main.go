// Command testagent is a scripted ACP agent over standard input and output,
// for the integration tests of mcp-acpfs proxy. It logs to standard error
// only. See package testagent for what it does.
//
// Usage:
//
//	testagent [-http] [-legacy-mcp] [-connect-early] [-garbage] [-ignore-eof] [-ignore-term]
//	testagent --sleep-forever
//	testagent --await-interrupt
//
// -http advertises mcpCapabilities.http; -legacy-mcp makes its MCP clients
// use the 2025-11-25 handshake; -connect-early makes it connect to a
// session's MCP servers and list their tools before it answers
// session/new, as real agents do; -garbage writes a line that is not JSON-RPC
// before every message; -ignore-eof keeps it running after its input ends,
// and -ignore-term makes it ignore SIGTERM and os.Interrupt (how the proxy
// interrupts it on Windows: CTRL_BREAK_EVENT). --sleep-forever is how it runs
// a spawned child. --await-interrupt says so on standard output and exits
// 0 when os.Interrupt comes (1 if none comes in a minute): a probe of
// whether one can be sent. TESTAGENT_FLAGS, if set, adds flags
// (space-separated).
package main

import (
	"flag"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/testagent"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == testagent.SleepArg {
		testagent.SleepForever()
	}
	if len(os.Args) == 2 && os.Args[1] == testagent.InterruptArg {
		os.Exit(testagent.AwaitInterrupt(os.Stdout, time.Minute))
	}
	var opts testagent.Options
	var ignoreTerm bool
	fs := flag.NewFlagSet("testagent", flag.ExitOnError)
	fs.BoolVar(&opts.HTTP, "http", false, "advertise mcpCapabilities.http")
	fs.BoolVar(&opts.LegacyMCP, "legacy-mcp", false, "use the 2025-11-25 MCP handshake")
	fs.BoolVar(&opts.Garbage, "garbage", false, "write a garbage line before every message")
	fs.BoolVar(&opts.ConnectEarly, "connect-early", false, "connect to the MCP servers before answering session/new")
	fs.BoolVar(&opts.IgnoreEOF, "ignore-eof", false, "keep running after stdin ends")
	fs.BoolVar(&ignoreTerm, "ignore-term", false, "ignore SIGTERM and os.Interrupt")
	args := os.Args[1:]
	if extra := os.Getenv("TESTAGENT_FLAGS"); extra != "" {
		args = append(strings.Fields(extra), args...)
	}
	fs.Parse(args)
	if ignoreTerm {
		signal.Ignore(syscall.SIGTERM, os.Interrupt)
	}
	os.Exit(testagent.Run(os.Stdin, os.Stdout, opts))
}
