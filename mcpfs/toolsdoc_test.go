package mcpfs_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpfstest"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

// The tools' reference (docs/tools.md) says what read_text_file does: among
// it, that sha256 is absent for a range of a file over the size limit, as
// it is.
func TestToolsDocSaysWhenSHA256IsAbsent(t *testing.T) {
	f := mcpfstest.NewFixtureMax(t, 16)
	f.WriteFile(t, "big.txt", strings.Repeat("line\n", 10))
	c := mcpfstest.Connect(t, f.Srv, mcpfstest.Eras[0].Version)
	res := mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": "big.txt", "line": 2, "limit": 1})
	b, _ := json.Marshal(res.StructuredContent)
	if res.IsError || strings.Contains(string(b), "sha256") {
		t.Fatalf("a range of a file over the limit: %s, want no sha256", b)
	}

	doc, err := os.ReadFile("../docs/tools.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(line, "| `read_text_file` |") {
			if !strings.Contains(line, "`sha256`") || !strings.Contains(line, "absent for a range of a file over `--max-file-size`") {
				t.Errorf("docs/tools.md's read_text_file row does not say when sha256 is absent:\n%s", line)
			}
			return
		}
	}
	t.Error("docs/tools.md has no read_text_file row")
}
