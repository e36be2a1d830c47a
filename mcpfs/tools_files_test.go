package mcpfs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpfstest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

// fileTools are the tools of tools_files.go, and whether each changes files.
var fileTools = map[string]bool{
	mcpfs.GetFileInfo:     false,
	mcpfs.ListDirectory:   false,
	mcpfs.DirectoryTree:   false,
	mcpfs.CreateDirectory: true,
	mcpfs.MoveFile:        true,
	mcpfs.DeleteFile:      true,
}

// schemaClient is a client that checks every successful result of a tool
// with an output schema as the TypeScript SDK's client does: the result
// must carry structured content, and it must validate against the schema.
type schemaClient struct {
	*client.Client
	t       *testing.T
	schemas map[string]*jsonschema.Schema // by tool name
}

// connectChecked connects to srv at version and compiles the output schemas
// of its tools.
func connectChecked(t *testing.T, f *mcpfstest.Fixture, version string) *schemaClient {
	t.Helper()
	c := mcpfstest.Connect(t, f.Srv, version)
	sc := &schemaClient{Client: c, t: t, schemas: map[string]*jsonschema.Schema{}}
	for _, tool := range mcpfstest.Tools(t, c) {
		if sch := toolOutputSchema(t, tool); sch != nil {
			sc.schemas[tool.Name] = sch
		}
	}
	return sc
}

// on returns c reporting to t, for a subtest.
func (c *schemaClient) on(t *testing.T) *schemaClient {
	on := *c
	on.t = t
	return &on
}

// keptMode returns the permissions and octal mode that get_file_info must
// report for the file at p, which os.Chmod gave the ones written perms and
// mode: those, but on Windows, which keeps only a read-only attribute
// (0444 or 0666, and 0111 more for a directory), what os.Lstat says.
func keptMode(t *testing.T, p, perms, mode string) (string, string) {
	t.Helper()
	if runtime.GOOS != "windows" {
		return perms, mode
	}
	info, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	m := info.Mode().Perm()
	return m.String()[1:], fmt.Sprintf("%04o", m)
}

// call calls a tool; a successful result must satisfy the output schema.
func (c *schemaClient) call(name string, args map[string]any) *mcp.CallToolResult {
	c.t.Helper()
	res := mcpfstest.Call(c.t, c.Client, name, args)
	if res.IsError {
		return res
	}
	sch, ok := c.schemas[name]
	if !ok {
		return res
	}
	if res.StructuredContent == nil {
		c.t.Fatalf("%s %v: a tool with an output schema returned no structured content", name, args)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		c.t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		c.t.Fatal(err)
	}
	if err := sch.Validate(v); err != nil {
		c.t.Fatalf("%s %v: structured content %s does not match the output schema: %v", name, args, raw, err)
	}
	return res
}

// ok calls a tool that must succeed, decodes its structured content into
// out, and returns its text.
func (c *schemaClient) ok(name string, args map[string]any, out any) string {
	c.t.Helper()
	res := c.call(name, args)
	s := mcpfstest.WantOK(c.t, res)
	if out != nil {
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			c.t.Fatal(err)
		}
		if err := json.Unmarshal(raw, out); err != nil {
			c.t.Fatalf("%s: decode %s: %v", name, raw, err)
		}
	}
	return s
}

// fail calls a tool that must fail with a text holding every one of parts.
func (c *schemaClient) fail(name string, args map[string]any, parts ...string) string {
	c.t.Helper()
	return mcpfstest.WantError(c.t, c.call(name, args), parts...)
}

// The structured outputs, as a client decodes them.
type (
	fileInfoOut struct {
		Path, Name, Type, Modified, Permissions, Mode string
		Size                                          int64
	}
	entryOut struct {
		Name, Type, Modified string
		Size                 *int64 // nil: absent
	}
	listOut struct {
		Path      string
		Entries   []entryOut
		Truncated bool
	}
	nodeOut struct {
		Name     string
		Type     string
		Children *[]nodeOut // nil: absent
		Error    string
	}
	treeOut struct {
		Path      string
		MaxDepth  int
		Entries   int
		Truncated bool
		Tree      []nodeOut
	}
	createOut struct {
		Path    string
		Created *bool
	}
	moveOut struct {
		Source, Destination string
		Replaced            *bool
	}
	deleteOut struct {
		Path, Type string
	}
)

// render writes nodes as "name" for a leaf, "name/" for a directory not
// descended into and "name/[...]" for one that was, for comparisons.
func render(nodes []nodeOut) string {
	var parts []string
	for _, n := range nodes {
		s := n.Name
		switch {
		case n.Type == "symlink":
			s += "@"
		case n.Type == "directory" && n.Children == nil:
			s += "/"
		case n.Type == "directory":
			s += "/[" + render(*n.Children) + "]"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// countNodes counts the entries of a tree at every depth.
func countNodes(nodes []nodeOut) int {
	n := len(nodes)
	for _, node := range nodes {
		if node.Children != nil {
			n += countNodes(*node.Children)
		}
	}
	return n
}

func TestFileToolsList(t *testing.T) {
	type hints struct{ readOnly, destructive, idempotent, openWorld bool }
	want := map[string]struct {
		hints    hints
		required []string
		props    map[string]string // name → type
		phrases  []string          // in the description
	}{
		mcpfs.GetFileInfo: {hints{true, false, true, false}, []string{"path"},
			map[string]string{"path": "string"}, []string{"permissions", "UTC", "symlink"}},
		mcpfs.ListDirectory: {hints{true, false, true, false}, []string{"path"},
			map[string]string{"path": "string", "details": "boolean"}, []string{"at most 1000", "sorted", "details"}},
		mcpfs.DirectoryTree: {hints{true, false, true, false}, []string{"path"},
			map[string]string{"path": "string", "maxDepth": "integer", "exclude": "array"},
			[]string{"2000 entries", ".git, node_modules, dist, build, __pycache__, .next", "not followed"}},
		mcpfs.CreateDirectory: {hints{false, false, true, false}, []string{"path"},
			map[string]string{"path": "string"}, []string{"mkdir -p"}},
		mcpfs.MoveFile: {hints{false, true, false, false}, []string{"source", "destination"},
			map[string]string{"source": "string", "destination": "string", "overwrite": "boolean"},
			[]string{"overwrite", "never a non-empty directory"}},
		mcpfs.DeleteFile: {hints{false, true, false, false}, []string{"path"},
			map[string]string{"path": "string", "recursive": "boolean"},
			[]string{"recursive", "not its target", "cannot be undone"}},
	}
	for _, era := range mcpfstest.Eras {
		t.Run(era.Name, func(t *testing.T) {
			f := mcpfstest.NewFixture(t, false)
			tools := map[string]json.RawMessage{}
			for _, tool := range mcpfstest.Tools(t, mcpfstest.Connect(t, f.Srv, era.Version)) {
				raw, err := json.Marshal(tool)
				if err != nil {
					t.Fatal(err)
				}
				tools[tool.Name] = raw
			}
			for name, want := range want {
				raw, ok := tools[name]
				if !ok {
					t.Errorf("no tool %s", name)
					continue
				}
				type schema struct {
					Type                 string                    `json:"type"`
					Required             []string                  `json:"required"`
					Properties           map[string]map[string]any `json:"properties"`
					AdditionalProperties *bool                     `json:"additionalProperties"`
				}
				var tool struct {
					Title        string  `json:"title"`
					Description  string  `json:"description"`
					InputSchema  schema  `json:"inputSchema"`
					OutputSchema *schema `json:"outputSchema"`
					Annotations  struct {
						Title           string `json:"title"`
						ReadOnlyHint    *bool  `json:"readOnlyHint"`
						DestructiveHint *bool  `json:"destructiveHint"`
						IdempotentHint  *bool  `json:"idempotentHint"`
						OpenWorldHint   *bool  `json:"openWorldHint"`
					} `json:"annotations"`
				}
				if err := json.Unmarshal(raw, &tool); err != nil {
					t.Fatal(err)
				}
				if tool.Title == "" || tool.Annotations.Title == "" {
					t.Errorf("%s: no title", name)
				}
				for _, phrase := range want.phrases {
					if !strings.Contains(tool.Description, phrase) {
						t.Errorf("%s: description does not mention %q:\n%s", name, phrase, tool.Description)
					}
				}
				a := tool.Annotations
				if a.ReadOnlyHint == nil || a.DestructiveHint == nil || a.IdempotentHint == nil || a.OpenWorldHint == nil {
					t.Fatalf("%s: annotations not all set: %s", name, raw)
				}
				if got := (hints{*a.ReadOnlyHint, *a.DestructiveHint, *a.IdempotentHint, *a.OpenWorldHint}); got != want.hints {
					t.Errorf("%s: hints %+v, want %+v", name, got, want.hints)
				}
				in := tool.InputSchema
				if in.Type != "object" || in.AdditionalProperties == nil || *in.AdditionalProperties {
					t.Errorf("%s: input schema %s, want an object without additional properties", name, raw)
				}
				if !slices.Equal(in.Required, want.required) {
					t.Errorf("%s: required %v, want %v", name, in.Required, want.required)
				}
				if len(in.Properties) != len(want.props) {
					t.Errorf("%s: properties %v, want %v", name, in.Properties, want.props)
				}
				for p, typ := range want.props {
					if got := in.Properties[p]["type"]; got != typ {
						t.Errorf("%s: property %s has type %v, want %s", name, p, got, typ)
					}
					if d, _ := in.Properties[p]["description"].(string); d == "" {
						t.Errorf("%s: property %s has no description", name, p)
					}
				}
				if out := tool.OutputSchema; out == nil || out.Type != "object" || len(out.Properties) == 0 {
					t.Errorf("%s: output schema %v, want an object schema", name, out)
				}
			}
		})
	}
}

// TestFileToolsReadOnly checks that --read-only hides every tool that
// changes files, refuses calls to them, and keeps the others.
func TestFileToolsReadOnly(t *testing.T) {
	for _, era := range mcpfstest.Eras {
		t.Run(era.Name, func(t *testing.T) {
			f := mcpfstest.NewFixture(t, true)
			f.WriteFile(t, "a.txt", "a\n")
			f.Mkdir(t, "dir/sub")
			c := connectChecked(t, f, era.Version)
			tools := mcpfstest.Tools(t, c.Client)
			for name, tool := range tools {
				if a := tool.Annotations.ReadOnlyHint; a == nil || !*a {
					t.Errorf("read-only server lists %s, which is not read-only", name)
				}
			}
			for name, mutates := range fileTools {
				if _, listed := tools[name]; listed == mutates {
					t.Errorf("read-only server: %s listed %v", name, listed)
				}
			}
			for name, args := range map[string]map[string]any{
				mcpfs.WriteTextFile:   {"path": "a.txt", "content": "b"},
				mcpfs.EditTextFile:    {"path": "a.txt", "edits": []any{map[string]any{"oldText": "a", "newText": "b"}}},
				mcpfs.CreateDirectory: {"path": "new"},
				mcpfs.MoveFile:        {"source": "a.txt", "destination": "b.txt"},
				mcpfs.DeleteFile:      {"path": "dir", "recursive": true},
			} {
				var req mcp.CallToolRequest
				req.Params.Name = name
				req.Params.Arguments = args
				if res, err := c.CallTool(t.Context(), req); err == nil {
					t.Errorf("calling %s on a read-only server: %+v, want a protocol error", name, res)
				}
			}
			f.MustExist(t, "a.txt", "a\n")
			f.MustExist(t, "dir/sub")
			f.MustNotExist(t, "b.txt")
			f.MustNotExist(t, "new")
			if got := c.ok(mcpfs.ReadTextFile, map[string]any{"path": "a.txt"}, nil); got != "a\n" {
				t.Errorf("read %q", got)
			}
			c.ok(mcpfs.GetFileInfo, map[string]any{"path": "a.txt"}, nil)
			c.ok(mcpfs.ListDirectory, map[string]any{"path": "."}, nil)
			c.ok(mcpfs.DirectoryTree, map[string]any{"path": "."}, nil)
		})
	}
}

func TestGetFileInfo(t *testing.T) {
	mtime := time.Date(2024, 2, 29, 12, 30, 45, 0, time.UTC)
	for _, era := range mcpfstest.Eras {
		t.Run(era.Name, func(t *testing.T) {
			f := mcpfstest.NewFixture(t, false, "root")
			f.WriteFile(t, "root/a.txt", "hello\n")
			f.WriteFile(t, "outside.txt", strings.Repeat("secret\n", 100))
			f.Mkdir(t, "root/dir")
			f.Mkdir(t, "root/sticky")
			for rel, mode := range map[string]os.FileMode{
				"root/a.txt":  0o644,
				"root/dir":    0o750,
				"root/sticky": 0o777 | os.ModeSticky,
			} {
				if err := os.Chmod(f.Path(rel), mode); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Chtimes(f.Path("root/a.txt"), mtime, mtime); err != nil {
				t.Fatal(err)
			}
			c := connectChecked(t, f, era.Version)

			var got fileInfoOut
			text := c.ok(mcpfs.GetFileInfo, map[string]any{"path": "a.txt"}, &got)
			perms, mode := keptMode(t, f.Path("root/a.txt"), "rw-r--r--", "0644")
			want := fileInfoOut{Path: f.Path("root/a.txt"), Name: "a.txt", Type: "file", Size: 6,
				Modified: "2024-02-29T12:30:45Z", Permissions: perms, Mode: mode}
			if got != want {
				t.Errorf("file: %+v, want %+v", got, want)
			}
			for _, part := range []string{want.Path, "file", "6 bytes", want.Modified, perms, mode} {
				if !strings.Contains(text, part) {
					t.Errorf("text %q does not mention %q", text, part)
				}
			}

			got = fileInfoOut{}
			c.ok(mcpfs.GetFileInfo, map[string]any{"path": f.Path("root/dir")}, &got)
			perms, mode = keptMode(t, f.Path("root/dir"), "rwxr-x---", "0750")
			if got.Type != "directory" || got.Permissions != perms || got.Mode != mode || got.Name != "dir" {
				t.Errorf("directory: %+v, want %s %s", got, perms, mode)
			}
			got = fileInfoOut{}
			c.ok(mcpfs.GetFileInfo, map[string]any{"path": "sticky"}, &got)
			if perms, mode := keptMode(t, f.Path("root/sticky"), "rwxrwxrwt", "1777"); got.Permissions != perms || got.Mode != mode {
				t.Errorf("sticky directory: %+v, want %s %s", got, perms, mode)
			}
			// The root itself can be described.
			got = fileInfoOut{}
			c.ok(mcpfs.GetFileInfo, map[string]any{"path": "."}, &got)
			if got.Type != "directory" || got.Path != f.Path("root") {
				t.Errorf("root: %+v", got)
			}
			// A symlink is described itself: its target outside is
			// neither followed nor measured.
			t.Run("symlink", func(t *testing.T) {
				f.Symlink(t, f.Path("outside.txt"), "root/link")
				var got fileInfoOut
				c.on(t).ok(mcpfs.GetFileInfo, map[string]any{"path": "link"}, &got)
				if got.Type != "symlink" || got.Size != int64(len(f.Path("outside.txt"))) {
					t.Errorf("symlink: %+v, want type symlink with the size of its target path", got)
				}
			})
		})
	}
}

func TestListDirectory(t *testing.T) {
	mtime := time.Date(2025, 7, 1, 8, 0, 0, 0, time.UTC)
	for _, era := range mcpfstest.Eras {
		t.Run(era.Name, func(t *testing.T) {
			f := mcpfstest.NewFixture(t, false)
			f.WriteFile(t, "dir/b.txt", "bbb")
			f.WriteFile(t, "dir/a.txt", "a")
			f.WriteFile(t, "dir/sub/deep.txt", "deep")
			f.Mkdir(t, "dir/empty")
			entries := []string{"a.txt:file", "b.txt:file", "empty:directory"}
			// A named pipe and a symlink, where they can be made.
			fifo := ostest.MkfifoErr(f.Path("dir/fifo"))
			switch {
			case errors.Is(fifo, ostest.ErrNoFifos):
				t.Run("fifo", func(t *testing.T) { t.Skip(fifo) })
			case fifo != nil:
				t.Fatal(fifo)
			default:
				entries = append(entries, "fifo:other")
			}
			links := f.Symlinks(t)
			if links {
				f.Symlink(t, "a.txt", "dir/link")
				entries = append(entries, "link:symlink")
			}
			entries = append(entries, "sub:directory")
			if err := os.Chtimes(f.Path("dir/a.txt"), mtime, mtime); err != nil {
				t.Fatal(err)
			}
			c := connectChecked(t, f, era.Version)

			want := strings.Join(entries, " ")
			// What the text shows of the fifo and the link, if made.
			var special []string
			if fifo == nil {
				special = append(special, "\nfifo (other")
			}
			if links {
				special = append(special, "\nlink@")
			}
			count := fmt.Sprintf("%d entries", len(entries))
			names := func(l listOut) string {
				var names []string
				for _, e := range l.Entries {
					names = append(names, e.Name+":"+e.Type)
				}
				return strings.Join(names, " ")
			}

			// Names and types only, unless details are asked for.
			var got listOut
			text := c.ok(mcpfs.ListDirectory, map[string]any{"path": "dir"}, &got)
			if got.Path != f.Path("dir") || got.Truncated {
				t.Errorf("listing %+v", got)
			}
			if names(got) != want {
				t.Errorf("entries %v, want %s", names(got), want)
			}
			for _, e := range got.Entries {
				if e.Size != nil || e.Modified != "" {
					t.Errorf("%s without details: %+v", e.Name, e)
				}
			}
			for _, part := range append([]string{f.Path("dir"), count, "\na.txt\n", "\nb.txt\n", "\nsub/"}, special...) {
				if !strings.Contains(text, part) {
					t.Errorf("text does not mention %q:\n%s", part, text)
				}
			}
			if strings.Contains(text, "deep.txt") || strings.Contains(text, "modified") {
				t.Errorf("the listing descends into sub or has details:\n%s", text)
			}

			got = listOut{}
			text = c.ok(mcpfs.ListDirectory, map[string]any{"path": "dir", "details": true}, &got)
			if names(got) != want {
				t.Errorf("entries with details %v, want %s", names(got), want)
			}
			for _, e := range got.Entries {
				if e.Size == nil || e.Modified == "" {
					t.Errorf("%s with details: %+v", e.Name, e)
				}
			}
			if a := got.Entries[0]; a.Size == nil || *a.Size != 1 || a.Modified != "2025-07-01T08:00:00Z" {
				t.Errorf("a.txt: %+v", a)
			}
			if b := got.Entries[1]; b.Size == nil || *b.Size != 3 {
				t.Errorf("b.txt: %+v", b)
			}
			for _, part := range append([]string{count, "\na.txt  (1 byte, modified 2025-07-01T08:00:00Z)", "\nb.txt  (3 bytes", "\nsub/"}, special...) {
				if !strings.Contains(text, part) {
					t.Errorf("text with details does not mention %q:\n%s", part, text)
				}
			}

			got = listOut{}
			text = c.ok(mcpfs.ListDirectory, map[string]any{"path": "dir/empty"}, &got)
			if len(got.Entries) != 0 || got.Entries == nil || got.Truncated || !strings.Contains(text, "is empty") {
				t.Errorf("empty directory: %+v, %q", got, text)
			}
		})
	}
}

func TestListDirectoryTruncates(t *testing.T) {
	f := mcpfstest.NewFixture(t, false)
	for i := range mcpfs.MaxListEntries + 1 {
		f.WriteFile(t, fmt.Sprintf("many/f%04d", i), "")
	}
	for i := range mcpfs.MaxListEntries {
		f.WriteFile(t, fmt.Sprintf("full/f%04d", i), "")
	}
	for _, era := range mcpfstest.Eras {
		t.Run(era.Name, func(t *testing.T) {
			c := connectChecked(t, f, era.Version)
			var got listOut
			text := c.ok(mcpfs.ListDirectory, map[string]any{"path": "many"}, &got)
			if !got.Truncated || len(got.Entries) != mcpfs.MaxListEntries {
				t.Errorf("%d entries, truncated %v; want %d, true", len(got.Entries), got.Truncated, mcpfs.MaxListEntries)
			}
			if got.Entries[0].Name != "f0000" || got.Entries[len(got.Entries)-1].Name != "f0999" {
				t.Errorf("entries from %s to %s, want the first ones by name", got.Entries[0].Name, got.Entries[len(got.Entries)-1].Name)
			}
			if !strings.Contains(text, "truncated") {
				t.Errorf("text does not say truncated: %.200s", text)
			}
			got = listOut{}
			c.ok(mcpfs.ListDirectory, map[string]any{"path": "full"}, &got)
			if got.Truncated || len(got.Entries) != mcpfs.MaxListEntries {
				t.Errorf("exactly the cap: %d entries, truncated %v", len(got.Entries), got.Truncated)
			}
			got = listOut{}
			c.ok(mcpfs.ListDirectory, map[string]any{"path": "many", "details": true}, &got)
			if !got.Truncated || len(got.Entries) != mcpfs.MaxListEntries || got.Entries[len(got.Entries)-1].Name != "f0999" {
				t.Errorf("with details: %d entries, truncated %v", len(got.Entries), got.Truncated)
			}
		})
	}
}

func TestDirectoryTree(t *testing.T) {
	for _, era := range mcpfstest.Eras {
		t.Run(era.Name, func(t *testing.T) {
			f := mcpfstest.NewFixture(t, false, "root")
			for _, rel := range []string{
				"root/README.md", "root/a/b/c/d/e.txt", "root/a/b/f.txt", "root/a/x.log",
				"root/.git/HEAD", "root/node_modules/m/index.js", "root/dist/out.js", "root/build/out.o",
				"root/__pycache__/m.pyc", "root/.next/cache", "root/src/.git", // a file named .git is left out too
				"root/src/main.go", "root/src/gen/z.go", "root/vendor/v.go",
				"outside/secret.txt",
			} {
				f.WriteFile(t, rel, "x")
			}
			f.Mkdir(t, "root/empty")
			links := f.Symlinks(t)
			if links {
				f.Symlink(t, f.Path("outside"), "root/out")    // leads out
				f.Symlink(t, f.Path("root/src"), "root/again") // leads back in
			}
			// linked is a rendered tree without the links, if none
			// could be made.
			linked := func(tree string) string {
				if links {
					return tree
				}
				return strings.NewReplacer(" again@", "", " out@", "").Replace(tree)
			}
			c := connectChecked(t, f, era.Version)

			for _, tc := range []struct {
				name string
				args map[string]any
				want string
			}{
				{"default", map[string]any{"path": "."},
					"README.md a/[b/[c/ f.txt] x.log] again@ empty/[] out@ src/[gen/[z.go] main.go] vendor/[v.go]"},
				{"maxDepth 1", map[string]any{"path": ".", "maxDepth": 1},
					"README.md a/ again@ empty/ out@ src/ vendor/"},
				{"maxDepth 10", map[string]any{"path": f.Path("root"), "maxDepth": 10},
					"README.md a/[b/[c/[d/[e.txt]] f.txt] x.log] again@ empty/[] out@ src/[gen/[z.go] main.go] vendor/[v.go]"},
				{"exclude names", map[string]any{"path": ".", "exclude": []any{"*.log", "vendor", "{gen,empty}"}},
					"README.md a/[b/[c/ f.txt]] again@ out@ src/[main.go]"},
				{"exclude paths", map[string]any{"path": ".", "exclude": []any{"a/b/**", "src/*.go"}},
					"README.md a/[x.log] again@ empty/[] out@ src/[gen/[z.go]] vendor/[v.go]"},
				{"exclude a directory's contents", map[string]any{"path": ".", "exclude": []any{"a/b/*", "**/gen/*.go"}},
					"README.md a/[b/[] x.log] again@ empty/[] out@ src/[gen/[] main.go] vendor/[v.go]"},
				{"excluded directory as path", map[string]any{"path": "node_modules"},
					"m/[index.js]"},
				{"subdirectory", map[string]any{"path": "a/b", "maxDepth": 2},
					"c/[d/] f.txt"},
				{"empty", map[string]any{"path": "empty"}, ""},
			} {
				t.Run(tc.name, func(t *testing.T) {
					var got treeOut
					text := c.on(t).ok(mcpfs.DirectoryTree, tc.args, &got)
					if s, want := render(got.Tree), linked(tc.want); s != want {
						t.Errorf("tree\n%s\nwant\n%s", s, want)
					}
					if got.Tree == nil {
						t.Error("tree is null, want an array")
					}
					if n := countNodes(got.Tree); got.Truncated || got.Entries != n {
						t.Errorf("entries %d, truncated %v; want %d, false", got.Entries, got.Truncated, n)
					}
					if strings.Contains(text, "secret") {
						t.Errorf("the tree follows a symlink out of the roots:\n%s", text)
					}
					t.Log(text)
				})
			}

			var got treeOut
			text := c.ok(mcpfs.DirectoryTree, map[string]any{"path": "."}, &got)
			if got.Path != f.Path("root") || got.MaxDepth != mcpfs.DefaultTreeDepth {
				t.Errorf("path %s, maxDepth %d", got.Path, got.MaxDepth)
			}
			parts := []string{f.Path("root") + string(filepath.Separator) + "\n", "\n  a/\n    b/\n      c/ (not expanded: maxDepth)", "maxDepth 3"}
			if links {
				parts = append(parts, "\n  out (symlink)")
			}
			for _, part := range parts {
				if !strings.Contains(text, part) {
					t.Errorf("text does not contain %q:\n%s", part, text)
				}
			}
		})
	}
}

func TestDirectoryTreeTruncates(t *testing.T) {
	f := mcpfstest.NewFixture(t, false)
	// Two directories that make the cap exactly, and a third one past it.
	half := mcpfs.MaxTreeEntries/2 - 1
	for _, d := range []string{"a", "b", "c"} {
		for i := range half {
			f.WriteFile(t, fmt.Sprintf("%s/f%04d", d, i), "")
		}
	}
	for _, era := range mcpfstest.Eras {
		t.Run(era.Name, func(t *testing.T) {
			c := connectChecked(t, f, era.Version)
			var got treeOut
			text := c.ok(mcpfs.DirectoryTree, map[string]any{"path": "."}, &got)
			if !got.Truncated || got.Entries != mcpfs.MaxTreeEntries {
				t.Errorf("entries %d, truncated %v; want %d, true", got.Entries, got.Truncated, mcpfs.MaxTreeEntries)
			}
			if n := countNodes(got.Tree); n != got.Entries {
				t.Errorf("the tree holds %d entries, the result says %d", n, got.Entries)
			}
			if !strings.Contains(text, fmt.Sprintf("truncated at %d entries", mcpfs.MaxTreeEntries)) {
				t.Errorf("text does not say truncated: ...%s", text[max(0, len(text)-200):])
			}
			// Leaving a directory out brings it to the cap, not past it.
			got = treeOut{}
			c.ok(mcpfs.DirectoryTree, map[string]any{"path": ".", "exclude": []any{"c"}}, &got)
			if got.Truncated || got.Entries != 2+2*half {
				t.Errorf("with c excluded: entries %d, truncated %v", got.Entries, got.Truncated)
			}
		})
	}
}

func TestCreateDirectory(t *testing.T) {
	for _, era := range mcpfstest.Eras {
		t.Run(era.Name, func(t *testing.T) {
			f := mcpfstest.NewFixture(t, false)
			f.WriteFile(t, "file.txt", "x")
			c := connectChecked(t, f, era.Version)

			var got createOut
			text := c.ok(mcpfs.CreateDirectory, map[string]any{"path": "a/b/c"}, &got)
			if got.Path != f.Path("a/b/c") || got.Created == nil || !*got.Created || text != "created directory "+f.Path("a/b/c") {
				t.Errorf("create: %+v, %q", got, text)
			}
			if info, err := os.Stat(f.Path("a/b/c")); err != nil || !info.IsDir() {
				t.Errorf("a/b/c: %v", err)
			}
			// Again: idempotent.
			got = createOut{}
			text = c.ok(mcpfs.CreateDirectory, map[string]any{"path": f.Path("a/b/c")}, &got)
			if got.Created == nil || *got.Created || !strings.Contains(text, "already exists") {
				t.Errorf("create again: %+v, %q", got, text)
			}
			c.ok(mcpfs.CreateDirectory, map[string]any{"path": "."}, nil)

			c.fail(mcpfs.CreateDirectory, map[string]any{"path": "file.txt"}, "mkdir "+f.Path("file.txt"))
			c.fail(mcpfs.CreateDirectory, map[string]any{"path": "file.txt/sub"}, f.Path("file.txt/sub"))
			f.MustExist(t, "file.txt", "x")
		})
	}
}

func TestMoveFile(t *testing.T) {
	for _, era := range mcpfstest.Eras {
		t.Run(era.Name, func(t *testing.T) {
			f := mcpfstest.NewFixture(t, false, "root", "other")
			f.WriteFile(t, "root/a.txt", "a")
			f.WriteFile(t, "root/b.txt", "b")
			f.WriteFile(t, "root/dir/in.txt", "in")
			f.WriteFile(t, "root/full/x.txt", "x")
			f.Mkdir(t, "root/empty")
			c := connectChecked(t, f, era.Version)
			root := f.Path("root")

			// Rename a file.
			var got moveOut
			text := c.ok(mcpfs.MoveFile, map[string]any{"source": "a.txt", "destination": "renamed.txt"}, &got)
			if got.Source != filepath.Join(root, "a.txt") || got.Destination != filepath.Join(root, "renamed.txt") ||
				got.Replaced == nil || *got.Replaced {
				t.Errorf("move: %+v", got)
			}
			if text != "moved "+got.Source+" to "+got.Destination {
				t.Errorf("text %q", text)
			}
			f.MustNotExist(t, "root/a.txt")
			f.MustExist(t, "root/renamed.txt", "a")

			// A directory, with what is in it.
			c.ok(mcpfs.MoveFile, map[string]any{"source": "dir", "destination": f.Path("root/empty/moved")}, nil)
			f.MustExist(t, "root/empty/moved/in.txt", "in")
			f.MustNotExist(t, "root/dir")

			// An existing destination needs overwrite.
			c.fail(mcpfs.MoveFile, map[string]any{"source": "renamed.txt", "destination": "b.txt"},
				"move "+filepath.Join(root, "b.txt")+": the destination exists", "overwrite")
			f.MustExist(t, "root/renamed.txt", "a")
			f.MustExist(t, "root/b.txt", "b")
			c.fail(mcpfs.MoveFile, map[string]any{"source": "renamed.txt", "destination": "b.txt", "overwrite": false}, "exists")
			got = moveOut{}
			text = c.ok(mcpfs.MoveFile, map[string]any{"source": "renamed.txt", "destination": "b.txt", "overwrite": true}, &got)
			if got.Replaced == nil || !*got.Replaced || !strings.Contains(text, "replacing") {
				t.Errorf("overwrite: %+v, %q", got, text)
			}
			f.MustExist(t, "root/b.txt", "a")
			f.MustNotExist(t, "root/renamed.txt")
			// Never over a non-empty directory.
			c.fail(mcpfs.MoveFile, map[string]any{"source": "b.txt", "destination": "full", "overwrite": true}, filepath.Join(root, "full"))
			c.fail(mcpfs.MoveFile, map[string]any{"source": "empty", "destination": "full", "overwrite": true}, filepath.Join(root, "full"), "not empty")
			f.MustExist(t, "root/full/x.txt", "x")
			f.MustExist(t, "root/b.txt", "a")

			// A symlink moves itself.
			t.Run("symlink", func(t *testing.T) {
				f.Symlink(t, "a.txt", "root/link") // dangling: a.txt was renamed
				c.on(t).ok(mcpfs.MoveFile, map[string]any{"source": "link", "destination": "link2"}, nil)
				if dest, err := os.Readlink(f.Path("root/link2")); err != nil || dest != "a.txt" {
					t.Errorf("link2 -> %q (%v), want a.txt", dest, err)
				}
				f.MustNotExist(t, "root/link")
			})

			// Missing source.
			c.fail(mcpfs.MoveFile, map[string]any{"source": "nope.txt", "destination": "x.txt"},
				filepath.Join(root, "nope.txt"), "does not exist")
			f.MustNotExist(t, "root/x.txt")

			// A root can never be moved, nor replaced.
			for _, args := range []map[string]any{
				{"source": root, "destination": f.Path("root/moved-root")},
				{"source": ".", "destination": f.Path("elsewhere")},
				{"source": f.Path("other"), "destination": f.Path("root/other")},
				{"source": "b.txt", "destination": f.Path("other"), "overwrite": true},
			} {
				c.fail(mcpfs.MoveFile, args, "root")
			}
			f.MustExist(t, "root/b.txt", "a")
			f.MustExist(t, "other")
			f.MustNotExist(t, "elsewhere")
			f.MustNotExist(t, "root/other")
		})
	}
}

func TestDeleteFile(t *testing.T) {
	for _, era := range mcpfstest.Eras {
		t.Run(era.Name, func(t *testing.T) {
			f := mcpfstest.NewFixture(t, false, "root")
			f.WriteFile(t, "root/a.txt", "a")
			f.WriteFile(t, "root/full/sub/x.txt", "x")
			f.WriteFile(t, "outside/secret.txt", "secret")
			f.Mkdir(t, "root/empty")
			c := connectChecked(t, f, era.Version)
			root := f.Path("root")

			var got deleteOut
			text := c.ok(mcpfs.DeleteFile, map[string]any{"path": "a.txt"}, &got)
			if got.Path != filepath.Join(root, "a.txt") || got.Type != "file" || text != "deleted file "+got.Path {
				t.Errorf("delete a file: %+v, %q", got, text)
			}
			f.MustNotExist(t, "root/a.txt")
			// Not idempotent: a second time, it is missing.
			c.fail(mcpfs.DeleteFile, map[string]any{"path": "a.txt"}, filepath.Join(root, "a.txt"), "does not exist")

			got = deleteOut{}
			c.ok(mcpfs.DeleteFile, map[string]any{"path": "empty"}, &got)
			if got.Type != "directory" {
				t.Errorf("delete an empty directory: %+v", got)
			}
			f.MustNotExist(t, "root/empty")

			c.fail(mcpfs.DeleteFile, map[string]any{"path": "full"}, filepath.Join(root, "full"), "recursive")
			c.fail(mcpfs.DeleteFile, map[string]any{"path": "full", "recursive": false}, "recursive")
			f.MustExist(t, "root/full/sub/x.txt", "x")
			text = c.ok(mcpfs.DeleteFile, map[string]any{"path": "full", "recursive": true}, nil)
			if text != "deleted directory "+filepath.Join(root, "full")+" and everything in it" {
				t.Errorf("text %q", text)
			}
			f.MustNotExist(t, "root/full")

			// A symlink is deleted, never its target, even recursively.
			t.Run("symlink", func(t *testing.T) {
				f.Symlink(t, f.Path("outside"), "root/outlink")
				var got deleteOut
				c.on(t).ok(mcpfs.DeleteFile, map[string]any{"path": "outlink", "recursive": true}, &got)
				if got.Type != "symlink" {
					t.Errorf("delete a symlink: %+v", got)
				}
				f.MustNotExist(t, "root/outlink")
				f.MustExist(t, "outside/secret.txt", "secret")
			})

			// A root can never be deleted, even recursively.
			for _, p := range []string{".", root, root + "/", "sub/.."} {
				c.fail(mcpfs.DeleteFile, map[string]any{"path": p, "recursive": true}, root, "root")
			}
			f.MustExist(t, "root")
		})
	}
}

// TestFileToolsPathAttacks runs the path attacks against every file tool:
// nothing outside the roots is described, listed, created, moved or
// deleted, and what is outside stays as it was on disk.
func TestFileToolsPathAttacks(t *testing.T) {
	for _, era := range mcpfstest.Eras {
		t.Run(era.Name, func(t *testing.T) {
			f := mcpfstest.NewFixture(t, false, "root")
			f.WriteFile(t, "root/in.txt", "in")
			f.Mkdir(t, "root/indir")
			f.WriteFile(t, "outside/secret.txt", "secret")
			f.WriteFile(t, "rootx/secret.txt", "sibling")       // a prefix sibling
			f.WriteFile(t, "root_backup/secret.txt", "sibling") // another
			links := f.Symlinks(t)
			if links {
				f.Symlink(t, f.Path("outside"), "root/outdir")
				f.Symlink(t, f.Path("outside/secret.txt"), "root/outfile")
				f.Symlink(t, "../rootx", "root/relout")
			}
			c := connectChecked(t, f, era.Version)
			root := f.Path("root")

			// Paths that lead out of the root, each as given and as
			// resolved (what the error must name), and whether it goes
			// through a symlink.
			attacks := []struct {
				name, arg, resolved string
				link                bool
			}{
				{"absolute", f.Path("outside/secret.txt"), f.Path("outside/secret.txt"), false},
				{"dotdot", "../outside/secret.txt", f.Path("outside/secret.txt"), false},
				{"deep dotdot", "indir/../../outside/secret.txt", f.Path("outside/secret.txt"), false},
				{"prefix sibling", f.Path("rootx/secret.txt"), f.Path("rootx/secret.txt"), false},
				{"prefix sibling dotdot", "../root_backup/secret.txt", f.Path("root_backup/secret.txt"), false},
				{"symlinked directory", "outdir/secret.txt", filepath.Join(root, "outdir", "secret.txt"), true},
				{"relative symlink", "relout/secret.txt", filepath.Join(root, "relout", "secret.txt"), true},
				{"parent of root", "..", f.Dir, false},
			}
			for _, a := range attacks {
				if a.link && !links {
					continue
				}
				t.Run(a.name, func(t *testing.T) {
					c := c.on(t)
					for _, tc := range []struct {
						tool string
						args map[string]any
					}{
						{mcpfs.GetFileInfo, map[string]any{"path": a.arg}},
						{mcpfs.ListDirectory, map[string]any{"path": a.arg}},
						{mcpfs.DirectoryTree, map[string]any{"path": a.arg}},
						{mcpfs.CreateDirectory, map[string]any{"path": a.arg + "/new-dir"}},
						{mcpfs.DeleteFile, map[string]any{"path": a.arg}},
						{mcpfs.DeleteFile, map[string]any{"path": a.arg, "recursive": true}},
						{mcpfs.MoveFile, map[string]any{"source": a.arg, "destination": "stolen.txt"}},
						{mcpfs.MoveFile, map[string]any{"source": a.arg, "destination": "stolen.txt", "overwrite": true}},
					} {
						resolved := a.resolved
						if tc.tool == mcpfs.CreateDirectory {
							resolved = filepath.Join(resolved, "new-dir")
						}
						c.fail(tc.tool, tc.args, resolved, "outside the allowed roots")
					}
					// As a move destination: the source stays, nothing
					// lands outside.
					dsts := []string{a.arg, a.arg + "/new"}
					if a.arg != ".." {
						dsts = append(dsts, a.arg+"-new") // a new file beside the target
					}
					for _, dst := range dsts {
						for _, overwrite := range []bool{false, true} {
							c.fail(mcpfs.MoveFile, map[string]any{"source": "in.txt", "destination": dst, "overwrite": overwrite},
								"outside the allowed roots")
						}
					}
					f.MustExist(t, "root/in.txt", "in")
				})
			}
			// The symlinks themselves are inside: described as links,
			// and deleted as links, never through them.
			if links {
				var info fileInfoOut
				c.ok(mcpfs.GetFileInfo, map[string]any{"path": "outfile"}, &info)
				if info.Type != "symlink" {
					t.Errorf("outfile: %+v", info)
				}
				c.fail(mcpfs.ListDirectory, map[string]any{"path": "outdir"}, "outside the allowed roots")
				c.fail(mcpfs.DirectoryTree, map[string]any{"path": "outdir"}, "outside the allowed roots")
				c.ok(mcpfs.DeleteFile, map[string]any{"path": "outfile"}, nil)
				c.ok(mcpfs.DeleteFile, map[string]any{"path": "outdir", "recursive": true}, nil)
			}

			for _, rel := range []string{"outside/secret.txt", "rootx/secret.txt", "root_backup/secret.txt"} {
				want := "sibling"
				if rel == "outside/secret.txt" {
					want = "secret"
				}
				f.MustExist(t, rel, want)
			}
			for _, rel := range []string{"new", "new-dir", "outside/secret.txt-new", "rootx/secret.txt-new", "root_backup/secret.txt-new", "root/stolen.txt"} {
				f.MustNotExist(t, rel)
			}
			f.MustExist(t, "root/in.txt", "in")
			f.MustExist(t, "root/indir")

			// Bad paths.
			for name, tc := range map[string]struct {
				arg  string
				want []string
			}{
				"empty": {"", []string{"empty path"}},
				"NUL":   {"a\x00b", []string{`"a\x00b"`, "NUL"}},
			} {
				for tool := range fileTools {
					args := map[string]any{"path": tc.arg}
					if tool == mcpfs.MoveFile {
						args = map[string]any{"source": tc.arg, "destination": "x"}
					}
					t.Run(name+"/"+tool, func(t *testing.T) { c.on(t).fail(tool, args, tc.want...) })
				}
				c.fail(mcpfs.MoveFile, map[string]any{"source": "in.txt", "destination": tc.arg}, tc.want...)
			}
		})
	}
}

func TestFileToolErrors(t *testing.T) {
	for _, era := range mcpfstest.Eras {
		t.Run(era.Name, func(t *testing.T) {
			f := mcpfstest.NewFixture(t, false, "root")
			f.WriteFile(t, "root/file.txt", "x")
			c := connectChecked(t, f, era.Version)
			root := f.Path("root")
			missing := filepath.Join(root, "nope")

			for _, tc := range []struct {
				name string
				tool string
				args map[string]any
				want []string
			}{
				{"info missing", mcpfs.GetFileInfo, map[string]any{"path": "nope"}, []string{missing, "does not exist"}},
				{"list missing", mcpfs.ListDirectory, map[string]any{"path": "nope"}, []string{missing, "does not exist"}},
				{"tree missing", mcpfs.DirectoryTree, map[string]any{"path": "nope"}, []string{missing, "does not exist"}},
				{"delete missing", mcpfs.DeleteFile, map[string]any{"path": "nope"}, []string{missing, "does not exist"}},
				{"list a file", mcpfs.ListDirectory, map[string]any{"path": "file.txt"}, []string{filepath.Join(root, "file.txt")}},
				{"tree of a file", mcpfs.DirectoryTree, map[string]any{"path": "file.txt"},
					[]string{"tree " + filepath.Join(root, "file.txt"), "not a directory"}},
				{"tree depth 0", mcpfs.DirectoryTree, map[string]any{"path": ".", "maxDepth": 0},
					[]string{"maxDepth must be at least 1, not 0"}},
				{"tree depth 11", mcpfs.DirectoryTree, map[string]any{"path": ".", "maxDepth": 11},
					[]string{"maxDepth", "11"}},
				{"tree bad pattern", mcpfs.DirectoryTree, map[string]any{"path": ".", "exclude": []any{"[a-"}},
					[]string{"tree " + root, `exclude pattern "[a-" is not a valid glob`}},
				{"tree exclude not strings", mcpfs.DirectoryTree, map[string]any{"path": ".", "exclude": []any{7}},
					[]string{"exclude"}},
				{"move without destination", mcpfs.MoveFile, map[string]any{"source": "file.txt"},
					[]string{"destination is required"}},
				{"delete recursive as a string", mcpfs.DeleteFile, map[string]any{"path": "file.txt", "recursive": "yes"},
					[]string{"recursive"}},
				{"unknown argument", mcpfs.ListDirectory, map[string]any{"path": ".", "recursive": true},
					[]string{`unknown argument "recursive"`}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					t.Log(c.fail(tc.tool, tc.args, tc.want...))
				})
			}
			f.MustExist(t, "root/file.txt", "x")
		})
	}
}

// plainFS hides every optional interface of the FS it wraps, as the editor
// backend has none.
type plainFS struct{ fsruntime.FS }

func TestFileToolsUnsupported(t *testing.T) {
	f := mcpfstest.NewFixture(t, false)
	f.WriteFile(t, "a.txt", "a")
	srv, err := mcpfs.NewServer(mcpfs.Files{WorkDir: f.Dir, FS: plainFS{f.Disk}}, mcpfs.Options{Tools: mcpfstest.Structured})
	if err != nil {
		t.Fatal(err)
	}
	for _, era := range mcpfstest.Eras {
		t.Run(era.Name, func(t *testing.T) {
			c := mcpfstest.Connect(t, srv, era.Version)
			for tool := range fileTools {
				args := map[string]any{"path": "a.txt"}
				if tool == mcpfs.MoveFile {
					args = map[string]any{"source": "a.txt", "destination": "b.txt"}
				}
				mcpfstest.WantError(t, mcpfstest.Call(t, c, tool, args), f.Path("a.txt"), "not supported by this session's files")
			}
			f.MustExist(t, "a.txt", "a")
			f.MustNotExist(t, "b.txt")
		})
	}
}

// TestFileToolsThroughRouter runs the file tools on a Router, as a proxy
// session does: ACP has no method for any of them, so they go to disk,
// within the roots.
func TestFileToolsThroughRouter(t *testing.T) {
	f := mcpfstest.NewFixture(t, false, "root")
	f.WriteFile(t, "root/a.txt", "a")
	f.WriteFile(t, "outside/secret.txt", "secret")
	router := fsruntime.NewRouter(fsruntime.RouterOptions{Disk: f.Disk})
	root := f.Path("root")
	srv, err := mcpfs.NewServer(mcpfs.Files{WorkDir: root, FS: router}, mcpfs.Options{Tools: mcpfstest.Structured})
	if err != nil {
		t.Fatal(err)
	}
	for _, era := range mcpfstest.Eras {
		t.Run(era.Name, func(t *testing.T) {
			c := connectChecked(t, &mcpfstest.Fixture{Dir: f.Dir, Disk: f.Disk, Srv: srv}, era.Version)
			var info fileInfoOut
			c.ok(mcpfs.GetFileInfo, map[string]any{"path": "a.txt"}, &info)
			if info.Type != "file" || info.Size != 1 {
				t.Errorf("info %+v", info)
			}
			c.ok(mcpfs.CreateDirectory, map[string]any{"path": "d/e"}, nil)
			c.ok(mcpfs.MoveFile, map[string]any{"source": "a.txt", "destination": "d/e/b.txt"}, nil)
			var tree treeOut
			c.ok(mcpfs.DirectoryTree, map[string]any{"path": "."}, &tree)
			if got := render(tree.Tree); got != "d/[e/[b.txt]]" {
				t.Errorf("tree %s", got)
			}
			var list listOut
			c.ok(mcpfs.ListDirectory, map[string]any{"path": "d/e"}, &list)
			if len(list.Entries) != 1 || list.Entries[0].Name != "b.txt" {
				t.Errorf("list %+v", list)
			}
			c.ok(mcpfs.DeleteFile, map[string]any{"path": "d", "recursive": true}, nil)
			f.MustNotExist(t, "root/d")
			c.ok(mcpfs.CreateDirectory, map[string]any{"path": "."}, nil)
			c.fail(mcpfs.DeleteFile, map[string]any{"path": "../outside/secret.txt"}, "outside the allowed roots")
			c.fail(mcpfs.DeleteFile, map[string]any{"path": root, "recursive": true}, "roots")
			f.WriteFile(t, "root/a.txt", "a")
			f.MustExist(t, "outside/secret.txt", "secret")
		})
	}
}

// walkStep is one call of a scripted walk.
type walkStep struct {
	path string
	typ  fsruntime.FileType
	err  error
}

// scriptedWalkFS walks by script, to give directory_tree the errors a
// disk run as root cannot: a directory that cannot be read.
type scriptedWalkFS struct {
	fsruntime.FS
	steps []walkStep
}

func (s scriptedWalkFS) Walk(ctx context.Context, root string, fn fsruntime.WalkFunc) error {
	for _, st := range s.steps {
		info := fsruntime.FileInfo{Name: filepath.Base(st.path), Path: st.path, Type: st.typ}
		if err := fn(st.path, info, st.err); err != nil {
			if err == fs.SkipDir || err == fs.SkipAll {
				continue
			}
			return err
		}
	}
	return nil
}

func TestDirectoryTreeUnreadableDirectory(t *testing.T) {
	f := mcpfstest.NewFixture(t, false)
	denied := &fs.PathError{Op: "walk", Path: f.Path("locked"), Err: fs.ErrPermission}
	for _, tc := range []struct {
		name  string
		steps []walkStep
		want  string // the tree, or the error
		fails bool
	}{
		{"subdirectory", []walkStep{
			{f.Dir, fsruntime.TypeDirectory, nil},
			{f.Path("a.txt"), fsruntime.TypeFile, nil},
			{f.Path("locked"), fsruntime.TypeDirectory, nil},
			{f.Path("locked"), fsruntime.TypeDirectory, denied},
			{f.Path("z.txt"), fsruntime.TypeFile, nil},
		}, "a.txt locked/(permission denied) z.txt", false},
		{"top", []walkStep{
			{f.Dir, fsruntime.TypeDirectory, nil},
			{f.Dir, fsruntime.TypeDirectory, &fs.PathError{Op: "walk", Path: f.Dir, Err: fs.ErrPermission}},
		}, "walk " + f.Dir + ": permission denied", true},
		{"missing", []walkStep{
			{f.Dir, "", &fs.PathError{Op: "walk", Path: f.Dir, Err: fs.ErrNotExist}},
		}, "walk " + f.Dir + ": file does not exist", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := mcpfs.NewServer(mcpfs.Files{WorkDir: f.Dir, FS: scriptedWalkFS{f.Disk, tc.steps}}, mcpfs.Options{Tools: mcpfstest.Structured})
			if err != nil {
				t.Fatal(err)
			}
			for _, era := range mcpfstest.Eras {
				c := connectChecked(t, &mcpfstest.Fixture{Dir: f.Dir, Disk: f.Disk, Srv: srv}, era.Version)
				if tc.fails {
					c.fail(mcpfs.DirectoryTree, map[string]any{"path": "."}, tc.want)
					continue
				}
				var got treeOut
				text := c.ok(mcpfs.DirectoryTree, map[string]any{"path": "."}, &got)
				var parts []string
				for _, n := range got.Tree {
					s := n.Name
					if n.Error != "" {
						s += "/(" + n.Error + ")"
					}
					if n.Error != "" && n.Children != nil {
						t.Errorf("%s has an error and children", n.Name)
					}
					parts = append(parts, s)
				}
				if s := strings.Join(parts, " "); s != tc.want {
					t.Errorf("tree %s, want %s", s, tc.want)
				}
				if !strings.Contains(text, "locked/ (not listed: permission denied)") {
					t.Errorf("text does not say the directory was not listed:\n%s", text)
				}
			}
		})
	}
}
