package mcpfs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fspath"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/search"
)

// Tool names of the search tools.
const (
	Glob = "glob"
	Grep = "grep"
)

// addSearchTools registers glob and grep. Both are read-only, and work on
// disk within the session's roots (ACP has no method for either), through
// the session FS's optional fsruntime.WalkFS.
func (b *binding) addSearchTools() {
	b.srv.AddTool(b.globTool(), b.glob)
	b.srv.AddTool(b.grepTool(), b.grep)
}

// searchSkipNote says which directories a search leaves out.
func searchSkipNote(unless string) string {
	return "Skips " + strings.Join(search.SkippedDirs, ", ") + " unless " + unless + ", and symlinks."
}

// windowsPatterns tells a model on Windows how to write a pattern, where
// \ escapes as everywhere: / between names, and a drive to start from.
func windowsPatterns() string {
	if filepath.Separator != '\\' {
		return ""
	}
	return "On Windows too, write / between names: C:/src/**/*.go, or /src/** on the working directory's drive. "
}

func (b *binding) globTool() mcp.Tool {
	desc := "Find paths by glob, such as **/*.go or src/**/*.{ts,tsx}, under path (default: the working directory). " +
		"* stays within a name, ** spans directories; case-sensitive. " + windowsPatterns() +
		fmt.Sprintf("At most %d results, sorted. ", search.DefaultGlobResults) +
		searchSkipNote("the pattern names them")
	return mcp.NewTool(Glob,
		mcp.WithToolTitle("Find files by glob"),
		mcp.WithDescription(desc),
		mcp.WithString("pattern", mcp.Required(), mcp.Description("Glob, relative to path")),
		mcp.WithString("path", mcp.Description(pathArg)),
		withSearchSchema(globSchema),
		hints("Find files by glob", true, false, true),
	)
}

func (b *binding) grepTool() mcp.Tool {
	desc := "Search text files for lines matching an RE2 regular expression (line by line). " +
		"path is a directory (default: the working directory) or a file; include filters names by glob (*.go). " +
		fmt.Sprintf("Returns path:line:text, sorted, at most maxResults (default %d, at most %d). ",
			search.DefaultGrepResults, search.MaxGrepResults) +
		"Skips binary files" + b.sizeNote(", files over %s") + "; " + strings.TrimPrefix(searchSkipNote("include names them"), "Skips ")
	return mcp.NewTool(Grep,
		mcp.WithToolTitle("Search file contents"),
		mcp.WithDescription(desc),
		mcp.WithString("pattern", mcp.Required(), mcp.Description("RE2 regular expression")),
		mcp.WithString("path", mcp.Description(pathArg)),
		mcp.WithString("include", mcp.Description("Glob over file names")),
		mcp.WithBoolean("ignoreCase", mcp.DefaultBool(false), mcp.Description("Ignore case")),
		mcp.WithInteger("maxResults", mcp.Min(1), mcp.Description("Most lines to return")),
		withSearchSchema(grepSchema),
		hints("Search file contents", true, false, true),
	)
}

// Output schemas. Every success result carries structured content that
// validates against its tool's schema; error results carry only text.
var (
	globSchema = searchObject(map[string]any{
		"root": map[string]any{"type": "string",
			"description": "The absolute directory searched: path, or the literal directory the pattern starts with."},
		"pattern": map[string]any{"type": "string", "description": "The pattern, as given."},
		"matches": map[string]any{"type": "array", "description": "The matching entries, sorted by path.",
			"items": searchObject(map[string]any{
				"path": map[string]any{"type": "string", "description": "The absolute path."},
				"type": map[string]any{"type": "string",
					"enum":        []string{string(fsruntime.TypeFile), string(fsruntime.TypeDirectory), string(fsruntime.TypeSymlink), string(fsruntime.TypeOther)},
					"description": "file, directory, symlink (never followed), or other (a FIFO, socket or device)."},
			}, "path", "type")},
		"truncated": map[string]any{"type": "boolean",
			"description": fmt.Sprintf("True if more than the %d entries listed match.", search.DefaultGlobResults)},
	}, "root", "pattern", "matches", "truncated")

	searchCount = func(what string) map[string]any {
		return map[string]any{"type": "integer", "minimum": 0, "description": what}
	}
	grepSchema = searchObject(map[string]any{
		"root":    map[string]any{"type": "string", "description": "The absolute directory or file searched."},
		"pattern": map[string]any{"type": "string", "description": "The regular expression, as given."},
		"matches": map[string]any{"type": "array", "description": "The matching lines, sorted by path, then line.",
			"items": searchObject(map[string]any{
				"path": map[string]any{"type": "string", "description": "The file's absolute path."},
				"line": map[string]any{"type": "integer", "minimum": 1, "description": "The 1-based line number."},
				"text": map[string]any{"type": "string", "description": "The line, without its line ending."},
				"cut": map[string]any{"type": "boolean",
					"description": fmt.Sprintf("True if the line was longer than %d bytes and text was cut.", search.MaxGrepLineLen)},
			}, "path", "line", "text")},
		"truncated":         map[string]any{"type": "boolean", "description": "True if more lines match than are listed."},
		"filesSearched":     searchCount("How many files were searched (until the search stopped, if truncated)."),
		"skippedBinary":     searchCount("How many files were skipped as binary."),
		"skippedTooLarge":   searchCount("How many files were skipped as over the size limit."),
		"skippedUnreadable": searchCount("How many files could not be read (removed meanwhile, or refused)."),
	}, "root", "pattern", "matches", "truncated", "filesSearched", "skippedBinary", "skippedTooLarge", "skippedUnreadable")
)

// searchObject is a closed object schema.
func searchObject(props map[string]any, required ...string) map[string]any {
	return map[string]any{
		"type":                 "object",
		"properties":           props,
		"required":             required,
		"additionalProperties": false,
	}
}

// withSearchSchema sets a tool's output schema from a schema literal.
func withSearchSchema(schema map[string]any) mcp.ToolOption {
	raw, err := json.Marshal(schema)
	if err != nil {
		panic(err) // the literals above are plain JSON
	}
	return mcp.WithRawOutputSchema(raw)
}

type globArgs struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
}

// globOutput is glob's structured output.
type globOutput struct {
	Root      string      `json:"root"`
	Pattern   string      `json:"pattern"`
	Matches   []globMatch `json:"matches"`
	Truncated bool        `json:"truncated"`
}

type globMatch struct {
	Path string             `json:"path"`
	Type fsruntime.FileType `json:"type"`
}

type grepArgs struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path"`
	Include    string `json:"include"`
	IgnoreCase bool   `json:"ignoreCase"`
	MaxResults int    `json:"maxResults"`
}

// grepOutput is grep's structured output.
type grepOutput struct {
	Root              string      `json:"root"`
	Pattern           string      `json:"pattern"`
	Matches           []grepMatch `json:"matches"`
	Truncated         bool        `json:"truncated"`
	FilesSearched     int         `json:"filesSearched"`
	SkippedBinary     int         `json:"skippedBinary"`
	SkippedTooLarge   int         `json:"skippedTooLarge"`
	SkippedUnreadable int         `json:"skippedUnreadable"`
}

type grepMatch struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Text string `json:"text"`
	Cut  bool   `json:"cut,omitempty"`
}

// searchUnsupported reports a session FS that cannot walk. It matches
// errors.ErrUnsupported.
var searchUnsupported = fmt.Errorf("searching is not supported by this session's files: %w", errors.ErrUnsupported)

// searchRoot resolves a search's path argument (absent means the working
// directory) and acquires the FS to search, which the caller releases with
// done. A path that ends in / must name a directory (grep would search a
// file).
func (b *binding) searchRoot(ctx context.Context, op, path string) (dir string, fsys fsruntime.WalkFS, done func(), res *mcp.CallToolResult) {
	dir = b.sess.WorkDir
	if path != "" {
		var err error
		if dir, err = fspath.Abs(b.sess.WorkDir, b.expand(path)); err != nil {
			return "", nil, nil, errorResult(op, path, err)
		}
	}
	f, done := b.acquire(ctx)
	w, ok := f.(fsruntime.WalkFS)
	if !ok {
		done()
		return "", nil, nil, errorResult(op, dir, searchUnsupported)
	}
	if fspath.NamesDir(b.expand(path)) {
		if _, res := followedDir(ctx, f, op, dir); res != nil {
			done()
			return "", nil, nil, res
		}
	}
	return dir, w, done, nil
}

// searchError is errorResult for a search: an error about a path names
// the search, not the walk or open under it.
func searchError(op, path string, err error) *mcp.CallToolResult {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		err = &fs.PathError{Op: op, Path: pe.Path, Err: pe.Err}
	}
	if _, ok := errors.AsType[*search.PatternError](err); ok {
		path = "" // the message names the pattern
	}
	return errorResult(op, path, err)
}

// shortPath returns p as a search's text shows it: relative to the
// working directory, as the tools take it, if it lies inside; else as it
// is.
func (b *binding) shortPath(p string) string {
	if rel, err := filepath.Rel(b.sess.WorkDir, p); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	return p
}

// searchedIn names the directory a search looked in, for the header of
// its results, and where their paths are relative to when that is not
// the same directory.
func (b *binding) searchedIn(dir string) string {
	if dir == b.sess.WorkDir {
		return textName(dir)
	}
	return textName(dir) + " (paths relative to " + textName(b.sess.WorkDir) + ")"
}

func (b *binding) glob(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args globArgs
	if err := req.BindArguments(&args); err != nil {
		return errorResult(Glob, "", fmt.Errorf("invalid arguments: %w", err)), nil
	}
	dir, fsys, done, res := b.searchRoot(ctx, Glob, args.Path)
	if res != nil {
		return res, nil
	}
	defer done()
	r, err := search.Glob(ctx, fsys, dir, args.Pattern, search.DefaultGlobResults)
	if err != nil {
		return searchError(Glob, dir, err), nil
	}
	out := globOutput{Root: r.Root, Pattern: args.Pattern, Matches: make([]globMatch, 0, len(r.Matches)), Truncated: r.Truncated}
	var sb strings.Builder
	switch {
	case len(r.Matches) == 0:
		fmt.Fprintf(&sb, "No paths match %q in %s.", args.Pattern, textName(r.Root))
	case r.Truncated:
		fmt.Fprintf(&sb, "The first %d paths that match %q in %s (there are more; narrow the pattern or path):\n", len(r.Matches), args.Pattern, b.searchedIn(r.Root))
	default:
		fmt.Fprintf(&sb, "%s that %s %q in %s:\n", searchPlural(len(r.Matches), "path"), searchVerb(len(r.Matches), "matches", "match"), args.Pattern, b.searchedIn(r.Root))
	}
	for _, m := range r.Matches {
		out.Matches = append(out.Matches, globMatch{Path: m.Path, Type: m.Type})
		sb.WriteString(textName(b.shortPath(m.Path)))
		switch m.Type {
		case fsruntime.TypeDirectory:
			sb.WriteString("/")
		case fsruntime.TypeSymlink:
			sb.WriteString(" (symlink)")
		case fsruntime.TypeOther:
			sb.WriteString(" (not a regular file)")
		}
		sb.WriteByte('\n')
	}
	return mcp.NewToolResultStructured(out, strings.TrimSuffix(sb.String(), "\n")), nil
}

func (b *binding) grep(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args grepArgs
	if err := req.BindArguments(&args); err != nil {
		return errorResult(Grep, "", fmt.Errorf("invalid arguments: %w", err)), nil
	}
	root, fsys, done, res := b.searchRoot(ctx, Grep, args.Path)
	if res != nil {
		return res, nil
	}
	defer done()
	r, err := search.Grep(ctx, fsys, root, search.GrepOptions{
		Pattern:     args.Pattern,
		IgnoreCase:  args.IgnoreCase,
		Include:     args.Include,
		MaxResults:  args.MaxResults,
		MaxFileSize: b.sess.MaxFileSize,
	})
	if err != nil {
		return searchError(Grep, root, err), nil
	}
	out := grepOutput{
		Root:              root,
		Pattern:           args.Pattern,
		Matches:           make([]grepMatch, 0, len(r.Matches)),
		Truncated:         r.Truncated,
		FilesSearched:     r.Searched,
		SkippedBinary:     r.SkippedBinary,
		SkippedTooLarge:   r.SkippedLarge,
		SkippedUnreadable: r.SkippedUnreadable,
	}
	files := 0
	for i, m := range r.Matches {
		out.Matches = append(out.Matches, grepMatch{Path: m.Path, Line: m.Line, Text: m.Text, Cut: m.Cut})
		if i == 0 || m.Path != r.Matches[i-1].Path {
			files++
		}
	}

	var sb strings.Builder
	searched := "searched " + searchPlural(r.Searched, "file")
	var skipped []string
	if r.SkippedBinary > 0 {
		skipped = append(skipped, searchPlural(r.SkippedBinary, "binary file"))
	}
	if r.SkippedLarge > 0 {
		skipped = append(skipped, searchPlural(r.SkippedLarge, "file")+" over the size limit")
	}
	if r.SkippedUnreadable > 0 {
		skipped = append(skipped, searchPlural(r.SkippedUnreadable, "unreadable file"))
	}
	if len(skipped) > 0 {
		searched += "; skipped " + strings.Join(skipped, ", ")
	}
	switch {
	case len(r.Matches) == 0:
		fmt.Fprintf(&sb, "No lines match %q in %s (%s).", args.Pattern, textName(root), searched)
	case r.Truncated:
		fmt.Fprintf(&sb, "The first %s that %s %q in %s (%s). More lines match: narrow the pattern, path or include, or raise maxResults (at most %d).\n",
			searchPlural(len(r.Matches), "line"), searchVerb(len(r.Matches), "matches", "match"), args.Pattern, b.searchedIn(root), searched, search.MaxGrepResults)
	default:
		fmt.Fprintf(&sb, "%s in %s %s %q in %s (%s):\n",
			searchPlural(len(r.Matches), "line"), searchPlural(files, "file"), searchVerb(len(r.Matches), "matches", "match"), args.Pattern, b.searchedIn(root), searched)
	}
	for _, m := range r.Matches {
		fmt.Fprintf(&sb, "%s:%d:%s\n", textName(b.shortPath(m.Path)), m.Line, textLine(m.Text))
	}
	return mcp.NewToolResultStructured(out, strings.TrimSuffix(sb.String(), "\n")), nil
}

// searchPlural renders n things, e.g. "1 file" or "3 files".
func searchPlural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// searchVerb picks the verb form for n subjects: one for one, many
// otherwise.
func searchVerb(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
