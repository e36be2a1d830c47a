package mcpfs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-acpfs/mcp-acpfs/capabilities"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpserve"
)

// Files is one agent session's files as the MCP tools see them.
//
// Its fields are read by [NewServer] and must not change afterwards.
type Files struct {
	// WorkDir is the absolute directory that relative paths resolve
	// against.
	WorkDir string

	// FS serves the reads and writes. It confines them to the session's
	// roots.
	FS fsruntime.FS

	// ReadOnly leaves out every tool that changes files: write_text_file,
	// edit_text_file, create_directory, move_file and delete_file.
	ReadOnly bool

	// MaxFileSize is the size limit FS enforces, in bytes, for the tool
	// descriptions. Zero leaves the limit unmentioned.
	MaxFileSize int64

	// Narrow, if not nil, returns an FS confined to those of dirs that lie
	// inside FS's roots (see [fsruntime.Disk.Narrow]): an MCP client's roots
	// narrow the session with it. An FS it returns that has a
	// Roots() []string method is asked for them, to warn when nothing is
	// left; one that is an io.Closer is closed once it is replaced and no
	// tool call uses it. nil means client roots are ignored.
	Narrow func(dirs []string) (fsruntime.FS, error)
}

// DiskFiles returns the Files of d: its working directory is d's first
// root, its size limit d's, and client roots narrow it with d.Narrow. The
// caller still owns d and closes it after the server is done.
func DiskFiles(d *fsruntime.Disk, readOnly bool) Files {
	s := Files{
		FS:          d,
		ReadOnly:    readOnly,
		MaxFileSize: d.MaxFileSize(),
		Narrow: func(dirs []string) (fsruntime.FS, error) {
			n, err := d.Narrow(dirs)
			if err != nil {
				return nil, err
			}
			return n, nil
		},
	}
	if roots := d.Roots(); len(roots) > 0 {
		s.WorkDir = roots[0]
	}
	return s
}

// Options configure the MCP server that [NewServer] builds.
type Options struct {
	// Name and Version identify the server to clients. They default to
	// "mcp-acpfs" and "(devel)".
	Name, Version string

	// Logger receives the server's own log lines and mcp-go's; mcp-go's
	// per-request lines are lowered to debug. nil discards them.
	Logger *slog.Logger

	// RootsTimeout bounds how long a tool call waits for a roots fetch in
	// flight, and the fetch itself. Zero means DefaultRootsTimeout.
	RootsTimeout time.Duration

	// Tools shape the tools and their results; see [ToolOptions].
	Tools ToolOptions
}

// DefaultRootsTimeout is the default of [Options.RootsTimeout].
const DefaultRootsTimeout = 5 * time.Second

// instructions is what the server tells a client about itself in the
// handshake: which of the tools offered to use for what, and, when
// sess.FS routes reads or writes to an editor (as a session of mcp-acpfs
// proxy does), that reads see its unsaved buffers and writes land in it.
func instructions(sess Files, tools ToolOptions) string {
	var b strings.Builder
	b.WriteString("Tools for the files of the user's workspace. Relative paths resolve against " + sess.WorkDir +
		"; only files inside the allowed roots can be used.\n")
	line := func(text string, names ...string) {
		for _, n := range names {
			if !tools.offers(n) {
				return
			}
		}
		b.WriteString("- " + text + "\n")
	}
	line("read_text_file reads a text file in pages; read_media_file reads an image or another binary file.", ReadTextFile)
	if !sess.ReadOnly {
		guard := ""
		if !tools.NoReadGuard {
			guard = " Both refuse a file this session has not read, or that changed since."
		}
		line("edit_text_file changes part of a file; write_text_file creates a file or replaces all of it."+guard, EditTextFile)
	}
	line("glob finds files by name, grep searches their contents; list_directory, directory_tree and get_file_info "+
		"show what is there, as saved on disk.", Glob)
	if !sess.ReadOnly {
		line("create_directory, move_file and delete_file manage files and directories.", MoveFile)
	}
	r, ok := sess.FS.(interface {
		Route(capabilities.Operation) capabilities.Route
	})
	reads := ok && r.Route(capabilities.OpRead) == capabilities.RouteEditor
	writes := ok && !sess.ReadOnly && r.Route(capabilities.OpWrite) == capabilities.RouteEditor
	if reads {
		b.WriteString("Reads go through the user's editor: they return the text open there, unsaved changes included, " +
			"which a shell or other file tools do not see.\n")
	}
	if writes {
		b.WriteString("Writes and edits go into the user's editor, which shows them to the user for review.\n")
	}
	if reads || writes {
		b.WriteString("Use these tools rather than any other way of reading or changing these files.\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// NewServer returns an MCP server for one session's files: the twelve file
// tools (the read-only ones only, if sess.ReadOnly) and the file://
// resources. Arguments are checked against the tools' input schemas, which
// reject unknown properties; results are not checked against the output
// schemas at run time (the tests do). The server serves any number of
// clients over any mcp-go transport, mcptransport's fastest with
// [TransportOptions]; a client's roots narrow only that client's view.
func NewServer(sess Files, opts Options) (*server.MCPServer, error) {
	srv, _, err := newServer(sess, opts)
	return srv, err
}

// newServer is NewServer, and also returns the server's binding.
func newServer(sess Files, opts Options) (*server.MCPServer, *binding, error) {
	if sess.FS == nil {
		return nil, nil, errors.New("mcpfs: Files.FS is nil")
	}
	if !filepath.IsAbs(sess.WorkDir) {
		return nil, nil, errors.New("mcpfs: Files.WorkDir " + strconv.Quote(sess.WorkDir) + " is not absolute")
	}
	if opts.Name == "" {
		opts.Name = "mcp-acpfs"
	}
	if opts.Version == "" {
		opts.Version = "(devel)"
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if opts.RootsTimeout <= 0 {
		opts.RootsTimeout = DefaultRootsTimeout
	}
	if err := opts.Tools.check(); err != nil {
		return nil, nil, err
	}

	b := &binding{
		sess:    sess,
		log:     logger,
		timeout: opts.RootsTimeout,
		tools:   opts.Tools,
		clients: make(map[string]*clientRoots),
		renders: newRenderCache(),
		ledgers: newLedgers(),
	}
	b.home, _ = os.UserHomeDir() // "" leaves ~ a name
	hooks := &server.Hooks{}
	srv := server.NewMCPServer(opts.Name, opts.Version,
		server.WithToolCapabilities(false),
		server.WithResourceCapabilities(true, false),
		server.WithLogging(),
		server.WithInputSchemaValidation(),
		server.WithStrictInputSchemaDefault(),
		server.WithRecovery(),
		server.WithInstructions(instructions(sess, opts.Tools)),
		server.WithLogger(slog.New(mcpserve.LowerInfo(logger.Handler()))),
		server.WithHooks(hooks),
		server.WithToolHandlerMiddleware(b.statelessRoots),
	)
	b.srv = srv
	hooks.AddAfterCallTool(func(_ context.Context, _ any, req *mcp.CallToolRequest, result any) {
		if schema, ok := b.inputSchemas[req.Params.Name]; ok {
			rewriteValidationResult(mcp.Tool{Name: req.Params.Name, InputSchema: schema}, req, result, sess.WorkDir)
		}
	})
	b.watchRoots(hooks)
	b.watchLedgers(hooks)   // ledger.go
	b.watchResources(hooks) // resources.go
	b.addTools()
	b.shapeTools() // tooloptions.go
	if err := b.encodeInputSchemas(); err != nil {
		return nil, nil, err
	}
	return srv, b, nil
}

// encodeInputSchemas gives every tool its input schema encoded once
// (RawInputSchema, the same JSON): mcp-go's input validation otherwise
// encodes a tool's structured schema on every call, to find its compiled
// validator by digest, which is most of the cost of validating. The
// structured schemas stay in b.inputSchemas for rewriteValidationResult.
func (b *binding) encodeInputSchemas() error {
	b.inputSchemas = make(map[string]mcp.ToolInputSchema)
	for name, st := range b.srv.ListTools() {
		if len(st.Tool.RawInputSchema) > 0 {
			continue
		}
		raw, err := json.Marshal(st.Tool.InputSchema)
		if err != nil {
			return fmt.Errorf("mcpfs: the input schema of %s: %w", name, err)
		}
		b.inputSchemas[name] = st.Tool.InputSchema
		tool := st.Tool
		tool.InputSchema = mcp.ToolInputSchema{}
		tool.RawInputSchema = raw
		b.srv.AddTool(tool, st.Handler)
	}
	return nil
}

// binding ties one MCP server to its session.
type binding struct {
	sess    Files
	srv     *server.MCPServer
	log     *slog.Logger
	timeout time.Duration
	tools   ToolOptions
	home    string // the user's home directory, for a leading ~; "" if unknown

	// inputSchemas are the tools' structured input schemas, by name; the
	// server has them encoded (encodeInputSchemas). Written by NewServer.
	inputSchemas map[string]mcp.ToolInputSchema

	mu      sync.Mutex
	clients map[string]*clientRoots // by MCP session id; guarded by mu

	watch *watcher // the file:// resource subscriptions; resources.go

	renders *renderCache // the listings kept rendered; listrender.go

	ledgers *ledgers // what each MCP session has read; ledger.go
}
