package mcpfs_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aymanbagabas/go-udiff"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fspath"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpfstest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/sessiontest"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

// editEnv is a server over one of the backends the edit tools are tested
// on, with direct access to its files.
type editEnv struct {
	Name string
	Dir  string // the root, also the working directory
	Srv  *server.MCPServer
	put  func(t *testing.T, p, content string) // plant a file, bypassing the tools
	get  func(p string) (string, bool)         // a file's content, bypassing the tools
	ext  *extFS                                // the mem+ext backend's FS, to count calls; nil for others
	bin  bool                                  // the FS implements fsruntime.BinaryFS
}

func (e *editEnv) Path(rel string) string { return filepath.Join(e.Dir, filepath.FromSlash(rel)) }

// editEnvs returns the backends: the disk, an in-memory FS with the
// optional HashFS and BinaryFS methods, and one with neither (the fallback
// paths).
func editEnvs(t *testing.T) []*editEnv {
	return []*editEnv{diskEnv(t, mcpfstest.TestMaxFileSize), memEnv(t, true), memEnv(t, false)}
}

func diskEnv(t testing.TB, max int64) *editEnv {
	f := mcpfstest.NewFixtureMax(t, max)
	return &editEnv{
		Name: "disk",
		Dir:  f.Dir,
		Srv:  f.Srv,
		bin:  true,
		put: func(t *testing.T, p, content string) {
			t.Helper()
			ostest.WriteFile(t, p, content)
		},
		get: func(p string) (string, bool) {
			b, err := os.ReadFile(p)
			return string(b), err == nil
		},
	}
}

func memEnv(t *testing.T, withExt bool) *editEnv {
	dir := ostest.HostPath("/mem/root")
	mem := &fsruntimetest.MemFS{Max: mcpfstest.TestMaxFileSize, Roots: []string{dir}}
	e := &editEnv{
		Name: "mem",
		Dir:  dir,
		put:  func(_ *testing.T, p, content string) { mem.Set(p, content) },
		get:  mem.Get,
	}
	var fsys fsruntime.FS = mem
	if withExt {
		e.ext = &extFS{ExtMemFS: &fsruntimetest.ExtMemFS{MemFS: mem}}
		fsys, e.bin, e.Name = e.ext, true, "mem+ext"
	}
	srv, err := mcpfs.NewServer(mcpfs.Files{WorkDir: dir, FS: fsys, MaxFileSize: mcpfstest.TestMaxFileSize}, mcpfs.Options{Tools: mcpfstest.Structured})
	if err != nil {
		t.Fatal(err)
	}
	e.Srv = srv
	return e
}

// extFS is a fsruntimetest.ExtMemFS, which has every optional interface,
// that counts its HashTextFile calls.
type extFS struct {
	*fsruntimetest.ExtMemFS
	hashes atomic.Int32
}

func (f *extFS) HashTextFile(ctx context.Context, path string) (string, error) {
	f.hashes.Add(1)
	return f.ExtMemFS.HashTextFile(ctx, path)
}

// The backends the tools use have what the tests expect of them.
var (
	_ fsruntime.HashFS   = (*fsruntime.Disk)(nil)
	_ fsruntime.BinaryFS = (*fsruntime.Disk)(nil)
	_ fsruntime.HashFS   = (*fsruntime.Router)(nil)
	_ fsruntime.BinaryFS = (*fsruntime.Router)(nil)
)

// sha is the hash read_text_file reports.
func sha(s string) string { return fsruntime.HashText(s) }

// outputSchemas compiles the output schema of every tool c lists.
func outputSchemas(t testing.TB, c *client.Client) map[string]*jsonschema.Schema {
	t.Helper()
	schemas := map[string]*jsonschema.Schema{}
	for _, tool := range mcpfstest.Tools(t, c) {
		if sch := toolOutputSchema(t, tool); sch != nil {
			schemas[tool.Name] = sch
		}
	}
	return schemas
}

// toolClient is a client with the output schemas of its server's tools.
type toolClient struct {
	*client.Client
	schemas map[string]*jsonschema.Schema
}

func connectTools(t *testing.T, srv *server.MCPServer, version string) *toolClient {
	t.Helper()
	c := mcpfstest.Connect(t, srv, version)
	return &toolClient{c, outputSchemas(t, c)}
}

// structured checks that res succeeded with structured content that
// validates against the tool's output schema, and returns that content.
func (c *toolClient) structured(t *testing.T, name string, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	if res.IsError {
		t.Fatalf("%s failed: %+v", name, res.Content)
	}
	sch := c.schemas[name]
	if sch == nil {
		t.Fatalf("%s has no output schema", name)
	}
	if res.StructuredContent == nil {
		t.Fatalf("%s: no structured content", name)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(v); err != nil {
		t.Fatalf("%s: structured content %s does not validate: %v", name, raw, err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestReadTextFileHash(t *testing.T) {
	for _, era := range mcpfstest.Eras {
		for _, env := range editEnvs(t) {
			t.Run(era.Name+"/"+env.Name, func(t *testing.T) {
				c := connectTools(t, env.Srv, era.Version)
				files := map[string]string{
					"lf.txt":    "one\ntwo\nthree\n",
					"crlf.txt":  "a\r\nb\r\nc",
					"empty.txt": "",
					"bom.txt":   "\uFEFFhéllo\n世界\n",
				}
				for rel, content := range files {
					env.put(t, env.Path(rel), content)
				}
				for _, tc := range []struct {
					rel         string
					line, limit int
					text        string
					lines       int
				}{
					{"lf.txt", 0, 0, "one\ntwo\nthree\n", 3},
					{"lf.txt", 2, 0, "two\nthree\n", 2},
					{"lf.txt", 2, 1, "two\n", 1},
					{"lf.txt", 1, 1, "one\n", 1},
					{"crlf.txt", 0, 0, "a\r\nb\r\nc", 3},
					{"crlf.txt", 3, 0, "c", 1},
					{"empty.txt", 0, 0, "", 0},
					{"bom.txt", 0, 0, "\uFEFFhéllo\n世界\n", 2},
				} {
					args := map[string]any{"path": tc.rel}
					if tc.line > 0 {
						args["line"] = tc.line
					}
					if tc.limit > 0 {
						args["limit"] = tc.limit
					}
					var hashesBefore int32
					if env.ext != nil {
						hashesBefore = env.ext.hashes.Load()
					}
					res := mcpfstest.Call(t, c.Client, mcpfs.ReadTextFile, args)
					if got := mcpfstest.Text(t, res); got != tc.text {
						t.Errorf("read %v: text %q, want %q", args, got, tc.text)
					}
					out := c.structured(t, mcpfs.ReadTextFile, res)
					want := map[string]any{
						"path":      env.Path(tc.rel),
						"content":   tc.text,
						"sha256":    sha(files[tc.rel]),
						"line":      float64(max(tc.line, 1)),
						"lineCount": float64(tc.lines),
					}
					for k, v := range want {
						if out[k] != v {
							t.Errorf("read %v: %s = %v, want %v", args, k, out[k], v)
						}
					}
					if env.ext != nil {
						// The whole file is read, and hashed from its text;
						// a range is cut from it.
						if n := env.ext.hashes.Load() - hashesBefore; n != 0 {
							t.Errorf("read %v: %d HashTextFile calls, want none", args, n)
						}
					}
				}
			})
		}
	}
}

func TestWriteTextFileExpectedHash(t *testing.T) {
	for _, era := range mcpfstest.Eras {
		for _, env := range editEnvs(t) {
			t.Run(era.Name+"/"+env.Name, func(t *testing.T) {
				c := connectTools(t, env.Srv, era.Version)
				p := env.Path("f.txt")
				env.put(t, p, "v1\n")
				read := c.structured(t, mcpfs.ReadTextFile, mcpfstest.Call(t, c.Client, mcpfs.ReadTextFile, map[string]any{"path": "f.txt"}))
				h1 := read["sha256"].(string)

				// The file changes behind the reader's back.
				env.put(t, p, "v2 by someone else\n")
				msg := mcpfstest.WantError(t, mcpfstest.Call(t, c.Client, mcpfs.WriteTextFile, map[string]any{"path": "f.txt", "content": "mine\n", "expectedHash": h1}),
					"write "+p, "changed since read", h1, sha("v2 by someone else\n"), "nothing was written", "read the file again")
				t.Log(msg)
				if got, _ := env.get(p); got != "v2 by someone else\n" {
					t.Errorf("after a refused write the file has %q", got)
				}

				// With the current hash (in upper case, too) it goes through.
				h2 := strings.ToUpper(sha("v2 by someone else\n"))
				res := mcpfstest.Call(t, c.Client, mcpfs.WriteTextFile, map[string]any{"path": "f.txt", "content": "mine\n", "expectedHash": h2})
				if got := mcpfstest.Text(t, res); got != fmt.Sprintf("wrote 5 bytes to %s", p) {
					t.Errorf("write text %q", got)
				}
				out := c.structured(t, mcpfs.WriteTextFile, res)
				if out["path"] != p || out["bytesWritten"] != 5.0 || out["sha256"] != sha("mine\n") {
					t.Errorf("write output %v", out)
				}
				if got, _ := env.get(p); got != "mine\n" {
					t.Errorf("after the write the file has %q", got)
				}
				// The write's sha256 is the next read's.
				read = c.structured(t, mcpfs.ReadTextFile, mcpfstest.Call(t, c.Client, mcpfs.ReadTextFile, map[string]any{"path": "f.txt"}))
				if read["sha256"] != out["sha256"] {
					t.Errorf("read sha256 %v, write said %v", read["sha256"], out["sha256"])
				}

				// Without expectedHash there is no check.
				c.structured(t, mcpfs.WriteTextFile, mcpfstest.Call(t, c.Client, mcpfs.WriteTextFile, map[string]any{"path": "f.txt", "content": "x"}))

				// A file that is gone has changed too; nothing is created.
				mcpfstest.WantError(t, mcpfstest.Call(t, c.Client, mcpfs.WriteTextFile, map[string]any{"path": "gone.txt", "content": "x", "expectedHash": h1}),
					"write "+env.Path("gone.txt"), "changed since read", "does not exist", "nothing was written")
				if _, ok := env.get(env.Path("gone.txt")); ok {
					t.Error("a write with expectedHash created a missing file")
				}

				for _, bad := range []string{"abc", strings.Repeat("g", 64)} {
					mcpfstest.WantError(t, mcpfstest.Call(t, c.Client, mcpfs.WriteTextFile, map[string]any{"path": "f.txt", "content": "y", "expectedHash": bad}),
						"write "+p, "expectedHash must be the 64 hex digits")
				}
				if got, _ := env.get(p); got != "x" {
					t.Errorf("a malformed expectedHash let the write through: %q", got)
				}
			})
		}
	}
}

// editCase is one edit_text_file call on a file of its own.
type editCase struct {
	name  string
	file  string         // the content before; "\x00none" for no file
	args  map[string]any // without path
	want  string         // the content after, for a success
	repl  int            // replacements, for a success
	diff  string         // the diff, "" to skip the check (the path is %s)
	error []string       // parts of the error text; the file must be unchanged
}

func edits(pairs ...string) []any {
	var out []any
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, map[string]any{"oldText": pairs[i], "newText": pairs[i+1]})
	}
	return out
}

func editCases() []editCase {
	return []editCase{
		{name: "one edit", file: "one\ntwo\nthree\n", args: map[string]any{"edits": edits("two", "TWO")},
			want: "one\nTWO\nthree\n", repl: 1,
			diff: "--- %[1]s\n+++ %[1]s\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"},
		{name: "delete a line", file: "a\nb\nc\n", args: map[string]any{"edits": edits("b\n", "")},
			want: "a\nc\n", repl: 1, diff: "--- %[1]s\n+++ %[1]s\n@@ -1,3 +1,2 @@\n a\n-b\n c\n"},
		{name: "no final newline", file: "a\nb", args: map[string]any{"edits": edits("b", "B")},
			want: "a\nB", repl: 1,
			diff: "--- %[1]s\n+++ %[1]s\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+B\n\\ No newline at end of file\n"},
		{name: "in order", file: "one\n", args: map[string]any{"edits": edits("one", "two", "two", "three")},
			want: "three\n", repl: 2},
		{name: "several", file: "alpha\nbeta\ngamma\n", args: map[string]any{"edits": edits("alpha", "A", "gamma", "G")},
			want: "A\nbeta\nG\n", repl: 2},
		{name: "replaceAll", file: "x\ny\nx\nx\n",
			args: map[string]any{"edits": []any{map[string]any{"oldText": "x", "newText": "z", "replaceAll": true}}},
			want: "z\ny\nz\nz\n", repl: 3},
		{name: "replaceAll of one", file: "x\ny\n",
			args: map[string]any{"edits": []any{map[string]any{"oldText": "y", "newText": "z", "replaceAll": true}}},
			want: "x\nz\n", repl: 1},
		{name: "unicode", file: "héllo, 世界\n", args: map[string]any{"edits": edits("世界", "world")},
			want: "héllo, world\n", repl: 1},
		{name: "CRLF kept", file: "a\r\nb\r\nc\r\n", args: map[string]any{"edits": edits("a\nb\n", "x\ny\nz\n")},
			want: "x\r\ny\r\nz\r\nc\r\n", repl: 1},
		{name: "CRLF given", file: "a\r\nb\r\nc\r\n", args: map[string]any{"edits": edits("b\r\nc", "B\nC")},
			want: "a\r\nB\r\nC\r\n", repl: 1},
		{name: "LF file, CRLF edit", file: "a\nb\nc\n", args: map[string]any{"edits": edits("a\r\nb\r\n", "x\r\n")},
			want: "x\nc\n", repl: 1},
		{name: "mixed endings", file: "a\nb\r\nc\nd\n", args: map[string]any{"edits": edits("b\r\nc", "B\r\nC")},
			want: "a\nB\r\nC\nd\n", repl: 1},
		{name: "BOM kept", file: "\uFEFFfirst\nsecond\n", args: map[string]any{"edits": edits("first", "1st")},
			want: "\uFEFF1st\nsecond\n", repl: 1,
			diff: "--- %[1]s\n+++ %[1]s\n@@ -1,2 +1,2 @@\n-first\n+1st\n second\n"},
		{name: "BOM in oldText", file: "\uFEFFfirst\nsecond\n", args: map[string]any{"edits": edits("\uFEFFfirst", "\uFEFF1st")},
			want: "\uFEFF1st\nsecond\n", repl: 1},
		{name: "BOM and CRLF", file: "\uFEFFa\r\nb\r\n", args: map[string]any{"edits": edits("a\nb", "b\na")},
			want: "\uFEFFb\r\na\r\n", repl: 1},
		{name: "no change", file: "same\n", args: map[string]any{"edits": edits("same", "same")},
			want: "same\n", repl: 1},

		{name: "zero matches", file: "alpha\n", args: map[string]any{"edits": edits("beta", "x")},
			error: []string{"edit 1 of 1: oldText was not found", "exactly", "nothing was written"}},
		{name: "several matches", file: "y\nx\nx\nx\n", args: map[string]any{"edits": edits("y", "Y", "x", "z")},
			error: []string{"edit 2 of 2: oldText matches 3 times", "replaceAll"}},
		{name: "overlapping matches", file: "aaa", args: map[string]any{"edits": edits("aa", "b")},
			error: []string{"edit 1 of 1: oldText matches 2 times"}},
		{name: "all or nothing", file: "alpha\nbeta\n", args: map[string]any{"edits": edits("alpha", "ALPHA", "gamma", "x")},
			error: []string{"edit 2 of 2: oldText was not found"}},
		{name: "earlier edit took it", file: "alpha\nbeta\n", args: map[string]any{"edits": edits("alpha", "ALPHA", "alpha", "x")},
			error: []string{"edit 2 of 2", "an earlier edit of this call changed or removed it"}},
		{name: "replaceAll of none", file: "alpha\n",
			args:  map[string]any{"edits": []any{map[string]any{"oldText": "beta", "newText": "x", "replaceAll": true}}},
			error: []string{"edit 1 of 1: oldText was not found"}},
		{name: "empty oldText", file: "alpha\n", args: map[string]any{"edits": edits("alpha", "a", "", "x")},
			error: []string{"edit 2 of 2: oldText is empty"}},
		{name: "missing file", file: "\x00none", args: map[string]any{"edits": edits("a", "b")},
			error: []string{"file does not exist"}},
		{name: "binary file", file: "\x00\x01\x02", args: map[string]any{"edits": edits("a", "b")},
			error: []string{"binary"}},
		{name: "grows over the limit", file: "x\n", args: map[string]any{"edits": edits("x", strings.Repeat("y", mcpfstest.TestMaxFileSize))},
			error: []string{"too large"}},
		{name: "changed since read", file: "alpha\n", args: map[string]any{"edits": edits("alpha", "b"), "expectedHash": sha("something else")},
			error: []string{"changed since read", sha("something else"), sha("alpha\n"), "read the file again"}},
		{name: "changed since read, and oldText gone", file: "alpha\n", args: map[string]any{"edits": edits("gamma", "b"), "expectedHash": sha("something else")},
			error: []string{"changed since read", sha("something else"), sha("alpha\n"), "read the file again"}},
		{name: "bad expectedHash", file: "alpha\n", args: map[string]any{"edits": edits("alpha", "b"), "expectedHash": "xyz"},
			error: []string{"expectedHash must be the 64 hex digits"}},
	}
}

func TestEditTextFile(t *testing.T) {
	for _, era := range mcpfstest.Eras {
		for _, env := range editEnvs(t) {
			t.Run(era.Name+"/"+env.Name, func(t *testing.T) {
				c := connectTools(t, env.Srv, era.Version)
				for i, tc := range editCases() {
					t.Run(tc.name, func(t *testing.T) {
						p := env.Path(fmt.Sprintf("case%d.txt", i))
						if tc.file != "\x00none" {
							env.put(t, p, tc.file)
						}
						args := map[string]any{"path": filepath.Base(p)}
						for k, v := range tc.args {
							args[k] = v
						}
						readFirst(t, c.Client, p) // the read guard
						res := mcpfstest.Call(t, c.Client, mcpfs.EditTextFile, args)
						after, exists := env.get(p)
						if tc.error != nil {
							msg := mcpfstest.WantError(t, res, append([]string{p}, tc.error...)...)
							t.Log(msg)
							if tc.file == "\x00none" && exists || tc.file != "\x00none" && after != tc.file {
								t.Errorf("a failed edit changed the file to %q", after)
							}
							return
						}
						out := c.structured(t, mcpfs.EditTextFile, res)
						if after != tc.want {
							t.Errorf("file after the edit: %q, want %q", after, tc.want)
						}
						changed := tc.want != tc.file
						want := map[string]any{
							"path":          p,
							"appliedEdits":  float64(len(tc.args["edits"].([]any))),
							"replacements":  float64(tc.repl),
							"sha256Before":  sha(tc.file),
							"sha256After":   sha(tc.want),
							"dryRun":        false,
							"written":       changed,
							"diffTruncated": false,
						}
						for k, v := range want {
							if out[k] != v {
								t.Errorf("%s = %v, want %v", k, out[k], v)
							}
						}
						diff := out["diff"].(string)
						if tc.diff != "" && diff != fmt.Sprintf(tc.diff, p) {
							t.Errorf("diff:\n%s\nwant:\n%s", diff, fmt.Sprintf(tc.diff, p))
						}
						if (diff == "") == changed {
							t.Errorf("diff %q for a change %v", diff, changed)
						}
						msg := mcpfstest.Text(t, res)
						if !strings.HasSuffix(msg, diff) || strings.Contains(msg, sha(tc.want)) {
							t.Errorf("text %q does not give the diff alone (the hashes are in the structured result)", msg)
						}
					})
				}
			})
		}
	}
}

func TestEditTextFileDryRunAndExpectedHash(t *testing.T) {
	for _, era := range mcpfstest.Eras {
		for _, env := range editEnvs(t) {
			t.Run(era.Name+"/"+env.Name, func(t *testing.T) {
				c := connectTools(t, env.Srv, era.Version)
				p := env.Path("f.txt")
				env.put(t, p, "one\ntwo\n")
				read := c.structured(t, mcpfs.ReadTextFile, mcpfstest.Call(t, c.Client, mcpfs.ReadTextFile, map[string]any{"path": "f.txt", "line": 2}))

				dry := mcpfstest.Call(t, c.Client, mcpfs.EditTextFile, map[string]any{"path": "f.txt", "edits": edits("two", "2"), "dryRun": true, "expectedHash": read["sha256"]})
				out := c.structured(t, mcpfs.EditTextFile, dry)
				if got, _ := env.get(p); got != "one\ntwo\n" {
					t.Fatalf("a dry run wrote %q", got)
				}
				if out["dryRun"] != true || out["written"] != false || out["sha256After"] != sha("one\n2\n") ||
					!strings.Contains(out["diff"].(string), "-two\n+2\n") || !strings.Contains(mcpfstest.Text(t, dry), "Dry run") {
					t.Errorf("dry run: %v\n%s", out, mcpfstest.Text(t, dry))
				}

				// The real edit, chained on the hash of the read.
				out = c.structured(t, mcpfs.EditTextFile, mcpfstest.Call(t, c.Client, mcpfs.EditTextFile,
					map[string]any{"path": "f.txt", "edits": edits("two", "2"), "expectedHash": read["sha256"]}))
				if got, _ := env.get(p); got != "one\n2\n" || out["written"] != true {
					t.Fatalf("after the edit: %q, %v", got, out)
				}
				// A second edit on the read's hash is refused: the first changed the file.
				mcpfstest.WantError(t, mcpfstest.Call(t, c.Client, mcpfs.EditTextFile, map[string]any{"path": "f.txt", "edits": edits("one", "1"), "expectedHash": read["sha256"]}),
					"edit "+p, "changed since read")
				// On the edit's sha256After it goes through.
				c.structured(t, mcpfs.EditTextFile, mcpfstest.Call(t, c.Client, mcpfs.EditTextFile,
					map[string]any{"path": "f.txt", "edits": edits("one", "1"), "expectedHash": out["sha256After"]}))
				if got, _ := env.get(p); got != "1\n2\n" {
					t.Errorf("after the chained edit: %q", got)
				}
			})
		}
	}
}

// TestEditTextFileDiffApplies checks the diff of larger edits by applying
// it to the text before.
func TestEditTextFileDiffApplies(t *testing.T) {
	env := diskEnv(t, 1<<20)
	c := connectTools(t, env.Srv, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	var lines []string
	for i := range 200 {
		lines = append(lines, fmt.Sprintf("line %03d", i))
	}
	for _, tc := range []struct {
		name, sep, end string
		edits          []any
	}{
		{"far apart", "\n", "\n", edits("line 000", "first", "line 100\n", "", "line 199", "last\nand more")},
		{"adjacent", "\n", "\n", edits("line 050\nline 051", "fifty\nfifty-one\nextra")},
		{"no final newline", "\n", "", edits("line 199", "end")},
		{"crlf", "\r\n", "\r\n", edits("line 010\nline 011\n", "", "line 150", "x\ny")},
		{"replaceAll", "\n", "\n", []any{map[string]any{"oldText": "line 1", "newText": "LINE 1", "replaceAll": true}}},
		{"same prefix and suffix", "\n", "\n", edits("line 120\n", "line 120\nline 120\n")},
		{"first line", "\n", "\n", edits("line 000\n", "")},
		{"insert at the top", "\n", "\n", edits("line 000", "header\nline 000")},
		{"second line", "\n", "\n", edits("line 001", "one")},
		{"near the end", "\n", "\n", edits("line 198", "x")},
		{"join lines", "\n", "\n", edits("line 050\nline 051", "line 050 + 051")},
		{"split a line", "\n", "\n", edits("line 077", "line\n077")},
		{"append without final newline", "\n", "", edits("line 199", "line 199\nline 200")},
		{"drop the final newline", "\n", "\n", edits("line 199\n", "line 199")},
		{"everything", "\n", "\n", []any{map[string]any{"oldText": "line", "newText": "", "replaceAll": true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := strings.Join(lines, tc.sep) + tc.end
			env.put(t, env.Path("big.txt"), before)
			out := c.structured(t, mcpfs.EditTextFile, mcpfstest.Call(t, c.Client, mcpfs.EditTextFile,
				map[string]any{"path": "big.txt", "edits": tc.edits, "dryRun": true}))
			diff := out["diff"].(string)
			got, err := applyDiff(diff, before)
			if err != nil {
				t.Fatalf("applying the diff: %v\n%s", err, diff)
			}
			if sha(got) != out["sha256After"] {
				t.Errorf("the diff does not give the edited text:\n%s", diff)
			}
			if want := udiff.Unified(env.Path("big.txt"), env.Path("big.txt"), before, got); diff != want {
				t.Errorf("diff:\n%s\nwant (a diff of the whole text):\n%s", diff, want)
			}
		})
	}
}

// applyDiff applies a unified diff with context to before, checking the
// context and the deleted lines.
func applyDiff(diff, before string) (string, error) {
	lines := strings.SplitAfter(before, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	dl := strings.SplitAfter(diff, "\n")
	var out []string
	i := 0
	for k := 0; k < len(dl); k++ {
		l := dl[k]
		switch {
		case l == "", strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "+++ "):
			continue
		case strings.HasPrefix(l, "@@ -"):
			var from int
			if _, err := fmt.Sscanf(l, "@@ -%d", &from); err != nil {
				return "", fmt.Errorf("hunk header %q: %v", l, err)
			}
			for ; i < from-1; i++ {
				out = append(out, lines[i])
			}
			continue
		}
		op, content := l[0], l[1:]
		if k+1 < len(dl) && strings.HasPrefix(dl[k+1], `\ No newline`) {
			content = strings.TrimSuffix(content, "\n")
			k++
		}
		if op == ' ' || op == '-' {
			if i >= len(lines) || lines[i] != content {
				return "", fmt.Errorf("line %d is not %q", i+1, content)
			}
			i++
		}
		if op == ' ' || op == '+' {
			out = append(out, content)
		}
	}
	return strings.Join(append(out, lines[i:]...), ""), nil
}

// TestEditTextFileDiffRandom checks, on random texts and edits, that the
// diff applies to the text before and gives the text after.
func TestEditTextFileDiffRandom(t *testing.T) {
	env := memEnv(t, true)
	c := connectTools(t, env.Srv, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"a", "b", "ab", "ba", "", "a a"}
	pick := func() string { return words[rng.IntN(len(words))] }
	ran := 0
	for i := range 300 {
		var sb strings.Builder
		for range 1 + rng.IntN(40) {
			sb.WriteString(pick())
			sb.WriteString([]string{"\n", "\n", "\n", "\r\n"}[rng.IntN(4)])
		}
		before := sb.String()
		if rng.IntN(4) == 0 {
			before = strings.TrimSuffix(before, "\n")
		}
		old := []string{"a", "b", "ab", "\n", "a\n", "\nb", " "}[rng.IntN(7)]
		if !strings.Contains(strings.ReplaceAll(before, "\r\n", "\n"), old) {
			continue
		}
		repl := []string{"", "X", "\n", "X\nY", "a", "\n\n"}[rng.IntN(6)]
		env.put(t, env.Path("r.txt"), before)
		res := mcpfstest.Call(t, c.Client, mcpfs.EditTextFile, map[string]any{"path": "r.txt", "dryRun": true,
			"edits": []any{map[string]any{"oldText": old, "newText": repl, "replaceAll": true}}})
		if res.IsError {
			continue // e.g. the old text is only found with other line endings
		}
		out := c.structured(t, mcpfs.EditTextFile, res)
		diff := out["diff"].(string)
		got, err := applyDiff(diff, before)
		if err != nil || sha(got) != out["sha256After"] {
			t.Fatalf("case %d: %q, replace %q by %q: the diff does not apply (%v):\n%s", i, before, old, repl, err, diff)
		}
		ran++
	}
	if ran < 150 {
		t.Errorf("only %d of 300 cases ran", ran)
	}
}

func TestEditTextFileDiffTruncated(t *testing.T) {
	env := diskEnv(t, 4<<20)
	c := connectTools(t, env.Srv, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	before := strings.Repeat("abcdefghijklmnopqrstuvwxyz\n", 10000) // 270 KB
	env.put(t, env.Path("big.txt"), before)
	readFirst(t, c.Client, env.Path("big.txt"))
	res := mcpfstest.Call(t, c.Client, mcpfs.EditTextFile, map[string]any{"path": "big.txt",
		"edits": []any{map[string]any{"oldText": "m", "newText": "M", "replaceAll": true}}})
	out := c.structured(t, mcpfs.EditTextFile, res)
	diff := out["diff"].(string)
	if out["diffTruncated"] != true || len(diff) > 64<<10 || !strings.HasSuffix(diff, "\n") || out["replacements"] != 10000.0 {
		t.Errorf("diff of %d bytes, truncated %v, replacements %v", len(diff), out["diffTruncated"], out["replacements"])
	}
	if got, _ := env.get(env.Path("big.txt")); got != strings.ReplaceAll(before, "m", "M") {
		t.Error("the edit was not written whole")
	}
	if !strings.Contains(mcpfstest.Text(t, res), "cut short") {
		t.Errorf("text does not say the diff is cut short: %.200s", mcpfstest.Text(t, res))
	}
}

// TestLargeWriteAndEditHashes checks the hashes a write and an edit
// report for text large enough to be hashed while it is written, and an
// expectedHash checked on such a hash.
func TestLargeWriteAndEditHashes(t *testing.T) {
	env := diskEnv(t, 4<<20)
	c := connectTools(t, env.Srv, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	p := env.Path("big.txt")
	var lines []string
	for i := range 2000 {
		lines = append(lines, fmt.Sprintf("line %4d of a file large enough to be hashed in the background\n", i))
	}
	content := strings.Join(lines, "") // 134 KB
	out := c.structured(t, mcpfs.WriteTextFile, mcpfstest.Call(t, c.Client, mcpfs.WriteTextFile, map[string]any{"path": "big.txt", "content": content}))
	if out["sha256"] != sha(content) {
		t.Errorf("write: sha256 %v, want %s", out["sha256"], sha(content))
	}
	// Edits at the start, in the middle and at the end, each on the last
	// one's sha256After.
	before, hash := content, sha(content)
	for _, line := range []string{lines[0], lines[1000], lines[1999]} {
		at := strings.Index(before, line)
		after := before[:at] + "EDITED" + before[at:]
		oldText := line
		out := c.structured(t, mcpfs.EditTextFile, mcpfstest.Call(t, c.Client, mcpfs.EditTextFile, map[string]any{"path": "big.txt",
			"edits": []any{map[string]any{"oldText": oldText, "newText": "EDITED" + oldText}}, "expectedHash": hash}))
		if out["sha256Before"] != sha(before) || out["sha256After"] != sha(after) || out["written"] != true {
			t.Errorf("edit at %d: sha256Before %v, sha256After %v, written %v; want %s, %s, true",
				at, out["sha256Before"], out["sha256After"], out["written"], sha(before), sha(after))
		}
		if got, _ := env.get(p); got != after {
			t.Fatalf("edit at %d: the file is not the edited text", at)
		}
		before, hash = after, sha(after)
	}
	for _, oldText := range []string{"EDITED", "not in the file"} {
		mcpfstest.WantError(t, mcpfstest.Call(t, c.Client, mcpfs.EditTextFile, map[string]any{"path": "big.txt",
			"edits": []any{map[string]any{"oldText": oldText, "newText": "x", "replaceAll": true}}, "expectedHash": sha(content)}),
			"edit "+p, "changed since read", sha(content), sha(before), "nothing was written")
		if got, _ := env.get(p); got != before {
			t.Fatal("an edit on a stale expectedHash changed the file")
		}
	}
}

// TestEditTextFileConcurrent runs edits and writes in parallel on one file:
// none is lost, and of several writes on one expectedHash only one wins.
func TestEditTextFileConcurrent(t *testing.T) {
	for _, env := range editEnvs(t) {
		t.Run(env.Name, func(t *testing.T) {
			c := connectTools(t, env.Srv, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
			p := env.Path("f.txt")
			env.put(t, p, "END\n")
			readFirst(t, c.Client, p) // each edit then goes on the text the last one wrote
			const n = 16
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					line := fmt.Sprintf("line %02d\n", i)
					var req mcp.CallToolRequest
					req.Params.Name = mcpfs.EditTextFile
					req.Params.Arguments = map[string]any{"path": "f.txt", "edits": edits("END\n", line+"END\n")}
					res, err := c.CallTool(t.Context(), req)
					if err != nil || res.IsError {
						t.Errorf("edit %d: %v %+v", i, err, res)
					}
				})
			}
			wg.Wait()
			got, _ := env.get(p)
			for i := range n {
				if !strings.Contains(got, fmt.Sprintf("line %02d\n", i)) {
					t.Errorf("edit %d was lost: %q", i, got)
				}
			}

			h := sha(got)
			var wins atomic.Int32
			for i := range n {
				wg.Go(func() {
					var req mcp.CallToolRequest
					req.Params.Name = mcpfs.WriteTextFile
					req.Params.Arguments = map[string]any{"path": "f.txt", "content": fmt.Sprintf("writer %d\n", i), "expectedHash": h}
					res, err := c.CallTool(t.Context(), req)
					switch {
					case err != nil:
						t.Error(err)
					case !res.IsError:
						wins.Add(1)
					case !strings.Contains(res.Content[0].(mcp.TextContent).Text, "changed since read"):
						t.Errorf("writer %d: %v", i, res.Content)
					}
				})
			}
			wg.Wait()
			if wins.Load() != 1 {
				t.Errorf("%d writes on one expectedHash went through, want 1", wins.Load())
			}
		})
	}
}

// TestEditTextFileEditorBuffer edits through a session whose editor holds
// an unsaved buffer that differs from the disk: the edit reads and writes
// the buffer, and the disk is left alone.
func TestEditTextFileEditorBuffer(t *testing.T) {
	for _, era := range mcpfstest.Eras {
		t.Run(era.Name, func(t *testing.T) {
			ed := &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS()}
			b := sessiontest.NewBridge(t, ed)
			dir := sessiontest.Workspace(t, ed, "E") // disk "// E on disk\n", buffer "// E unsaved\n"
			s := sessiontest.OpenSession(t, b, dir, "sess-E")
			c := connectTools(t, s.MCPServer(), era.Version)
			p := filepath.Join(dir, "main.go")

			read := c.structured(t, mcpfs.ReadTextFile, mcpfstest.Call(t, c.Client, mcpfs.ReadTextFile, map[string]any{"path": "main.go"}))
			if read["content"] != "// E unsaved\n" || read["sha256"] != sha("// E unsaved\n") {
				t.Fatalf("read %v, want the buffer and its hash", read)
			}
			// A range is hashed through the route too: the buffer's hash.
			ranged := c.structured(t, mcpfs.ReadTextFile, mcpfstest.Call(t, c.Client, mcpfs.ReadTextFile, map[string]any{"path": "main.go", "line": 1, "limit": 1}))
			if ranged["sha256"] != read["sha256"] {
				t.Fatalf("ranged read %v, want the buffer's hash", ranged)
			}
			// Text only on disk is not there to edit.
			mcpfstest.WantError(t, mcpfstest.Call(t, c.Client, mcpfs.EditTextFile, map[string]any{"path": "main.go", "edits": edits("on disk", "x")}),
				"edit "+p, "not found")

			res := mcpfstest.Call(t, c.Client, mcpfs.EditTextFile, map[string]any{"path": "main.go",
				"edits": edits("unsaved", "edited\n// more"), "expectedHash": read["sha256"]})
			out := c.structured(t, mcpfs.EditTextFile, res)
			if got, _ := ed.Buffers.Get(p); got != "// E edited\n// more\n" {
				t.Errorf("buffer after the edit: %q", got)
			}
			if disk, _ := os.ReadFile(p); string(disk) != "// E on disk\n" {
				t.Errorf("the disk changed: %q", disk)
			}
			if out["sha256Before"] != sha("// E unsaved\n") || out["sha256After"] != sha("// E edited\n// more\n") {
				t.Errorf("hashes %v", out)
			}
			var writes int
			for _, r := range ed.Requests() {
				if r.Method == fsruntime.MethodWriteTextFile {
					writes++
					if r.Params["path"] != p || r.Params["content"] != "// E edited\n// more\n" || r.Params["sessionId"] != "sess-E" {
						t.Errorf("write request %v", r.Params)
					}
				}
			}
			if writes != 1 {
				t.Errorf("%d writes sent to the editor, want 1", writes)
			}

			// A write on the now stale hash of the read is refused, and the
			// buffer kept.
			mcpfstest.WantError(t, mcpfstest.Call(t, c.Client, mcpfs.WriteTextFile, map[string]any{"path": "main.go", "content": "x", "expectedHash": read["sha256"]}),
				"changed since read")
			if got, _ := ed.Buffers.Get(p); got != "// E edited\n// more\n" {
				t.Errorf("buffer after a refused write: %q", got)
			}
		})
	}
}

// Media samples.
func pngBytes(t *testing.T) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.RGBA{R: 255, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func wavBytes() []byte {
	samples := make([]byte, 32)
	var buf bytes.Buffer
	buf.WriteString("RIFF")
	binary.Write(&buf, binary.LittleEndian, uint32(36+len(samples)))
	buf.WriteString("WAVEfmt ")
	binary.Write(&buf, binary.LittleEndian, struct {
		Size               uint32
		Format, Channels   uint16
		Rate, ByteRate     uint32
		Align, BitsPerSamp uint16
	}{16, 1, 1, 8000, 8000, 1, 8})
	buf.WriteString("data")
	binary.Write(&buf, binary.LittleEndian, uint32(len(samples)))
	buf.Write(samples)
	return buf.Bytes()
}

func mp3Bytes() []byte {
	// An ID3v2.3 tag of 10 bytes of padding, then an MPEG-1 layer III
	// frame header.
	b := append([]byte("ID3\x03\x00\x00\x00\x00\x00\x0a"), make([]byte, 10)...)
	return append(b, 0xFF, 0xFB, 0x90, 0x64, 0, 0, 0, 0)
}

func TestReadMediaFile(t *testing.T) {
	pngData := pngBytes(t)
	for _, era := range mcpfstest.Eras {
		for _, env := range editEnvs(t) {
			t.Run(era.Name+"/"+env.Name, func(t *testing.T) {
				c := connectTools(t, env.Srv, era.Version)
				files := map[string][]byte{
					"pic.dat":   pngData, // the name does not matter
					"sound.wav": wavBytes(),
					"song.mp3":  mp3Bytes(),
					"doc.pdf":   []byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n"),
					"blob.bin":  {0, 1, 2, 3, 0xff, 0xfe},
					"text.txt":  []byte("hello\n"),
					"big.bin":   bytes.Repeat([]byte{0}, mcpfstest.TestMaxFileSize+1),
					"d/x.txt":   []byte("x"),
				}
				for rel, data := range files {
					env.put(t, env.Path(rel), string(data))
				}
				if !env.bin {
					mcpfstest.WantError(t, mcpfstest.Call(t, c.Client, mcpfs.ReadMediaFile, map[string]any{"path": "pic.dat"}),
						"read media "+env.Path("pic.dat"), "not supported")
					return
				}
				for _, tc := range []struct {
					rel, mime, kind string
				}{
					{"pic.dat", "image/png", "image"},
					{"sound.wav", "audio/wav", "audio"},
					{"song.mp3", "audio/mpeg", "audio"},
					{"doc.pdf", "application/pdf", "resource"},
					{"blob.bin", "application/octet-stream", "resource"},
					{"text.txt", "text/plain; charset=utf-8", "resource"},
				} {
					p := env.Path(tc.rel)
					res := mcpfstest.Call(t, c.Client, mcpfs.ReadMediaFile, map[string]any{"path": tc.rel})
					out := c.structured(t, mcpfs.ReadMediaFile, res)
					if out["path"] != p || out["mimeType"] != tc.mime || out["size"] != float64(len(files[tc.rel])) {
						t.Errorf("%s: output %v, want %s", tc.rel, out, tc.mime)
					}
					if len(res.Content) != 2 {
						t.Fatalf("%s: %d contents, want a text and the media", tc.rel, len(res.Content))
					}
					if tc, ok := mcp.AsTextContent(res.Content[0]); !ok || !strings.Contains(tc.Text, p) {
						t.Errorf("first content %+v, want a text naming the file", res.Content[0])
					}
					var data, mime string
					switch m := res.Content[1].(type) {
					case mcp.ImageContent:
						if tc.kind != "image" {
							t.Errorf("%s: image content, want %s", tc.rel, tc.kind)
						}
						data, mime = m.Data, m.MIMEType
					case mcp.AudioContent:
						if tc.kind != "audio" {
							t.Errorf("%s: audio content, want %s", tc.rel, tc.kind)
						}
						data, mime = m.Data, m.MIMEType
					case mcp.EmbeddedResource:
						if tc.kind != "resource" {
							t.Errorf("%s: resource content, want %s", tc.rel, tc.kind)
						}
						var blob mcp.BlobResourceContents
						switch r := m.Resource.(type) {
						case mcp.BlobResourceContents:
							blob = r
						case *mcp.BlobResourceContents:
							blob = *r
						default:
							t.Fatalf("%s: resource %T, want a blob", tc.rel, m.Resource)
						}
						if got, err := fspath.Abs("", blob.URI); err != nil || got != p {
							t.Errorf("%s: URI %s names %q, %v; want %q", tc.rel, blob.URI, got, err, p)
						}
						data, mime = blob.Blob, blob.MIMEType
					default:
						t.Fatalf("%s: content %T", tc.rel, res.Content[1])
					}
					if mime != tc.mime {
						t.Errorf("%s: content MIME type %s, want %s", tc.rel, mime, tc.mime)
					}
					if raw, err := base64.StdEncoding.DecodeString(data); err != nil || !bytes.Equal(raw, files[tc.rel]) {
						t.Errorf("%s: data does not decode to the file (%v)", tc.rel, err)
					}
				}

				for _, tc := range []struct {
					rel  string
					want []string
				}{
					{"big.bin", []string{"too large", "1.0 KiB"}},
					{"missing.png", []string{"file does not exist"}},
					{"d", []string{"not a regular file"}},
				} {
					msg := mcpfstest.WantError(t, mcpfstest.Call(t, c.Client, mcpfs.ReadMediaFile, map[string]any{"path": tc.rel}),
						append([]string{"read media " + env.Path(tc.rel)}, tc.want...)...)
					if strings.Contains(msg, "line and limit") {
						t.Errorf("%s: %q advises a line range", tc.rel, msg)
					}
				}
				mcpfstest.WantError(t, mcpfstest.Call(t, c.Client, mcpfs.ReadMediaFile, map[string]any{"path": "../outside.png"}),
					"outside the allowed roots")
			})
		}
	}
}

func TestEditToolsListed(t *testing.T) {
	for _, readOnly := range []bool{false, true} {
		f := mcpfstest.NewFixture(t, readOnly)
		tools := mcpfstest.Tools(t, mcpfstest.Connect(t, f.Srv, mcp.LATEST_PROTOCOL_VERSION))
		if _, ok := tools[mcpfs.EditTextFile]; ok == readOnly {
			t.Errorf("read-only %v: edit_text_file listed %v", readOnly, ok)
		}
		if _, ok := tools[mcpfs.ReadMediaFile]; !ok {
			t.Errorf("read-only %v: read_media_file not listed", readOnly)
		}
		type hints struct{ readOnly, destructive, idempotent, openWorld bool }
		for name, want := range map[string]hints{
			mcpfs.ReadTextFile:  {true, false, true, false},
			mcpfs.WriteTextFile: {false, true, true, false},
			mcpfs.EditTextFile:  {false, true, false, false},
			mcpfs.ReadMediaFile: {true, false, true, false},
		} {
			tool, ok := tools[name]
			if !ok {
				continue
			}
			a := tool.Annotations
			if tool.Title == "" || a.Title == "" || tool.Description == "" {
				t.Errorf("%s: no title or description", name)
			}
			if a.ReadOnlyHint == nil || a.DestructiveHint == nil || a.IdempotentHint == nil || a.OpenWorldHint == nil {
				t.Fatalf("%s: annotations not all set: %+v", name, a)
			}
			if got := (hints{*a.ReadOnlyHint, *a.DestructiveHint, *a.IdempotentHint, *a.OpenWorldHint}); got != want {
				t.Errorf("%s: hints %+v, want %+v", name, got, want)
			}
			raw, _ := json.Marshal(tool)
			var schema struct {
				Input struct {
					AdditionalProperties *bool                     `json:"additionalProperties"`
					Properties           map[string]map[string]any `json:"properties"`
				} `json:"inputSchema"`
				Output *struct {
					Type     string   `json:"type"`
					Required []string `json:"required"`
				} `json:"outputSchema"`
			}
			if err := json.Unmarshal(raw, &schema); err != nil {
				t.Fatal(err)
			}
			if schema.Input.AdditionalProperties == nil || *schema.Input.AdditionalProperties {
				t.Errorf("%s: input schema allows additional properties", name)
			}
			if schema.Output == nil || schema.Output.Type != "object" || len(schema.Output.Required) == 0 {
				t.Errorf("%s: output schema %+v", name, schema.Output)
			}
			if name == mcpfs.EditTextFile {
				items, _ := schema.Input.Properties["edits"]["items"].(map[string]any)
				if items["additionalProperties"] != false || len(items["required"].([]any)) != 2 {
					t.Errorf("edits items schema %v", items)
				}
			}
		}
	}
}

// TestEditTextFileBadArguments checks that malformed edits come back as
// tool errors, not protocol errors.
func TestEditTextFileBadArguments(t *testing.T) {
	f := mcpfstest.NewFixture(t, false)
	f.WriteFile(t, "a.txt", "hello\n")
	c := mcpfstest.Connect(t, f.Srv, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	for _, args := range []map[string]any{
		{"path": "a.txt"},
		{"path": "a.txt", "edits": "x"},
		{"path": "a.txt", "edits": []any{}},
		{"path": "a.txt", "edits": []any{map[string]any{"oldText": "hello"}}},
		{"path": "a.txt", "edits": []any{map[string]any{"oldText": "hello", "newText": "b", "bogus": 1}}},
		{"path": "a.txt", "edits": []any{map[string]any{"oldText": "hello", "newText": 3}}},
		{"path": "a.txt", "edits": edits("hello", "b"), "dryRun": "yes"},
	} {
		t.Log(mcpfstest.WantError(t, mcpfstest.Call(t, c, mcpfs.EditTextFile, args)))
	}
	if b, _ := os.ReadFile(f.Path("a.txt")); string(b) != "hello\n" {
		t.Errorf("a.txt changed to %q", b)
	}
}

// BenchmarkEditTextFile1MiB edits one line in the middle of a 1 MiB file
// on disk through the tool, in process: the read, the edits, the diff, the
// atomic write and the MCP round trip. dryRun leaves out the write.
func BenchmarkEditTextFile1MiB(b *testing.B) {
	for _, dryRun := range []bool{false, true} {
		name := "write"
		if dryRun {
			name = "dryRun"
		}
		b.Run(name, func(b *testing.B) {
			env := diskEnv(b, 4<<20)
			c, err := client.NewInProcessClient(env.Srv)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { c.Close() })
			if err := c.Start(b.Context()); err != nil {
				b.Fatal(err)
			}
			var init mcp.InitializeRequest
			init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
			if _, err := c.Initialize(b.Context(), init); err != nil {
				b.Fatal(err)
			}
			var sb strings.Builder
			for i := 0; sb.Len() < 1<<20; i++ {
				fmt.Fprintf(&sb, "%07d the quick brown fox jumps over the lazy dog, again and again\n", i)
			}
			content := sb.String()
			p := env.Path("big.txt")
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				b.Fatal(err)
			}
			mid := fmt.Sprintf("%07d the quick", len(content)/2/72)
			edit := func(from, to string) {
				var req mcp.CallToolRequest
				req.Params.Name = mcpfs.EditTextFile
				req.Params.Arguments = map[string]any{"path": "big.txt", "edits": edits(from, to), "dryRun": dryRun}
				res, err := c.CallTool(b.Context(), req)
				if err != nil || res.IsError {
					b.Fatalf("edit: %v %+v", err, res)
				}
			}
			b.SetBytes(int64(len(content)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if i%2 == 0 || dryRun {
					edit(mid, mid+" EDITED")
				} else {
					edit(mid+" EDITED", mid)
				}
			}
		})
	}
}
