package mcpfs_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcp-acpfs/mcp-acpfs/capabilities"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/search"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpfstest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

// searchClient calls the search tools and checks every successful result
// as the TypeScript SDK's client does: it must carry structured content
// that validates against the tool's output schema.
type searchClient struct {
	c       *client.Client
	schemas map[string]*jsonschema.Schema
}

func connectSearch(t *testing.T, srv *server.MCPServer, version string) *searchClient {
	t.Helper()
	c := mcpfstest.Connect(t, srv, version)
	sc := &searchClient{c: c, schemas: map[string]*jsonschema.Schema{}}
	for _, tool := range mcpfstest.Tools(t, c) {
		if tool.Name != mcpfs.Glob && tool.Name != mcpfs.Grep {
			continue
		}
		if sch := toolOutputSchema(t, tool); sch != nil {
			sc.schemas[tool.Name] = sch
		}
	}
	if len(sc.schemas) != 2 {
		t.Fatalf("found the output schemas of %d search tools, want 2", len(sc.schemas))
	}
	return sc
}

// ok calls a search tool that must succeed, decodes its structured content
// into out, and returns its text.
func (sc *searchClient) ok(t *testing.T, name string, args map[string]any, out any) string {
	t.Helper()
	res := mcpfstest.Call(t, sc.c, name, args)
	s := mcpfstest.WantOK(t, res)
	if res.StructuredContent == nil {
		t.Fatalf("%s %v: no structured content", name, args)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.schemas[name].Validate(v); err != nil {
		t.Fatalf("%s %v: structured content %s does not match the output schema: %v", name, args, raw, err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatal(err)
	}
	return s
}

// fail calls a search tool that must fail with a text containing parts.
func (sc *searchClient) fail(t *testing.T, name string, args map[string]any, parts ...string) string {
	t.Helper()
	return mcpfstest.WantError(t, mcpfstest.Call(t, sc.c, name, args), parts...)
}

type globOut struct {
	Root    string `json:"root"`
	Pattern string `json:"pattern"`
	Matches []struct {
		Path string `json:"path"`
		Type string `json:"type"`
	} `json:"matches"`
	Truncated bool `json:"truncated"`
}

// relSlash returns p relative to dir, slash-separated, if p is below dir,
// and p as it is otherwise.
func relSlash(dir, p string) string {
	rel, ok := strings.CutPrefix(p, dir+string(filepath.Separator))
	if !ok {
		return p
	}
	return filepath.ToSlash(rel)
}

// rel returns the paths of the matches relative to dir, slash-separated,
// a directory with a trailing /.
func (g globOut) rel(dir string) []string {
	out := []string{}
	for _, m := range g.Matches {
		p := relSlash(dir, m.Path)
		if m.Type == "directory" {
			p += "/"
		}
		out = append(out, p)
	}
	return out
}

type grepOut struct {
	Root    string `json:"root"`
	Pattern string `json:"pattern"`
	Matches []struct {
		Path string `json:"path"`
		Line int    `json:"line"`
		Text string `json:"text"`
		Cut  bool   `json:"cut"`
	} `json:"matches"`
	Truncated         bool `json:"truncated"`
	FilesSearched     int  `json:"filesSearched"`
	SkippedBinary     int  `json:"skippedBinary"`
	SkippedTooLarge   int  `json:"skippedTooLarge"`
	SkippedUnreadable int  `json:"skippedUnreadable"`
}

// lines renders the matches as rel:line:text, rel relative to dir and
// slash-separated.
func (g grepOut) lines(dir string) []string {
	out := []string{}
	for _, m := range g.Matches {
		out = append(out, fmt.Sprintf("%s:%d:%s", relSlash(dir, m.Path), m.Line, m.Text))
	}
	return out
}

func TestSearchToolsListed(t *testing.T) {
	for _, era := range mcpfstest.Eras {
		t.Run(era.Name, func(t *testing.T) {
			for _, readOnly := range []bool{false, true} {
				f := mcpfstest.NewFixture(t, readOnly)
				tools := mcpfstest.Tools(t, mcpfstest.Connect(t, f.Srv, era.Version))
				for name, props := range map[string]map[string]string{
					mcpfs.Glob: {"pattern": "string", "path": "string"},
					mcpfs.Grep: {"pattern": "string", "path": "string", "include": "string", "ignoreCase": "boolean", "maxResults": "integer"},
				} {
					tool, ok := tools[name]
					if !ok {
						t.Fatalf("read-only %v: no tool %s", readOnly, name)
					}
					if tool.Title == "" || tool.Annotations.Title == "" {
						t.Errorf("%s: no title", name)
					}
					for _, phrase := range []string{"the working directory", "node_modules", "symlinks", "sorted"} {
						if !strings.Contains(tool.Description, phrase) {
							t.Errorf("%s: description does not mention %q", name, phrase)
						}
					}
					// On Windows glob says to write / in a pattern, where \ escapes.
					if windows := strings.Contains(tool.Description, "C:/src/**/*.go"); windows != (name == mcpfs.Glob && filepath.Separator == '\\') {
						t.Errorf("%s: description shows how to write a pattern on Windows: %v", name, windows)
					}
					a := tool.Annotations
					if a.ReadOnlyHint == nil || !*a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint ||
						a.IdempotentHint == nil || !*a.IdempotentHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
						t.Errorf("%s: annotations %+v, want read-only, not destructive, idempotent, closed world", name, a)
					}
					raw, err := json.Marshal(tool.InputSchema)
					if err != nil {
						t.Fatal(err)
					}
					var schema struct {
						Required             []string                  `json:"required"`
						Properties           map[string]map[string]any `json:"properties"`
						AdditionalProperties *bool                     `json:"additionalProperties"`
					}
					if err := json.Unmarshal(raw, &schema); err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(schema.Required, []string{"pattern"}) || schema.AdditionalProperties == nil || *schema.AdditionalProperties {
						t.Errorf("%s: input schema %s, want pattern required and no other properties", name, raw)
					}
					if len(schema.Properties) != len(props) {
						t.Errorf("%s: properties %s, want %v", name, raw, props)
					}
					for p, typ := range props {
						if got := schema.Properties[p]["type"]; got != typ {
							t.Errorf("%s: %s has type %v, want %s", name, p, got, typ)
						}
						if d, _ := schema.Properties[p]["description"].(string); d == "" {
							t.Errorf("%s: %s has no description", name, p)
						}
					}
					if tool.RawOutputSchema == nil && tool.OutputSchema.Type == "" {
						t.Errorf("%s: no output schema", name)
					}
				}
			}
		})
	}
}

func TestGlobTool(t *testing.T) {
	for _, era := range mcpfstest.Eras {
		t.Run(era.Name, func(t *testing.T) {
			f := mcpfstest.NewFixture(t, false)
			for _, p := range []string{"main.go", "a.go", "a/b.go", "a/c.txt", "a-b.go", "node_modules/m/m.go", ".git/x.go", "docs/readme.md"} {
				f.WriteFile(t, p, "package x\n")
			}
			c := connectSearch(t, f.Srv, era.Version)

			var out globOut
			text := c.ok(t, mcpfs.Glob, map[string]any{"pattern": "**/*.go"}, &out)
			want := []string{"a/b.go", "a-b.go", "a.go", "main.go"} // by component: a/ before a-b.go
			if got := out.rel(f.Dir); !slices.Equal(got, want) {
				t.Errorf("glob **/*.go = %q, want %q", got, want)
			}
			if out.Root != f.Dir || out.Pattern != "**/*.go" || out.Truncated {
				t.Errorf("glob result %+v", out)
			}
			for _, m := range out.Matches {
				rel, _ := filepath.Rel(f.Dir, m.Path) // as the text shows a path in the working directory
				if !strings.Contains(text, "\n"+rel+"\n") && !strings.HasSuffix(text, "\n"+rel) {
					t.Errorf("text does not list %s:\n%s", rel, text)
				}
			}
			if !strings.HasPrefix(text, "4 paths that match") {
				t.Errorf("text %q", text)
			}

			for _, tc := range []struct {
				args map[string]any
				want []string
			}{
				{map[string]any{"pattern": "*", "path": "a"}, []string{"a/b.go", "a/c.txt"}},
				{map[string]any{"pattern": "*", "path": f.Path("a")}, []string{"a/b.go", "a/c.txt"}},
				{map[string]any{"pattern": "*"}, []string{"a/", "a-b.go", "a.go", "docs/", "main.go"}},
				{map[string]any{"pattern": "a/**"}, []string{"a/", "a/b.go", "a/c.txt"}},
				{map[string]any{"pattern": "{a,docs}/*.{go,md}"}, []string{"a/b.go", "docs/readme.md"}},
				{map[string]any{"pattern": filepath.ToSlash(f.Dir) + "/docs/*"}, []string{"docs/readme.md"}},
				{map[string]any{"pattern": "node_modules/**/*.go"}, []string{"node_modules/m/m.go"}},
				{map[string]any{"pattern": ".git/*"}, []string{".git/x.go"}},
				{map[string]any{"pattern": "*.rs"}, []string{}},
				{map[string]any{"pattern": "missing/**"}, []string{}},
			} {
				var out globOut
				c.ok(t, mcpfs.Glob, tc.args, &out)
				if got := out.rel(f.Dir); !slices.Equal(got, tc.want) {
					t.Errorf("glob %v = %q, want %q", tc.args, got, tc.want)
				}
			}
			if text := c.ok(t, mcpfs.Glob, map[string]any{"pattern": "*.rs"}, &out); !strings.HasPrefix(text, "No paths match") {
				t.Errorf("text for no match: %q", text)
			}

			c.fail(t, mcpfs.Glob, map[string]any{"pattern": "[a"}, `invalid glob pattern "[a"`)
			c.fail(t, mcpfs.Glob, map[string]any{"pattern": "*", "path": "main.go"}, "glob "+f.Path("main.go"), "not a directory")
			c.fail(t, mcpfs.Glob, map[string]any{"pattern": "*", "path": "nope"}, "glob "+f.Path("nope"), "does not exist")
			c.fail(t, mcpfs.Glob, map[string]any{"pattern": "*", "path": ostest.HostPath("/")}, "outside the allowed roots")
			c.fail(t, mcpfs.Glob, map[string]any{"pattern": "../*"}, "outside the allowed roots")
			c.fail(t, mcpfs.Glob, map[string]any{"pattern": filepath.ToSlash(ostest.HostPath("/etc")) + "/*"}, "outside the allowed roots")
			c.fail(t, mcpfs.Glob, map[string]any{"pattern": "*", "path": "a\x00"}, "NUL")
		})
	}
}

func TestGlobToolTruncates(t *testing.T) {
	f := mcpfstest.NewFixture(t, false)
	for i := range search.DefaultGlobResults + 1 {
		f.WriteFile(t, fmt.Sprintf("d/f%04d.txt", i), "")
	}
	c := connectSearch(t, f.Srv, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	var out globOut
	text := c.ok(t, mcpfs.Glob, map[string]any{"pattern": "**/*.txt"}, &out)
	if !out.Truncated || len(out.Matches) != search.DefaultGlobResults {
		t.Fatalf("%d matches, truncated %v", len(out.Matches), out.Truncated)
	}
	if last := out.Matches[len(out.Matches)-1].Path; last != f.Path(fmt.Sprintf("d/f%04d.txt", search.DefaultGlobResults-1)) {
		t.Errorf("last match %s: not the first ones in order", last)
	}
	if !strings.Contains(text, "there are more") {
		t.Errorf("text does not say it is truncated: %.200s", text)
	}
	c.ok(t, mcpfs.Glob, map[string]any{"pattern": "d/f000*.txt"}, &out)
	if out.Truncated || len(out.Matches) != 10 {
		t.Errorf("%d matches, truncated %v; want 10", len(out.Matches), out.Truncated)
	}
}

func TestGrepTool(t *testing.T) {
	for _, era := range mcpfstest.Eras {
		t.Run(era.Name, func(t *testing.T) {
			f := mcpfstest.NewFixture(t, false) // size limit: mcpfstest.TestMaxFileSize
			f.WriteFile(t, "main.go", "package main\n\nfunc Hello() {}\nfunc hello() {}\n")
			f.WriteFile(t, "a/b.go", "package a\r\n// HELLO there\r\n")
			f.WriteFile(t, "a-b.txt", "hello text\n")
			f.WriteFile(t, "bin.dat", "hello\x00binary\n")
			f.WriteFile(t, "latin1.txt", "hello caf\xe9\n")
			f.WriteFile(t, "big.txt", strings.Repeat("hello big\n", mcpfstest.TestMaxFileSize/10+1))
			f.WriteFile(t, "long.txt", "hello "+strings.Repeat("x", 600)+"\n")
			f.WriteFile(t, "node_modules/dep.js", "hello dep\n")
			c := connectSearch(t, f.Srv, era.Version)

			var out grepOut
			text := c.ok(t, mcpfs.Grep, map[string]any{"pattern": "hello"}, &out)
			cut := "long.txt:1:hello " + strings.Repeat("x", search.MaxGrepLineLen-len("hello ")) + search.GrepLineCut
			want := []string{"a-b.txt:1:hello text", cut, "main.go:4:func hello() {}"}
			if got := out.lines(f.Dir); !slices.Equal(got, want) {
				t.Errorf("grep hello = %q, want %q", got, want)
			}
			if out.Root != f.Dir || out.Pattern != "hello" || out.Truncated {
				t.Errorf("grep result root %s pattern %s truncated %v", out.Root, out.Pattern, out.Truncated)
			}
			if out.FilesSearched != 4 || out.SkippedBinary != 2 || out.SkippedTooLarge != 1 || out.SkippedUnreadable != 0 {
				t.Errorf("searched %d, skipped %d binary, %d too large, %d unreadable; want 4, 2, 1, 0",
					out.FilesSearched, out.SkippedBinary, out.SkippedTooLarge, out.SkippedUnreadable)
			}
			if !out.Matches[1].Cut || out.Matches[0].Cut {
				t.Errorf("cut flags %v %v", out.Matches[0].Cut, out.Matches[1].Cut)
			}
			for _, part := range []string{
				`3 lines in 3 files match "hello" in ` + f.Dir,
				"searched 4 files; skipped 2 binary files, 1 file over the size limit",
				"\nmain.go:4:func hello() {}",
			} {
				if !strings.Contains(text, part) {
					t.Errorf("text does not contain %q:\n%s", part, text)
				}
			}

			for _, tc := range []struct {
				args map[string]any
				want []string
			}{
				{map[string]any{"pattern": "hello", "ignoreCase": true, "include": "*.go"}, []string{
					"a/b.go:2:// HELLO there", "main.go:3:func Hello() {}", "main.go:4:func hello() {}"}},
				{map[string]any{"pattern": `^func \w+\(\)`, "path": "main.go"}, []string{
					"main.go:3:func Hello() {}", "main.go:4:func hello() {}"}},
				{map[string]any{"pattern": "HELLO", "path": "a"}, []string{"a/b.go:2:// HELLO there"}},
				{map[string]any{"pattern": "there$"}, []string{"a/b.go:2:// HELLO there"}}, // CRLF trimmed
				{map[string]any{"pattern": "hello", "include": "*.js"}, []string{}},
				{map[string]any{"pattern": "hello", "include": "node_modules/*.js"}, []string{"node_modules/dep.js:1:hello dep"}},
				{map[string]any{"pattern": "nothing at all"}, []string{}},
			} {
				var out grepOut
				c.ok(t, mcpfs.Grep, tc.args, &out)
				if got := out.lines(f.Dir); !slices.Equal(got, tc.want) {
					t.Errorf("grep %v = %q, want %q", tc.args, got, tc.want)
				}
			}
			if text := c.ok(t, mcpfs.Grep, map[string]any{"pattern": "nothing"}, &out); !strings.HasPrefix(text, `No lines match "nothing"`) {
				t.Errorf("text for no match: %q", text)
			}

			// The cap.
			text = c.ok(t, mcpfs.Grep, map[string]any{"pattern": "hello|package", "maxResults": 2}, &out)
			if got, want := out.lines(f.Dir), []string{"a/b.go:1:package a", "a-b.txt:1:hello text"}; !slices.Equal(got, want) || !out.Truncated {
				t.Errorf("grep maxResults 2 = %q truncated %v, want %q truncated", got, out.Truncated, want)
			}
			if !strings.Contains(text, "More lines match") {
				t.Errorf("text does not say it is truncated: %q", text)
			}

			c.fail(t, mcpfs.Grep, map[string]any{"pattern": "a("}, `grep: invalid regular expression "a(": missing closing )`)
			c.fail(t, mcpfs.Grep, map[string]any{"pattern": ""}, "grep: invalid regular expression", "empty")
			c.fail(t, mcpfs.Grep, map[string]any{"pattern": "x", "include": "[a"}, `invalid include pattern "[a"`)
			c.fail(t, mcpfs.Grep, map[string]any{"pattern": "x", "path": "nope"}, "grep "+f.Path("nope"), "does not exist")
			c.fail(t, mcpfs.Grep, map[string]any{"pattern": "x", "path": ostest.HostPath("/")}, "grep "+ostest.HostPath("/"), "outside the allowed roots")
			c.fail(t, mcpfs.Grep, map[string]any{"pattern": "x", "path": ".."}, "outside the allowed roots")
			c.fail(t, mcpfs.Grep, map[string]any{"pattern": "x", "maxResults": 0}, "maxResults must be at least 1")
			c.fail(t, mcpfs.Grep, map[string]any{"pattern": "x", "context": 3}, "unknown argument")
		})
	}
}

func TestGrepToolCap(t *testing.T) {
	f := mcpfstest.NewFixture(t, false)
	for i := range 30 {
		f.WriteFile(t, fmt.Sprintf("f%02d.txt", i), strings.Repeat("match\n", 100))
	}
	c := connectSearch(t, f.Srv, mcp.LATEST_PROTOCOL_VERSION)
	for _, tc := range []struct {
		max  any
		want int
	}{
		{nil, search.DefaultGrepResults},
		{1, 1},
		{150, 150},
		{search.MaxGrepResults + 1000, search.MaxGrepResults},
	} {
		args := map[string]any{"pattern": "match"}
		if tc.max != nil {
			args["maxResults"] = tc.max
		}
		var out grepOut
		c.ok(t, mcpfs.Grep, args, &out)
		if len(out.Matches) != tc.want || !out.Truncated {
			t.Errorf("maxResults %v: %d matches, truncated %v; want %d, truncated", tc.max, len(out.Matches), out.Truncated, tc.want)
			continue
		}
		for i, m := range out.Matches {
			if want := fmt.Sprintf("f%02d.txt", i/100); m.Path != f.Path(want) || m.Line != i%100+1 {
				t.Fatalf("match %d is %s:%d, want %s:%d", i, m.Path, m.Line, want, i%100+1)
			}
		}
	}
}

// TestSearchToolsSymlinks runs both tools over a root whose symlinks lead
// out of it: nothing outside may show, and a link is never followed.
func TestSearchToolsSymlinks(t *testing.T) {
	for _, era := range mcpfstest.Eras {
		t.Run(era.Name, func(t *testing.T) {
			f := mcpfstest.NewFixture(t, false, "root")
			root := f.Path("root")
			f.WriteFile(t, "outside/secret.txt", "top secret\n")
			f.WriteFile(t, "root/in.txt", "inside\n")
			f.Symlink(t, f.Path("outside/secret.txt"), "root/link_file")
			f.Symlink(t, f.Path("outside"), "root/link_dir")
			f.Symlink(t, "../outside", "root/link_rel")
			f.Symlink(t, "in.txt", "root/inner")
			c := connectSearch(t, f.Srv, era.Version)

			var g globOut
			c.ok(t, mcpfs.Glob, map[string]any{"pattern": "**", "path": root}, &g)
			types := map[string]string{}
			for _, m := range g.Matches {
				types[relSlash(root, m.Path)] = m.Type
			}
			want := map[string]string{"in.txt": "file", "inner": "symlink", "link_dir": "symlink", "link_file": "symlink", "link_rel": "symlink"}
			if fmt.Sprint(types) != fmt.Sprint(want) {
				t.Errorf("glob ** = %v, want %v", types, want)
			}
			var r grepOut
			c.ok(t, mcpfs.Grep, map[string]any{"pattern": "secret|inside", "path": root}, &r)
			if got, want := r.lines(root), []string{"in.txt:1:inside"}; !slices.Equal(got, want) {
				t.Errorf("grep = %q, want %q", got, want)
			}
			for _, link := range []string{"link_file", "link_dir", "link_rel"} {
				c.fail(t, mcpfs.Grep, map[string]any{"pattern": "secret", "path": filepath.Join(root, link)}, "outside the allowed roots")
				c.fail(t, mcpfs.Glob, map[string]any{"pattern": "*", "path": filepath.Join(root, link)}, "outside the allowed roots")
				c.fail(t, mcpfs.Glob, map[string]any{"pattern": link + "/*", "path": root}, "outside the allowed roots")
			}
			// A link given as the path is resolved, inside the roots.
			c.ok(t, mcpfs.Grep, map[string]any{"pattern": "inside", "path": filepath.Join(root, "inner")}, &r)
			if got, want := r.lines(root), []string{"inner:1:inside"}; !slices.Equal(got, want) {
				t.Errorf("grep in a link = %q, want %q", got, want)
			}
		})
	}
}

// TestSearchToolsThroughRouter searches a session whose reads go to an
// editor: the search reads the disk, within the disk's roots.
func TestSearchToolsThroughRouter(t *testing.T) {
	dir := mcpfstest.NewFixture(t, false).Dir
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("on disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	disk, err := fsruntime.OpenDisk([]string{dir}, fsruntime.DiskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { disk.Close() })
	editor := fsruntimetest.NewMemFS()
	editor.WriteTextFile(t.Context(), filepath.Join(dir, "a.txt"), "in the buffer\n")
	router := fsruntime.NewRouter(fsruntime.RouterOptions{
		Disk:   disk,
		Editor: editor,
		Client: capabilities.Client{FS: capabilities.FS{ReadTextFile: true, WriteTextFile: true}},
		Log:    slog.New(slog.DiscardHandler),
	})
	srv, err := mcpfs.NewServer(mcpfs.Files{WorkDir: dir, FS: router}, mcpfs.Options{Tools: mcpfstest.Structured})
	if err != nil {
		t.Fatal(err)
	}
	c := connectSearch(t, srv, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	var r grepOut
	c.ok(t, mcpfs.Grep, map[string]any{"pattern": "disk|buffer"}, &r)
	if got, want := r.lines(dir), []string{"a.txt:1:on disk"}; !slices.Equal(got, want) {
		t.Errorf("grep through the router = %q, want %q", got, want)
	}
	var g globOut
	c.ok(t, mcpfs.Glob, map[string]any{"pattern": "*.txt"}, &g)
	if got, want := g.rel(dir), []string{"a.txt"}; !slices.Equal(got, want) {
		t.Errorf("glob through the router = %q, want %q", got, want)
	}
	c.fail(t, mcpfs.Grep, map[string]any{"pattern": "x", "path": ostest.HostPath("/")}, "outside the allowed roots")
}

// TestSearchToolsUnsupported: a session FS that cannot walk has the tools,
// which say so.
func TestSearchToolsUnsupported(t *testing.T) {
	for _, era := range mcpfstest.Eras {
		t.Run(era.Name, func(t *testing.T) {
			work := ostest.HostPath("/work")
			srv, err := mcpfs.NewServer(mcpfs.Files{WorkDir: work, FS: fsruntimetest.NewMemFS()}, mcpfs.Options{Tools: mcpfstest.Structured})
			if err != nil {
				t.Fatal(err)
			}
			c := mcpfstest.Connect(t, srv, era.Version)
			mcpfstest.WantError(t, mcpfstest.Call(t, c, mcpfs.Glob, map[string]any{"pattern": "*"}), "glob "+work, "not supported")
			mcpfstest.WantError(t, mcpfstest.Call(t, c, mcpfs.Grep, map[string]any{"pattern": "x"}), "grep "+work, "not supported")
		})
	}
}

// TestSearchToolsInMemory searches an FS that walks but cannot open files,
// which grep reads through ReadTextFile.
func TestSearchToolsInMemory(t *testing.T) {
	work := ostest.HostPath("/work")
	fsys := fsruntimetest.NewExtMemFS()
	fsys.WriteTextFile(t.Context(), filepath.Join(work, "src", "a.go"), "package a\nfunc A() {}\n")
	fsys.WriteTextFile(t.Context(), filepath.Join(work, "b.txt"), "func not go\n")
	srv, err := mcpfs.NewServer(mcpfs.Files{WorkDir: work, FS: fsys}, mcpfs.Options{Tools: mcpfstest.Structured})
	if err != nil {
		t.Fatal(err)
	}
	c := connectSearch(t, srv, mcp.LATEST_PROTOCOL_VERSION)
	var g globOut
	c.ok(t, mcpfs.Glob, map[string]any{"pattern": "**/*.go"}, &g)
	if got, want := g.rel(work), []string{"src/a.go"}; !slices.Equal(got, want) {
		t.Errorf("glob = %q, want %q", got, want)
	}
	var r grepOut
	c.ok(t, mcpfs.Grep, map[string]any{"pattern": "func", "include": "*.go"}, &r)
	if got, want := r.lines(work), []string{"src/a.go:2:func A() {}"}; !slices.Equal(got, want) {
		t.Errorf("grep = %q, want %q", got, want)
	}
}

// TestSearchToolsPathAttacks gives glob and grep paths, and glob patterns,
// that lead out of the root: each is refused, naming the path resolved,
// and nothing outside shows.
func TestSearchToolsPathAttacks(t *testing.T) {
	for _, era := range mcpfstest.Eras {
		t.Run(era.Name, func(t *testing.T) {
			f := mcpfstest.NewFixture(t, false, "root")
			f.WriteFile(t, "root/in.txt", "in")
			f.WriteFile(t, "root/indir/x.txt", "x")
			f.WriteFile(t, "outside/secret.txt", "secret")
			f.WriteFile(t, "rootx/secret.txt", "sibling")
			f.WriteFile(t, "root_backup/secret.txt", "sibling")
			links := f.Symlinks(t)
			if links {
				f.Symlink(t, f.Path("outside"), "root/outdir")
				f.Symlink(t, f.Path("outside/secret.txt"), "root/outfile")
				f.Symlink(t, "../rootx", "root/relout")
			}
			c := connectSearch(t, f.Srv, era.Version)
			root := f.Path("root")
			fsRoot := ostest.HostPath("/")

			for _, a := range []struct {
				name, arg, resolved string
				link                bool // through a symlink
			}{
				{"absolute", f.Path("outside"), f.Path("outside"), false},
				{"absolute file", f.Path("outside/secret.txt"), f.Path("outside/secret.txt"), false},
				{"dotdot", "../outside", f.Path("outside"), false},
				{"deep dotdot", "indir/../../outside", f.Path("outside"), false},
				{"prefix sibling", f.Path("rootx"), f.Path("rootx"), false},
				{"prefix sibling dotdot", "../root_backup", f.Path("root_backup"), false},
				{"symlinked directory", "outdir", filepath.Join(root, "outdir"), true},
				{"file through a symlinked directory", "outdir/secret.txt", filepath.Join(root, "outdir", "secret.txt"), true},
				{"symlinked file", "outfile", filepath.Join(root, "outfile"), true},
				{"relative symlink", "relout", filepath.Join(root, "relout"), true},
				{"parent of root", "..", f.Dir, false},
				{"file system root", fsRoot, fsRoot, false},
			} {
				if a.link && !links {
					continue
				}
				t.Run(a.name, func(t *testing.T) {
					c.fail(t, mcpfs.Glob, map[string]any{"pattern": "**", "path": a.arg}, "glob "+a.resolved+":", "outside the allowed roots")
					c.fail(t, mcpfs.Grep, map[string]any{"pattern": "secret|sibling", "path": a.arg}, "grep "+a.resolved+":", "outside the allowed roots")
				})
			}
			// Patterns whose literal start leads out.
			patterns := []string{"../outside/*", "../**", filepath.ToSlash(f.Path("outside")) + "/*", filepath.ToSlash(fsRoot) + "**/secret.txt", "indir/../../outside/*"}
			if links {
				patterns = append(patterns, "outdir/*", "relout/**")
			}
			for _, pat := range patterns {
				c.fail(t, mcpfs.Glob, map[string]any{"pattern": pat}, "outside the allowed roots")
			}
			// Symlinks found while walking are listed, never entered.
			var g globOut
			c.ok(t, mcpfs.Glob, map[string]any{"pattern": "**/*secret*"}, &g)
			if len(g.Matches) != 0 {
				t.Errorf("glob found %v", g.Matches)
			}
			var r grepOut
			c.ok(t, mcpfs.Grep, map[string]any{"pattern": "secret|sibling"}, &r)
			if len(r.Matches) != 0 || r.FilesSearched != 2 {
				t.Errorf("grep found %q in %d files, want nothing in 2 files", r.lines(root), r.FilesSearched)
			}
		})
	}
}
