package mcpfs

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-acpfs/mcp-acpfs/capabilities"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fspath"
	"github.com/mcp-acpfs/mcp-acpfs/internal/lift"
)

// Tool names.
const (
	ReadTextFile  = "read_text_file"
	WriteTextFile = "write_text_file"
)

// addTools registers the tools of the session.
func (b *binding) addTools() {
	b.srv.AddTool(b.readTool(), b.readTextFile)
	if !b.sess.ReadOnly {
		b.srv.AddTool(b.writeTool(), b.writeTextFile)
	}
	b.addEditTools()   // tools_edit.go
	b.addFileTools()   // tools_files.go
	b.addSearchTools() // tools_search.go
	b.addResources()   // resources.go
	b.nameHomePaths()  // errors.go
}

// hints sets every annotation of a tool explicitly, since mcp-go's defaults
// are the pessimistic ones: readOnly, destructive and idempotent as given,
// and openWorld false, as none of the tools reaches beyond the session's
// files.
func hints(title string, readOnly, destructive, idempotent bool) mcp.ToolOption {
	return func(t *mcp.Tool) {
		t.Annotations = mcp.ToolAnnotation{
			Title:           title,
			ReadOnlyHint:    &readOnly,
			DestructiveHint: &destructive,
			IdempotentHint:  &idempotent,
			OpenWorldHint:   new(bool),
		}
	}
}

// sizeNote tells a model about the size limit, if there is one to tell.
func (b *binding) sizeNote(s string) string {
	if b.sess.MaxFileSize <= 0 {
		return ""
	}
	return fmt.Sprintf(s, fsruntime.FormatSize(b.sess.MaxFileSize))
}

func (b *binding) readTool() mcp.Tool {
	desc := "Read a UTF-8 text file. Where the editor serves reads, this is its buffer, unsaved changes included.\n" +
		"Without limit, returns one page and says where to continue (line=N). " +
		"Text is exact (line endings kept), unless lineNumbers: then each line starts with its number and →, " +
		"which edit_text_file strips. Relative paths resolve against " + b.sess.WorkDir + "." +
		b.sizeNote(" Files over %s: read in ranges.")
	return mcp.NewTool(ReadTextFile,
		mcp.WithToolTitle("Read text file"),
		mcp.WithDescription(desc),
		mcp.WithString("path", mcp.Required(), mcp.Description(pathArg)),
		mcp.WithInteger("line", mcp.Min(0), mcp.Description("1-based line to start at")),
		mcp.WithInteger("limit", mcp.Min(1), mcp.Description("Most lines to return")),
		mcp.WithBoolean("lineNumbers", mcp.Description("Number the lines")),
		withOutputSchema(readSchema),
		hints("Read text file", true, false, true),
	)
}

// pathArg describes a path argument.
const pathArg = "Absolute, or relative to the working directory"

func (b *binding) writeTool() mcp.Tool {
	desc := "Create a text file, or replace all of an existing one, atomically. " +
		"Content is written exactly; missing parent directories are created." + b.sizeNote(" Limit: %s.") + b.guardNote()
	return mcp.NewTool(WriteTextFile,
		mcp.WithToolTitle("Write text file"),
		mcp.WithDescription(desc),
		mcp.WithString("path", mcp.Required(), mcp.Description(pathArg)),
		mcp.WithString("content", mcp.Required(), mcp.Description("The whole new text")),
		mcp.WithString("expectedHash",
			mcp.Description("Write only if the file's sha256 is still this")),
		mcp.WithOutputSchema[writeOutput](),
		hints("Write text file", false, true, true),
	)
}

type readArgs struct {
	Path        string `json:"path"`
	Line        int    `json:"line"`
	Limit       int    `json:"limit"`
	LineNumbers *bool  `json:"lineNumbers"`
}

type writeArgs struct {
	Path         string `json:"path"`
	Content      string `json:"content"`
	ExpectedHash string `json:"expectedHash"`
}

// readOutput is read_text_file's structured result; readSchema is its
// schema.
type readOutput struct {
	Path            string `json:"path"`
	Content         string `json:"content"`
	SHA256          string `json:"sha256,omitempty"`
	Line            int    `json:"line"`
	LineCount       int    `json:"lineCount"`
	TotalLines      *int   `json:"totalLines,omitempty"`
	NextLine        int    `json:"nextLine,omitempty"`
	Source          string `json:"source,omitempty"`
	DiffersFromDisk *bool  `json:"differsFromDisk,omitempty"`
	DiskDifference  string `json:"diskDifference,omitempty"`
}

// What diskDifference says.
const (
	diffContent     = "content"
	diffLineEndings = "lineEndings"
	diffNotOnDisk   = "notOnDisk"
)

var readSchema = objectSchema(map[string]any{
	"path":    map[string]any{"type": "string", "description": "The absolute path of the file."},
	"content": map[string]any{"type": "string", "description": "The text read: exactly the file's content for the range."},
	"sha256": map[string]any{"type": "string", "pattern": "^[0-9a-f]{64}$",
		"description": "The hex SHA-256 of the whole file as read, whatever the range; pass it as expectedHash to write_text_file or edit_text_file. " +
			"Absent only when the whole file could not be hashed (for a range of a file too large to be read whole)."},
	"line":       map[string]any{"type": "integer", "minimum": 1, "description": "The 1-based line the content starts at."},
	"lineCount":  map[string]any{"type": "integer", "minimum": 0, "description": "How many lines the content has (a last line without a line ending counts)."},
	"totalLines": map[string]any{"type": "integer", "minimum": 0, "description": "How many lines the file has. Absent when not known (a range of a file over the size limit)."},
	"nextLine":   map[string]any{"type": "integer", "minimum": 2, "description": "Present when lines follow the content: the line to continue at."},
	"source": map[string]any{"type": "string", "enum": []string{"editor", "disk"},
		"description": "Where the text came from: editor (the editor's buffer, unsaved changes included) or disk. " +
			"Absent when the session's files do not say."},
	"differsFromDisk": map[string]any{"type": "boolean",
		"description": "True when the text is not the file's content on disk: the editor has unsaved changes, " +
			"or has not yet reloaded a file that changed on disk (a change made just now was waited for, briefly), " +
			"or the file does not exist on disk; diskDifference says which. For a range, it is about the whole file. " +
			"False when they are the same, and always when source is disk. Absent when the disk could not be read to compare."},
	"diskDifference": map[string]any{"type": "string", "enum": []string{diffContent, diffLineEndings, diffNotOnDisk},
		"description": "Present when differsFromDisk is true: content (unsaved changes in the editor, or a reload still pending), " +
			"lineEndings (the same text, but the editor gives \\n line endings where the file on disk has \\r\\n or \\r), " +
			"or notOnDisk (a new buffer that was never saved)."},
}, "path", "content", "line", "lineCount")

// writeOutput is write_text_file's structured result.
type writeOutput struct {
	Path         string `json:"path" jsonschema:"The absolute path written."`
	BytesWritten int    `json:"bytesWritten" jsonschema:"The size of the content written, in bytes."`
	SHA256       string `json:"sha256" jsonschema:"The hex SHA-256 of the content written: the file's sha256 for a later expectedHash."`
}

// countLines counts the lines of text, a last one without a line ending
// included.
func countLines(text string) int {
	n := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		n++
	}
	return n
}

func (b *binding) readTextFile(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args readArgs
	if err := req.BindArguments(&args); err != nil {
		return errorResult("read", "", fmt.Errorf("invalid arguments: %w", err)), nil
	}
	p, err := fspath.AbsFile(b.sess.WorkDir, b.expand(args.Path))
	if err != nil {
		return errorResult("read", args.Path, err), nil
	}
	fsys, done := b.acquire(ctx)
	defer done()
	h := hostOf(ctx)
	page := b.page(h)
	if args.Limit > 0 {
		page = 0
	}
	v, out, err := b.readView(ctx, fsys, p, args.Line, args.Limit, page > 0)
	if err != nil {
		return errorResult("read", p, err), nil
	}
	numbers := b.numbered(h)
	if args.LineNumbers != nil {
		numbers = *args.LineNumbers
	}
	if page > 0 {
		v = v.paged(page, numbers)
	} else if numbers {
		v = v.numbered()
	}
	out.Path, out.Line, out.LineCount = p, v.from, v.lines
	if v.total >= 0 {
		out.TotalLines = &v.total
	}
	if v.more {
		out.NextLine = v.next()
	}
	text := lift.Result(ctx, v.text) // spliced in by the transport (package lift)
	out.Content = text
	res := mcp.NewToolResultStructured(out, text)
	if status := v.status(originNote(out)); status != "" {
		// After the text, which stays exactly the lines read, for the
		// hosts that show a model only the text.
		res.Content = append(res.Content, mcp.NewTextContent(status))
	}
	b.recordSeen(ctx, p, out.SHA256) // ledger.go
	return withNote(res, b.instructionNote(ctx, fsys, filepath.Dir(p))), nil
}

// readView reads lines [line, line+limit) of p (to the end when limit <=
// 0) through fsys, with the hash of the whole file and where it came from.
// The whole file is read and the range cut from it here, so that the view
// knows how many lines the file has; a range of a file over the size limit
// is read on its own, and its total is not known. For a read that will be
// paged, such a file's range is a page's worth of lines.
func (b *binding) readView(ctx context.Context, fsys fsruntime.FS, p string, line, limit int, paged bool) (view, readOutput, error) {
	var out readOutput
	whole, err := b.readSource(ctx, fsys, p, 0, 0, &out)
	if err == nil {
		v, err := sliceLines(whole, line, limit)
		return v, out, err
	}
	if _, ok := errors.AsType[*fsruntime.TooLargeError](err); !ok {
		return view{}, out, err
	}
	// Too large to read whole: a range still can be. A paged read gets a
	// page's worth of lines, fewer while those are too large.
	switch {
	case paged:
		limit = maxPageLines
	case limit <= 0 && line <= 1:
		return view{}, out, err
	}
	// One line more than the range says whether lines follow it. A page
	// halves while that is too large; a range given is then read alone,
	// and taken to have more after it when it is full.
	var text string
	extra := 1
	if limit <= 0 {
		extra = 0 // to the end of the file
	}
	for {
		out = readOutput{}
		text, err = b.readSource(ctx, fsys, p, line, limit+extra, &out)
		if _, ok := errors.AsType[*fsruntime.TooLargeError](err); ok {
			switch {
			case paged && limit > 1:
				limit /= 2
				continue
			case extra == 1:
				extra = 0
				continue
			}
		}
		if err != nil {
			return view{}, out, err
		}
		break
	}
	v := view{text: text, from: max(line, 1), lines: countLines(text), total: -1}
	switch {
	case limit <= 0: // to the end
	case v.lines > limit:
		v.text, v.lines, v.more = text[:lineOffset(text, 0, limit)], limit, true
	case extra == 0:
		v.more = v.lines == limit
	}
	return v, out, nil
}

// readSource reads lines [line, line+limit) of p through fsys, and puts the
// hash of the whole file and where the text came from in out.
func (b *binding) readSource(ctx context.Context, fsys fsruntime.FS, p string, line, limit int, out *readOutput) (string, error) {
	if sr, ok := fsys.(fsruntime.SourceReadFS); ok {
		read, err := sr.ReadTextFileSource(ctx, p, line, limit)
		if err != nil {
			return "", err
		}
		out.SHA256 = read.SHA256
		describeOrigin(out, read.Origin)
		return read.Text, nil
	}
	text, sum, err := b.readHashed(ctx, fsys, p, line, limit)
	out.SHA256 = sum
	return text, err
}

// readHashed reads lines [line, line+limit) of p from an FS that does not
// say where its text comes from, and the hash of the whole file. A whole
// read is hashed from its own text. A range needs the hash of the whole
// file, taken first: if the file changes between the two, the hash is the
// older one, and a write with it is refused rather than let through on a
// stale read.
func (b *binding) readHashed(ctx context.Context, fsys fsruntime.FS, p string, line, limit int) (text, sum string, err error) {
	if line <= 1 && limit <= 0 {
		text, err = fsys.ReadTextFile(ctx, p, line, limit)
		if err != nil {
			return "", "", err
		}
		return text, fsruntime.HashText(text), nil
	}
	if hr, ok := fsys.(fsruntime.HashReadFS); ok {
		// One pass through the route: one editor request for a range.
		return hr.ReadTextFileHash(ctx, p, line, limit)
	}
	if h, herr := hashFile(ctx, fsys, p); herr == nil {
		sum = h
	} else {
		b.log.Debug("read_text_file: no hash for a range", "path", p, "err", herr)
	}
	text, err = fsys.ReadTextFile(ctx, p, line, limit)
	if err != nil {
		return "", "", err
	}
	return text, sum, nil
}

// describeOrigin fills in source, differsFromDisk and diskDifference.
func describeOrigin(out *readOutput, o fsruntime.Origin) {
	switch o.Route {
	case capabilities.RouteEditor:
		out.Source = "editor"
	case capabilities.RouteDisk:
		out.Source = "disk"
	}
	differs := true
	switch o.Disk {
	case fsruntime.DiskSame:
		differs = false
	case fsruntime.DiskDiffers:
		out.DiskDifference = diffContent
	case fsruntime.DiskLineEndings:
		out.DiskDifference = diffLineEndings
	case fsruntime.DiskMissing:
		out.DiskDifference = diffNotOnDisk
	default: // not compared
		return
	}
	out.DiffersFromDisk = &differs
}

// originNote is the note that follows the text of a read whose text is
// not the disk's, or "".
func originNote(out readOutput) string {
	switch out.DiskDifference {
	case diffContent:
		return "from the editor, which has unsaved changes or a reload pending: the disk differs"
	case diffLineEndings:
		return "from the editor, with \\n line endings where the disk has \\r\\n or \\r"
	case diffNotOnDisk:
		return "from the editor: a new buffer, not on disk"
	}
	return ""
}

func (b *binding) writeTextFile(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args writeArgs
	if err := req.BindArguments(&args); err != nil {
		return errorResult("write", "", fmt.Errorf("invalid arguments: %w", err)), nil
	}
	if err := lift.Unlift(ctx, &args.Content); err != nil {
		return errorResult("write", "", fmt.Errorf("invalid arguments: %w", err)), nil
	}
	p, err := fspath.AbsFile(b.sess.WorkDir, b.expand(args.Path))
	if err != nil {
		return errorResult("write", args.Path, err), nil
	}
	expected, err := checkExpectedHash(args.ExpectedHash)
	if err != nil {
		return errorResult("write", p, err), nil
	}
	fsys, done := b.acquire(ctx)
	defer done()
	// See "Conflict detection" in tools_edit.go for what the lock and the
	// check do and do not guarantee.
	unlock, err := pathLocks.lock(ctx, p)
	if err != nil {
		return errorResult("write", p, err), nil
	}
	defer unlock()
	if expected != "" {
		if err := verifyHash(ctx, fsys, p, expected); err != nil {
			return errorResult("write", p, err), nil
		}
	} else if err := b.checkWrite(ctx, fsys, p, len(args.Content)); err != nil { // the read guard: ledger.go
		return errorResult("write", p, err), nil
	}
	sum := inBackground(len(args.Content), func() string { return fsruntime.HashText(args.Content) })
	err = fsys.WriteTextFile(ctx, p, args.Content)
	out := writeOutput{Path: p, BytesWritten: len(args.Content), SHA256: sum()} // awaited on failure too
	if err != nil {
		return errorResult("write", p, err), nil
	}
	b.recordSeen(ctx, p, out.SHA256)
	return mcp.NewToolResultStructured(out, fmt.Sprintf("wrote %d bytes to %s", len(args.Content), p)), nil
}
