package mcpfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fspath"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpserve"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
)

// errorResult turns the failure of a file operation into the tool result a
// model sees: isError set, and one text naming the operation, the path and
// the cause, with a hint on what to do where there is one. It is the only
// place in the package that maps Go errors to MCP; file failures never
// become JSON-RPC errors.
//
// op and path describe the operation for errors that do not carry them
// already; a *fs.PathError speaks for itself.
func errorResult(op, path string, err error) *mcp.CallToolResult {
	cause := err
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		path, cause = pe.Path, pe.Err
		if pe.Op != "resolve" { // fspath.Abs's; say what the path was for instead
			op = pe.Op
		}
	}
	var text string
	switch {
	case path == "":
		text = fmt.Sprintf("%s: %v", op, cause)
	case strings.ContainsFunc(path, unicode.IsControl):
		text = fmt.Sprintf("%s %q: %v", op, path, cause)
	default:
		text = fmt.Sprintf("%s %s: %v", op, path, cause)
	}
	if hint := hint(op, err); hint != "" {
		text += " (" + hint + ")"
	}
	return mcp.NewToolResultError(text)
}

// nameHomePaths makes every tool name a path argument written with a
// leading ~ in both forms in its error results, as in "read ~/notes.txt
// (/home/me/notes.txt): outside the allowed roots (/w)": the handlers name
// the path they acted on, the expanded one, and the model should see what
// its ~ became.
func (b *binding) nameHomePaths() {
	if b.home == "" {
		return
	}
	for _, st := range b.srv.ListTools() {
		next := st.Handler
		b.srv.AddTool(st.Tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := next(ctx, req)
			if args, ok := req.Params.Arguments.(map[string]any); ok && res != nil && res.IsError {
				for _, key := range []string{"path", "source", "destination"} {
					if given, ok := args[key].(string); ok {
						nameGivenForm(res, given, b.expand(given), b.sess.WorkDir)
					}
				}
			}
			return res, err
		})
	}
}

// nameGivenForm rewrites "op path: cause", the text of the error result
// res, as "op given (path): cause" when path is what the argument given
// became: expanded, the ~ of given expanded, or expanded made absolute.
func nameGivenForm(res *mcp.CallToolResult, given, expanded, workDir string) {
	if expanded == given || len(res.Content) != 1 {
		return
	}
	tc, ok := mcp.AsTextContent(res.Content[0])
	if !ok {
		return
	}
	forms := []string{expanded}
	if abs, err := fspath.Abs(workDir, expanded); err == nil && abs != expanded {
		forms = []string{abs, expanded}
	}
	for _, form := range forms {
		if before, after, ok := strings.Cut(tc.Text, " "+form+": "); ok {
			res.Content[0] = mcp.NewTextContent(before + " " + given + " (" + form + "): " + after)
			return
		}
	}
}

// hint suggests a next step for a model, for the errors where one helps and
// the error's own text does not already give it.
func hint(op string, err error) string {
	if ge, ok := errors.AsType[*guardError](err); ok && ge.advises() {
		return "" // the read guard's refusals say what to do
	}
	switch {
	case errors.Is(err, errChanged):
		return "read the file again and redo the change on what it holds now"
	case errors.Is(err, fsruntime.ErrTooLarge):
		if tl, ok := errors.AsType[*fsruntime.TooLargeError](err); ok && tl.Read {
			return "" // the message already says to read a range
		}
		switch op {
		case "read":
			return "read a range of it with line and limit"
		case "edit", "read media":
			return "" // no smaller request would do
		}
		return "write a smaller content"
	case errors.Is(err, fsruntime.ErrPastEnd):
		return "ask for a smaller line, or omit line to start at the top"
	case errors.Is(err, fsruntime.ErrBinary):
		return "only UTF-8 text files can be read or written with these tools"
	case errors.Is(err, fsruntime.ErrNotRegular), errors.Is(err, fspath.ErrNamesDir):
		return "the path must name a file, not a directory or a device"
	case errors.Is(err, fs.ErrNotExist):
		return "check the path; relative paths resolve against the working directory"
	case errors.Is(err, context.Canceled):
		return "the request was cancelled"
	case errors.Is(err, context.DeadlineExceeded):
		return "the operation timed out"
	case errors.Is(err, errors.ErrUnsupported):
		return "the operation is not supported here"
	}
	return ""
}

// rewriteValidationResult replaces the text of mcp-go's input validation
// failures, such as "/line: &{Got:-1/1 Want:0/1}" (mcp-go v1.2.1 prints the
// validator's error kinds with %+v), with one a model can act on, which
// names the path of the call (resolved against workDir) as every other
// error does: "read /w/a.txt: invalid arguments for read_text_file: line
// must be at least 0, not -1". It runs as an after-call-tool hook, so it
// sees the result mcp-go sends.
func rewriteValidationResult(tool mcp.Tool, req *mcp.CallToolRequest, result any, workDir string) {
	res, ok := result.(*mcp.CallToolResult)
	if !ok || !res.IsError || len(res.Content) != 1 {
		return
	}
	tc, ok := mcp.AsTextContent(res.Content[0])
	if !ok || !strings.HasPrefix(tc.Text, mcpserve.ValidationPrefix) {
		return
	}
	problems := argumentProblems(tool.InputSchema, req.Params.Arguments)
	if len(problems) == 0 {
		return // keep mcp-go's text: something this package does not model
	}
	err := argError("invalid arguments for " + tool.Name + ": " + strings.Join(problems, "; "))
	op, path := toolOps[tool.Name], argumentPath(req.Params.Arguments, workDir)
	if op == "" || path == "" {
		res.Content[0] = mcp.NewTextContent(err.Error())
		return
	}
	res.Content[0] = errorResult(op, path, err).Content[0]
}

// toolOps are the operations that the tools' errors name.
var toolOps = map[string]string{
	ReadTextFile: "read", WriteTextFile: "write", EditTextFile: "edit", ReadMediaFile: "read media",
	GetFileInfo: "stat", ListDirectory: "list", DirectoryTree: "tree", CreateDirectory: "mkdir",
	MoveFile: "move", DeleteFile: "delete", Glob: Glob, Grep: Grep,
}

// argumentPath is the path a call's arguments name (path, or a move's
// source), absolute as the tool would resolve it, or as given if it does
// not resolve; "" if there is none.
func argumentPath(args any, workDir string) string {
	obj, _ := args.(map[string]any)
	for _, name := range []string{"path", "source"} {
		if p, ok := obj[name].(string); ok && p != "" {
			if abs, err := fspath.Abs(workDir, p); err == nil {
				return abs
			}
			return p
		}
	}
	return ""
}

// argumentProblems checks args against the subset of JSON Schema that this
// package's tools use: required, additionalProperties false, and properties
// of type string or integer with a minimum.
func argumentProblems(schema mcp.ToolInputSchema, args any) []string {
	obj, ok := args.(map[string]any)
	if !ok {
		if args == nil {
			obj = map[string]any{}
		} else {
			return []string{"the arguments must be a JSON object"}
		}
	}
	var problems []string
	for _, name := range schema.Required {
		if _, ok := obj[name]; !ok {
			problems = append(problems, name+" is required")
		}
	}
	var unknown []string
	for name := range obj {
		if _, ok := schema.Properties[name]; !ok {
			unknown = append(unknown, strconv.Quote(name))
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		known := slices.Sorted(maps.Keys(schema.Properties))
		problems = append(problems, fmt.Sprintf("unknown argument %s (the arguments are %s)",
			strings.Join(unknown, ", "), strings.Join(known, ", ")))
	}
	for _, name := range slices.Sorted(maps.Keys(obj)) {
		if prop, ok := schema.Properties[name].(map[string]any); ok {
			problems = append(problems, valueProblems(name, prop, obj[name])...)
		}
	}
	return problems
}

// valueProblems says what is wrong with the value v of the argument at
// name (a path such as edits[1].oldText) against its schema prop.
func valueProblems(name string, prop map[string]any, v any) []string {
	kind := func(want string) []string {
		return []string{fmt.Sprintf("%s must be %s, not %s", name, want, jsonKind(v))}
	}
	switch prop["type"] {
	case "string":
		if _, ok := v.(string); !ok {
			return kind("a string")
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return kind("true or false")
		}
	case "integer", "number":
		n, ok := v.(float64)
		if !ok || prop["type"] == "integer" && n != math.Trunc(n) {
			if prop["type"] == "integer" {
				return kind("an integer")
			}
			return kind("a number")
		}
		if min, ok := number(prop["minimum"]); ok && n < min {
			return []string{fmt.Sprintf("%s must be at least %v, not %v", name, min, n)}
		}
		if max, ok := number(prop["maximum"]); ok && n > max {
			return []string{fmt.Sprintf("%s must be at most %v, not %v", name, max, n)}
		}
	case "array":
		items, ok := v.([]any)
		if !ok {
			return kind("an array")
		}
		if min, ok := number(prop["minItems"]); ok && float64(len(items)) < min {
			return []string{fmt.Sprintf("%s must have at least %v item(s), not %d", name, min, len(items))}
		}
		var problems []string
		if itemSchema, ok := prop["items"].(map[string]any); ok {
			for i, item := range items {
				problems = append(problems, valueProblems(fmt.Sprintf("%s[%d]", name, i), itemSchema, item)...)
			}
		}
		return problems
	case "object":
		o, ok := v.(map[string]any)
		if !ok {
			return kind("an object")
		}
		props, _ := prop["properties"].(map[string]any)
		var problems []string
		for _, r := range requiredNames(prop["required"]) {
			if _, ok := o[r]; !ok {
				problems = append(problems, fmt.Sprintf("%s.%s is required", name, r))
			}
		}
		for _, k := range slices.Sorted(maps.Keys(o)) {
			sub, ok := props[k].(map[string]any)
			if !ok {
				if props != nil {
					problems = append(problems, fmt.Sprintf("%s has an unknown member %q (its members are %s)",
						name, k, strings.Join(slices.Sorted(maps.Keys(props)), ", ")))
				}
				continue
			}
			problems = append(problems, valueProblems(name+"."+k, sub, o[k])...)
		}
		return problems
	}
	return nil
}

// requiredNames reads a schema's "required" keyword.
func requiredNames(v any) []string {
	switch v := v.(type) {
	case []string:
		return v
	case []any:
		var out []string
		for _, s := range v {
			if s, ok := s.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// number returns a schema's numeric keyword value.
func number(v any) (float64, bool) {
	switch v := v.(type) {
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

// jsonKind describes a decoded JSON value for a message.
func jsonKind(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// resourceRPCError is err, the failure of a request about the resource
// uri, with its JSON-RPC code recorded: a file that does not exist is
// "resource not found" (-32002 before 2026-07-28, -32602 since, as mcp-go
// answers a URI no resource matches), a URI that names no file inside the
// roots (or a directory) is invalid params, and anything else (a file too
// large, a failed read) is internal. The data names the URI.
func resourceRPCError(ctx context.Context, uri string, err error) error {
	code := wire.CodeInternalError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		code = wire.CodeResourceNotFound
		if mcp.IsModernProtocol(server.RequestProtocolVersion(ctx)) {
			code = wire.CodeInvalidParams
		}
	case errors.Is(err, fsruntime.ErrTooLarge), errors.Is(err, fsruntime.ErrBinary):
	case errors.Is(err, fsruntime.ErrOutsideRoots), errors.Is(err, fs.ErrInvalid):
		code = wire.CodeInvalidParams
	}
	return mcpserve.ReportError(ctx, code, map[string]any{"uri": uri}, err)
}
