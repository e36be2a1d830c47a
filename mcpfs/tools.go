package mcpfs

import (
	"context"
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
	desc := "Read a UTF-8 text file and return its content.\n\n" +
		"The path may be absolute or relative to the working directory, " + b.sess.WorkDir + ". " +
		"Only files inside the allowed roots can be read.\n\n" +
		"Line numbers are 1-based. Give line to start at that line (0 or absent means line 1) " +
		"and limit to return at most that many lines (absent means to the end of the file).\n\n" +
		"The text returned is exactly the file's content for that range: whole lines with their line endings " +
		"(\\n or \\r\\n) as stored, no line numbers and nothing added, so it can be edited and written back " +
		"with write_text_file. An empty file reads as empty text. " +
		"A file that is not UTF-8 text (binary) is refused." +
		b.sizeNote(" Content over %s is refused; read a larger file in ranges with line and limit.") + "\n\n" +
		"The structured result repeats the text as content, with path, line (where it starts), " +
		"lineCount (how many lines it has) and sha256: the hex SHA-256 of the whole file as read, " +
		"whatever the range. Pass it as expectedHash to write_text_file or edit_text_file to have them " +
		"refuse to write if the file has changed since.\n\n" +
		"Where the editor serves reads, the text is the editor's, unsaved changes included (source is editor). " +
		"differsFromDisk tells whether it differs from the file on disk; a short note after the text says so too. " +
		"A file just changed on disk (by a shell command, say) is read again until the editor has reloaded it, " +
		"for up to half a second."
	return mcp.NewTool(ReadTextFile,
		mcp.WithToolTitle("Read text file"),
		mcp.WithDescription(desc),
		mcp.WithString("path", mcp.Required(),
			mcp.Description("The file to read: absolute, or relative to the working directory.")),
		mcp.WithInteger("line", mcp.Min(0),
			mcp.Description("The 1-based line to start at. 0 or absent means line 1.")),
		mcp.WithInteger("limit", mcp.Min(1),
			mcp.Description("The maximum number of lines to return. Absent means to the end of the file.")),
		withOutputSchema(readSchema),
		hints("Read text file", true, false, true),
	)
}

func (b *binding) writeTool() mcp.Tool {
	desc := "Write a UTF-8 text file: replace its whole content, or create it, " +
		"creating any missing parent directories.\n\n" +
		"The path may be absolute or relative to the working directory, " + b.sess.WorkDir + ". " +
		"Only files inside the allowed roots can be written.\n\n" +
		"content is the complete new text of the file and is written exactly as given: " +
		"nothing is added (not even a final newline) and line endings are kept. " +
		"The file is replaced atomically, so a reader sees either the old or the new content. " +
		"The result names the absolute path written and the number of bytes; the structured result also " +
		"has sha256, the hex SHA-256 of the content written.\n\n" +
		"Give expectedHash (the sha256 of an earlier read_text_file, or of an earlier write or edit) " +
		"to write only if the file has not changed since: if it has, or it no longer exists, the call fails " +
		"with \"changed since read\" and nothing is written; read it again and redo the change." +
		b.sizeNote(" Content over %s is refused.") + b.guardNote()
	return mcp.NewTool(WriteTextFile,
		mcp.WithToolTitle("Write text file"),
		mcp.WithDescription(desc),
		mcp.WithString("path", mcp.Required(),
			mcp.Description("The file to write: absolute, or relative to the working directory.")),
		mcp.WithString("content", mcp.Required(),
			mcp.Description("The complete new content of the file.")),
		mcp.WithString("expectedHash",
			mcp.Description("The sha256 the file must still have (from read_text_file); "+
				"if it has changed, nothing is written. Absent means no check.")),
		mcp.WithOutputSchema[writeOutput](),
		hints("Write text file", false, true, true),
	)
}

type readArgs struct {
	Path  string `json:"path"`
	Line  int    `json:"line"`
	Limit int    `json:"limit"`
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
	"line":      map[string]any{"type": "integer", "minimum": 1, "description": "The 1-based line the content starts at."},
	"lineCount": map[string]any{"type": "integer", "minimum": 0, "description": "How many lines the content has (a last line without a line ending counts)."},
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
	var out readOutput
	var text string
	if sr, ok := fsys.(fsruntime.SourceReadFS); ok {
		read, rerr := sr.ReadTextFileSource(ctx, p, args.Line, args.Limit)
		if rerr != nil {
			return errorResult("read", p, rerr), nil
		}
		text, out.SHA256 = read.Text, read.SHA256
		describeOrigin(&out, read.Origin)
	} else if text, out.SHA256, err = b.readHashed(ctx, fsys, p, args.Line, args.Limit); err != nil {
		return errorResult("read", p, err), nil
	}
	out.LineCount = countLines(text)
	text = lift.Result(ctx, text) // spliced in by the transport (package lift)
	out.Path, out.Content, out.Line = p, text, max(args.Line, 1)
	res := mcp.NewToolResultStructured(out, text)
	if note := originNote(out); note != "" {
		// After the text, which stays exactly the file's, for the
		// hosts that show a model only the text.
		res.Content = append(res.Content, mcp.NewTextContent(note))
	}
	b.recordSeen(ctx, p, out.SHA256) // ledger.go
	return withNote(res, b.instructionNote(ctx, fsys, filepath.Dir(p))), nil
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
		return "Note: read from the editor, whose text of this file differs from the file on disk " +
			"(unsaved changes, or a reload still pending)."
	case diffLineEndings:
		return "Note: read from the editor, which gives this file \\n line endings where the file on disk has " +
			"\\r\\n or \\r; the text is otherwise the same."
	case diffNotOnDisk:
		return "Note: read from the editor; this file does not exist on disk (a new, unsaved buffer)."
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
