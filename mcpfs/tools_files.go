package mcpfs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fspath"
	"github.com/mcp-acpfs/mcp-acpfs/internal/lift"
)

// Tool names of the metadata, listing and file-management tools.
const (
	GetFileInfo     = "get_file_info"
	ListDirectory   = "list_directory"
	DirectoryTree   = "directory_tree"
	CreateDirectory = "create_directory"
	MoveFile        = "move_file"
	DeleteFile      = "delete_file"
)

// Limits of the listing tools.
const (
	// MaxListEntries is the most entries list_directory returns.
	MaxListEntries = 1000
	// MaxTreeEntries is the most entries directory_tree returns, at all
	// depths together.
	MaxTreeEntries = 2000
	// DefaultTreeDepth and MaxTreeDepth bound directory_tree's maxDepth.
	DefaultTreeDepth = 3
	MaxTreeDepth     = 10
)

// DefaultTreeExcludes are the names directory_tree leaves out unless asked
// for the directory itself: version control, dependencies and build output.
var DefaultTreeExcludes = []string{".git", "node_modules", "dist", "build", "__pycache__", ".next"}

// addFileTools registers the metadata, listing and file-management tools.
func (b *binding) addFileTools() {
	b.srv.AddTool(b.getFileInfoTool(), b.getFileInfo)
	b.srv.AddTool(b.listDirectoryTool(), b.listDirectory)
	b.srv.AddTool(b.directoryTreeTool(), b.directoryTree)
	if !b.sess.ReadOnly {
		b.srv.AddTool(b.createDirectoryTool(), b.createDirectory)
		b.srv.AddTool(b.moveFileTool(), b.moveFile)
		b.srv.AddTool(b.deleteFileTool(), b.deleteFile)
	}
}

// Output schemas. Every success result carries structured content that
// validates against its tool's schema; error results carry only text.
var (
	typeSchema = map[string]any{
		"type":        "string",
		"enum":        []string{string(fsruntime.TypeFile), string(fsruntime.TypeDirectory), string(fsruntime.TypeSymlink), string(fsruntime.TypeOther)},
		"description": "file, directory, symlink (never followed), or other (a FIFO, socket or device).",
	}
	modifiedSchema = map[string]any{
		"type":        "string",
		"format":      "date-time",
		"description": "The last modification time, RFC 3339 in UTC.",
	}
	absPathSchema = map[string]any{"type": "string", "description": "The absolute path."}

	fileInfoSchema = objectSchema(map[string]any{
		"path": absPathSchema,
		"name": map[string]any{"type": "string", "description": "The base name."},
		"type": typeSchema,
		"size": map[string]any{"type": "integer", "minimum": 0,
			"description": "The size in bytes; for a symlink, the length of its target."},
		"modified": modifiedSchema,
		"permissions": map[string]any{"type": "string", "pattern": "^[r-][w-][xsS-][r-][w-][xsS-][r-][w-][xtT-]$",
			"description": `The Unix permission string, as ls shows it without the type letter, e.g. "rw-r--r--".`},
		"mode": map[string]any{"type": "string", "pattern": "^[0-7]{4}$",
			"description": `The permission bits in octal, with setuid, setgid and sticky, e.g. "0644".`},
	}, "path", "name", "type", "size", "modified", "permissions", "mode")

	listEntrySchema = objectSchema(map[string]any{
		"name":     map[string]any{"type": "string", "description": "The entry's name in the directory."},
		"type":     typeSchema,
		"size":     map[string]any{"type": "integer", "minimum": 0, "description": "The size in bytes (with details)."},
		"modified": map[string]any{"type": "string", "format": "date-time", "description": "The last modification time, RFC 3339 in UTC (with details)."},
	}, "name", "type")

	listSchema = objectSchema(map[string]any{
		"path":    absPathSchema,
		"entries": map[string]any{"type": "array", "items": listEntrySchema, "description": "The entries, sorted by name."},
		"truncated": map[string]any{"type": "boolean",
			"description": fmt.Sprintf("True if the directory has more than the %d entries listed.", MaxListEntries)},
	}, "path", "entries", "truncated")

	treeNodeRef  = map[string]any{"$ref": "#/$defs/node"}
	treeSchema   = treeOutputSchema()
	createSchema = objectSchema(map[string]any{
		"path":    absPathSchema,
		"created": map[string]any{"type": "boolean", "description": "False if something already existed at the path."},
	}, "path")
	moveSchema = objectSchema(map[string]any{
		"source":      map[string]any{"type": "string", "description": "The absolute path moved from."},
		"destination": map[string]any{"type": "string", "description": "The absolute path moved to."},
		"replaced":    map[string]any{"type": "boolean", "description": "True if an existing destination was replaced."},
	}, "source", "destination")
	deleteSchema = objectSchema(map[string]any{
		"path": absPathSchema,
		"type": typeSchema,
	}, "path")
)

func treeOutputSchema() map[string]any {
	node := objectSchema(map[string]any{
		"name": map[string]any{"type": "string"},
		"type": typeSchema,
		"children": map[string]any{"type": "array", "items": treeNodeRef,
			"description": "A directory's entries, sorted by name. Absent for a directory at the depth limit (not descended into) and for anything that is not a directory."},
		"error": map[string]any{"type": "string", "description": "Why a directory's entries could not be listed."},
	}, "name", "type")
	s := objectSchema(map[string]any{
		"path":     absPathSchema,
		"maxDepth": map[string]any{"type": "integer", "minimum": 1, "description": "The depth limit applied."},
		"entries":  map[string]any{"type": "integer", "minimum": 0, "description": "How many entries the tree holds."},
		"truncated": map[string]any{"type": "boolean",
			"description": fmt.Sprintf("True if the tree stopped at the cap of %d entries.", MaxTreeEntries)},
		"tree": map[string]any{"type": "array", "items": treeNodeRef, "description": "The entries of path, sorted by name."},
	}, "path", "maxDepth", "entries", "truncated", "tree")
	s["$defs"] = map[string]any{"node": node}
	return s
}

// objectSchema is a closed object schema.
func objectSchema(props map[string]any, required ...string) map[string]any {
	return map[string]any{
		"type":                 "object",
		"properties":           props,
		"required":             required,
		"additionalProperties": false,
	}
}

// withOutputSchema sets a tool's output schema from a schema literal.
func withOutputSchema(schema map[string]any) mcp.ToolOption {
	raw, err := json.Marshal(schema)
	if err != nil {
		panic(err) // the literals above are plain JSON
	}
	return mcp.WithRawOutputSchema(raw)
}

func (b *binding) getFileInfoTool() mcp.Tool {
	desc := "Type, size, modification time (UTC) and permissions of a path, without reading it. " +
		"A symlink is described itself; end the path with / to follow it."
	return mcp.NewTool(GetFileInfo,
		mcp.WithToolTitle("Get file info"),
		mcp.WithDescription(desc),
		mcp.WithString("path", mcp.Required(), mcp.Description(pathArg)),
		withOutputSchema(fileInfoSchema),
		hints("Get file info", true, false, true),
	)
}

func (b *binding) listDirectoryTool() mcp.Tool {
	desc := fmt.Sprintf("List one directory's entries (at most %d), sorted, with their types; "+
		"details adds sizes and modification times.", MaxListEntries)
	return mcp.NewTool(ListDirectory,
		mcp.WithToolTitle("List directory"),
		mcp.WithDescription(desc),
		mcp.WithString("path", mcp.Required(), mcp.Description(pathArg)),
		mcp.WithBoolean("details", mcp.DefaultBool(false), mcp.Description("Add sizes and times")),
		withOutputSchema(listSchema),
		hints("List directory", true, false, true),
	)
}

func (b *binding) directoryTreeTool() mcp.Tool {
	desc := fmt.Sprintf("The tree under a directory, sorted, at most %d entries. ", MaxTreeEntries) +
		"Leaves out " + strings.Join(DefaultTreeExcludes, ", ") + " (unless given as path) and what exclude matches. " +
		"Symlinks are not followed."
	return mcp.NewTool(DirectoryTree,
		mcp.WithToolTitle("Directory tree"),
		mcp.WithDescription(desc),
		mcp.WithString("path", mcp.Required(), mcp.Description(pathArg)),
		mcp.WithInteger("maxDepth", mcp.Min(1), mcp.Max(MaxTreeDepth),
			mcp.Description(fmt.Sprintf("Levels to show; default %d", DefaultTreeDepth))),
		mcp.WithArray("exclude", mcp.WithStringItems(),
			mcp.Description("Globs over names, or over paths if they hold a /")),
		withOutputSchema(treeSchema),
		hints("Directory tree", true, false, true),
	)
}

func (b *binding) createDirectoryTool() mcp.Tool {
	return mcp.NewTool(CreateDirectory,
		mcp.WithToolTitle("Create directory"),
		mcp.WithDescription("Create a directory and its missing parents, as mkdir -p."),
		mcp.WithString("path", mcp.Required(), mcp.Description(pathArg)),
		withOutputSchema(createSchema),
		hints("Create directory", false, false, true),
	)
}

func (b *binding) moveFileTool() mcp.Tool {
	desc := "Move or rename a file or directory to destination, the new path itself. " +
		"An existing destination is replaced only with overwrite, and never a non-empty directory."
	return mcp.NewTool(MoveFile,
		mcp.WithToolTitle("Move file"),
		mcp.WithDescription(desc),
		mcp.WithString("source", mcp.Required(), mcp.Description(pathArg)),
		mcp.WithString("destination", mcp.Required(), mcp.Description(pathArg)),
		mcp.WithBoolean("overwrite", mcp.DefaultBool(false), mcp.Description("Replace an existing destination")),
		withOutputSchema(moveSchema),
		hints("Move file", false, true, false),
	)
}

func (b *binding) deleteFileTool() mcp.Tool {
	desc := "Delete a file, a symlink (not its target) or a directory; " +
		"a non-empty directory needs recursive. It cannot be undone."
	return mcp.NewTool(DeleteFile,
		mcp.WithToolTitle("Delete file"),
		mcp.WithDescription(desc),
		mcp.WithString("path", mcp.Required(), mcp.Description(pathArg)),
		mcp.WithBoolean("recursive", mcp.DefaultBool(false), mcp.Description("Delete a directory's contents too")),
		withOutputSchema(deleteSchema),
		hints("Delete file", false, true, false),
	)
}

// unsupportedError reports that the session's FS lacks an optional
// interface. It matches errors.ErrUnsupported.
type unsupportedError struct{ what string }

func (e unsupportedError) Error() string { return e.what + " is not supported by this session's files" }
func (e unsupportedError) Unwrap() error { return errors.ErrUnsupported }

// argError is an argument that the input schema cannot refuse: a path of
// the wrong type, a pattern that does not parse. It matches fs.ErrInvalid.
type argError string

func (e argError) Error() string { return string(e) }
func (e argError) Unwrap() error { return fs.ErrInvalid }

// optional returns fsys as the optional interface T, or the error result
// saying that op is not supported.
func optional[T any](fsys fsruntime.FS, op, path, what string) (T, *mcp.CallToolResult) {
	t, ok := fsys.(T)
	if !ok {
		return t, errorResult(op, path, unsupportedError{what})
	}
	return t, nil
}

// abs makes a tool's path argument absolute. dir reports that the
// argument ended in a separator or a "." component ([fspath.NamesDir]),
// which the cleaning drops: such a path must name a directory, as in
// POSIX, so a tool that acts on whatever lies at the path checks that it
// is one (with [mustBeDir] or [followedDir]), and only then. The tools
// that take only a directory need not: they refuse anything else anyway.
func (b *binding) abs(op, p string) (abs string, dir bool, res *mcp.CallToolResult) {
	abs, err := fspath.Abs(b.sess.WorkDir, b.expand(p))
	if err != nil {
		return "", false, errorResult(op, p, err)
	}
	return abs, fspath.NamesDir(b.expand(p)), nil
}

// expand expands a leading ~ of a path argument to the user's home
// directory ([fspath.ExpandHome]); the roots then apply as to any path.
func (b *binding) expand(p string) string { return fspath.ExpandHome(b.home, p) }

// notDirError refuses a path that ends in a separator but names something
// other than a directory: POSIX's ENOTDIR. It matches fs.ErrInvalid.
type notDirError struct {
	kind fsruntime.FileType // what the path names
	what string             // whose kind it is, if not the path's own
}

func (e notDirError) Error() string {
	kind := "a " + string(e.kind)
	if e.kind == fsruntime.TypeOther {
		kind = "a special file"
	}
	if e.what != "" {
		return "not a directory: a path that ends in / names a directory, and " + e.what + " is " + kind
	}
	return "not a directory: it is " + kind + ", and a path that ends in / names a directory (give it without the /)"
}

func (e notDirError) Unwrap() error { return fs.ErrInvalid }

// notDir is the error of op on p, given with a trailing separator, where
// p is of kind and not a directory.
func notDir(op, p string, kind fsruntime.FileType) error {
	return &fs.PathError{Op: op, Path: withSlash(p), Err: notDirError{kind: kind}}
}

// withSlash is p with the trailing separator it was given with.
func withSlash(p string) string {
	if strings.HasSuffix(p, string(filepath.Separator)) {
		return p
	}
	return p + string(filepath.Separator)
}

// mustBeDir checks the path argument p that ended in a separator, for a
// tool that acts on a final symlink itself (a move or a delete): p, not
// followed, must be a directory. A symlink to one is refused, as Linux's
// rename and rmdir refuse "link/", so that no such call reaches into the
// link's target. It returns p's description.
func mustBeDir(ctx context.Context, fsys fsruntime.FS, op, p string) (fsruntime.FileInfo, *mcp.CallToolResult) {
	sfs, res := optional[fsruntime.StatFS](fsys, op, p, "describing files")
	if res != nil {
		return fsruntime.FileInfo{}, res
	}
	info, err := sfs.Stat(ctx, p)
	if err != nil {
		return fsruntime.FileInfo{}, errorResult(op, p, asOp(op, err))
	}
	if info.Type != fsruntime.TypeDirectory {
		return fsruntime.FileInfo{}, errorResult(op, p, notDir(op, p, info.Type))
	}
	return info, nil
}

// followedDir checks the path argument p that ended in a separator, for a
// tool that reads what lies at the path: p, with a symlink at its end
// followed within the roots, must be a directory. It returns the
// directory's description, under p's name.
func followedDir(ctx context.Context, fsys fsruntime.FS, op, p string) (fsruntime.FileInfo, *mcp.CallToolResult) {
	wfs, res := optional[fsruntime.WalkFS](fsys, op, p, "following a path to a directory")
	if res != nil {
		return fsruntime.FileInfo{}, res
	}
	// A walk's first call describes its root, resolved as any path
	// argument is; stopping there reads no directory.
	var info fsruntime.FileInfo
	err := wfs.Walk(ctx, p, func(_ string, fi fsruntime.FileInfo, err error) error {
		if err != nil {
			return err
		}
		info = fi
		return fs.SkipAll
	})
	if err != nil {
		return fsruntime.FileInfo{}, errorResult(op, p, asOp(op, err))
	}
	if info.Type != fsruntime.TypeDirectory {
		return fsruntime.FileInfo{}, errorResult(op, p, notDir(op, p, info.Type))
	}
	return info, nil
}

// asOp makes the *fs.PathError of a check on the way name op, the tool's
// operation, rather than the check's.
func asOp(op string, err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok && pe.Op != op {
		return &fs.PathError{Op: op, Path: pe.Path, Err: pe.Err}
	}
	return err
}

// bindArgs decodes a tool's arguments.
func bindArgs(req mcp.CallToolRequest, op string, args any) *mcp.CallToolResult {
	if err := req.BindArguments(args); err != nil {
		return errorResult(op, "", fmt.Errorf("invalid arguments: %w", err))
	}
	return nil
}

// pathOnlyArgs are the arguments of the tools that take only a path.
type pathOnlyArgs struct {
	Path string `json:"path"`
}

// fileInfoOutput is get_file_info's structured output.
type fileInfoOutput struct {
	Path        string             `json:"path"`
	Name        string             `json:"name"`
	Type        fsruntime.FileType `json:"type"`
	Size        int64              `json:"size"`
	Modified    string             `json:"modified"`
	Permissions string             `json:"permissions"`
	Mode        string             `json:"mode"`
}

func (b *binding) getFileInfo(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	const op = "stat"
	var args pathOnlyArgs
	if res := bindArgs(req, op, &args); res != nil {
		return res, nil
	}
	p, dir, res := b.abs(op, args.Path)
	if res != nil {
		return res, nil
	}
	fsys, done := b.acquire(ctx)
	defer done()
	sfs, res := optional[fsruntime.StatFS](fsys, op, p, "describing files")
	if res != nil {
		return res, nil
	}
	info, err := sfs.Stat(ctx, p)
	if err != nil {
		return errorResult(op, p, err), nil
	}
	switch {
	case !dir || info.Type == fsruntime.TypeDirectory:
	case info.Type == fsruntime.TypeSymlink:
		// "link/" is the directory the link leads to, as stat has it.
		if info, res = followedDir(ctx, fsys, op, p); res != nil {
			return res, nil
		}
	default:
		return errorResult(op, p, notDir(op, p, info.Type)), nil
	}
	out := fileInfoOutput{
		Path:        p,
		Name:        filepath.Base(p),
		Type:        info.Type,
		Size:        max(info.Size, 0),
		Modified:    formatTime(info.ModTime),
		Permissions: permString(info.Mode),
		Mode:        octalMode(info.Mode),
	}
	text := fmt.Sprintf("%s\ntype: %s\nsize: %s\nmodified: %s\npermissions: %s (%s)",
		p, out.Type, sizeText(out.Size), out.Modified, out.Permissions, out.Mode)
	return mcp.NewToolResultStructured(out, text), nil
}

// listEntry is one entry of list_directory's structured output.
// listEntry is one entry of list_directory's structured output; Size and
// Modified are there with details only.
type listEntry struct {
	Name     string             `json:"name"`
	Type     fsruntime.FileType `json:"type"`
	Size     *int64             `json:"size,omitempty"`
	Modified string             `json:"modified,omitempty"`
}

type listArgs struct {
	Path    string `json:"path"`
	Details bool   `json:"details"`
}

type listOutput struct {
	Path      string      `json:"path"`
	Entries   []listEntry `json:"entries"`
	Truncated bool        `json:"truncated"`
}

func (b *binding) listDirectory(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	const op = "list"
	var args listArgs
	if res := bindArgs(req, op, &args); res != nil {
		return res, nil
	}
	p, _, res := b.abs(op, args.Path) // the listing refuses anything but a directory
	if res != nil {
		return res, nil
	}
	fsys, done := b.acquire(ctx)
	defer done()
	dfs, res := optional[fsruntime.DirFS](fsys, op, p, "listing directories")
	if res != nil {
		return res, nil
	}
	var out listOutput
	if args.Details {
		infos, truncated, err := dfs.ReadDir(ctx, p, MaxListEntries)
		if err != nil {
			return errorResult(op, p, err), nil
		}
		out.Entries, out.Truncated = make([]listEntry, len(infos)), truncated
		for i, info := range infos {
			size := max(info.Size, 0)
			out.Entries[i] = listEntry{Name: info.Name, Type: info.Type, Size: &size, Modified: formatTime(info.ModTime)}
		}
	} else {
		entries, truncated, err := dfs.ListDir(ctx, p, MaxListEntries)
		if err != nil {
			return errorResult(op, p, err), nil
		}
		if len(entries) > MaxListEntries {
			entries, truncated = entries[:MaxListEntries], true
		}
		if res := b.renderedListing(ctx, p, entries, truncated); res != nil { // listrender.go
			return withNote(res, b.instructionNote(ctx, fsys, p)), nil
		}
		out.Entries, out.Truncated = listEntries(entries), truncated
	}
	out.Path = p
	if len(out.Entries) > MaxListEntries {
		out.Entries, out.Truncated = out.Entries[:MaxListEntries], true
	}
	// DirFS sorts by name. The text and the structured content are
	// spliced in by the transport (package lift).
	structured := lift.Structured(ctx, out, 64+len(out.Entries)*64, out.appendJSON)
	res = mcp.NewToolResultStructured(structured, lift.Result(ctx, listText(out)))
	return withNote(res, b.instructionNote(ctx, fsys, p)), nil // instructions.go
}

// listEntries returns the entries of a listing without details.
func listEntries(entries []fsruntime.DirEntry) []listEntry {
	out := make([]listEntry, len(entries))
	for i, e := range entries {
		out[i] = listEntry{Name: e.Name, Type: e.Type}
	}
	return out
}

// appendJSON appends o as encoding/json encodes it (up to the escaping of
// valid strings), for lift.Structured.
func (o listOutput) appendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"path":`...)
	if b, err = lift.QuoteJSON(b, o.Path); err != nil {
		return nil, err
	}
	b = append(b, `,"entries":[`...)
	for i, e := range o.Entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		if b, err = lift.QuoteJSON(b, e.Name); err != nil {
			return nil, err
		}
		b = append(b, `,"type":`...)
		if b, err = lift.QuoteJSON(b, string(e.Type)); err != nil {
			return nil, err
		}
		if e.Size != nil {
			b = append(b, `,"size":`...)
			b = strconv.AppendInt(b, *e.Size, 10)
		}
		if e.Modified != "" {
			b = append(b, `,"modified":`...)
			if b, err = lift.QuoteJSON(b, e.Modified); err != nil {
				return nil, err
			}
		}
		b = append(b, '}')
	}
	b = append(b, `],"truncated":`...)
	b = strconv.AppendBool(b, o.Truncated)
	return append(b, '}'), nil
}

// listText is list_directory's text content: a count, then an entry a
// line, as ls -F shows them: a directory's name ends in /, a symlink's in
// @, and any other kind but a file says what it is.
func listText(out listOutput) string {
	var sb strings.Builder
	sb.Grow(64 + len(out.Entries)*16)
	switch n := len(out.Entries); n {
	case 0:
		fmt.Fprintf(&sb, "%s is empty", textName(out.Path))
	case 1:
		fmt.Fprintf(&sb, "%s: 1 entry", textName(out.Path))
	default:
		fmt.Fprintf(&sb, "%s: %d entries", textName(out.Path), n)
	}
	if out.Truncated {
		fmt.Fprintf(&sb, " (truncated: the directory has more than %d entries)", MaxListEntries)
	}
	if len(out.Entries) > 0 {
		sb.WriteString(" (directories end in /, symlinks in @)")
	}
	for _, e := range out.Entries {
		sb.WriteByte('\n')
		sb.WriteString(textName(e.Name))
		switch e.Type {
		case fsruntime.TypeDirectory:
			sb.WriteByte('/')
		case fsruntime.TypeFile:
			if e.Size != nil {
				fmt.Fprintf(&sb, "  (%s, modified %s)", sizeText(*e.Size), e.Modified)
			}
		case fsruntime.TypeSymlink:
			sb.WriteByte('@')
		default:
			sb.WriteString(" (other: not a file, directory or symlink)")
		}
	}
	return sb.String()
}

type treeArgs struct {
	Path     string   `json:"path"`
	MaxDepth int      `json:"maxDepth"`
	Exclude  []string `json:"exclude"`
}

// treeNode is one entry of directory_tree's structured output. Children
// is nil for anything not descended into, and empty (written as []) for an
// empty directory.
type treeNode struct {
	Name     string             `json:"name"`
	Type     fsruntime.FileType `json:"type"`
	Children []*treeNode        `json:"children,omitzero"`
	Error    string             `json:"error,omitempty"`
}

type treeOutput struct {
	Path      string      `json:"path"`
	MaxDepth  int         `json:"maxDepth"`
	Entries   int         `json:"entries"`
	Truncated bool        `json:"truncated"`
	Tree      []*treeNode `json:"tree"`
}

func (b *binding) directoryTree(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	const op = "tree"
	var args treeArgs
	if res := bindArgs(req, op, &args); res != nil {
		return res, nil
	}
	p, _, res := b.abs(op, args.Path) // the walk below refuses anything but a directory
	if res != nil {
		return res, nil
	}
	depth := args.MaxDepth
	switch {
	case depth == 0:
		depth = DefaultTreeDepth
	case depth < 1 || depth > MaxTreeDepth: // the schema says so already
		return errorResult(op, p, argError(fmt.Sprintf("maxDepth must be from 1 to %d, not %d", MaxTreeDepth, depth))), nil
	}
	for _, pat := range args.Exclude {
		if !doublestar.ValidatePattern(pat) {
			return errorResult(op, p, argError(fmt.Sprintf("exclude pattern %q is not a valid glob", pat))), nil
		}
	}
	excluded := func(name, rel string) bool {
		if slices.Contains(DefaultTreeExcludes, name) {
			return true
		}
		for _, pat := range args.Exclude {
			if doublestar.MatchUnvalidated(pat, name) || strings.Contains(pat, "/") && doublestar.MatchUnvalidated(pat, rel) {
				return true
			}
		}
		return false
	}

	fsys, done := b.acquire(ctx)
	defer done()
	wfs, res := optional[fsruntime.WalkFS](fsys, op, p, "walking directories")
	if res != nil {
		return res, nil
	}
	top := &treeNode{Name: filepath.Base(p), Type: fsruntime.TypeDirectory, Children: []*treeNode{}}
	dirs := map[string]*treeNode{p: top}
	out := treeOutput{Path: p, MaxDepth: depth}
	err := wfs.Walk(ctx, p, func(path string, info fsruntime.FileInfo, err error) error {
		if path == p {
			if err != nil {
				return err
			}
			if info.Type != fsruntime.TypeDirectory {
				return &fs.PathError{Op: op, Path: p, Err: argError("not a directory (it is a " + string(info.Type) + ")")}
			}
			return nil
		}
		if err != nil {
			// A directory that could not be listed, after it was
			// reported; or an entry that could not be described.
			if n := dirs[path]; n != nil {
				n.Error = errorCause(err)
				n.Children = nil
			}
			return nil
		}
		parent := dirs[filepath.Dir(path)]
		rel, rerr := filepath.Rel(p, path)
		if parent == nil || rerr != nil {
			return nil // not under a directory shown: cannot happen in a lexical walk
		}
		rel = filepath.ToSlash(rel)
		if excluded(info.Name, rel) {
			if info.Type == fsruntime.TypeDirectory {
				return fs.SkipDir
			}
			return nil
		}
		if out.Entries >= MaxTreeEntries {
			out.Truncated = true
			return fs.SkipAll
		}
		out.Entries++
		n := &treeNode{Name: info.Name, Type: info.Type}
		parent.Children = append(parent.Children, n)
		if info.Type == fsruntime.TypeDirectory {
			if strings.Count(rel, "/")+1 >= depth {
				return fs.SkipDir
			}
			n.Children = []*treeNode{}
			dirs[path] = n
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.SkipAll) {
		return errorResult(op, p, err), nil
	}
	out.Tree = top.Children

	var sb strings.Builder
	sb.WriteString(textName(p))
	if !strings.HasSuffix(p, string(filepath.Separator)) { // a volume's root has one
		sb.WriteByte(filepath.Separator)
	}
	writeTree(&sb, out.Tree, "  ")
	fmt.Fprintf(&sb, "\n(%d entries, maxDepth %d", out.Entries, depth)
	if out.Truncated {
		fmt.Fprintf(&sb, "; truncated at %d entries", MaxTreeEntries)
	}
	sb.WriteString(")")
	return withNote(mcp.NewToolResultStructured(out, sb.String()), b.instructionNote(ctx, fsys, p)), nil // instructions.go
}

// writeTree renders nodes as an indented list: directories end in /,
// symlinks are marked, and unexpanded directories say so.
func writeTree(sb *strings.Builder, nodes []*treeNode, indent string) {
	for _, n := range nodes {
		sb.WriteString("\n" + indent + textName(n.Name))
		switch n.Type {
		case fsruntime.TypeDirectory:
			sb.WriteString("/")
			switch {
			case n.Error != "":
				sb.WriteString(" (not listed: " + textLine(n.Error) + ")")
			case n.Children == nil:
				sb.WriteString(" (not expanded: maxDepth)")
			}
			writeTree(sb, n.Children, indent+"  ")
		case fsruntime.TypeSymlink:
			sb.WriteString(" (symlink)")
		case fsruntime.TypeOther:
			sb.WriteString(" (special file)")
		}
	}
}

type createOutput struct {
	Path    string `json:"path"`
	Created *bool  `json:"created,omitempty"`
}

func (b *binding) createDirectory(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	const op = "mkdir"
	var args pathOnlyArgs
	if res := bindArgs(req, op, &args); res != nil {
		return res, nil
	}
	p, _, res := b.abs(op, args.Path) // MkdirAll refuses a file in the way
	if res != nil {
		return res, nil
	}
	fsys, done := b.acquire(ctx)
	defer done()
	dfs, res := optional[fsruntime.DirFS](fsys, op, p, "creating directories")
	if res != nil {
		return res, nil
	}
	// Whether the directory is new is told by a look before it is made:
	// calls on the same path take turns, so that one of them alone finds
	// it missing.
	unlock, err := pathLocks.lock(ctx, p)
	if err != nil {
		return errorResult(op, p, err), nil
	}
	defer unlock()
	out := createOutput{Path: p}
	if sfs, ok := fsys.(fsruntime.StatFS); ok {
		_, err := sfs.Stat(ctx, p)
		isNew := errors.Is(err, fs.ErrNotExist)
		out.Created = &isNew
	}
	if err := dfs.MkdirAll(ctx, p); err != nil {
		return errorResult(op, p, err), nil
	}
	text := "created directory " + p
	if out.Created != nil && !*out.Created {
		text = "directory " + p + " already exists"
	}
	return mcp.NewToolResultStructured(out, text), nil
}

type moveArgs struct {
	Source      string `json:"source"`
	Destination string `json:"destination"`
	Overwrite   bool   `json:"overwrite"`
}

type moveOutput struct {
	Source      string `json:"source"`
	Destination string `json:"destination"`
	Replaced    *bool  `json:"replaced,omitempty"`
}

func (b *binding) moveFile(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	const op = "move"
	var args moveArgs
	if res := bindArgs(req, op, &args); res != nil {
		return res, nil
	}
	src, srcDir, res := b.abs(op, args.Source)
	if res != nil {
		return res, nil
	}
	dst, dstDir, res := b.abs(op, args.Destination)
	if res != nil {
		return res, nil
	}
	fsys, done := b.acquire(ctx)
	defer done()
	mfs, res := optional[fsruntime.MoveFS](fsys, op, src, "moving files")
	if res != nil {
		return res, nil
	}
	// Writes and edits of either path wait, and so does this for them: a
	// move never lands inside an edit's read, check and write.
	unlock, err := pathLocks.lockPaths(ctx, src, dst)
	if err != nil {
		return errorResult(op, src, err), nil
	}
	defer unlock()
	if srcDir || dstDir {
		if res := moveNamesDir(ctx, fsys, op, src, dst, srcDir); res != nil {
			return res, nil
		}
	}
	out := moveOutput{Source: src, Destination: dst}
	if sfs, ok := fsys.(fsruntime.StatFS); ok && args.Overwrite {
		_, err := sfs.Stat(ctx, dst)
		replaced := err == nil
		out.Replaced = &replaced
	}
	if err := mfs.Move(ctx, src, dst, args.Overwrite); err != nil {
		return errorResult(op, src, err), nil
	}
	b.recordMove(ctx, src, dst) // ledger.go
	if out.Replaced == nil && !args.Overwrite {
		no := false // Move refuses an existing destination
		out.Replaced = &no
	}
	text := "moved " + src + " to " + dst
	if out.Replaced != nil && *out.Replaced {
		text += " (replacing what was there)"
	}
	return mcp.NewToolResultStructured(out, text), nil
}

// moveNamesDir checks a move whose source or destination ended in a
// separator, and so names a directory: the source must be one, whichever
// of the two was given so (after the move, the destination is the
// source), as rename has it. A symlink to a directory is not one here:
// the move would take the link.
func moveNamesDir(ctx context.Context, fsys fsruntime.FS, op, src, dst string, srcDir bool) *mcp.CallToolResult {
	if srcDir {
		_, res := mustBeDir(ctx, fsys, op, src)
		return res
	}
	sfs, res := optional[fsruntime.StatFS](fsys, op, src, "describing files")
	if res != nil {
		return res
	}
	info, err := sfs.Stat(ctx, src)
	switch {
	case err != nil:
		return errorResult(op, src, asOp(op, err))
	case info.Type == fsruntime.TypeDirectory:
		return nil
	}
	// What is wrong with the destination itself, such as lying outside
	// the roots, comes first.
	if _, err := sfs.Stat(ctx, dst); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return errorResult(op, dst, asOp(op, err))
	}
	return errorResult(op, dst, &fs.PathError{Op: op, Path: withSlash(dst), Err: notDirError{kind: info.Type, what: "the source"}})
}

type deleteArgs struct {
	Path      string `json:"path"`
	Recursive bool   `json:"recursive"`
}

type deleteOutput struct {
	Path string             `json:"path"`
	Type fsruntime.FileType `json:"type,omitempty"`
}

func (b *binding) deleteFile(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	const op = "delete"
	var args deleteArgs
	if res := bindArgs(req, op, &args); res != nil {
		return res, nil
	}
	p, dir, res := b.abs(op, args.Path)
	if res != nil {
		return res, nil
	}
	fsys, done := b.acquire(ctx)
	defer done()
	mfs, res := optional[fsruntime.MoveFS](fsys, op, p, "deleting files")
	if res != nil {
		return res, nil
	}
	// As for a move: no delete lands inside an edit of the same path.
	unlock, err := pathLocks.lockPaths(ctx, p)
	if err != nil {
		return errorResult(op, p, err), nil
	}
	defer unlock()
	out := deleteOutput{Path: p}
	if dir {
		info, res := mustBeDir(ctx, fsys, op, p)
		if res != nil {
			return res, nil
		}
		out.Type = info.Type
	} else if sfs, ok := fsys.(fsruntime.StatFS); ok {
		if info, err := sfs.Stat(ctx, p); err == nil {
			out.Type = info.Type
		}
	}
	if err := mfs.Remove(ctx, p, args.Recursive); err != nil {
		return errorResult(op, p, err), nil
	}
	b.recordDelete(ctx, p) // ledger.go
	text := "deleted " + p
	switch out.Type {
	case fsruntime.TypeDirectory:
		text = "deleted directory " + p
		if args.Recursive {
			text += " and everything in it"
		}
	case fsruntime.TypeFile:
		text = "deleted file " + p
	case fsruntime.TypeSymlink:
		text = "deleted symlink " + p + " (not its target)"
	}
	return mcp.NewToolResultStructured(out, text), nil
}

// errorCause is the text of err without the operation and path that a
// *fs.PathError adds.
func errorCause(err error) string {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// formatTime renders a modification time for the tools' output.
func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// sizeText renders a size for a model: bytes, and a rounded unit above 1 KiB.
func sizeText(n int64) string {
	if n == 1 {
		return "1 byte"
	}
	if n < 1024 {
		return fsruntime.FormatSize(n)
	}
	return fmt.Sprintf("%s, %d bytes", fsruntime.FormatSize(n), n)
}

// permString renders m's permission bits as ls does, without the type
// letter: "rw-r--r--", with s, S, t or T for setuid, setgid and sticky.
func permString(m fs.FileMode) string {
	const rwx = "rwxrwxrwx"
	b := []byte("---------")
	for i := range 9 {
		if m&(1<<(8-i)) != 0 {
			b[i] = rwx[i]
		}
	}
	special := func(i int, set bool, c byte) {
		if !set {
			return
		}
		if b[i] == 'x' {
			b[i] = c
		} else {
			b[i] = c - 'a' + 'A'
		}
	}
	special(2, m&fs.ModeSetuid != 0, 's')
	special(5, m&fs.ModeSetgid != 0, 's')
	special(8, m&fs.ModeSticky != 0, 't')
	return string(b)
}

// octalMode renders m's permission bits in octal, as chmod takes them.
func octalMode(m fs.FileMode) string {
	n := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		n |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		n |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		n |= 0o1000
	}
	return fmt.Sprintf("%04o", n)
}
