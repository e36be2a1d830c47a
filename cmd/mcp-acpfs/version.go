package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
)

var versionCmd = &command{
	name:    "version",
	summary: "print the version of mcp-acpfs",
	usage: func(w io.Writer) {
		fmt.Fprint(w, "usage: mcp-acpfs version\n\nversion prints \"mcp-acpfs\" and the version of the binary.\n")
	},
	run: func(ctx context.Context, c *command, args []string, e *env) int {
		fs := newFlagSet("version", e)
		if code, ok := parse(fs, args, e, c); !ok {
			return code
		}
		if fs.NArg() > 0 {
			usageLine(e.stderr, c)
			return exitUsage
		}
		fmt.Fprintf(e.stdout, "mcp-acpfs %s\n", version())
		return exitOK
	},
}

// version returns the module version the binary was built from, or
// "(devel)" when there is none (a build from a work tree).
func version() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}
