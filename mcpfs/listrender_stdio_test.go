package mcpfs_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpfstest"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

// A listing whose render the transport keeps (listrender.go) answers the
// same, call after call, while reads of large files go through the same
// transport: their results are quoted into buffers that are reused once
// written, and a kept render must never be one of them.
func TestStdioKeptListingSurvivesReads(t *testing.T) {
	f := mcpfstest.NewFixtureMax(t, 1<<20)
	var want strings.Builder
	want.WriteString(f.Path("many") + ": 300 entries (directories end in /, symlinks in @)")
	for i := range 300 {
		name := fmt.Sprintf("entry-%03d.txt", i)
		f.WriteFile(t, "many/"+name, "x")
		want.WriteString("\n" + name)
	}
	for i := range 4 {
		f.WriteFile(t, fmt.Sprintf("big-%d.txt", i), strings.Repeat(fmt.Sprintf("read %d overwrites a reused buffer\n", i), 100)) // 3.6 KB: its quoting fits in a buffer a render would have
	}
	c := mcpfstest.StdioClient(t, f.Srv, f.Transport(t), mcpfstest.Eras[len(mcpfstest.Eras)-1].Version)

	// callText calls tool and returns its text; it may run on any
	// goroutine.
	callText := func(tool, path string) string {
		var req mcp.CallToolRequest
		req.Params.Name = tool
		req.Params.Arguments = map[string]any{"path": path}
		// A corrupted response would leave the call waiting: the
		// deadline turns that into a failure.
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		res, err := c.CallTool(ctx, req)
		if err != nil || res.IsError || len(res.Content) == 0 {
			t.Errorf("%s %s: %v %+v", tool, path, err, res)
			return ""
		}
		text, _ := res.Content[0].(mcp.TextContent)
		return text.Text
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for range 25 {
				if w%2 == 1 {
					callText(mcpfs.ReadTextFile, fmt.Sprintf("big-%d.txt", w))
					continue
				}
				if got := callText(mcpfs.ListDirectory, "many"); got != want.String() {
					t.Errorf("listing: %.200s…, want %.200s…", got, want.String())
					return
				}
			}
		})
	}
	wg.Wait()
}
