// Command release builds the release of mcp-acpfs.
//
// It writes an archive per platform (.tar.gz; .zip for Windows) holding the
// binary, README.md and LICENSE (when present); the MCP Bundles (.mcpb) for
// Claude Desktop: a universal one (macOS universal, Windows x64, Linux x64)
// and one per platform; a SHA256SUMS file of these; the MCP Registry's
// server.json; the Homebrew formula, the Scoop manifest and the winget
// manifests (when every platform is built); and the npm packages, ready
// to publish (a launcher, mcp-acpfs, and one package per platform). The
// same commit gives the same bytes. Run it from the root of the module:
//
//	go run ./release [-o dist] [-targets linux/amd64,...] [VERSION]
//
// VERSION defaults to what "git describe --tags --always --dirty" says. The
// binaries are built with CGO_ENABLED=0 and -trimpath, and VERSION is linked
// in, so that "mcp-acpfs version" prints it.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	out := fs.String("o", "dist", "the `dir`ectory to write the release into (emptied first)")
	targets := fs.String("targets", "", "comma-separated GOOS/GOARCH `list` to build (default: all of "+strings.Join(allTargets(), ",")+")")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: go run ./release [-o dir] [-targets list] [VERSION]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if fs.NArg() > 1 {
		fs.Usage()
		os.Exit(2)
	}
	opts := options{out: *out, version: fs.Arg(0)}
	if *targets != "" {
		opts.targets = strings.Split(*targets, ",")
	}
	if err := run(ctx, opts); err != nil {
		slog.Error("release failed", "err", err)
		os.Exit(1)
	}
}
