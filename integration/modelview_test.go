package integration

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/mcpclient"
)

// TestServeModelView runs serve as a user gets it and checks what a model
// is given: tools without output schemas, results without structured
// content, and a large read in a page that says how to go on, numbered
// for a host whose own read numbers lines.
func TestServeModelView(t *testing.T) {
	tr := newTree(t)
	const format = "line %04d of a file that is larger than one page of a read\n"
	width := len(fmt.Sprintf(format, 1))
	var big strings.Builder
	for i := 1; i <= 2000; i++ {
		fmt.Fprintf(&big, format, i)
	}
	writeFile(t, filepath.Join(tr.root, "big.txt"), big.String())
	for _, tc := range []struct {
		client string
		lines  int    // in the first page
		first  string // its first line
	}{
		{"some-host", 12 << 10 / width, "line 0001 "},
		{"claude-code", 32 << 10 / (width + len("     1→")), "     1→line 0001 "},
	} {
		t.Run(tc.client, func(t *testing.T) {
			p := start(t, procOptions{modelView: true}, "serve", "--root", tr.root)
			c := client.NewClient(transport.NewIO(p.out, p.stdin, nil))
			hello := clientHello(mcp.LATEST_LEGACY_PROTOCOL_VERSION)
			hello.Name = tc.client
			if _, err := mcpclient.Start(t.Context(), c, hello); err != nil {
				t.Fatal(err)
			}
			for name, tool := range listTools(t, c) {
				if tool.OutputSchema.Type != "" || len(tool.RawOutputSchema) > 0 {
					t.Errorf("%s declares an output schema", name)
				}
			}
			res, err := callTool(t, c, readTool, map[string]any{"path": "big.txt"})
			if err != nil || res.IsError || res.StructuredContent != nil || len(res.Content) != 2 {
				t.Fatalf("read: %v %+v, want a page and its status, and no structured content", err, res)
			}
			text := res.Content[0].(mcp.TextContent).Text
			if got := strings.Count(text, "\n"); got != tc.lines || !strings.HasPrefix(text, tc.first) {
				t.Errorf("page of %d lines starting %.30q, want %d starting %q", got, text, tc.lines, tc.first)
			}
			want := fmt.Sprintf("[lines 1–%d of 2000; continue with line=%d]", tc.lines, tc.lines+1)
			if got := res.Content[1].(mcp.TextContent).Text; got != want {
				t.Errorf("status %q, want %q", got, want)
			}
			c.Close()
			p.closeStdin()
		})
	}
}
