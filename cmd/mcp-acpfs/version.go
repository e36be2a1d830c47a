package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
)

// stampedVersion is the release version, set when the binary is linked:
//
//	go build -ldflags "-X main.stampedVersion=v1.2.3" ./cmd/mcp-acpfs
//
// Nothing assigns it at run time.
var stampedVersion string

var versionCmd = &command{
	name:    "version",
	summary: "print the version of mcp-acpfs",
	usage: func(w io.Writer) {
		fmt.Fprint(w, "usage: mcp-acpfs version\n       mcp-acpfs --version\n\nversion prints \"mcp-acpfs\" and the version of the binary.\n")
	},
	run: func(ctx context.Context, c *command, args []string, e *env) int {
		if code, ok := parseNoOperands(c, args, e); !ok {
			return code
		}
		fmt.Fprintf(e.stdout, "mcp-acpfs %s\n", version())
		return exitOK
	},
	check: parseNoOperands,
}

// version returns the version of the binary (see versionOf).
func version() string {
	info, _ := debug.ReadBuildInfo()
	return versionOf(stampedVersion, info)
}

// versionOf returns stamped when it is set; else the module version the
// go command recorded in info; else "devel-" and the commit it was built
// from, "+dirty" when the work tree had changes; else "(devel)". info may be
// nil.
func versionOf(stamped string, info *debug.BuildInfo) string {
	if stamped != "" {
		return stamped
	}
	if info == nil {
		return "(devel)"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev == "" {
		return "(devel)"
	}
	return "devel-" + rev[:min(len(rev), 12)] + dirty
}
