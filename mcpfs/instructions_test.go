package mcpfs_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpfstest"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

// notes returns the text blocks of res after the first.
func notes(t *testing.T, res *mcp.CallToolResult) []string {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool failed: %+v", res.Content)
	}
	var out []string
	for _, c := range res.Content[1:] {
		if tc, ok := mcp.AsTextContent(c); ok && strings.HasPrefix(tc.Text, "Note: ") && strings.Contains(tc.Text, "instructions") {
			out = append(out, tc.Text)
		}
	}
	return out
}

func TestInstructionFileNotes(t *testing.T) {
	f := mcpfstest.NewFixtureMax(t, 1<<20)
	for _, rel := range []string{"AGENTS.md", "a/AGENTS.md", "a/x.txt", "a/y.txt", "b/CLAUDE.md", "b/x.txt",
		"c/AGENTS.md", "c/GEMINI.md", "c/CLAUDE.md", "d/AGENTS.md", "e/x.txt", "f/GEMINI.md", "root.txt"} {
		f.WriteFile(t, rel, rel+"\n")
	}
	c := mcpfstest.Connect(t, f.Srv, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	read := func(rel string) *mcp.CallToolResult {
		return mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": f.Path(rel)})
	}
	want := func(what string, res *mcp.CallToolResult, note string) {
		t.Helper()
		got := notes(t, res)
		switch {
		case note == "" && len(got) > 0:
			t.Errorf("%s: notes %q, want none", what, got)
		case note != "" && (len(got) != 1 || got[0] != note):
			t.Errorf("%s: notes %q, want %q", what, got, note)
		}
	}
	// The first read in a directory; the note comes after the text, which
	// stays the file's.
	res := read("a/x.txt")
	if tc, _ := mcp.AsTextContent(res.Content[0]); tc.Text != "a/x.txt\n" {
		t.Errorf("text %q", tc.Text)
	}
	want("first read in a/", res, "Note: "+f.Path("a/AGENTS.md")+" holds instructions for this directory; read it before changing files here.")
	want("second read in a/", read("a/y.txt"), "")
	// A listing enters a directory too.
	want("list b/", mcpfstest.Call(t, c, mcpfs.ListDirectory, map[string]any{"path": f.Path("b")}),
		"Note: "+f.Path("b/CLAUDE.md")+" holds instructions for this directory; read it before changing files here.")
	want("read in b/ after its listing", read("b/x.txt"), "")
	// Only those not read yet: reading one names the others.
	want("read c/CLAUDE.md", read("c/CLAUDE.md"),
		"Note: "+f.Path("c/AGENTS.md")+" and "+f.Path("c/GEMINI.md")+" hold instructions for this directory; read them before changing files here.")
	want("tree c/", mcpfstest.Call(t, c, mcpfs.DirectoryTree, map[string]any{"path": f.Path("c")}), "")
	want("tree f/", mcpfstest.Call(t, c, mcpfs.DirectoryTree, map[string]any{"path": f.Path("f")}),
		"Note: "+f.Path("f/GEMINI.md")+" holds instructions for this directory; read it before changing files here.")
	// Reading the instruction file itself.
	want("read d/AGENTS.md", read("d/AGENTS.md"), "")
	want("list d/", mcpfstest.Call(t, c, mcpfs.ListDirectory, map[string]any{"path": f.Path("d")}), "")
	// None there; and the working directory, whose files agents load.
	want("read in e/", read("e/x.txt"), "")
	want("read in the working directory", read("root.txt"), "")
	// Per session.
	c2 := mcpfstest.Connect(t, f.Srv, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	want("another session", mcpfstest.Call(t, c2, mcpfs.ReadTextFile, map[string]any{"path": f.Path("a/x.txt")}),
		"Note: "+f.Path("a/AGENTS.md")+" holds instructions for this directory; read it before changing files here.")
	// Stateless calls, which have no session, share the server's
	// sessionless memory: noted once.
	c3 := mcpfstest.Connect(t, f.Srv, mcp.LATEST_PROTOCOL_VERSION)
	want("stateless", mcpfstest.Call(t, c3, mcpfs.ReadTextFile, map[string]any{"path": f.Path("a/x.txt")}),
		"Note: "+f.Path("a/AGENTS.md")+" holds instructions for this directory; read it before changing files here.")
	want("stateless, again", mcpfstest.Call(t, c3, mcpfs.ReadTextFile, map[string]any{"path": f.Path("a/x.txt")}), "")
}

// TestInstructionFileNoteAfterAKeptRender checks the note after a listing
// the transport splices in (listrender.go), over stdio.
func TestInstructionFileNoteAfterAKeptRender(t *testing.T) {
	f := mcpfstest.NewFixture(t, false)
	f.WriteFile(t, "big/AGENTS.md", "rules\n")
	for i := range 80 {
		f.WriteFile(t, fmt.Sprintf("big/f%02d.txt", i), "x\n")
	}
	c := mcpfstest.StdioClient(t, f.Srv, f.Transport(t), mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	for i, want := range []int{1, 0} {
		res := mcpfstest.Call(t, c, mcpfs.ListDirectory, map[string]any{"path": f.Path("big")})
		if got := notes(t, res); len(got) != want {
			t.Errorf("listing %d: notes %q, want %d", i+1, got, want)
		}
		if tc, _ := mcp.AsTextContent(res.Content[0]); !strings.Contains(tc.Text, "81 entries") {
			t.Errorf("listing %d: %.100q", i+1, tc.Text)
		}
	}
}
