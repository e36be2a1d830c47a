package bridge

import (
	"context"
	"fmt"

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
		b.sizeNote(" Content over %s is refused; read a larger file in ranges with line and limit.")
	return mcp.NewTool(ReadTextFile,
		mcp.WithToolTitle("Read text file"),
		mcp.WithDescription(desc),
		mcp.WithString("path", mcp.Required(),
			mcp.Description("The file to read: absolute, or relative to the working directory.")),
		mcp.WithInteger("line", mcp.Min(0),
			mcp.Description("The 1-based line to start at. 0 or absent means line 1.")),
		mcp.WithInteger("limit", mcp.Min(1),
			mcp.Description("The maximum number of lines to return. Absent means to the end of the file.")),
		mcp.WithTitleAnnotation("Read text file"),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(false),
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
		"The result names the absolute path written and the number of bytes." +
		b.sizeNote(" Content over %s is refused.")
	return mcp.NewTool(WriteTextFile,
		mcp.WithToolTitle("Write text file"),
		mcp.WithDescription(desc),
		mcp.WithString("path", mcp.Required(),
			mcp.Description("The file to write: absolute, or relative to the working directory.")),
		mcp.WithString("content", mcp.Required(),
			mcp.Description("The complete new content of the file.")),
		mcp.WithTitleAnnotation("Write text file"),
		mcp.WithReadOnlyHintAnnotation(false),
		mcp.WithDestructiveHintAnnotation(true),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(false),
	)
}

type readArgs struct {
	Path  string `json:"path"`
	Line  int    `json:"line"`
	Limit int    `json:"limit"`
}

type writeArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

func (b *binding) readTextFile(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args readArgs
	if err := req.BindArguments(&args); err != nil {
		return errorResult("read", "", fmt.Errorf("invalid arguments: %w", err)), nil
	}
	p, err := runtime.Abs(b.sess.WorkDir, args.Path)
	if err != nil {
		return errorResult("read", args.Path, err), nil
	}
	fsys, done := b.acquire(ctx)
	defer done()
	text, err := fsys.ReadTextFile(ctx, p, args.Line, args.Limit)
	if err != nil {
		return errorResult("read", p, err), nil
	}
	return mcp.NewToolResultText(text), nil
}

func (b *binding) writeTextFile(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args writeArgs
	if err := req.BindArguments(&args); err != nil {
		return errorResult("write", "", fmt.Errorf("invalid arguments: %w", err)), nil
	}
	p, err := runtime.Abs(b.sess.WorkDir, args.Path)
	if err != nil {
		return errorResult("write", args.Path, err), nil
	}
	fsys, done := b.acquire(ctx)
	defer done()
	if err := fsys.WriteTextFile(ctx, p, args.Content); err != nil {
		return errorResult("write", p, err), nil
	}
	return mcp.NewToolResultText(fmt.Sprintf("wrote %d bytes to %s", len(args.Content), p)), nil
}
