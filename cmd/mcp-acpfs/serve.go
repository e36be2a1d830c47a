package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/internal/loopback"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
	"github.com/mcp-acpfs/mcp-acpfs/mcptransport"
)

// tokenEnv names the environment variable that holds the bearer token of
// serve --http.
const tokenEnv = "MCP_ACPFS_TOKEN"

var serveCmd = &command{
	name:    "serve",
	summary: "serve text files over MCP (stdio, or Streamable HTTP on loopback)",
	usage: func(w io.Writer) {
		fmt.Fprint(w, `usage: mcp-acpfs serve [--root DIR]... [--read-only] [--max-file-size N] [--allow-hard-links] [--no-fsync] [--page-size N] [--line-numbers auto|on|off] [--no-read-guard] [--structured-content] [--http ADDR] [--http-no-auth] [--log-level LEVEL] [DIR...]

serve is an MCP server of file tools on local disk: read_text_file,
write_text_file, edit_text_file, read_media_file, get_file_info,
list_directory, directory_tree, glob, grep, create_directory, move_file and
delete_file, and the files themselves as file:// resources.
It speaks MCP on standard input and output, and logs on standard error.
It ends when standard input ends, or on SIGINT or SIGTERM.

The tools may use the files under each DIR, or --root DIR, which is the
same; the default is the current directory. The roots are taken in the
order given, whether as DIR or as --root, and relative paths given to the
tools resolve against the first. Flags may come before, between or after
the DIRs; a DIR whose name starts with "-" goes after "--".

Flags:

  --root DIR
	a directory whose files the tools may use; repeat it for more.
  --read-only
	leave out the tools that change files: write_text_file,
	edit_text_file, create_directory, move_file and delete_file.
  --max-file-size N
	the largest content a read returns or a write accepts, in bytes or
	with a binary unit: 512KiB, 10MiB, 1GiB (K, M, G mean the same).
	The default is 10MiB. A line range of a larger file can still be read.
	Above 10.5MiB it also raises the message limit (64MiB) to six times
	the size plus 1MiB, so that a file at the limit fits in a message
	however much of it JSON escapes.
  --allow-hard-links
	let the tools read and write a file that has more than one name
	(hard links). By default such a file is refused: a hard link made
	inside a root to a file outside it would otherwise reach that file.
  --no-fsync
	do not wait for written files to reach the disk. A write stays
	atomic: if this process crashes or is killed, the file holds its
	old content or the new, never a mix. But a power loss or a crash
	of the system may lose the latest writes, and on some file systems
	leave a newly written file empty. By default each write syncs the
	file before renaming it into place, and the directory after.
`+toolFlagsUsage+`  --http ADDR
	serve MCP Streamable HTTP at http://ADDR/mcp instead of stdio. ADDR
	must be a loopback address: 127.0.0.1:PORT, [::1]:PORT or
	localhost:PORT; port 0 picks a free port. The URL is logged at
	startup. Every request needs "Authorization: Bearer TOKEN", where
	TOKEN is $MCP_ACPFS_TOKEN, or a random token logged at startup when
	that is unset. Requests from web pages (another Host or Origin) are
	refused.
  --http-no-auth
	with --http, accept requests without a token.
  --log-level LEVEL
	debug, info, warn or error. The default is info.
`)
	},
	run: runServe,
	check: func(c *command, args []string, e *env) (int, bool) {
		_, code, ok := parseServe(c, args, e)
		return code, ok
	},
}

// serveConfig is the parsed command line of serve.
type serveConfig struct {
	roots       rootsFlag
	readOnly    bool
	maxFileSize sizeFlag
	hardLinks   bool
	noSync      bool
	httpAddr    string
	httpNoAuth  bool
	level       levelFlag
	tools       mcpfs.ToolOptions
}

// serveFlags returns the flags of serve, which set cfg.
func serveFlags(cfg *serveConfig, e *env) *flag.FlagSet {
	fs := newFlagSet("serve", e)
	fs.Var(&cfg.roots, "root", "a directory the tools may use (repeatable)")
	fs.BoolVar(&cfg.readOnly, "read-only", false, "leave out the tools that change files")
	fs.Var(&cfg.maxFileSize, "max-file-size", "the size limit of a read or a write")
	fs.BoolVar(&cfg.hardLinks, "allow-hard-links", false, "allow files that have other hard links")
	fs.BoolVar(&cfg.noSync, "no-fsync", false, "do not sync written files to the disk")
	toolFlags(fs, &cfg.tools)
	fs.StringVar(&cfg.httpAddr, "http", "", "serve Streamable HTTP on this loopback address")
	fs.BoolVar(&cfg.httpNoAuth, "http-no-auth", false, "accept HTTP requests without a token")
	fs.Var(&cfg.level, "log-level", "debug, info, warn or error")
	return fs
}

// diskOptions are the options of the Disk that serve's tools use.
func (cfg *serveConfig) diskOptions() fsruntime.DiskOptions {
	return fsruntime.DiskOptions{
		MaxFileSize:    int64(cfg.maxFileSize),
		AllowHardLinks: cfg.hardLinks,
		NoSync:         cfg.noSync,
	}
}

// parseServe parses the command line of serve c. ok is false when serve
// must not go on; code is then its exit code.
func parseServe(c *command, args []string, e *env) (cfg *serveConfig, code int, ok bool) {
	cfg = new(serveConfig)
	fs := serveFlags(cfg, e)
	// A DIR operand is a --root, in its place among them.
	var badDir bool
	code, ok = parseInterleaved(fs, args, e, c, func(dir string) {
		if err := cfg.roots.Set(dir); err != nil && !badDir {
			badDir = true
			fmt.Fprintf(e.stderr, "mcp-acpfs serve: DIR %q: %v\n", dir, err)
		}
	})
	if !ok {
		return nil, code, false
	}
	if badDir {
		usageLine(e.stderr, c)
		return nil, exitUsage, false
	}
	if cfg.httpAddr != "" {
		if err := loopback.CheckLoopbackAddr(cfg.httpAddr); err != nil {
			fmt.Fprintf(e.stderr, "mcp-acpfs serve: --http: %v\n", err)
			return nil, exitUsage, false
		}
	} else if cfg.httpNoAuth {
		fmt.Fprintln(e.stderr, "mcp-acpfs serve: --http-no-auth needs --http")
		return nil, exitUsage, false
	}
	return cfg, exitOK, true
}

func runServe(ctx context.Context, c *command, args []string, e *env) int {
	cfg, code, ok := parseServe(c, args, e)
	if !ok {
		return code
	}

	handler := slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: &cfg.level})
	logger := slog.New(handler)

	roots := []string(cfg.roots)
	if len(roots) == 0 {
		roots = []string{"."}
	}
	disk, err := fsruntime.OpenDisk(roots, cfg.diskOptions())
	if err != nil {
		fmt.Fprintf(e.stderr, "mcp-acpfs serve: %v\n", err)
		return exitFail
	}
	defer disk.Close()

	files := mcpfs.DiskFiles(disk, cfg.readOnly)
	srv, err := mcpfs.NewServer(files, mcpfs.Options{
		Version: version(),
		Logger:  logger,
		Tools:   cfg.tools,
	})
	if err != nil {
		fmt.Fprintf(e.stderr, "mcp-acpfs serve: %v\n", err)
		return exitFail
	}
	logger.Debug("serving", "roots", disk.Roots(), "read_only", cfg.readOnly, "max_file_size", disk.MaxFileSize(), "fsync", !cfg.noSync)

	if cfg.httpAddr != "" {
		err = serveHTTP(ctx, srv, cfg, e, mcpfs.TransportOptions(files, logger))
	} else {
		err = mcptransport.ServeStdio(ctx, srv, e.stdin, e.stdout, mcpfs.TransportOptions(files, logger))
	}
	if err != nil {
		logger.Error("serve failed", "err", err)
		return exitFail
	}
	return exitOK
}

// serveHTTP serves srv over Streamable HTTP on cfg.httpAddr until ctx is
// done.
func serveHTTP(ctx context.Context, srv *server.MCPServer, cfg *serveConfig, e *env, opts mcptransport.Options) error {
	logger := opts.Logger
	token := ""
	tokenFrom := "none"
	if !cfg.httpNoAuth {
		token, tokenFrom = e.getenv(tokenEnv), tokenEnv
		if token == "" {
			token, tokenFrom = loopback.NewToken(), "generated"
		}
	}
	ln, err := net.Listen("tcp", cfg.httpAddr)
	if err != nil {
		return err
	}
	url := "http://" + ln.Addr().String() + mcptransport.EndpointPath

	// This line is how a user learns the URL and a generated token, so it
	// is written whatever the log level.
	r := slog.NewRecord(time.Now(), slog.LevelInfo, "serving MCP over Streamable HTTP", 0)
	r.AddAttrs(slog.String("url", url))
	switch tokenFrom {
	case "generated":
		r.AddAttrs(slog.String("token", token))
	case tokenEnv:
		r.AddAttrs(slog.String("token", "$"+tokenEnv))
	default:
		r.AddAttrs(slog.String("auth", "none"))
	}
	if err := logger.Handler().Handle(ctx, r); err != nil {
		ln.Close()
		return err
	}
	if cfg.httpNoAuth {
		logger.Warn("HTTP requests are accepted without a token: any local process can use the tools")
	}

	hs := &http.Server{
		Handler:           mcptransport.NewHTTPHandler(srv, token, opts),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdownCtx); err != nil {
		hs.Close()
	}
	<-served
	return nil
}
