package mcpfs

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcptest"
)

// TestMoveAndDeleteWaitForAnEditOfTheirPaths holds a path's lock, as an
// edit does between its read and its write, and checks that delete_file
// and move_file of that path wait for it instead of landing in between.
// In a synctest bubble, each call's deadline passes once it waits.
func TestMoveAndDeleteWaitForAnEditOfTheirPaths(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir()) // outside the bubble: its cleanup runs after
	synctest.Test(t, func(t *testing.T) {
		p := filepath.Join(dir, "a.txt")
		os.WriteFile(p, []byte("x"), 0o644)
		os.WriteFile(filepath.Join(dir, "c.txt"), []byte("c"), 0o644)
		disk, err := fsruntime.OpenDisk([]string{dir}, fsruntime.DiskOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer disk.Close()
		srv, err := NewServer(DiskFiles(disk, false), Options{Tools: structuredTools})
		if err != nil {
			t.Fatal(err)
		}
		c, err := client.NewInProcessClient(srv)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		mcptest.Initialize(t, c, mcp.LATEST_LEGACY_PROTOCOL_VERSION)

		unlock, err := pathLocks.lock(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		for _, call := range []mcp.CallToolParams{
			{Name: DeleteFile, Arguments: map[string]any{"path": p}},
			{Name: MoveFile, Arguments: map[string]any{"source": p, "destination": filepath.Join(dir, "b.txt")}},
			{Name: MoveFile, Arguments: map[string]any{"source": filepath.Join(dir, "c.txt"), "destination": p, "overwrite": true}},
		} {
			// While the path is locked the call must not go through; its
			// deadline ends the wait.
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: call})
			cancel()
			if err == nil && !res.IsError {
				t.Errorf("%s %v went through while an edit held the path", call.Name, call.Arguments)
			}
			if got, err := os.ReadFile(p); err != nil || string(got) != "x" {
				t.Errorf("after %s: the file is %q, %v", call.Name, got, err)
			}
		}
		unlock()
		res, err := c.CallTool(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: DeleteFile, Arguments: map[string]any{"path": p}}})
		if err != nil || res.IsError {
			t.Fatalf("delete after the edit: %v %v", res, err)
		}
	})
}
