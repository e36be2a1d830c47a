package mcpfs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/internal/lift"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcptest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
)

// A listing's kept render answers as a fresh encoding does, and is
// rendered again whenever the entries change: a file added, one removed,
// one that becomes a directory, a listing that becomes truncated.
func TestRenderedListing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Names that need escaping, in the text and in the structured
	// content; one is not UTF-8.
	escaped := []string{`quote "q".txt`, "back\\slash", "<html>&amp", "tab\tname", "ünïcödé", "bad-\xff-utf8"}
	if runtime.GOOS == "windows" {
		// Windows forbids ", <, > and control characters in names, and
		// \ separates them; a name that is not UTF-8 becomes one with
		// U+FFFD. These need escaping all the same (U+2028 and U+2029
		// in JSON, & as HTML).
		escaped = []string{"line\u2028sep", "para\u2029sep", "&amp;", "ünïcödé", "bad-\xff-utf8", "it's"}
	}
	files := map[string]string{
		"big.txt": strings.Repeat("a line of text, long enough to be lifted past mcp-go\n", 2000),
	}
	for _, name := range escaped {
		files["many/"+name] = ""
	}
	for i := range 100 {
		files[fmt.Sprintf("many/file-%03d.txt", i)] = "x"
	}
	srv, b := diskServer(t, dir, false, files)
	many := filepath.Join(dir, "many")
	if err := os.Mkdir(filepath.Join(many, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	entries := 100 + len(escaped) + 1 // and sub
	// A symlink, where a working one can be made.
	if err := ostest.SymlinkErr(dir); err != nil {
		t.Run("symlink", func(t *testing.T) { ostest.SkipWithoutSymlinks(t, err) })
	} else {
		if err := os.Symlink("file-000.txt", filepath.Join(many, "link")); err != nil {
			t.Fatal(err)
		}
		entries++
	}
	ctx := t.Context()

	call := func(tool, path string) string {
		line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "call-1", "method": "tools/call",
			"params": map[string]any{"name": tool, "arguments": map[string]any{"path": path}}})
		if err != nil {
			t.Fatal(err)
		}
		return string(line)
	}
	list := call(ListDirectory, many)
	// check lists many twice through the transport's path, and compares
	// each answer with mcp-go's encoding of a render made afresh, which no
	// transport splices into. It returns the render kept.
	check := func(step string, wantEntries int) *listRender {
		t.Helper()
		wantLine, err := json.Marshal(srv.HandleMessage(ctx, []byte(list))) // no lift table: nothing is kept or spliced
		if err != nil {
			t.Fatal(err)
		}
		var kept *listRender
		for range 2 {
			mcptest.WantSameJSON(t, step, handleLifted(t, srv, ctx, list), wantLine)
			// Reads in between take and give back the buffers lifted
			// results are quoted into; a kept render is never one of them.
			handleLifted(t, srv, ctx, call(ReadTextFile, filepath.Join(dir, "big.txt")))
			r := b.renders.get(many)
			if r == nil {
				t.Fatalf("%s: no render kept", step)
			}
			if kept != nil && r != kept {
				t.Errorf("%s: rendered again for the same entries", step)
			}
			kept = r
		}
		var res struct {
			Result struct {
				Structured listOutput `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal(wantLine, &res); err != nil {
			t.Fatal(err)
		}
		if n := len(res.Result.Structured.Entries); n != wantEntries {
			t.Errorf("%s: %d entries listed, want %d", step, n, wantEntries)
		}
		return kept
	}

	first := check("first listing", entries)
	if err := os.WriteFile(filepath.Join(many, "added.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	added := check("a file added", entries+1)
	if added == first {
		t.Error("a file added: the old render was reused")
	}
	if err := os.Remove(filepath.Join(many, "file-050.txt")); err != nil {
		t.Fatal(err)
	}
	check("a file removed", entries)
	if err := os.Remove(filepath.Join(many, "file-051.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(many, "file-051.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := check("a file replaced by a directory", entries)
	if !strings.Contains(string(r.structured), `{"name":"file-051.txt","type":"directory"}`) {
		t.Errorf("a file replaced by a directory: %.200s", r.structured)
	}
	for i := range MaxListEntries {
		if err := os.WriteFile(filepath.Join(many, fmt.Sprintf("more-%04d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r = check("truncated", MaxListEntries)
	if !r.truncated || !strings.HasSuffix(string(r.structured), `"truncated":true}`) {
		t.Errorf("truncated: %.100s", r.structured[len(r.structured)-100:])
	}

	// A small listing is rendered each time, and not kept.
	small := filepath.Join(dir, "small")
	if err := os.Mkdir(small, 0o755); err != nil {
		t.Fatal(err)
	}
	handleLifted(t, srv, ctx, call(ListDirectory, small))
	if b.renders.get(small) != nil {
		t.Error("an empty listing was kept")
	}
}

// handleLifted answers the tools/call request line through srv's
// HandleMessage as a stream transport does: large strings lifted out, and
// spliced into the encoded response.
func handleLifted(t *testing.T, srv *server.MCPServer, ctx context.Context, line string) []byte {
	t.Helper()
	lt := lift.NewTable("mcp-acpfs-lifted-0123-")
	raw, err := lt.LiftArguments([]byte(line), nil, liftedArguments)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := json.Marshal(srv.HandleMessage(lift.WithTable(ctx, lt), raw))
	if err != nil {
		t.Fatal(err)
	}
	pieces, err := lt.SpliceResults(resp)
	if err != nil {
		t.Fatal(err)
	}
	defer lt.Release()
	return bytes.Join(pieces, nil)
}

// diskServer writes files (by slash-separated path) under dir and returns a
// server on a Disk rooted at dir, and its binding.
func diskServer(tb testing.TB, dir string, readOnly bool, files map[string]string) (*server.MCPServer, *binding) {
	tb.Helper()
	ostest.WriteFiles(tb, dir, files)
	d, err := fsruntime.OpenDisk([]string{dir}, fsruntime.DiskOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { d.Close() })
	srv, b, err := newServer(DiskFiles(d, readOnly), Options{Tools: structuredTools})
	if err != nil {
		tb.Fatal(err)
	}
	return srv, b
}

// Kept renders stay within their budget, the oldest dropped first, and a
// path's new render takes the place of its old one.
func TestRenderCacheBudget(t *testing.T) {
	t.Parallel()
	c := newRenderCache()
	third := listRenderBudget/3 + 1
	put := func(path string, size int) *listRender {
		r := &listRender{path: path, size: size}
		c.put(r)
		return r
	}
	a := put("/a", third)
	put("/b", third)
	if c.get("/a") != a || c.size != 2*third {
		t.Fatalf("two renders: /a kept %v, size %d", c.get("/a") == a, c.size)
	}
	b2 := put("/b", third) // replaces /b: nothing dropped
	if c.get("/a") != a || c.get("/b") != b2 || c.size != 2*third || len(c.order) != 2 {
		t.Fatalf("a render replaced: size %d, order %v", c.size, c.order)
	}
	put("/c", third) // over the budget: /a goes
	if c.get("/a") != nil || c.get("/b") == nil || c.get("/c") == nil || c.size != 2*third {
		t.Fatalf("over the budget: size %d, order %v", c.size, c.order)
	}
	put("/huge", listRenderBudget+1)
	if c.get("/huge") != nil || c.size != 2*third {
		t.Fatalf("a render over the whole budget was kept: size %d", c.size)
	}
}
