package mcpfs_test

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpfstest"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

// modelServer returns a client, named clientName at initialize, of a
// server with tool options o over a fresh directory, and the directory.
func modelServer(t *testing.T, o mcpfs.ToolOptions, clientName string, max int64) (*client.Client, *mcpfstest.Fixture) {
	t.Helper()
	f := mcpfstest.NewFixtureMax(t, max)
	srv, err := mcpfs.NewServer(f.Files, mcpfs.Options{Tools: o, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.NewInProcessClient(srv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	var req mcp.InitializeRequest
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: clientName, Version: "1"}
	if _, err := c.Initialize(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	return c, f
}

// texts returns the text blocks of a result.
func texts(t *testing.T, res *mcp.CallToolResult) []string {
	t.Helper()
	var out []string
	for _, c := range res.Content {
		tc, ok := mcp.AsTextContent(c)
		if !ok {
			t.Fatalf("content %T, want text", c)
		}
		out = append(out, tc.Text)
	}
	return out
}

// numberedLines returns n lines of width bytes each (newline included).
func numberedLines(n, width int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		s := fmt.Sprintf("line %d ", i)
		b.WriteString(s + strings.Repeat("x", width-len(s)-1) + "\n")
	}
	return b.String()
}

// TestModelViewIsTextOnly checks what a model is given by default: no
// output schemas and no structured content, which claude and codex would
// show instead of the text, and which Copilot and Qwen would show besides.
func TestModelViewIsTextOnly(t *testing.T) {
	c, f := modelServer(t, mcpfs.ToolOptions{}, "some-client", mcpfstest.TestMaxFileSize)
	f.WriteFile(t, "a.txt", "alpha\n\tbeta = 1\n")
	f.WriteFile(t, "img.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde")
	for name, tool := range mcpfstest.Tools(t, c) {
		if tool.OutputSchema.Type != "" || tool.RawOutputSchema != nil {
			t.Errorf("%s declares an output schema", name)
		}
	}
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{mcpfs.ReadTextFile, map[string]any{"path": "a.txt"}},
		{mcpfs.ListDirectory, map[string]any{"path": "."}},
		{mcpfs.Grep, map[string]any{"pattern": "beta"}},
		{mcpfs.EditTextFile, map[string]any{"path": "a.txt", "edits": []any{map[string]any{"oldText": "beta", "newText": "gamma"}}}},
		{mcpfs.ReadMediaFile, map[string]any{"path": "img.png"}},
	} {
		res := mcpfstest.Call(t, c, call.tool, call.args)
		if res.IsError || res.StructuredContent != nil {
			t.Errorf("%s: error %v, structured content %v; want a result of content only", call.tool, res.IsError, res.StructuredContent)
		}
		if call.tool == mcpfs.ReadTextFile {
			if got := texts(t, res); len(got) != 1 || got[0] != "alpha\n\tbeta = 1\n" {
				t.Errorf("read: %q, want the file's text once, as it is", got)
			}
		}
		if call.tool == mcpfs.ReadMediaFile {
			if len(res.Content) != 2 {
				t.Fatalf("media: %d contents, want a line and the image", len(res.Content))
			}
			if img, ok := mcp.AsImageContent(res.Content[1]); !ok || img.MIMEType != "image/png" {
				t.Errorf("media: %+v, want an image block", res.Content[1])
			}
		}
	}
}

// TestReadPages checks a read without a limit: a page sized for the host,
// that says where it stands and how to go on, and the read that goes on.
func TestReadPages(t *testing.T) {
	text := numberedLines(3000, 40) // 120,000 bytes
	for _, tc := range []struct {
		client  string
		opts    mcpfs.ToolOptions
		lines   int
		numbers bool
	}{
		{"some-client", mcpfs.ToolOptions{}, mcpfs.DefaultPageSize / 40, false},
		{"github-copilot", mcpfs.ToolOptions{}, mcpfs.DefaultPageSize / 40, false},
		{"claude-code", mcpfs.ToolOptions{}, (32 << 10) / (40 + 9), true},
		{"claude-code", mcpfs.ToolOptions{LineNumbers: mcpfs.ToggleOff}, (32 << 10) / 40, false},
		{"gemini-cli-mcp-client", mcpfs.ToolOptions{}, (48 << 10) / 40, false},
		{"some-client", mcpfs.ToolOptions{PageSize: 4000}, 100, false},
		{"some-client", mcpfs.ToolOptions{PageSize: 1 << 20}, 2000, false}, // the line bound
		{"some-client", mcpfs.ToolOptions{PageSize: -1}, 3000, false},
	} {
		t.Run(fmt.Sprintf("%s/%d/%s", tc.client, tc.opts.PageSize, tc.opts.LineNumbers), func(t *testing.T) {
			c, f := modelServer(t, tc.opts, tc.client, 1<<20)
			f.WriteFile(t, "big.txt", text)
			res := mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": "big.txt"})
			got := texts(t, res)
			want := text[:tc.lines*40]
			if tc.numbers {
				want = ""
				for i, line := range strings.SplitAfter(text, "\n")[:tc.lines] {
					want += fmt.Sprintf("%6d→%s", i+1, line)
				}
			}
			if got[0] != want {
				t.Errorf("page: %d bytes starting %.60q, want %d lines (%d bytes)", len(got[0]), got[0], tc.lines, len(want))
			}
			if tc.lines == 3000 {
				if len(got) != 1 {
					t.Errorf("a whole read says %q, want nothing", got[1:])
				}
				return
			}
			status := fmt.Sprintf("[lines 1–%d of 3000; continue with line=%d]", tc.lines, tc.lines+1)
			if len(got) != 2 || got[1] != status {
				t.Fatalf("status %q, want %q", got[1:], status)
			}
			// Going on from where it says reads the next page.
			res = mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": "big.txt", "line": tc.lines + 1, "lineNumbers": false})
			got = texts(t, res)
			if !strings.HasPrefix(got[0], fmt.Sprintf("line %d ", tc.lines+1)) || !strings.HasPrefix(got[len(got)-1], fmt.Sprintf("[lines %d–", tc.lines+1)) {
				t.Errorf("the next page: %.40q … %q", got[0], got[len(got)-1])
			}
		})
	}
}

// TestReadExplicitLimit checks that a limit is honoured past the page.
func TestReadExplicitLimit(t *testing.T) {
	c, f := modelServer(t, mcpfs.ToolOptions{}, "some-client", 1<<20)
	text := numberedLines(1000, 40)
	f.WriteFile(t, "big.txt", text)
	got := texts(t, mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": "big.txt", "line": 2, "limit": 900}))
	if got[0] != strings.Join(strings.SplitAfter(text, "\n")[1:901], "") {
		t.Errorf("a limit of 900 lines gave %d bytes", len(got[0]))
	}
	if len(got) != 2 || got[1] != "[lines 2–901 of 1000; continue with line=902]" {
		t.Errorf("status %q", got[1:])
	}
	got = texts(t, mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": "big.txt", "line": 990, "limit": 100}))
	if len(got) != 2 || got[1] != "[lines 990–1000 of 1000]" {
		t.Errorf("the end: status %q, want where it stands and no way on", got[1:])
	}
}

// TestReadCutsLongLines checks that a page cuts a line over the bound, and
// says which and how to read it whole.
func TestReadCutsLongLines(t *testing.T) {
	c, f := modelServer(t, mcpfs.ToolOptions{}, "some-client", 1<<20)
	long := strings.Repeat("é", 3000) // 6,000 bytes
	f.WriteFile(t, "min.js", "short\n"+long+"\nend\n")
	got := texts(t, mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": "min.js"}))
	lines := strings.Split(got[0], "\n")
	if len(lines) != 4 || lines[0] != "short" || lines[2] != "end" {
		t.Fatalf("page %q", got[0])
	}
	if !strings.HasPrefix(lines[1], strings.Repeat("é", 1000)+"… [4000 more bytes]") {
		t.Errorf("cut line %.80q…, want 2,000 bytes and a marker", lines[1])
	}
	if len(got) != 2 || got[1] != "[line 2 is cut short (…); read one whole with line=2 limit=1]" {
		t.Errorf("status %q", got[1:])
	}
	got = texts(t, mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": "min.js", "line": 2, "limit": 1}))
	if got[0] != long+"\n" {
		t.Errorf("the line read alone is %d bytes, want it whole", len(got[0]))
	}
}

// TestReadOverTheSizeLimit checks a read without a limit of a file too
// large to read whole: a page of it, with the way on.
func TestReadOverTheSizeLimit(t *testing.T) {
	c, f := modelServer(t, mcpfs.ToolOptions{}, "some-client", 4<<10)
	f.WriteFile(t, "big.txt", numberedLines(500, 40)) // 20,000 bytes
	got := texts(t, mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": "big.txt"}))
	if !strings.HasPrefix(got[0], "line 1 ") || len(got) != 2 || !strings.HasPrefix(got[1], "[lines 1–") || !strings.Contains(got[1], "; continue with line=") {
		t.Errorf("got %d bytes and %q, want a page and the way on", len(got[0]), got[1:])
	}
	// A range that ends with the file has no way on, though its total is
	// not known.
	got = texts(t, mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": "big.txt", "line": 451, "limit": 50}))
	if !strings.HasPrefix(got[0], "line 451 ") || len(got) != 2 || got[1] != "[lines 451–500]" {
		t.Errorf("the last 50 lines: %.20q… and %q, want them and no way on", got[0], got[1:])
	}
	got = texts(t, mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": "big.txt", "line": 481}))
	if !strings.HasPrefix(got[0], "line 481 ") || strings.Count(got[0], "\n") != 20 || len(got) != 2 || got[1] != "[lines 481–500]" {
		t.Errorf("a page from line 481: %d lines and %q, want the 20 to the end and no way on", strings.Count(got[0], "\n"), got[1:])
	}
	got = texts(t, mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": "big.txt", "line": 401, "limit": 50}))
	if len(got) != 2 || got[1] != "[lines 401–450; continue with line=451]" {
		t.Errorf("50 lines in the middle: %q, want the way on", got[1:])
	}
}

// TestReadLineNumbers checks numbered reads, and that an edit takes text
// copied from one, numbers and all.
func TestReadLineNumbers(t *testing.T) {
	c, f := modelServer(t, mcpfs.ToolOptions{}, "some-client", mcpfstest.TestMaxFileSize)
	f.WriteFile(t, "a.go", "package a\n\nfunc A() {}\r\n")
	got := texts(t, mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": "a.go", "lineNumbers": true}))
	if want := "     1→package a\n     2→\n     3→func A() {}\r\n"; got[0] != want {
		t.Errorf("numbered: %q, want %q", got[0], want)
	}
	got = texts(t, mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": "a.go", "line": 3, "lineNumbers": true}))
	if got[0] != "     3→func A() {}\r\n" {
		t.Errorf("numbered from line 3: %q", got[0])
	}
	mcpfstest.WantOK(t, mcpfstest.Call(t, c, mcpfs.EditTextFile, map[string]any{"path": "a.go", "edits": []any{
		map[string]any{"oldText": "     1→package a\n     2→\n", "newText": "     1→package b\n     2→\n"},
	}}))
	f.MustExist(t, "a.go", "package b\n\nfunc A() {}\r\n")
}

// TestReadEmptyFile checks that an empty file says so.
func TestReadEmptyFile(t *testing.T) {
	c, f := modelServer(t, mcpfs.ToolOptions{}, "some-client", mcpfstest.TestMaxFileSize)
	f.WriteFile(t, "empty.txt", "")
	if got := texts(t, mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": "empty.txt"})); len(got) != 2 || got[0] != "" || got[1] != "[empty file]" {
		t.Errorf("empty file: %q", got)
	}
}

// TestToolOptionsOnly checks that Only leaves the other tools out, of the
// list and of the instructions, and that a name that is no tool fails; and
// that the instructions speak of the read guard only while it is on.
func TestToolOptionsOnly(t *testing.T) {
	only := []string{mcpfs.ReadTextFile, mcpfs.EditTextFile}
	c, _ := modelServer(t, mcpfs.ToolOptions{Only: only}, "some-client", mcpfstest.TestMaxFileSize)
	tools := mcpfstest.Tools(t, c)
	if len(tools) != 2 || tools[mcpfs.ReadTextFile].Name == "" || tools[mcpfs.EditTextFile].Name == "" {
		t.Errorf("tools %v, want %v", tools, only)
	}
	for _, tc := range []struct {
		opts        mcpfs.ToolOptions
		want, never []string
	}{
		{mcpfs.ToolOptions{Only: only}, []string{"read_text_file", "edit_text_file", "Both refuse"}, []string{"glob", "move_file"}},
		{mcpfs.ToolOptions{NoReadGuard: true}, []string{"glob", "move_file"}, []string{"Both refuse"}},
	} {
		f := mcpfstest.NewFixture(t, false)
		srv, err := mcpfs.NewServer(f.Files, mcpfs.Options{Tools: tc.opts})
		if err != nil {
			t.Fatal(err)
		}
		c, err := client.NewInProcessClient(srv)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := c.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		var req mcp.InitializeRequest
		req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
		res, err := c.Initialize(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(res.Instructions, w) {
				t.Errorf("%+v: the instructions do not say %q:\n%s", tc.opts, w, res.Instructions)
			}
		}
		for _, w := range tc.never {
			if strings.Contains(res.Instructions, w) {
				t.Errorf("%+v: the instructions say %q:\n%s", tc.opts, w, res.Instructions)
			}
		}
	}
	f := mcpfstest.NewFixture(t, false)
	if _, err := mcpfs.NewServer(f.Files, mcpfs.Options{Tools: mcpfs.ToolOptions{Only: []string{"read_txt"}}}); err == nil || !strings.Contains(err.Error(), `"read_txt" is not a tool`) {
		t.Errorf("Only with a name that is no tool: %v", err)
	}
}

// TestSearchTextPaths checks that glob and grep show paths as the tools
// take them: relative to the working directory, which the header names
// when the search looked elsewhere, and listings as ls -F does.
func TestSearchTextPaths(t *testing.T) {
	c, f := modelServer(t, mcpfs.ToolOptions{}, "some-client", mcpfstest.TestMaxFileSize)
	f.WriteFile(t, "src/a.go", "package a\n")
	f.WriteFile(t, "top.go", "package top\n")
	got := texts(t, mcpfstest.Call(t, c, mcpfs.Grep, map[string]any{"pattern": "package"}))
	if want := "\n" + filepath.FromSlash("src/a.go") + ":1:package a\ntop.go:1:package top"; !strings.HasSuffix(got[0], want) || strings.Contains(got[0], "relative") {
		t.Errorf("grep: %q, want it to end %q", got[0], want)
	}
	got = texts(t, mcpfstest.Call(t, c, mcpfs.Glob, map[string]any{"pattern": "*.go", "path": "src"}))
	if want := f.Path("src") + " (paths relative to " + f.Dir + "):\n" + filepath.FromSlash("src/a.go"); !strings.HasSuffix(got[0], want) {
		t.Errorf("glob in src: %q, want it to end %q", got[0], want)
	}
	got = texts(t, mcpfstest.Call(t, c, mcpfs.ListDirectory, map[string]any{"path": "."}))
	if want := "\nsrc/\ntop.go"; !strings.HasSuffix(got[0], want) {
		t.Errorf("list: %q, want it to end %q", got[0], want)
	}
}
