package mcpfs_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpfstest"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

// The README's tools table says what read_text_file does: among it, that
// sha256 is absent for a range of a file over the size limit, as it is.
func TestREADMESaysWhenSHA256IsAbsent(t *testing.T) {
	f := mcpfstest.NewFixtureMax(t, 16)
	f.WriteFile(t, "big.txt", strings.Repeat("line\n", 10))
	c := mcpfstest.Connect(t, f.Srv, mcpfstest.Eras[0].Version)
	res := mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": "big.txt", "line": 2, "limit": 1})
	b, _ := json.Marshal(res.StructuredContent)
	if res.IsError || strings.Contains(string(b), "sha256") {
		t.Fatalf("a range of a file over the limit: %s, want no sha256", b)
	}

	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(line, "| `read_text_file` |") {
			if !strings.Contains(line, "`sha256`") || !strings.Contains(line, "absent for a range of a file over `--max-file-size`") {
				t.Errorf("the README's read_text_file row does not say when sha256 is absent:\n%s", line)
			}
			return
		}
	}
	t.Error("the README has no read_text_file row")
}
