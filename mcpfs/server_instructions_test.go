package mcpfs_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/sourcegraph/jsonrpc2"

	"github.com/mcp-acpfs/mcp-acpfs/capabilities"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpfstest"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

// idleEditor is an editor connection that the handshake never calls.
type idleEditor struct{}

func (idleEditor) Call(context.Context, string, any, any, ...jsonrpc2.CallOption) error {
	return &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "not here"}
}

// The server's instructions say which tool does what, leave out the
// tools a read-only server lacks, and say that reads see the editor's
// unsaved buffers and writes land in it only where they go through the
// editor.
func TestServerInstructions(t *testing.T) {
	dir := t.TempDir()
	disk, err := fsruntime.OpenDisk([]string{dir}, fsruntime.DiskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer disk.Close()
	routed := func(read, write bool) fsruntime.FS {
		var c capabilities.Client
		c.FS.ReadTextFile, c.FS.WriteTextFile = read, write
		return fsruntime.NewRouter(fsruntime.RouterOptions{Disk: disk, Client: c,
			Editor: fsruntime.NewEditor(idleEditor{}, fsruntime.EditorOptions{SessionID: func(context.Context) (string, error) { return "s", nil }})})
	}
	const (
		unsaved = "unsaved changes included"
		review  = "go into the user's editor"
		prefer  = "Use these tools rather than"
		edit    = "edit_text_file changes part of a file"
		manage  = "create_directory, move_file and delete_file"
	)
	for _, tc := range []struct {
		name      string
		files     mcpfs.Files
		want, not []string
	}{
		{"serve", mcpfs.Files{WorkDir: dir, FS: disk}, []string{"read_text_file reads", edit, "grep searches", manage, dir}, []string{unsaved, review, prefer}},
		{"serve, read-only", mcpfs.Files{WorkDir: dir, FS: disk, ReadOnly: true}, []string{"read_text_file reads"}, []string{edit, manage, unsaved}},
		{"editor reads and writes", mcpfs.Files{WorkDir: dir, FS: routed(true, true)}, []string{unsaved, review, prefer, edit}, nil},
		{"editor reads", mcpfs.Files{WorkDir: dir, FS: routed(true, false)}, []string{unsaved, prefer}, []string{review}},
		{"editor writes, read-only", mcpfs.Files{WorkDir: dir, FS: routed(false, true), ReadOnly: true}, nil, []string{review, unsaved, prefer}},
		{"an editor without fs", mcpfs.Files{WorkDir: dir, FS: routed(false, false)}, []string{edit}, []string{unsaved, review, prefer}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := mcpfs.NewServer(tc.files, mcpfs.Options{Tools: mcpfstest.Structured})
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
			req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
			res, err := c.Initialize(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tc.want {
				if !strings.Contains(res.Instructions, s) {
					t.Errorf("the instructions lack %q:\n%s", s, res.Instructions)
				}
			}
			for _, s := range tc.not {
				if strings.Contains(res.Instructions, s) {
					t.Errorf("the instructions say %q:\n%s", s, res.Instructions)
				}
			}
		})
	}
}
