package mcpfs_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-acpfs/mcp-acpfs/capabilities"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpfstest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/sessiontest"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

// readFirst reads the file at p through c, for the read guard, whatever
// the outcome: a test of a write or an edit that is not about the guard
// reads first, as a model must.
func readFirst(t testing.TB, c *client.Client, p string) {
	t.Helper()
	mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": p})
}

// The guard's refusals, in part.
const (
	refusedUnread  = "refused: this session has not read the file"
	refusedChanged = "refused: the file changed since this session last read or wrote it"
	refusedGone    = "refused: the file no longer exists"
	readFirstHint  = "read it with read_text_file first (whole or in part)"
	readAgainHint  = "read it again and redo the change"
)

func guarded(t *testing.T) (*mcpfstest.Fixture, *client.Client) {
	t.Helper()
	f := mcpfstest.NewFixture(t, false)
	return f, mcpfstest.Connect(t, f.Srv, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
}

func write(t testing.TB, c *client.Client, p, content string, more ...any) *mcp.CallToolResult {
	t.Helper()
	args := map[string]any{"path": p, "content": content}
	for i := 0; i+1 < len(more); i += 2 {
		args[more[i].(string)] = more[i+1]
	}
	return mcpfstest.Call(t, c, mcpfs.WriteTextFile, args)
}

func edit(t testing.TB, c *client.Client, p, oldText, newText string, more ...any) *mcp.CallToolResult {
	t.Helper()
	args := map[string]any{"path": p, "edits": []any{map[string]any{"oldText": oldText, "newText": newText}}}
	for i := 0; i+1 < len(more); i += 2 {
		args[more[i].(string)] = more[i+1]
	}
	return mcpfstest.Call(t, c, mcpfs.EditTextFile, args)
}

func TestReadGuardUnread(t *testing.T) {
	f, c := guarded(t)
	f.WriteFile(t, "a.txt", "the user's\n")
	p := f.Path("a.txt")
	msg := mcpfstest.WantError(t, write(t, c, p, "blind\n"), "write "+p+": "+refusedUnread, readFirstHint, "then write it", "nothing was written")
	t.Log(msg)
	mcpfstest.WantError(t, edit(t, c, p, "user's", "model's"), "edit "+p+": "+refusedUnread, readFirstHint, "then edit it")
	f.MustExist(t, "a.txt", "the user's\n")
	// Content the write would refuse anyway is refused as that first.
	mcpfstest.WantError(t, write(t, c, p, strings.Repeat("x", mcpfstest.TestMaxFileSize+1)), "write "+p+": content is too large")
	f.MustExist(t, "a.txt", "the user's\n")

	// What no write could change is refused as the write would refuse it.
	f.Mkdir(t, "dir")
	mcpfstest.WantError(t, write(t, c, f.Path("dir"), "x\n"), "write "+f.Path("dir")+": not a regular file")
	mcpfstest.WantError(t, write(t, c, f.Path("../outside.txt"), "x\n"), "outside the allowed roots")
	// A file that cannot be read as text cannot have been read.
	f.WriteFile(t, "bin", "\x00\x01")
	mcpfstest.WantError(t, write(t, c, f.Path("bin"), "x\n"), "write "+f.Path("bin")+": refused: the file could not be read to check it", "binary")
	f.MustExist(t, "bin", "\x00\x01")

	readFirst(t, c, p)
	mcpfstest.WantOK(t, write(t, c, p, "read, then written\n"))
	f.MustExist(t, "a.txt", "read, then written\n")
}

func TestReadGuardRangeReadCounts(t *testing.T) {
	f, c := guarded(t)
	f.WriteFile(t, "a.txt", "one\ntwo\nthree\n")
	p := f.Path("a.txt")
	mcpfstest.WantOK(t, mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": p, "line": 2, "limit": 1}))
	mcpfstest.WantOK(t, edit(t, c, p, "three", "3"))
	mcpfstest.WantOK(t, write(t, c, p, "whole\n"))
	f.MustExist(t, "a.txt", "whole\n")
}

func TestReadGuardChangedSinceRead(t *testing.T) {
	f, c := guarded(t)
	f.WriteFile(t, "a.txt", "v1\n")
	p := f.Path("a.txt")
	readFirst(t, c, p)
	f.WriteFile(t, "a.txt", "the user's v2\n")

	msg := mcpfstest.WantError(t, write(t, c, p, "model's\n"), "write "+p+": "+refusedChanged, "on disk", readAgainHint, "nothing was written")
	t.Log(msg)
	mcpfstest.WantError(t, edit(t, c, p, "v2", "v3"), "edit "+p+": "+refusedChanged, readAgainHint)
	f.MustExist(t, "a.txt", "the user's v2\n")

	readFirst(t, c, p)
	mcpfstest.WantOK(t, edit(t, c, p, "v2", "v3"))
	f.MustExist(t, "a.txt", "the user's v3\n")
}

func TestReadGuardOwnWritesCount(t *testing.T) {
	f, c := guarded(t)
	p := f.Path("new/b.txt")
	mcpfstest.WantOK(t, write(t, c, p, "created\n")) // a new file needs no read
	mcpfstest.WantOK(t, write(t, c, p, "written again\n"))
	mcpfstest.WantOK(t, edit(t, c, p, "again", "once more"))
	mcpfstest.WantOK(t, edit(t, c, p, "once more", "and edited"))
	f.MustExist(t, "new/b.txt", "written and edited\n")

	// A dry run neither needs a read nor counts as one.
	f.WriteFile(t, "c.txt", "c\n")
	mcpfstest.WantOK(t, edit(t, c, f.Path("c.txt"), "c", "C", "dryRun", true))
	mcpfstest.WantError(t, edit(t, c, f.Path("c.txt"), "c", "C"), refusedUnread)
}

func TestReadGuardDeletedSinceRead(t *testing.T) {
	f, c := guarded(t)
	f.WriteFile(t, "a.txt", "a\n")
	p := f.Path("a.txt")
	readFirst(t, c, p)
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	mcpfstest.WantError(t, write(t, c, p, "again\n"), "write "+p+": "+refusedGone, "deleted or moved", "write it again")
	f.MustNotExist(t, "a.txt")
	// Said once: written again, it is created.
	mcpfstest.WantOK(t, write(t, c, p, "again\n"))
	f.MustExist(t, "a.txt", "again\n")
}

func TestReadGuardExpectedHashFirst(t *testing.T) {
	f, c := guarded(t)
	f.WriteFile(t, "a.txt", "a\n")
	f.WriteFile(t, "b.txt", "b\n")
	// Unread, but the hash matches.
	mcpfstest.WantOK(t, write(t, c, f.Path("a.txt"), "A\n", "expectedHash", sha("a\n")))
	mcpfstest.WantOK(t, edit(t, c, f.Path("b.txt"), "b", "B", "expectedHash", sha("b\n")))
	// Read, then changed: the ledger differs, the hash given matches.
	readFirst(t, c, f.Path("a.txt"))
	f.WriteFile(t, "a.txt", "changed\n")
	mcpfstest.WantOK(t, write(t, c, f.Path("a.txt"), "over\n", "expectedHash", sha("changed\n")))
	f.MustExist(t, "a.txt", "over\n")
	// And a hash that does not match is refused as ever.
	mcpfstest.WantError(t, write(t, c, f.Path("a.txt"), "x\n", "expectedHash", sha("a\n")), "changed since read", sha("a\n"))
	f.MustExist(t, "a.txt", "over\n")
	// What a write with expectedHash wrote counts as seen.
	mcpfstest.WantOK(t, write(t, c, f.Path("a.txt"), "after\n"))
}

func TestReadGuardPerSession(t *testing.T) {
	f := mcpfstest.NewFixture(t, false)
	c1 := mcpfstest.Connect(t, f.Srv, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	c2 := mcpfstest.Connect(t, f.Srv, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	f.WriteFile(t, "a.txt", "a\n")
	p := f.Path("a.txt")
	readFirst(t, c1, p)
	mcpfstest.WantError(t, write(t, c2, p, "two\n"), refusedUnread)
	mcpfstest.WantError(t, edit(t, c2, p, "a", "two"), refusedUnread)
	f.MustExist(t, "a.txt", "a\n")
	mcpfstest.WantOK(t, write(t, c1, p, "one\n"))
	// A file one session created is unread by the other.
	mcpfstest.WantOK(t, write(t, c2, f.Path("b.txt"), "b\n"))
	mcpfstest.WantError(t, write(t, c1, f.Path("b.txt"), "one\n"), refusedUnread)
	// c2 read a.txt before c1 wrote it: changed.
	readFirst(t, c2, p)
	mcpfstest.WantOK(t, write(t, c1, p, "one again\n"))
	mcpfstest.WantError(t, write(t, c2, p, "two\n"), refusedChanged)
	f.MustExist(t, "a.txt", "one again\n")
}

// TestReadGuardStateless checks that stateless calls, which have no MCP
// session, are guarded by the ledger they share.
func TestReadGuardStateless(t *testing.T) {
	f := mcpfstest.NewFixture(t, false)
	c := mcpfstest.Connect(t, f.Srv, mcp.LATEST_PROTOCOL_VERSION)
	f.WriteFile(t, "a.txt", "a\n")
	p := f.Path("a.txt")
	mcpfstest.WantError(t, write(t, c, p, "blind\n"), refusedUnread)
	mcpfstest.WantError(t, edit(t, c, p, "a", "edited"), refusedUnread)
	f.MustExist(t, "a.txt", "a\n")
	readFirst(t, c, p)
	mcpfstest.WantOK(t, edit(t, c, p, "a", "edited"))
	f.WriteFile(t, "a.txt", "changed on disk\n")
	mcpfstest.WantError(t, write(t, c, p, "stale\n"), refusedChanged)
	f.MustExist(t, "a.txt", "changed on disk\n")
}

func TestReadGuardOff(t *testing.T) {
	f := mcpfstest.NewFixtureWith(t, mcpfs.Options{Tools: mcpfs.ToolOptions{NoReadGuard: true}})
	c := mcpfstest.Connect(t, f.Srv, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	f.WriteFile(t, "a.txt", "a\n")
	p := f.Path("a.txt")
	mcpfstest.WantOK(t, write(t, c, p, "blind\n"))
	mcpfstest.WantOK(t, edit(t, c, p, "blind", "edited"))
	f.WriteFile(t, "a.txt", "changed by the user\n")
	mcpfstest.WantOK(t, write(t, c, p, "over\n"))
	f.MustExist(t, "a.txt", "over\n")
}

func TestReadGuardMoveAndDelete(t *testing.T) {
	f, c := guarded(t)
	f.WriteFile(t, "a.txt", "a\n")
	f.WriteFile(t, "d/x.txt", "x\n")
	f.WriteFile(t, "d/sub/y.txt", "y\n")
	f.WriteFile(t, "dd/z.txt", "z\n") // a sibling that shares a prefix
	for _, rel := range []string{"a.txt", "d/x.txt", "d/sub/y.txt", "dd/z.txt"} {
		readFirst(t, c, f.Path(rel))
	}
	move := func(src, dst string, overwrite bool) {
		t.Helper()
		mcpfstest.WantOK(t, mcpfstest.Call(t, c, mcpfs.MoveFile, map[string]any{"source": f.Path(src), "destination": f.Path(dst), "overwrite": overwrite}))
	}
	// A file's entry moves with it.
	move("a.txt", "b.txt", false)
	mcpfstest.WantOK(t, edit(t, c, f.Path("b.txt"), "a", "b"))
	mcpfstest.WantOK(t, write(t, c, f.Path("a.txt"), "new a\n")) // the old path: a new file
	// A directory's entries, every level below it, move with it.
	move("d", "e", false)
	mcpfstest.WantOK(t, edit(t, c, f.Path("e/x.txt"), "x", "X"))
	mcpfstest.WantOK(t, edit(t, c, f.Path("e/sub/y.txt"), "y", "Y"))
	mcpfstest.WantOK(t, edit(t, c, f.Path("dd/z.txt"), "z", "Z"))
	// What a move replaces is gone: an unread source over a read file.
	f.WriteFile(t, "unread.txt", "unread\n")
	move("unread.txt", "b.txt", true)
	mcpfstest.WantError(t, write(t, c, f.Path("b.txt"), "blind\n"), refusedUnread)
	f.MustExist(t, "b.txt", "unread\n")

	// A delete drops the entry: a file made anew at the path is unread.
	mcpfstest.WantOK(t, mcpfstest.Call(t, c, mcpfs.DeleteFile, map[string]any{"path": f.Path("e/x.txt")}))
	f.WriteFile(t, "e/x.txt", "the user's\n")
	mcpfstest.WantError(t, write(t, c, f.Path("e/x.txt"), "blind\n"), refusedUnread)
	// And so does a delete of a directory, for every file below it.
	mcpfstest.WantOK(t, mcpfstest.Call(t, c, mcpfs.DeleteFile, map[string]any{"path": f.Path("e"), "recursive": true}))
	f.WriteFile(t, "e/sub/y.txt", "the user's\n")
	mcpfstest.WantError(t, write(t, c, f.Path("e/sub/y.txt"), "blind\n"), refusedUnread)
	f.MustExist(t, "e/sub/y.txt", "the user's\n")
}

// editorServer serves the tools through a Router whose reads and writes go
// to ed, an editor over a pipe with the real codec, as a session of
// mcp-acpfs proxy does.
func editorServer(t *testing.T, ed *fsruntimetest.Editor, dir string) *client.Client {
	t.Helper()
	disk, err := fsruntime.OpenDisk([]string{dir}, fsruntime.DiskOptions{MaxFileSize: mcpfstest.TestMaxFileSize})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { disk.Close() })
	var client capabilities.Client
	client.FS.ReadTextFile, client.FS.WriteTextFile = true, true
	editor := fsruntime.NewEditor(sessiontest.EditorConn(t, ed), fsruntime.EditorOptions{
		SessionID:   func(context.Context) (string, error) { return "sess_1", nil },
		MaxFileSize: mcpfstest.TestMaxFileSize,
	})
	r := fsruntime.NewRouter(fsruntime.RouterOptions{Disk: disk, Editor: editor, Client: client})
	srv, err := mcpfs.NewServer(mcpfs.Files{WorkDir: dir, FS: r, MaxFileSize: mcpfstest.TestMaxFileSize}, mcpfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return mcpfstest.Connect(t, srv, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
}

// TestReadGuardEditorBuffer checks the guard against the editor's text:
// what the session read is the buffer, unsaved changes included, and a
// change the user makes there, unsaved, is a change.
func TestReadGuardEditorBuffer(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "a.txt")
	putFile(t, p, "saved\n", time.Now().Add(-time.Hour)) // no reload pending
	ed := &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS()}
	ed.Buffers.Set(p, "unsaved 1\n")
	c := editorServer(t, ed, dir)

	// Read from the buffer, which differs from the disk: the write goes.
	readFirst(t, c, p)
	mcpfstest.WantOK(t, edit(t, c, p, "unsaved 1", "model's 1"))
	if got, _ := ed.Buffers.Get(p); got != "model's 1\n" {
		t.Fatalf("buffer %q after the edit", got)
	}
	// The user types in the editor, and does not save.
	ed.Buffers.Set(p, "model's 1, and the user's\n")
	msg := mcpfstest.WantError(t, write(t, c, p, "model's 2\n"), refusedChanged, "in the editor (unsaved changes included)", readAgainHint)
	t.Log(msg)
	mcpfstest.WantError(t, edit(t, c, p, "model's 1", "model's 2"), refusedChanged, "in the editor")
	if got, _ := ed.Buffers.Get(p); got != "model's 1, and the user's\n" {
		t.Errorf("the user's unsaved change was lost: buffer %q", got)
	}
	readFirst(t, c, p)
	mcpfstest.WantOK(t, edit(t, c, p, "model's 1", "model's 2"))
}

// formattingFS is a MemFS that reformats what it is given to write, as an
// editor may on save: a read then returns other text than the write gave.
type formattingFS struct{ *fsruntimetest.MemFS }

func (f formattingFS) WriteTextFile(ctx context.Context, path, content string) error {
	return f.MemFS.WriteTextFile(ctx, path, strings.ReplaceAll(content, "\t", "    "))
}

func TestReadGuardReadDiffersFromWrite(t *testing.T) {
	dir := ostest.HostPath("/mem/root")
	mem := &fsruntimetest.MemFS{Max: mcpfstest.TestMaxFileSize, Roots: []string{dir}}
	srv, err := mcpfs.NewServer(mcpfs.Files{WorkDir: dir, FS: formattingFS{mem}}, mcpfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := mcpfstest.Connect(t, srv, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	p := filepath.Join(dir, "a.go")
	mcpfstest.WantOK(t, write(t, c, p, "func f() {\n\treturn\n}\n"))
	// What the session wrote is not what the file holds.
	mcpfstest.WantError(t, edit(t, c, p, "return", "return nil"), refusedChanged)
	readFirst(t, c, p)
	mcpfstest.WantOK(t, edit(t, c, p, "return", "return nil"))
	if got, _ := mem.Get(p); got != "func f() {\n    return nil\n}\n" {
		t.Errorf("file %q", got)
	}
}

func TestReadGuardDescribed(t *testing.T) {
	const sentence = "An existing file must have been read in this session"
	for _, off := range []bool{false, true} {
		f := mcpfstest.NewFixtureWith(t, mcpfs.Options{Tools: mcpfs.ToolOptions{NoReadGuard: off}})
		tools := mcpfstest.Tools(t, mcpfstest.Connect(t, f.Srv, mcp.LATEST_LEGACY_PROTOCOL_VERSION))
		for _, name := range []string{mcpfs.WriteTextFile, mcpfs.EditTextFile} {
			if got := strings.Contains(tools[name].Description, sentence); got == off {
				t.Errorf("NoReadGuard %v: the description of %s says the guard: %v", off, name, got)
			}
		}
	}
}
