package mcpfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
)

func TestErrorResult(t *testing.T) {
	pathErr := func(op string, err error) error { return &fs.PathError{Op: op, Path: "/w/a.txt", Err: err} }
	for _, tc := range []struct {
		op, path string
		err      error
		want     string
	}{
		{"read", "/w/a.txt", pathErr("read", fs.ErrNotExist),
			"read /w/a.txt: file does not exist (check the path; relative paths resolve against the working directory)"},
		{"read", "/w/a.txt", pathErr("read", &fsruntime.OutsideRootsError{Roots: []string{"/w/x", "/w/y"}}),
			"read /w/a.txt: outside the allowed roots (/w/x, /w/y)"},
		{"read", "/w/a.txt", pathErr("read", &fsruntime.TooLargeError{Size: 2048, Limit: 1024, Read: true}),
			"read /w/a.txt: content is too large (2.0 KiB, the limit is 1.0 KiB); read a range of it with line and limit"},
		{"write", "/w/a.txt", pathErr("write", &fsruntime.TooLargeError{Size: 2048, Limit: 1024}),
			"write /w/a.txt: content is too large (2.0 KiB, the limit is 1.0 KiB) (write a smaller content)"},
		// Another backend may report the sentinel alone.
		{"read", "/w/a.txt", pathErr("read", fsruntime.ErrTooLarge),
			"read /w/a.txt: too large (read a range of it with line and limit)"},
		{"read", "/w/a.txt", pathErr("read", &fsruntime.PastEndError{Line: 9, Lines: 3}),
			"read /w/a.txt: line 9 is past the end of the file (3 lines) (ask for a smaller line, or omit line to start at the top)"},
		{"read", "/w/a.txt", pathErr("read", fsruntime.ErrBinary),
			"read /w/a.txt: binary or not UTF-8 text (only UTF-8 text files can be read or written with these tools)"},
		{"read", "/w/a.txt", pathErr("read", context.Canceled),
			"read /w/a.txt: context canceled (the request was cancelled)"},
		{"write", "/w/a.txt", pathErr("write", context.DeadlineExceeded),
			"write /w/a.txt: context deadline exceeded (the operation timed out)"},
		{"write", "/w/a.txt", pathErr("write", errors.ErrUnsupported),
			"write /w/a.txt: unsupported operation (the operation is not supported here)"},
		{"write", "/w/a.txt", pathErr("write", fs.ErrPermission),
			"write /w/a.txt: permission denied"},
		// Not a *fs.PathError: the caller's op and path name it.
		{"read", "/w/a.txt", errors.New("boom"), "read /w/a.txt: boom"},
		{"write", "", errors.New("invalid arguments: x"), "write: invalid arguments: x"},
		// fsruntime.Abs's errors take the caller's op.
		{"write", "", &fs.PathError{Op: "resolve", Path: "", Err: fs.ErrInvalid}, "write: invalid argument"},
		{"read", "a\nb", &fs.PathError{Op: "resolve", Path: "a\nb", Err: fs.ErrInvalid}, `read "a\nb": invalid argument`},
		// Wrapped further, the PathError still speaks.
		{"read", "", fmt.Errorf("router: %w", pathErr("read", fs.ErrNotExist)),
			"read /w/a.txt: file does not exist (check the path; relative paths resolve against the working directory)"},
	} {
		res := errorResult(tc.op, tc.path, tc.err)
		if !res.IsError || len(res.Content) != 1 {
			t.Fatalf("errorResult(%v) = %+v, want one text with isError", tc.err, res)
		}
		if got := res.Content[0].(mcp.TextContent).Text; got != tc.want {
			t.Errorf("errorResult(%q, %q, %v):\n got %q\nwant %q", tc.op, tc.path, tc.err, got, tc.want)
		}
	}
}

func TestArgumentProblems(t *testing.T) {
	schema := mcp.NewTool("t",
		mcp.WithString("path", mcp.Required()),
		mcp.WithInteger("line", mcp.Min(0)),
	).InputSchema
	for _, tc := range []struct {
		args any
		want string
	}{
		{map[string]any{"path": "a"}, ""},
		{map[string]any{"path": "a", "line": 0.0}, ""},
		{nil, "path is required"},
		{[]any{1}, "the arguments must be a JSON object"},
		{map[string]any{"path": true, "line": -2.0}, "line must be at least 0, not -2; path must be a string, not a boolean"},
		{map[string]any{"path": "a", "line": []any{}}, "line must be an integer, not an array"},
		{map[string]any{"path": map[string]any{}, "b": 1, "a": 2}, `unknown argument "a", "b" (the arguments are line, path); path must be a string, not an object`},
	} {
		if got := strings.Join(argumentProblems(schema, tc.args), "; "); got != tc.want {
			t.Errorf("argumentProblems(%v) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestArgumentProblemsOfNestedAndBoundedArguments(t *testing.T) {
	schema := mcp.NewTool("t",
		mcp.WithInteger("maxDepth", mcp.Min(1), mcp.Max(10)),
		mcp.WithBoolean("recursive"),
		mcp.WithArray("exclude", mcp.WithStringItems()),
		mcp.WithArray("edits", mcp.MinItems(1), mcp.Items(map[string]any{
			"type":       "object",
			"required":   []string{"oldText", "newText"},
			"properties": map[string]any{"oldText": map[string]any{"type": "string"}, "newText": map[string]any{"type": "string"}, "replaceAll": map[string]any{"type": "boolean"}},
		})),
	).InputSchema
	for _, tc := range []struct {
		args any
		want string
	}{
		{map[string]any{"maxDepth": 11.0}, "maxDepth must be at most 10, not 11"},
		{map[string]any{"recursive": "yes"}, "recursive must be true or false, not a string"},
		{map[string]any{"exclude": []any{7.0}}, "exclude[0] must be a string, not 7"},
		{map[string]any{"edits": []any{}}, "edits must have at least 1 item(s), not 0"},
		{map[string]any{"edits": []any{map[string]any{"oldText": "a"}}}, "edits[0].newText is required"},
		{map[string]any{"edits": []any{map[string]any{"oldText": "a", "newText": 1.0, "all": true}}},
			`edits[0] has an unknown member "all" (its members are newText, oldText, replaceAll); edits[0].newText must be a string, not 1`},
	} {
		if got := strings.Join(argumentProblems(schema, tc.args), "; "); got != tc.want {
			t.Errorf("argumentProblems(%v) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestRewriteValidationResultKeepsOtherResults(t *testing.T) {
	tool := mcp.NewTool("t", mcp.WithString("path", mcp.Required()))
	req := &mcp.CallToolRequest{}
	req.Params.Arguments = map[string]any{}
	for _, res := range []*mcp.CallToolResult{
		mcp.NewToolResultText(validationPrefix + ": not an error"),
		mcp.NewToolResultError("read /a: file does not exist"),
	} {
		want := res.Content[0].(mcp.TextContent).Text
		rewriteValidationResult(tool, req, res, "/w")
		if got := res.Content[0].(mcp.TextContent).Text; got != want {
			t.Errorf("rewritten to %q, want %q unchanged", got, want)
		}
	}
	// A failure this package does not model keeps mcp-go's text.
	req.Params.Arguments = map[string]any{"path": "a"}
	res := mcp.NewToolResultError(validationPrefix + ": /path: pattern")
	rewriteValidationResult(tool, req, res, "/w")
	if got := res.Content[0].(mcp.TextContent).Text; got != validationPrefix+": /path: pattern" {
		t.Errorf("rewritten to %q", got)
	}
}
