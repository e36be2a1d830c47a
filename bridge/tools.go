package bridge

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-acpfs/mcp-acpfs/runtime"
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
	return fmt.Sprintf(s, runtime.FormatSize(b.sess.MaxFileSize))
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
		"refuse to write if the file has changed since."
	return mcp.NewTool(ReadTextFile,
		mcp.WithToolTitle("Read text file"),
		mcp.WithDescription(desc),
		mcp.WithString("path", mcp.Required(),
			mcp.Description("The file to read: absolute, or relative to the working directory.")),
		mcp.WithInteger("line", mcp.Min(0),
			mcp.Description("The 1-based line to start at. 0 or absent means line 1.")),
		mcp.WithInteger("limit", mcp.Min(1),
			mcp.Description("The maximum number of lines to return. Absent means to the end of the file.")),
		mcp.WithOutputSchema[readOutput](),
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
		b.sizeNote(" Content over %s is refused.")
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

// readOutput is read_text_file's structured result.
type readOutput struct {
	Path      string `json:"path" jsonschema:"The absolute path of the file."`
	Content   string `json:"content" jsonschema:"The text read: exactly the file's content for the range."`
	SHA256    string `json:"sha256,omitempty" jsonschema:"The hex SHA-256 of the whole file as read, whatever the range; pass it as expectedHash to write_text_file or edit_text_file. Absent only when the whole file could not be hashed (for a range of a file too large to be read whole)."`
	Line      int    `json:"line" jsonschema:"The 1-based line the content starts at."`
	LineCount int    `json:"lineCount" jsonschema:"How many lines the content has (a last line without a line ending counts)."`
}

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
	p, err := runtime.AbsFile(b.sess.WorkDir, b.expand(args.Path))
	if err != nil {
		return errorResult("read", args.Path, err), nil
	}
	fsys, done := b.acquire(ctx)
	defer done()
	// A whole read is hashed from its own text. A range needs the hash of
	// the whole file, taken first: if the file changes between the two,
	// the hash is the older one, and a write with it is refused rather
	// than let through on a stale read.
	whole := args.Line <= 1 && args.Limit <= 0
	var text, sum string
	if hr, ok := fsys.(runtime.HashReadFS); ok && !whole {
		// One pass through the route: one editor request for a range.
		text, sum, err = hr.ReadTextFileHash(ctx, p, args.Line, args.Limit)
	} else {
		if !whole {
			if h, herr := hashFile(ctx, fsys, p); herr == nil {
				sum = h
			} else {
				b.log.Debug("read_text_file: no hash for a range", "path", p, "err", herr)
			}
		}
		text, err = fsys.ReadTextFile(ctx, p, args.Line, args.Limit)
	}
	if err != nil {
		return errorResult("read", p, err), nil
	}
	if whole {
		sum = runtime.HashText(text)
	}
	lines := countLines(text)
	text = liftResult(ctx, text) // lift.go: spliced in by the transport
	out := readOutput{Path: p, Content: text, SHA256: sum, Line: max(args.Line, 1), LineCount: lines}
	return mcp.NewToolResultStructured(out, text), nil
}

func (b *binding) writeTextFile(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args writeArgs
	if err := req.BindArguments(&args); err != nil {
		return errorResult("write", "", fmt.Errorf("invalid arguments: %w", err)), nil
	}
	if err := unliftArgument(ctx, &args.Content); err != nil { // lift.go
		return errorResult("write", "", fmt.Errorf("invalid arguments: %w", err)), nil
	}
	p, err := runtime.AbsFile(b.sess.WorkDir, b.expand(args.Path))
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
	}
	sum := inBackground(len(args.Content), func() string { return runtime.HashText(args.Content) })
	err = fsys.WriteTextFile(ctx, p, args.Content)
	out := writeOutput{Path: p, BytesWritten: len(args.Content), SHA256: sum()} // awaited on failure too
	if err != nil {
		return errorResult("write", p, err), nil
	}
	return mcp.NewToolResultStructured(out, fmt.Sprintf("wrote %d bytes to %s", len(args.Content), p)), nil
}
