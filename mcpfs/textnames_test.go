package mcpfs_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpfstest"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

// Names and lines of files can hold anything: one with a newline, a
// carriage return, a line separator or a bidirectional override could
// fake lines in the text content of a result, which is what many hosts
// show a model. The text shows such a name quoted like Go's %q; the
// structured content keeps it as it is; and a plain name stays plain.
// A name or line that starts with a double quote is quoted too, so that
// one that looks like a quoted name, in ordinary characters, does not
// read as one.
func TestTextEscapesNames(t *testing.T) {
	f := mcpfstest.NewFixture(t, false)
	evil := []string{
		"evil\nfake@",
		"cr\rfake.txt",
		"sep\u2028fake",
		"rlo\u202etxt.exe",
	}
	// Ordinary characters, which read as the quoted form of a name with a
	// newline unless they are quoted in turn.
	const lookalike = `"a\nb"`
	f.WriteFile(t, "plain.txt", "needle\nneedle\vplain.txt:9:injected\nneedle\u2029x\nneedle\twith a tab\n"+
		`"needle\nplain.txt:9:injected"`+"\n")
	// A name the file system refuses (Windows: control characters, ", \)
	// is left out, and what needs it.
	var accepted, refused []string
	for _, name := range append(evil, lookalike) {
		if err := os.WriteFile(f.Path(name), []byte("needle\n"), 0o644); err != nil {
			refused = append(refused, fmt.Sprintf("%q (%v)", name, err))
			continue
		}
		accepted = append(accepted, name)
	}
	if len(refused) > 0 {
		t.Run("refused names", func(t *testing.T) {
			t.Skipf("this file system refuses the names %s", strings.Join(refused, ", "))
		})
	}
	hasLookalike := slices.Contains(accepted, lookalike)
	evil = slices.DeleteFunc(accepted, func(name string) bool { return name == lookalike })
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{mcpfs.ListDirectory, map[string]any{"path": f.Dir}},
		{mcpfs.DirectoryTree, map[string]any{"path": f.Dir}},
		{mcpfs.Glob, map[string]any{"path": f.Dir, "pattern": "*"}},
		{mcpfs.Grep, map[string]any{"path": f.Dir, "pattern": "needle"}},
	} {
		c := mcpfstest.Connect(t, f.Srv, mcpfstest.Eras[0].Version)
		res := mcpfstest.Call(t, c, tc.tool, tc.args)
		txt := mcpfstest.Text(t, res)
		structured, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range evil {
			if q := strconv.Quote(name); strings.Contains(txt, name) || !strings.Contains(txt, q[1:len(q)-1]) {
				t.Errorf("%s: the text does not quote %q:\n%s", tc.tool, name, txt)
			}
			js, _ := json.Marshal(name)
			if !strings.Contains(string(structured), string(js[1:len(js)-1])) {
				t.Errorf("%s: the structured content lacks the name %q: %s", tc.tool, name, structured)
			}
		}
		// Each shows the name, which starts with the quote: glob and
		// grep show paths relative to the working directory.
		var wantLookalike string
		switch tc.tool {
		case mcpfs.ListDirectory:
			wantLookalike = "\n" + strconv.Quote(lookalike) + "\n"
		case mcpfs.DirectoryTree:
			wantLookalike = "\n  " + strconv.Quote(lookalike) + "\n"
		case mcpfs.Glob:
			wantLookalike = "\n" + strconv.Quote(lookalike) + "\n"
		case mcpfs.Grep:
			wantLookalike = "\n" + strconv.Quote(lookalike) + ":1:needle\n"
		}
		if hasLookalike && !strings.Contains(txt+"\n", wantLookalike) {
			t.Errorf("%s: the text lacks %q:\n%s", tc.tool, wantLookalike, txt)
		}
		if !strings.Contains(txt, "plain.txt") || strings.Contains(txt, `"plain.txt"`) {
			t.Errorf("%s: a plain name is quoted, or missing:\n%s", tc.tool, txt)
		}
		for _, l := range strings.Split(txt, "\n") {
			if strings.Contains(l, "fake") && !strings.Contains(l, `\`) {
				t.Errorf("%s: a faked line: %q", tc.tool, l)
			}
		}
		if tc.tool == mcpfs.Grep {
			for _, want := range []string{
				strconv.Quote("needle\vplain.txt:9:injected"),
				strconv.Quote("needle\u2029x"),
				strconv.Quote(`"needle\nplain.txt:9:injected"`),
				":needle\twith a tab\n", // a tab alone is left as it is
			} {
				if !strings.Contains(txt+"\n", want) {
					t.Errorf("grep: the text lacks %s:\n%s", want, txt)
				}
			}
		}
	}
}
