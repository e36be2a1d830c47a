package integration

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/mcpclient"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpfstest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
)

// eras are the two protocol eras a client can speak: the initialize
// handshake of 2025-11-25 and earlier, and the stateless core of 2026-07-28
// (server/discover, _meta on every request).
var eras = []struct{ name, version string }{
	{"legacy", mcp.LATEST_LEGACY_PROTOCOL_VERSION},
	{"modern", mcp.LATEST_PROTOCOL_VERSION},
}

// Tool names.
const (
	readTool  = "read_text_file"
	writeTool = "write_text_file"
)

// readOnlyTools are the tools that change nothing: exactly the ones
// --read-only leaves. Sorted.
var readOnlyTools = []string{
	"directory_tree",
	"get_file_info",
	"glob",
	"grep",
	"list_directory",
	"read_media_file",
	readTool,
}

// mutatingTools are the tools that change files: --read-only hides them.
// Sorted.
var mutatingTools = []string{
	"create_directory",
	"delete_file",
	"edit_text_file",
	"move_file",
	writeTool,
}

// allTools is the full toolset, sorted: the tool list is exactly this set.
var allTools = slices.Sorted(slices.Values(slices.Concat(readOnlyTools, mutatingTools)))

// unknownTool is a tool name the server must not have.
const unknownTool = "no_such_tool"

// A tree is a directory tree to serve, with things around the root that
// must stay out of reach.
type tree struct {
	base    string // the parent of the rest, symlinks resolved
	root    string // base/root, the root to serve
	sibling string // base/rootx, whose name has the root's as a prefix
	outside string // base/outside
	// links is nil if the symlinks in the root were made, else why
	// none could be (ostest.NoSymlinks); fifo likewise for the named
	// pipe.
	links, fifo error
}

// treeLinks are the symlinks newTree makes in the root, by name, with
// their targets.
var treeLinks = map[string]string{
	"link-in.txt":  "hello.txt",
	"link-out.txt": filepath.Join("..", "outside", "secret.txt"),
	"link-dir":     filepath.Join("..", "outside"),
}

// need skips the test, saying why, if path, relative to the root, goes
// through an entry of the tree that could not be made here (a symlink or
// the named pipe).
func (tr tree) need(t *testing.T, path string) {
	t.Helper()
	first, _, _ := strings.Cut(filepath.ToSlash(path), "/")
	if _, ok := treeLinks[first]; ok {
		ostest.SkipWithoutSymlinks(t, tr.links)
	}
	if first == "fifo" {
		skipWithout(t, "named pipes", tr.fifo)
	}
}

// rootFiles are the files newTree creates in the root.
var rootFiles = map[string]string{
	"hello.txt":   "alpha\nbeta\r\ngamma\n",
	"nonl.txt":    "one\ntwo\nthree",
	"empty.txt":   "",
	"unicode.txt": "héllo wörld ✓ 日本語\n",
	"bom.txt":     "\ufeffwith a byte order mark\r\n",
	"cr.txt":      "lone\rcarriage return\nlast",
	"latin1.txt":  "caf\xe9 cr\xe8me\n",
	"sub/rel.txt": "relative\n",
	"bin.dat":     "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\xff",
}

const (
	outsideSecret = "outside secret\n"
	siblingSecret = "sibling secret\n"
)

// newTree creates a tree in a temporary directory: rootFiles in the root,
// secrets outside it and in the prefix sibling, and symlinks from the root:
// link-in.txt to hello.txt, link-out.txt to the outside secret and link-dir
// to the outside directory; and a named pipe, fifo. Where the system
// cannot make symlinks or named pipes, tree.links or tree.fifo says why,
// and the tests that need them skip (tree.need).
func newTree(t *testing.T) tree {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tr := tree{
		base:    base,
		root:    filepath.Join(base, "root"),
		sibling: filepath.Join(base, "rootx"),
		outside: filepath.Join(base, "outside"),
	}
	for name, content := range rootFiles {
		writeFile(t, filepath.Join(tr.root, name), content)
	}
	writeFile(t, filepath.Join(tr.outside, "secret.txt"), outsideSecret)
	writeFile(t, filepath.Join(tr.sibling, "secret.txt"), siblingSecret)
	if tr.links = ostest.NoSymlinks(t, base); tr.links == nil {
		for link, target := range treeLinks {
			if err := os.Symlink(target, filepath.Join(tr.root, link)); err != nil {
				t.Fatal(err)
			}
		}
	}
	tr.fifo = fifoErr(t, filepath.Join(tr.root, "fifo"))
	return tr
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// wantFile fails the test unless path holds exactly want.
func wantFile(t *testing.T, path, want string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("on disk: %v", err)
		return
	}
	if string(got) != want {
		t.Errorf("on disk, %s = %q, want %q", path, got, want)
	}
}

// wantNoFile fails the test if path exists.
func wantNoFile(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); err == nil {
		t.Errorf("%s exists, want it not created", path)
	}
}

// connect starts an mcp-go client on p's stdio and initializes it in the
// protocol era of version, failing the test unless that era is the one
// negotiated.
func (p *proc) connect(t *testing.T, version string, opts ...client.ClientOption) *client.Client {
	t.Helper()
	c := client.NewClient(transport.NewIO(p.out, p.stdin, nil), opts...)
	initialize(t, c, version)
	return c
}

// clientHello is how the tests' MCP clients introduce themselves, proposing
// the protocol version ("" for mcp-go's latest).
func clientHello(version string) mcpclient.Hello {
	return mcpclient.Hello{Name: "mcp-acpfs-integration", Version: version, Timeout: callTimeout}
}

// initialize starts c for the rest of the test and initializes it in the
// protocol era of version, failing the test unless that era is the one
// negotiated and the server is mcp-acpfs with tools.
func initialize(t *testing.T, c *client.Client, version string) *mcp.InitializeResult {
	t.Helper()
	res, err := mcpclient.Start(t.Context(), c, clientHello(version))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.ProtocolVersion(); got != version {
		t.Fatalf("negotiated protocol %s, want %s", got, version)
	}
	if res.ServerInfo.Name != "mcp-acpfs" {
		t.Errorf("server name %q, want mcp-acpfs", res.ServerInfo.Name)
	}
	if res.Capabilities.Tools == nil {
		t.Errorf("the server does not declare the tools capability")
	}
	return res
}

// callTool calls a tool and returns the result, or the protocol error.
func callTool(t *testing.T, c *client.Client, name string, args map[string]any) (*mcp.CallToolResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), callTimeout)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	return c.CallTool(ctx, req)
}

// resultText returns the one text content of res, which a read may follow
// with its status line.
func resultText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 && mcpfstest.Status(res) == "" {
		t.Fatalf("result has %d contents, want 1: %+v", len(res.Content), res.Content)
	}
	tc, ok := mcp.AsTextContent(res.Content[0])
	if !ok {
		t.Fatalf("result content is %T, want text", res.Content[0])
	}
	return tc.Text
}

// mustSucceed calls a tool that must succeed and returns its text.
func mustSucceed(t *testing.T, c *client.Client, name string, args map[string]any) string {
	t.Helper()
	res, err := callTool(t, c, name, args)
	if err != nil {
		t.Fatalf("%s %v: protocol error: %v", name, args, err)
	}
	text := resultText(t, res)
	if res.IsError {
		t.Fatalf("%s %v: error result: %s", name, args, text)
	}
	return text
}

// notExist is how an error result says that a file does not exist: the
// text of fs.ErrNotExist.
const notExist = "file does not exist"

// mustFail calls a tool that must fail with an error result, never a
// protocol error, and returns its text after checking that it contains
// every one of want; a want of the form "a|b" asks for a or b.
func mustFail(t *testing.T, c *client.Client, name string, args map[string]any, want ...string) string {
	t.Helper()
	res, err := callTool(t, c, name, args)
	if err != nil {
		t.Fatalf("%s %v: protocol error %v, want an error result", name, args, err)
	}
	text := resultText(t, res)
	if !res.IsError {
		t.Fatalf("%s %v: success %q, want an error result", name, args, truncate(text, 200))
	}
	for _, w := range want {
		if !slices.ContainsFunc(strings.Split(w, "|"), func(alt string) bool { return strings.Contains(text, alt) }) {
			t.Errorf("%s %v: error %q does not contain %q", name, args, text, w)
		}
	}
	for _, secret := range []string{outsideSecret, siblingSecret} {
		if strings.Contains(text, strings.TrimSpace(secret)) {
			t.Errorf("%s %v: error %q leaks a file's content", name, args, text)
		}
	}
	return text
}

// mustRefuse calls a tool with arguments it must refuse, either with an
// error result or a protocol error (invalid params).
func mustRefuse(t *testing.T, c *client.Client, name string, args map[string]any) {
	t.Helper()
	res, err := callTool(t, c, name, args)
	if err == nil && !res.IsError {
		t.Errorf("%s %v: success, want it refused", name, args)
	}
}

// mustBeUnknown calls a tool the server must not have: the call must be a
// protocol error (invalid params) that names the tool, not a result.
func mustBeUnknown(t *testing.T, c *client.Client, name string, args map[string]any) {
	t.Helper()
	res, err := callTool(t, c, name, args)
	if err == nil {
		t.Errorf("%s %v: result %+v, want a protocol error for an unknown tool", name, args, res)
		return
	}
	if !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "not found") {
		t.Errorf("%s %v: protocol error %q, want one that says the tool is not found", name, args, err)
	}
}

// listTools returns the server's tools by name.
func listTools(t *testing.T, c *client.Client) map[string]mcp.Tool {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), callTimeout)
	defer cancel()
	res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	tools := make(map[string]mcp.Tool)
	for _, tool := range res.Tools {
		if _, dup := tools[tool.Name]; dup {
			t.Errorf("tool %s listed twice", tool.Name)
		}
		tools[tool.Name] = tool
	}
	return tools
}

// wantHints are the annotations each tool must carry.
var wantHints = map[string]struct{ readOnly, destructive, idempotent, openWorld bool }{
	"create_directory": {readOnly: false, destructive: false, idempotent: true, openWorld: false},
	"delete_file":      {readOnly: false, destructive: true, idempotent: false, openWorld: false},
	"directory_tree":   {readOnly: true, destructive: false, idempotent: true, openWorld: false},
	"edit_text_file":   {readOnly: false, destructive: true, idempotent: false, openWorld: false},
	"get_file_info":    {readOnly: true, destructive: false, idempotent: true, openWorld: false},
	"glob":             {readOnly: true, destructive: false, idempotent: true, openWorld: false},
	"grep":             {readOnly: true, destructive: false, idempotent: true, openWorld: false},
	"list_directory":   {readOnly: true, destructive: false, idempotent: true, openWorld: false},
	"move_file":        {readOnly: false, destructive: true, idempotent: false, openWorld: false},
	"read_media_file":  {readOnly: true, destructive: false, idempotent: true, openWorld: false},
	readTool:           {readOnly: true, destructive: false, idempotent: true, openWorld: false},
	writeTool:          {readOnly: false, destructive: true, idempotent: true, openWorld: false},
}

// wantProps are the input properties of each tool, and which are required.
var wantProps = map[string]struct{ props, required []string }{
	"create_directory": {props: []string{"path"}, required: []string{"path"}},
	"delete_file":      {props: []string{"path", "recursive"}, required: []string{"path"}},
	"directory_tree":   {props: []string{"exclude", "maxDepth", "path"}, required: []string{"path"}},
	"edit_text_file":   {props: []string{"dryRun", "edits", "expectedHash", "path"}, required: []string{"edits", "path"}},
	"get_file_info":    {props: []string{"path"}, required: []string{"path"}},
	"glob":             {props: []string{"path", "pattern"}, required: []string{"pattern"}},
	"grep":             {props: []string{"ignoreCase", "include", "maxResults", "path", "pattern"}, required: []string{"pattern"}},
	"list_directory":   {props: []string{"details", "path"}, required: []string{"path"}},
	"move_file":        {props: []string{"destination", "overwrite", "source"}, required: []string{"destination", "source"}},
	"read_media_file":  {props: []string{"path"}, required: []string{"path"}},
	readTool:           {props: []string{"limit", "line", "lineNumbers", "path"}, required: []string{"path"}},
	writeTool:          {props: []string{"content", "expectedHash", "path"}, required: []string{"content", "path"}},
}

// TestToolTables checks the tables of the tests themselves: the read-only
// and the mutating tools are disjoint, and every tool has its hints and
// properties, consistent with the set it is in.
func TestToolTables(t *testing.T) {
	if n := len(readOnlyTools) + len(mutatingTools); len(slices.Compact(slices.Clone(allTools))) != n {
		t.Errorf("the read-only and the mutating tools overlap: %v, %v", readOnlyTools, mutatingTools)
	}
	for _, set := range [][]string{readOnlyTools, mutatingTools} {
		if !slices.IsSorted(set) {
			t.Errorf("%v is not sorted", set)
		}
	}
	for _, name := range allTools {
		h, ok := wantHints[name]
		if !ok {
			t.Errorf("no wantHints for %s", name)
		}
		if _, ok := wantProps[name]; !ok {
			t.Errorf("no wantProps for %s", name)
		}
		if ro := slices.Contains(readOnlyTools, name); h.readOnly != ro || (ro && h.destructive) {
			t.Errorf("wantHints[%s] = %+v, inconsistent with read-only %v", name, h, ro)
		}
	}
	if len(wantHints) != len(allTools) || len(wantProps) != len(allTools) {
		t.Errorf("wantHints or wantProps name tools that are not in %v", allTools)
	}
}

// checkTools checks the tool list: exactly names (in any order), each with
// a description that names the working directory, a title, its four
// annotations (a read-only tool with readOnlyHint true and destructiveHint
// false), its input schema and an output schema.
func checkTools(t *testing.T, c *client.Client, workDir string, names ...string) map[string]mcp.Tool {
	t.Helper()
	tools := listTools(t, c)
	got := slices.Sorted(func(yield func(string) bool) {
		for name := range tools {
			if !yield(name) {
				return
			}
		}
	})
	names = slices.Sorted(slices.Values(names))
	if !slices.Equal(got, names) {
		t.Fatalf("tools %v, want %v", got, names)
	}
	for _, name := range names {
		tool := tools[name]
		if tool.Description == "" {
			t.Errorf("%s has no description", name)
		}
		if name == readTool && !strings.Contains(tool.Description, workDir) {
			t.Errorf("%s description does not name the working directory %s:\n%s", name, workDir, tool.Description)
		}
		want, ok := wantHints[name]
		if !ok {
			t.Errorf("%s: no expected annotations", name)
			continue
		}
		a := tool.Annotations
		if slices.Contains(readOnlyTools, name) {
			if a.ReadOnlyHint == nil || !*a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint {
				t.Errorf("%s is a read-only tool: want readOnlyHint true and destructiveHint false, got %s", name, hintString(a))
			}
		} else if a.ReadOnlyHint == nil || *a.ReadOnlyHint {
			t.Errorf("%s changes files: want readOnlyHint false, got %s", name, hintString(a))
		}
		for _, h := range []struct {
			hint string
			got  *bool
			want bool
		}{
			{"readOnlyHint", a.ReadOnlyHint, want.readOnly},
			{"destructiveHint", a.DestructiveHint, want.destructive},
			{"idempotentHint", a.IdempotentHint, want.idempotent},
			{"openWorldHint", a.OpenWorldHint, want.openWorld},
		} {
			if h.got == nil {
				t.Errorf("%s: %s not set, want %v", name, h.hint, h.want)
			} else if *h.got != h.want {
				t.Errorf("%s: %s = %v, want %v", name, h.hint, *h.got, h.want)
			}
		}
		if a.Title == "" && tool.Title == "" {
			t.Errorf("%s has no title", name)
		}
		s := tool.InputSchema
		if s.Type != "object" {
			t.Errorf("%s: input schema type %q, want object", name, s.Type)
		}
		props := slices.Sorted(func(yield func(string) bool) {
			for p := range s.Properties {
				if !yield(p) {
					return
				}
			}
		})
		if !slices.Equal(props, wantProps[name].props) {
			t.Errorf("%s: input properties %v, want %v", name, props, wantProps[name].props)
		}
		if req := slices.Sorted(slices.Values(s.Required)); !slices.Equal(req, wantProps[name].required) {
			t.Errorf("%s: required %v, want %v", name, req, wantProps[name].required)
		}
		if tool.OutputSchema.Type != "object" && tool.RawOutputSchema == nil {
			t.Errorf("%s: output schema type %q, want object", name, tool.OutputSchema.Type)
		}
	}
	return tools
}

// hintString formats the four hints of a, nil ones as "unset".
func hintString(a mcp.ToolAnnotation) string {
	f := func(b *bool) string {
		if b == nil {
			return "unset"
		}
		return fmt.Sprint(*b)
	}
	return fmt.Sprintf("{readOnly: %s, destructive: %s, idempotent: %s, openWorld: %s}",
		f(a.ReadOnlyHint), f(a.DestructiveHint), f(a.IdempotentHint), f(a.OpenWorldHint))
}

// TestStdio drives `serve` over stdio with mcp-go's client, in each
// protocol era: the tool list, reads, writes, and the refusals.
func TestStdio(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			t.Parallel()
			tr := newTree(t)
			p := start(t, procOptions{}, "serve", "--root", tr.root)
			c := p.connect(t, era.version)

			t.Run("ListTools", func(t *testing.T) {
				checkTools(t, c, tr.root, allTools...)
			})
			t.Run("Read", func(t *testing.T) { testRead(t, c, tr) })
			t.Run("ReadErrors", func(t *testing.T) { testReadErrors(t, c, tr) })
			t.Run("Write", func(t *testing.T) { testWrite(t, c, tr) })
			t.Run("WriteErrors", func(t *testing.T) { testWriteErrors(t, c, tr) })
			t.Run("InvalidArguments", func(t *testing.T) { testInvalidArguments(t, c, tr) })
			t.Run("LargeFile", func(t *testing.T) { testLargeFile(t, c, tr) })
			t.Run("Concurrent", func(t *testing.T) { testConcurrent(t, c, tr) })

			if err := c.Close(); err != nil {
				t.Errorf("closing the client: %v", err)
			}
			p.closeStdin()
			p.checkStdoutJSONLines()
		})
	}
}

func testRead(t *testing.T, c *client.Client, tr tree) {
	hello := filepath.Join(tr.root, "hello.txt")
	nonl := filepath.Join(tr.root, "nonl.txt")
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"Whole", map[string]any{"path": hello}, rootFiles["hello.txt"]},
		{"LineZeroIsOne", map[string]any{"path": hello, "line": 0}, rootFiles["hello.txt"]},
		{"LineOne", map[string]any{"path": hello, "line": 1}, rootFiles["hello.txt"]},
		{"Limit", map[string]any{"path": hello, "limit": 2}, "alpha\nbeta\r\n"},
		{"KeepsCRLF", map[string]any{"path": hello, "line": 2, "limit": 1}, "beta\r\n"},
		{"LineToEnd", map[string]any{"path": hello, "line": 3}, "gamma\n"},
		{"LimitPastEnd", map[string]any{"path": hello, "line": 2, "limit": 100}, "beta\r\ngamma\n"},
		{"NoFinalNewline", map[string]any{"path": nonl}, "one\ntwo\nthree"},
		{"LastLineNoNewline", map[string]any{"path": nonl, "line": 3}, "three"},
		{"MiddleLine", map[string]any{"path": nonl, "line": 2, "limit": 1}, "two\n"},
		{"Empty", map[string]any{"path": filepath.Join(tr.root, "empty.txt")}, ""},
		{"Unicode", map[string]any{"path": filepath.Join(tr.root, "unicode.txt")}, rootFiles["unicode.txt"]},
		{"KeepsBOM", map[string]any{"path": "bom.txt"}, rootFiles["bom.txt"]},
		{"LoneCRIsNoLineEnd", map[string]any{"path": "cr.txt", "limit": 1}, "lone\rcarriage return\n"},
		{"AfterLoneCR", map[string]any{"path": "cr.txt", "line": 2}, "last"},
		{"HugeLimit", map[string]any{"path": hello, "line": 2, "limit": 1 << 53}, "beta\r\ngamma\n"},
		{"Relative", map[string]any{"path": "sub/rel.txt"}, "relative\n"},
		{"RelativeDot", map[string]any{"path": "./nonl.txt"}, rootFiles["nonl.txt"]},
		{"RelativeDotDotInside", map[string]any{"path": "sub/../hello.txt"}, rootFiles["hello.txt"]},
		{"AbsoluteUnclean", map[string]any{"path": tr.root + "/sub/../sub//rel.txt"}, "relative\n"},
		{"SymlinkInside", map[string]any{"path": "link-in.txt"}, rootFiles["hello.txt"]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr.need(t, tc.args["path"].(string))
			if got := mustSucceed(t, c, readTool, tc.args); got != tc.want {
				t.Errorf("read %v = %q, want %q", tc.args, got, tc.want)
			}
		})
	}
	// The structured result repeats the text, where it starts and how many
	// lines it has, and the hash of the whole file, whatever the range.
	for _, tc := range []struct {
		name            string
		args            map[string]any
		file, text      string
		line, lineCount int
		total, next     int
	}{
		{"StructuredWhole", map[string]any{"path": hello}, hello, rootFiles["hello.txt"], 1, 3, 3, 0},
		{"StructuredRange", map[string]any{"path": hello, "line": 2, "limit": 1}, hello, "beta\r\n", 2, 1, 3, 3},
		{"StructuredRelativeNoFinalNewline", map[string]any{"path": "nonl.txt", "line": 3}, nonl, "three", 3, 1, 3, 0},
		{"StructuredEmpty", map[string]any{"path": "empty.txt"}, filepath.Join(tr.root, "empty.txt"), "", 1, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := callTool(t, c, readTool, tc.args)
			if err != nil || res.IsError {
				t.Fatalf("read %v: %v %+v", tc.args, err, res)
			}
			if got := resultText(t, res); got != tc.text {
				t.Errorf("read %v = %q, want %q", tc.args, got, tc.text)
			}
			var out struct {
				Path      string `json:"path"`
				Content   string `json:"content"`
				Line      int    `json:"line"`
				LineCount int    `json:"lineCount"`
				Total     int    `json:"totalLines"`
				Next      int    `json:"nextLine"`
				SHA256    string `json:"sha256"`
				Source    string `json:"source"`
				Differs   *bool  `json:"differsFromDisk"`
			}
			structured(t, res, &out)
			if out.Differs == nil || *out.Differs {
				t.Errorf("read %v: differsFromDisk %v, want false", tc.args, out.Differs)
			}
			out.Differs = nil
			want := out
			want.Path, want.Content, want.Line, want.LineCount, want.SHA256 = tc.file, tc.text, tc.line, tc.lineCount, sha256File(t, tc.file)
			want.Total, want.Next = tc.total, tc.next
			want.Source = "disk"
			if out != want {
				t.Errorf("read %v: structured %+v, want %+v", tc.args, out, want)
			}
		})
	}
}

// structured decodes the structured content of res into v, failing the
// test if there is none.
func structured(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	if res.StructuredContent == nil {
		t.Fatalf("no structured content: %+v", res)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
}

// sha256File returns the hex SHA-256 of the file at path.
func sha256File(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func testReadErrors(t *testing.T, c *client.Client, tr tree) {
	const outsideRoots = "outside the allowed roots"
	rootsList := "(" + tr.root + ")"
	for _, tc := range []struct {
		name string
		args map[string]any
		want []string
	}{
		{"Missing", map[string]any{"path": filepath.Join(tr.root, "missing.txt")},
			[]string{"read " + filepath.Join(tr.root, "missing.txt") + ":", notExist}},
		{"MissingRelative", map[string]any{"path": "nope/missing.txt"},
			[]string{"read " + filepath.Join(tr.root, "nope", "missing.txt") + ":", notExist}},
		{"Outside", map[string]any{"path": filepath.Join(tr.outside, "secret.txt")},
			[]string{"read " + filepath.Join(tr.outside, "secret.txt") + ":", outsideRoots, rootsList}},
		{"PrefixSibling", map[string]any{"path": filepath.Join(tr.sibling, "secret.txt")},
			[]string{filepath.Join(tr.sibling, "secret.txt"), outsideRoots}},
		{"RelativeEscape", map[string]any{"path": "../outside/secret.txt"},
			[]string{filepath.Join(tr.outside, "secret.txt"), outsideRoots}},
		{"RelativeEscapeToSibling", map[string]any{"path": "../rootx/secret.txt"},
			[]string{filepath.Join(tr.sibling, "secret.txt"), outsideRoots}},
		{"SymlinkOut", map[string]any{"path": "link-out.txt"},
			[]string{filepath.Join(tr.root, "link-out.txt"), outsideRoots}},
		{"SymlinkDirOut", map[string]any{"path": "link-dir/secret.txt"},
			[]string{filepath.Join(tr.root, "link-dir", "secret.txt"), outsideRoots}},
		{"FilesystemRoot", map[string]any{"path": "/etc/passwd"}, // on Windows, on the working directory's drive
			[]string{hostAbs(tr.root, "/etc/passwd"), outsideRoots}},
		{"PastEnd", map[string]any{"path": "hello.txt", "line": 10},
			[]string{filepath.Join(tr.root, "hello.txt"), "past the end"}},
		{"HugeLine", map[string]any{"path": "hello.txt", "line": 1 << 53},
			[]string{filepath.Join(tr.root, "hello.txt"), "past the end"}},
		{"Binary", map[string]any{"path": "bin.dat"},
			[]string{filepath.Join(tr.root, "bin.dat"), "binary"}},
		{"NotUTF8", map[string]any{"path": "latin1.txt"},
			[]string{filepath.Join(tr.root, "latin1.txt"), "binary|UTF-8"}},
		{"NamedPipe", map[string]any{"path": "fifo"}, // must not block
			[]string{filepath.Join(tr.root, "fifo"), "not a regular file"}},
		{"ParentIsFile", map[string]any{"path": "hello.txt/x.txt"},
			[]string{filepath.Join(tr.root, "hello.txt", "x.txt")}},
		{"Directory", map[string]any{"path": "sub"},
			[]string{filepath.Join(tr.root, "sub"), "not a regular file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr.need(t, tc.args["path"].(string))
			mustFail(t, c, readTool, tc.args, tc.want...)
		})
	}
}

func testWrite(t *testing.T, c *client.Client, tr tree) {
	for _, tc := range []struct {
		name    string
		path    string // as given to the tool
		abs     string // where it must land
		content string
		before  *string     // the file's content before the write, if it exists
		mode    os.FileMode // the mode of the file before, if not 0644; the write keeps it (what the OS keeps of it)
	}{
		{name: "New", path: filepath.Join(tr.root, "new.txt"), content: "fresh\n"},
		{name: "Empty", path: filepath.Join(tr.root, "empty-new.txt"), content: ""},
		{name: "NoFinalNewline", path: filepath.Join(tr.root, "nonl-new.txt"), content: "no newline"},
		{name: "CRLFAndUnicode", path: filepath.Join(tr.root, "crlf.txt"), content: "x\r\ny ✓\r\n日本\n"},
		{name: "CreatesParents", path: filepath.Join(tr.root, "a", "b", "c", "deep.txt"), content: "deep\n"},
		{name: "Relative", path: "rel/w.txt", abs: filepath.Join(tr.root, "rel", "w.txt"), content: "rel\n"},
		{name: "RelativeDotDotInside", path: "sub/../dd.txt", abs: filepath.Join(tr.root, "dd.txt"), content: "dd\n"},
		{name: "Overwrite", path: filepath.Join(tr.root, "over.txt"), content: "new", before: ptr("old old old old\n")},
		{name: "OverwriteKeepsMode", path: filepath.Join(tr.root, "script.sh"), content: "#!/bin/sh\necho new\n",
			before: ptr("#!/bin/sh\necho old\n"), mode: 0o750},
		{name: "OverwriteThroughSymlinkInside", path: filepath.Join(tr.root, "sub", "target-link.txt"),
			abs: filepath.Join(tr.root, "sub", "target.txt"), content: "via link\n", before: ptr("target\n")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			abs := tc.abs
			if abs == "" {
				abs = tc.path
			}
			if tc.before != nil && abs != tc.path { // through a symlink
				ostest.SkipWithoutSymlinks(t, tr.links)
			}
			mode := tc.mode
			if tc.before != nil {
				writeFile(t, abs, *tc.before)
				if tc.mode != 0 {
					mode = ostest.ChmodKept(t, abs, tc.mode)
				}
				if abs != tc.path {
					if err := os.Symlink(filepath.Base(abs), tc.path); err != nil {
						t.Fatal(err)
					}
				}
			}
			if tc.before != nil { // the read guard: a file is read before it is overwritten
				if res, err := callTool(t, c, readTool, map[string]any{"path": tc.path}); err != nil || res.IsError {
					t.Fatalf("read %s: %v %+v", tc.path, err, res)
				}
			}
			dirBefore := dirNames(t, filepath.Dir(abs))
			res, err := callTool(t, c, writeTool, map[string]any{"path": tc.path, "content": tc.content})
			if err != nil || res.IsError {
				t.Fatalf("write %s: %v %+v", tc.path, err, res)
			}
			text := resultText(t, res)
			want := tc.path
			if !filepath.IsAbs(tc.path) {
				want = abs
			}
			if !strings.Contains(text, want) {
				t.Errorf("write result %q does not name %s", text, want)
			}
			var out struct {
				Path         string `json:"path"`
				BytesWritten int    `json:"bytesWritten"`
				SHA256       string `json:"sha256"`
			}
			structured(t, res, &out)
			sum := sha256.Sum256([]byte(tc.content))
			if out.Path != want || out.BytesWritten != len(tc.content) || out.SHA256 != hex.EncodeToString(sum[:]) {
				t.Errorf("write %s: structured %+v, want path %s, bytesWritten %d, sha256 %x", tc.path, out, want, len(tc.content), sum)
			}
			wantFile(t, abs, tc.content)
			if tc.mode != 0 {
				if fi, err := os.Stat(abs); err != nil {
					t.Error(err)
				} else if fi.Mode().Perm() != mode {
					t.Errorf("after the write, the mode of %s is %v, want %v", abs, fi.Mode().Perm(), mode)
				}
			}
			if got := mustSucceed(t, c, readTool, map[string]any{"path": tc.path}); got != tc.content {
				t.Errorf("read back %q, want %q", got, tc.content)
			}
			// An atomic write leaves no temporary file behind.
			wantNames := dirBefore
			if !slices.Contains(wantNames, filepath.Base(abs)) {
				wantNames = slices.Sorted(slices.Values(append(wantNames, filepath.Base(abs))))
			}
			if got := dirNames(t, filepath.Dir(abs)); !slices.Equal(got, wantNames) {
				t.Errorf("after the write, %s holds %v, want %v", filepath.Dir(abs), got, wantNames)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// dirNames returns the sorted names in dir, or nil if it does not exist.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func testWriteErrors(t *testing.T, c *client.Client, tr tree) {
	const outsideRoots = "outside the allowed roots"
	for _, tc := range []struct {
		name      string
		path      string
		content   string // "" means "pwned\n"
		want      []string
		untouched map[string]string // files that must keep their content
		absent    []string          // files that must not appear
	}{
		{name: "Outside", path: filepath.Join(tr.outside, "new.txt"),
			want:   []string{filepath.Join(tr.outside, "new.txt"), outsideRoots},
			absent: []string{filepath.Join(tr.outside, "new.txt")}},
		{name: "OutsideExisting", path: filepath.Join(tr.outside, "secret.txt"),
			want:      []string{outsideRoots},
			untouched: map[string]string{filepath.Join(tr.outside, "secret.txt"): outsideSecret}},
		{name: "PrefixSibling", path: filepath.Join(tr.sibling, "new.txt"),
			want:   []string{filepath.Join(tr.sibling, "new.txt"), outsideRoots},
			absent: []string{filepath.Join(tr.sibling, "new.txt")}},
		{name: "RelativeEscape", path: "../outside/new2.txt",
			want:   []string{filepath.Join(tr.outside, "new2.txt"), outsideRoots},
			absent: []string{filepath.Join(tr.outside, "new2.txt")}},
		{name: "NewDirOutside", path: "../elsewhere/deep/new.txt",
			want:   []string{outsideRoots},
			absent: []string{filepath.Join(tr.base, "elsewhere")}},
		{name: "SymlinkOut", path: "link-out.txt",
			want:      []string{filepath.Join(tr.root, "link-out.txt"), outsideRoots},
			untouched: map[string]string{filepath.Join(tr.outside, "secret.txt"): outsideSecret}},
		{name: "SymlinkDirOut", path: "link-dir/new.txt",
			want:   []string{outsideRoots},
			absent: []string{filepath.Join(tr.outside, "new.txt")}},
		{name: "SymlinkDirOutNewParent", path: "link-dir/made/new.txt",
			want:   []string{outsideRoots},
			absent: []string{filepath.Join(tr.outside, "made")}},
		{name: "Directory", path: "sub",
			want: []string{filepath.Join(tr.root, "sub"), "not a regular file"}},
		{name: "NamedPipe", path: "fifo", // must not block
			want: []string{filepath.Join(tr.root, "fifo"), "not a regular file"}},
		{name: "ParentIsFile", path: "hello.txt/x.txt",
			want:      []string{filepath.Join(tr.root, "hello.txt", "x.txt")},
			untouched: map[string]string{filepath.Join(tr.root, "hello.txt"): rootFiles["hello.txt"]}},
		// (Not nul.txt: Windows reserves the name for a device.)
		{name: "NULInContent", path: "nulbyte.txt", content: "a\x00b\n",
			want:   []string{filepath.Join(tr.root, "nulbyte.txt"), "binary"},
			absent: []string{filepath.Join(tr.root, "nulbyte.txt")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr.need(t, tc.path)
			content := tc.content
			if content == "" {
				content = "pwned\n"
			}
			mustFail(t, c, writeTool, map[string]any{"path": tc.path, "content": content}, tc.want...)
			for p, want := range tc.untouched {
				wantFile(t, p, want)
			}
			for _, p := range tc.absent {
				wantNoFile(t, p)
			}
		})
	}
	if got := dirNames(t, tr.outside); !slices.Equal(got, []string{"secret.txt"}) {
		t.Errorf("the outside directory holds %v, want only secret.txt", got)
	}
}

func testInvalidArguments(t *testing.T, c *client.Client, tr tree) {
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
	}{
		{"ReadNoPath", readTool, map[string]any{}},
		{"ReadEmptyPath", readTool, map[string]any{"path": ""}},
		{"ReadPathNotString", readTool, map[string]any{"path": 42}},
		{"ReadNegativeLine", readTool, map[string]any{"path": "hello.txt", "line": -1}},
		{"ReadZeroLimit", readTool, map[string]any{"path": "hello.txt", "limit": 0}},
		{"ReadLineNotInteger", readTool, map[string]any{"path": "hello.txt", "line": 1.5}},
		{"ReadUnknownArgument", readTool, map[string]any{"path": "hello.txt", "offset": 1}},
		{"WriteNoContent", writeTool, map[string]any{"path": "nocontent.txt"}},
		{"WriteNoPath", writeTool, map[string]any{"content": "x"}},
		{"WriteNULInPath", writeTool, map[string]any{"path": "a\x00b.txt", "content": "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mustRefuse(t, c, tc.tool, tc.args)
		})
	}
	t.Run("UnknownTool", func(t *testing.T) {
		mustBeUnknown(t, c, unknownTool, map[string]any{"path": "hello.txt"})
	})
	wantNoFile(t, filepath.Join(tr.root, "nocontent.txt"))
	wantFile(t, filepath.Join(tr.root, "hello.txt"), rootFiles["hello.txt"])
}

// testLargeFile writes and reads a file of 256 KiB: one JSON-RPC line each
// way, four times the largest line a default bufio.Scanner takes. (Not
// larger: mcp-go decodes a tools/call several times over, about 100 ms a
// MiB, five times that with -race.)
func testLargeFile(t *testing.T, c *client.Client, tr tree) {
	var b strings.Builder
	for i := 0; b.Len() < 256<<10; i++ {
		fmt.Fprintf(&b, "%08d \"quoted\" \\ tab\t ünïcode ✓\n", i)
	}
	content := b.String()
	path := filepath.Join(tr.root, "large.txt")
	mustSucceed(t, c, writeTool, map[string]any{"path": path, "content": content})
	wantFile(t, path, content)
	if got := mustSucceed(t, c, readTool, map[string]any{"path": path}); got != content {
		t.Errorf("read back %d bytes, want the %d written", len(got), len(content))
	}
	lines := strings.SplitAfter(content, "\n")
	if got, want := mustSucceed(t, c, readTool, map[string]any{"path": path, "line": 5000, "limit": 2}), lines[4999]+lines[5000]; got != want {
		t.Errorf("lines 5000-5001 = %q, want %q", got, want)
	}
}

// testConcurrent runs many tool calls at once on one session; each must get
// its own answer.
func testConcurrent(t *testing.T, c *client.Client, tr tree) {
	const n = 32
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			path := filepath.Join(tr.root, "concurrent", fmt.Sprintf("f%02d.txt", i))
			content := strings.Repeat(fmt.Sprintf("file %d\n", i), i+1)
			res, err := callTool(t, c, writeTool, map[string]any{"path": path, "content": content})
			if err != nil || res.IsError {
				t.Errorf("write %s: %v %+v", path, err, res)
				return
			}
			res, err = callTool(t, c, readTool, map[string]any{"path": path, "line": i + 1})
			if err != nil || res.IsError || len(res.Content) == 0 {
				t.Errorf("read %s: %v %+v", path, err, res)
				return
			}
			if tc, ok := mcp.AsTextContent(res.Content[0]); !ok || tc.Text != fmt.Sprintf("file %d\n", i) {
				t.Errorf("read %s line %d: got %+v", path, i+1, res.Content[0])
			}
		})
	}
	wg.Wait()
}

// TestStdioReadOnly checks that --read-only lists exactly the read-only
// tools, and that the mutating ones are unknown.
func TestStdioReadOnly(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			t.Parallel()
			tr := newTree(t)
			p := start(t, procOptions{}, "serve", "--root", tr.root, "--read-only")
			c := p.connect(t, era.version)
			checkTools(t, c, tr.root, readOnlyTools...)
			if got := mustSucceed(t, c, readTool, map[string]any{"path": "hello.txt"}); got != rootFiles["hello.txt"] {
				t.Errorf("read %q, want %q", got, rootFiles["hello.txt"])
			}
			if got := mustSucceed(t, c, "list_directory", map[string]any{"path": "sub"}); !strings.Contains(got, "rel.txt") {
				t.Errorf("list_directory sub with --read-only: %q, want rel.txt in it", got)
			}
			refuseMutations(t, c, tr)
			c.Close()
			p.closeStdin()
			p.checkStdoutJSONLines()
		})
	}
}

// refuseMutations calls every mutating tool, with arguments it would
// accept, on a server started with --read-only: each must be an unknown
// tool, and nothing in the root may change.
func refuseMutations(t *testing.T, c *client.Client, tr tree) {
	t.Helper()
	calls := map[string]map[string]any{
		"create_directory": {"path": "newdir"},
		"delete_file":      {"path": "hello.txt"},
		"edit_text_file":   {"path": "hello.txt", "edits": []any{map[string]any{"oldText": "alpha", "newText": "pwned"}}},
		"move_file":        {"source": "hello.txt", "destination": "moved.txt"},
		writeTool:          {"path": "new.txt", "content": "x"},
	}
	for _, name := range mutatingTools {
		args, ok := calls[name]
		if !ok {
			t.Errorf("refuseMutations has no call for %s", name)
			continue
		}
		mustBeUnknown(t, c, name, args)
	}
	mustBeUnknown(t, c, writeTool, map[string]any{"path": "hello.txt", "content": "x"})
	for _, p := range []string{"newdir", "moved.txt", "new.txt"} {
		wantNoFile(t, filepath.Join(tr.root, p))
	}
	wantFile(t, filepath.Join(tr.root, "hello.txt"), rootFiles["hello.txt"])
}

// TestStdioMaxFileSize checks --max-file-size on reads and writes.
func TestStdioMaxFileSize(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			t.Parallel()
			tr := newTree(t)
			var big strings.Builder
			for i := 1; i <= 10; i++ {
				fmt.Fprintf(&big, "line-%04d\n", i) // 10 bytes a line
			}
			bigPath := filepath.Join(tr.root, "big.txt")
			writeFile(t, bigPath, big.String())

			p := start(t, procOptions{}, "serve", "--root", tr.root, "--max-file-size", "64")
			c := p.connect(t, era.version)
			tools := checkTools(t, c, tr.root, allTools...)
			for _, name := range []string{readTool, writeTool} {
				if !strings.Contains(tools[name].Description, "64 bytes") {
					t.Errorf("%s description does not state the limit of 64 bytes:\n%s", name, tools[name].Description)
				}
			}

			mustFail(t, c, readTool, map[string]any{"path": "big.txt"}, bigPath, "too large")
			if got, want := mustSucceed(t, c, readTool, map[string]any{"path": "big.txt", "line": 9}), "line-0009\nline-0010\n"; got != want {
				t.Errorf("range of a file over the limit = %q, want %q", got, want)
			}
			if got, want := mustSucceed(t, c, readTool, map[string]any{"path": "big.txt", "line": 2, "limit": 3}), "line-0002\nline-0003\nline-0004\n"; got != want {
				t.Errorf("range of a file over the limit = %q, want %q", got, want)
			}
			mustFail(t, c, readTool, map[string]any{"path": "big.txt", "line": 2}, "too large")

			atLimit := strings.Repeat("x", 63) + "\n"
			mustSucceed(t, c, writeTool, map[string]any{"path": "limit.txt", "content": atLimit})
			wantFile(t, filepath.Join(tr.root, "limit.txt"), atLimit)
			mustFail(t, c, writeTool, map[string]any{"path": "over.txt", "content": atLimit + "y"},
				filepath.Join(tr.root, "over.txt"), "too large")
			wantNoFile(t, filepath.Join(tr.root, "over.txt"))
			mustFail(t, c, writeTool, map[string]any{"path": "big.txt", "content": big.String() + "more\n"}, "too large")
			wantFile(t, bigPath, big.String())

			c.Close()
			p.closeStdin()
			p.checkStdoutJSONLines()
		})
	}
}

// TestStdioDefaultRoot checks that without --root the working directory is
// the root.
func TestStdioDefaultRoot(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			t.Parallel()
			tr := newTree(t)
			p := start(t, procOptions{dir: tr.root}, "serve")
			c := p.connect(t, era.version)
			checkTools(t, c, tr.root, allTools...)
			if got := mustSucceed(t, c, readTool, map[string]any{"path": "sub/rel.txt"}); got != "relative\n" {
				t.Errorf("read %q", got)
			}
			if got := mustSucceed(t, c, readTool, map[string]any{"path": filepath.Join(tr.root, "hello.txt")}); got != rootFiles["hello.txt"] {
				t.Errorf("read %q", got)
			}
			mustFail(t, c, readTool, map[string]any{"path": filepath.Join(tr.outside, "secret.txt")},
				"outside the allowed roots", "("+tr.root+")")
			mustSucceed(t, c, writeTool, map[string]any{"path": "cwd.txt", "content": "cwd\n"})
			wantFile(t, filepath.Join(tr.root, "cwd.txt"), "cwd\n")
			c.Close()
			p.closeStdin()
		})
	}
}

// TestStdioMultipleRoots checks that every --root is allowed and the first
// one is the working directory.
func TestStdioMultipleRoots(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			t.Parallel()
			tr := newTree(t)
			second := filepath.Join(tr.base, "second")
			writeFile(t, filepath.Join(tr.root, "which.txt"), "first\n")
			writeFile(t, filepath.Join(second, "which.txt"), "second\n")
			p := start(t, procOptions{dir: tr.outside}, "serve", "--root", tr.root, "--root", second)
			c := p.connect(t, era.version)
			checkTools(t, c, tr.root, allTools...)
			for _, tc := range []struct{ path, want string }{
				{"which.txt", "first\n"},
				{filepath.Join(second, "which.txt"), "second\n"},
				{"../second/which.txt", "second\n"},
			} {
				if got := mustSucceed(t, c, readTool, map[string]any{"path": tc.path}); got != tc.want {
					t.Errorf("read %s = %q, want %q", tc.path, got, tc.want)
				}
			}
			mustSucceed(t, c, writeTool, map[string]any{"path": filepath.Join(second, "w.txt"), "content": "w"})
			wantFile(t, filepath.Join(second, "w.txt"), "w")
			mustFail(t, c, readTool, map[string]any{"path": filepath.Join(tr.outside, "secret.txt")},
				"outside the allowed roots", tr.root, second)
			c.Close()
			p.closeStdin()
		})
	}
}

// TestStdioRootForms checks roots given as a relative path, an unclean path
// and a symlink to a directory: paths resolve against the root as given,
// and the real path of a file in it is inside too.
func TestStdioRootForms(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	link := filepath.Join(tr.base, "rootlink")
	if tr.links == nil {
		if err := os.Symlink("root", link); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name, dir, root string
		workDir         string // the working directory the tools name
	}{
		{"Relative", tr.base, "root", tr.root},
		{"Dot", tr.root, ".", tr.root},
		{"Unclean", "", tr.root + "/../root/./", tr.root},
		{"Symlink", "", link, link},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.root == link {
				ostest.SkipWithoutSymlinks(t, tr.links)
			}
			p := start(t, procOptions{dir: tc.dir}, "serve", "--root", tc.root)
			c := p.connect(t, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
			checkTools(t, c, tc.workDir, allTools...)
			for _, path := range []string{"hello.txt", filepath.Join(tc.workDir, "hello.txt"), filepath.Join(tr.root, "hello.txt")} {
				if got := mustSucceed(t, c, readTool, map[string]any{"path": path}); got != rootFiles["hello.txt"] {
					t.Errorf("read %s = %q", path, got)
				}
			}
			mustSucceed(t, c, writeTool, map[string]any{"path": "form-" + tc.name + ".txt", "content": tc.name})
			wantFile(t, filepath.Join(tr.root, "form-"+tc.name+".txt"), tc.name)
			mustFail(t, c, readTool, map[string]any{"path": filepath.Join(tr.outside, "secret.txt")}, "outside the allowed roots")
			mustFail(t, c, readTool, map[string]any{"path": "../outside/secret.txt"}, "outside the allowed roots")
			c.Close()
			p.closeStdin()
		})
	}
}

// rootsHandler answers roots/list with the directories it holds.
type rootsHandler struct {
	mu    sync.Mutex
	dirs  []string
	calls int
}

func (h *rootsHandler) set(dirs ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dirs = dirs
}

func (h *rootsHandler) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls++
	res := &mcp.ListRootsResult{Roots: []mcp.Root{}}
	for _, d := range h.dirs {
		res.Roots = append(res.Roots, mcp.Root{URI: fileURI(d), Name: filepath.Base(d)})
	}
	return res, nil
}

// TestStdioClientRoots checks that a client's roots (protocol 2025-11-25;
// the roots request is gone in 2026-07-28) narrow the configured roots and
// never widen them, and follow roots/list_changed.
func TestStdioClientRoots(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	roots := &rootsHandler{}
	roots.set(filepath.Join(tr.root, "sub"))
	p := start(t, procOptions{}, "serve", "--root", tr.root)
	c := p.connect(t, mcp.LATEST_LEGACY_PROTOCOL_VERSION, client.WithRootsHandler(roots))
	rel := filepath.Join(tr.root, "sub", "rel.txt")

	// Narrowed to sub.
	if got := mustSucceed(t, c, readTool, map[string]any{"path": rel}); got != "relative\n" {
		t.Errorf("read %q", got)
	}
	mustFail(t, c, readTool, map[string]any{"path": "hello.txt"}, "outside the allowed roots")
	mustFail(t, c, writeTool, map[string]any{"path": "narrowed.txt", "content": "x"}, "outside the allowed roots")
	wantNoFile(t, filepath.Join(tr.root, "narrowed.txt"))
	mustSucceed(t, c, writeTool, map[string]any{"path": filepath.Join(tr.root, "sub", "in.txt"), "content": "in\n"})
	wantFile(t, filepath.Join(tr.root, "sub", "in.txt"), "in\n")

	// A client root outside the configured ones grants nothing.
	roots.set(tr.outside, filepath.Join(tr.root, "sub"))
	notifyRootsChanged(t, c)
	mustFail(t, c, readTool, map[string]any{"path": filepath.Join(tr.outside, "secret.txt")}, "outside the allowed roots")
	if got := mustSucceed(t, c, readTool, map[string]any{"path": rel}); got != "relative\n" {
		t.Errorf("read %q", got)
	}

	roots.set(tr.outside)
	notifyRootsChanged(t, c)
	mustFail(t, c, readTool, map[string]any{"path": filepath.Join(tr.outside, "secret.txt")}, "outside the allowed roots")
	mustFail(t, c, readTool, map[string]any{"path": rel}, "outside the allowed roots")

	// Back to the whole configured root.
	roots.set(tr.root)
	notifyRootsChanged(t, c)
	if got := mustSucceed(t, c, readTool, map[string]any{"path": "hello.txt"}); got != rootFiles["hello.txt"] {
		t.Errorf("read %q", got)
	}

	roots.mu.Lock()
	calls := roots.calls
	roots.mu.Unlock()
	if calls != 4 {
		t.Errorf("the server asked for the roots %d times, want 4 (after initialized and each list_changed)", calls)
	}
	c.Close()
	p.closeStdin()
	p.checkStdoutJSONLines()
}

func notifyRootsChanged(t *testing.T, c *client.Client) {
	t.Helper()
	if err := c.RootListChanges(t.Context()); err != nil {
		t.Fatalf("notifications/roots/list_changed: %v", err)
	}
}

// TestStdioMalformedInput writes raw lines to serve's stdin: lines that are
// not JSON-RPC must not end the session. It runs serve with --log-level
// debug: the debug log must go to stderr, never stdout.
func TestStdioMalformedInput(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	p := start(t, procOptions{}, "serve", "--root", tr.root, "--log-level", "debug")
	lines := bufio.NewScanner(p.out)
	lines.Buffer(nil, 1<<20)
	send := func(line string) {
		t.Helper()
		if _, err := p.stdin.Write([]byte(line + "\n")); err != nil {
			t.Fatalf("writing to stdin: %v", err)
		}
	}
	// next returns the next message on stdout.
	next := func() map[string]any {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("stdout ended (%v); stderr:\n%s", lines.Err(), p.stderr.String())
		}
		var msg map[string]any
		if err := json.Unmarshal(lines.Bytes(), &msg); err != nil {
			t.Fatalf("stdout line is not JSON: %q", lines.Text())
		}
		return msg
	}
	// response returns the response with id, checking that anything
	// before it is an error response (to a malformed line).
	response := func(id float64) map[string]any {
		t.Helper()
		for {
			msg := next()
			if msg["id"] == id {
				return msg
			}
			if msg["error"] == nil {
				t.Fatalf("unexpected message while waiting for response %v: %v", id, msg)
			}
			t.Logf("error response (id %v) to a malformed line: %v", msg["id"], msg["error"])
		}
	}

	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if res := response(1); res["result"] == nil {
		t.Fatalf("initialize: %v", res)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, bad := range []string{
		`this is not json`,
		`{"jsonrpc":"2.0","id":2,"method":`, // truncated
		`[1,2,3]`,
		`{}`,
		`"just a string"`,
		"\x00\x01\x02\xff\xfe",
		`{"jsonrpc":"1.0","id":3,"method":"tools/list"}`,
	} {
		send(bad)
	}
	send(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`)
	res := response(4)
	result, _ := res["result"].(map[string]any)
	if tools, _ := result["tools"].([]any); len(tools) != len(allTools) {
		t.Errorf("tools/list after malformed lines: %v", res)
	}
	send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"hello.txt"}}}`)
	res = response(5)
	result, _ = res["result"].(map[string]any)
	content, _ := result["content"].([]any)
	if len(content) != 1 || content[0].(map[string]any)["text"] != rootFiles["hello.txt"] {
		t.Errorf("read after malformed lines: %v", res)
	}

	p.closeStdin()
	for lines.Scan() { // drain, so that every line is recorded
	}
	p.checkStdoutJSONLines()
	if !strings.Contains(p.stderr.String(), "level=DEBUG") {
		t.Errorf("no debug log on stderr with --log-level debug:\n%s", p.stderr.String())
	}
}

// TestStdioEOFBeforeInitialize checks that serve exits at once, with status
// 0, when its input ends before any message.
func TestStdioEOFBeforeInitialize(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	p := start(t, procOptions{}, "serve", "--root", tr.root)
	p.closeStdin()
	if out := p.stdout.String(); out != "" {
		t.Errorf("stdout = %q, want nothing", out)
	}
}

// TestStdioSignal checks that serve exits with status 0 on SIGTERM and
// SIGINT in the middle of a session.
func TestStdioSignal(t *testing.T) {
	for _, sig := range []os.Signal{syscall.SIGTERM, os.Interrupt} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			tr := newTree(t)
			p := start(t, procOptions{}, "serve", "--root", tr.root)
			c := p.connect(t, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
			mustSucceed(t, c, readTool, map[string]any{"path": "hello.txt"})
			if code := p.signal(sig); code != 0 {
				t.Errorf("exit status %d after %v, want 0", code, sig)
			}
			c.Close()
			p.checkStdoutJSONLines()
		})
	}
}

// TestStdioBadRoot checks that serve refuses to start on a root that is not
// a directory.
func TestStdioBadRoot(t *testing.T) {
	tr := newTree(t)
	for _, root := range []string{
		filepath.Join(tr.base, "does-not-exist"),
		filepath.Join(tr.root, "hello.txt"),
	} {
		code, stdout, stderr := runCommand(t, "serve", "--root", root)
		if code == 0 {
			t.Errorf("serve --root %s: exit status 0, want failure", root)
		}
		if !strings.Contains(stderr, root) {
			t.Errorf("serve --root %s: stderr does not name the root:\n%s", root, stderr)
		}
		if stdout != "" {
			t.Errorf("serve --root %s: stdout = %q, want nothing", root, stdout)
		}
	}
}

func TestVersion(t *testing.T) {
	for _, arg := range []string{"version", "--version"} {
		code, stdout, stderr := runCommand(t, arg)
		if code != 0 {
			t.Fatalf("%s: exit status %d, want 0; stderr:\n%s", arg, code, stderr)
		}
		fields := strings.Fields(stdout)
		if len(fields) != 2 || fields[0] != "mcp-acpfs" || !strings.HasSuffix(stdout, "\n") || strings.Count(stdout, "\n") != 1 {
			t.Errorf("%s printed %q, want one line \"mcp-acpfs VERSION\"", arg, stdout)
		}
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{
		{"serve", "--help"},
		{"serve", "-h"},
		{"help", "serve"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, stdout, stderr := runCommand(t, args...)
			if code != 0 {
				t.Errorf("exit status %d, want 0", code)
			}
			help := stdout + stderr
			for _, flag := range []string{"usage: mcp-acpfs serve", "--root", "--read-only", "--max-file-size", "--http", "--http-no-auth", "--log-level", "MCP_ACPFS_TOKEN"} {
				if !strings.Contains(help, flag) {
					t.Errorf("help does not mention %s:\n%s", flag, help)
				}
			}
		})
	}
}

// TestBadCommandLine checks that a bad command line exits with status 2,
// writes nothing on stdout and tells why on stderr.
func TestBadCommandLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string // on stderr
	}{
		{[]string{"serve", "--bogus"}, []string{"bogus", "usage: mcp-acpfs serve"}},
		{[]string{"serve", "--max-file-size", "abc"}, []string{"max-file-size", "usage: mcp-acpfs serve"}},
		{[]string{"serve", "--max-file-size", "-1"}, []string{"max-file-size", "usage: mcp-acpfs serve"}},
		{[]string{"serve", "--log-level", "loud"}, []string{"log-level", "usage: mcp-acpfs serve"}},
		{[]string{"serve", "--root"}, []string{"root", "usage: mcp-acpfs serve"}},
		{[]string{"serve", "--http-no-auth"}, []string{"--http"}},
		{[]string{"serve", "--http", "0.0.0.0:0"}, []string{"0.0.0.0:0", "loopback"}},
		{[]string{"serve", "--http", ":0"}, []string{":0"}},
		{[]string{"serve", "--http", "192.0.2.1:8080"}, []string{"192.0.2.1:8080", "loopback"}},
		{[]string{"serve", "--http", "example.com:80"}, []string{"example.com:80", "loopback"}},
		{[]string{"serve", "--http", "[::]:0"}, []string{"loopback"}},
		{[]string{"serve", "--http", "127.0.0.1"}, []string{"127.0.0.1"}},
		{[]string{"bogus-command"}, []string{"bogus-command"}},
		{nil, []string{"serve"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCommand(t, tc.args...)
			if code != 2 {
				t.Errorf("exit status %d, want 2; stderr:\n%s", code, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr does not contain %q:\n%s", w, stderr)
				}
			}
		})
	}
}
