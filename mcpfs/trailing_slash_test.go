package mcpfs_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fspath"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpfstest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

// A path that ends in / (or /.) names a directory, as in POSIX: on a file
// it is "not a directory" (ENOTDIR), and no tool reads, moves or deletes
// the file instead.
func TestTrailingSlashOnAFile(t *testing.T) {
	f := mcpfstest.NewFixture(t, false)
	f.WriteFile(t, "file.txt", "keep\n")
	links := f.Symlinks(t)
	if links {
		f.Symlink(t, "file.txt", "linkfile")
	}
	file := f.Path("file.txt")
	c := connectChecked(t, f, mcp.LATEST_LEGACY_PROTOCOL_VERSION)

	paths := []string{"file.txt/", "file.txt/.", "file.txt//", file + "/", fspath.FileURI(file) + "/", fspath.FileURI(file) + "%2F"}
	if links {
		paths = append(paths, "linkfile/")
	}
	for _, p := range paths {
		calls := []struct {
			tool string
			args map[string]any
		}{
			{mcpfs.GetFileInfo, map[string]any{"path": p}},
			{mcpfs.ListDirectory, map[string]any{"path": p}},
			{mcpfs.DirectoryTree, map[string]any{"path": p}},
			{mcpfs.CreateDirectory, map[string]any{"path": p}},
			{mcpfs.MoveFile, map[string]any{"source": p, "destination": "moved", "overwrite": true}},
			{mcpfs.DeleteFile, map[string]any{"path": p, "recursive": true}},
			{mcpfs.Glob, map[string]any{"pattern": "*", "path": p}},
			{mcpfs.Glob, map[string]any{"pattern": "sub/*", "path": p}},
			{mcpfs.Grep, map[string]any{"pattern": "keep", "path": p}},
			{mcpfs.ReadTextFile, map[string]any{"path": p}},
			{mcpfs.WriteTextFile, map[string]any{"path": p, "content": "lost\n"}},
			{mcpfs.EditTextFile, map[string]any{"path": p, "edits": []any{map[string]any{"oldText": "keep", "newText": "lost"}}}},
			{mcpfs.ReadMediaFile, map[string]any{"path": p}},
		}
		for _, k := range calls {
			msg := c.fail(k.tool, k.args)
			// The tools that take a file say that the path names a
			// directory; the others that the file is not one.
			if !strings.Contains(msg, "not a directory") && !strings.Contains(msg, "names a directory") {
				t.Errorf("%s %q: %q does not say that the path is not a directory", k.tool, p, msg)
			}
			if !strings.Contains(msg, p) && !strings.Contains(msg, file) && !strings.Contains(msg, f.Path("linkfile")) {
				t.Errorf("%s %q: %q does not name the path", k.tool, p, msg)
			}
		}
	}
	// A destination that ends in / names a directory too: a file cannot
	// be moved there.
	c.fail(mcpfs.MoveFile, map[string]any{"source": "file.txt", "destination": "new.txt/"},
		f.Path("new.txt")+string(filepath.Separator), "not a directory", "the source is a file")
	// What is wrong with the destination itself comes first.
	fsRoot := ostest.HostPath("/")
	c.fail(mcpfs.MoveFile, map[string]any{"source": "file.txt", "destination": fsRoot}, "move "+fsRoot+":", "outside the allowed roots")

	f.MustExist(t, "file.txt", "keep\n")
	if links {
		f.MustExist(t, "linkfile")
	}
	f.MustNotExist(t, "moved")
	f.MustNotExist(t, "new.txt")
	f.MustNotExist(t, "file.txt/sub")
}

// On a directory, a path with a trailing / works as one without; on a
// symlink to a directory it is followed by the tools that read the path,
// and refused by those that act on the link itself, so that no move or
// delete reaches into the link's target.
func TestTrailingSlashOnADirectory(t *testing.T) {
	f := mcpfstest.NewFixture(t, false)
	f.WriteFile(t, "dir/a.txt", "needle\n")
	f.Mkdir(t, "dir/sub")
	c := connectChecked(t, f, mcp.LATEST_LEGACY_PROTOCOL_VERSION)

	for _, p := range []string{"dir/", "dir/.", fspath.FileURI(f.Path("dir")) + "/"} {
		var info fileInfoOut
		c.ok(mcpfs.GetFileInfo, map[string]any{"path": p}, &info)
		if info.Type != "directory" || info.Path != f.Path("dir") {
			t.Errorf("get_file_info %q = %+v, want the directory", p, info)
		}
		var list listOut
		c.ok(mcpfs.ListDirectory, map[string]any{"path": p}, &list)
		if len(list.Entries) != 2 {
			t.Errorf("list_directory %q = %+v, want a.txt and sub", p, list)
		}
		var tree treeOut
		c.ok(mcpfs.DirectoryTree, map[string]any{"path": p}, &tree)
		if got := render(tree.Tree); got != "a.txt sub/[]" {
			t.Errorf("directory_tree %q = %s", p, got)
		}
		var glob globOut
		c.ok(mcpfs.Glob, map[string]any{"pattern": "*.txt", "path": p}, &glob)
		if len(glob.Matches) != 1 || glob.Matches[0].Path != f.Path("dir/a.txt") {
			t.Errorf("glob %q = %+v, want dir/a.txt", p, glob)
		}
		var grep grepOut
		c.ok(mcpfs.Grep, map[string]any{"pattern": "needle", "path": p}, &grep)
		if len(grep.Matches) != 1 || grep.Matches[0].Path != f.Path("dir/a.txt") {
			t.Errorf("grep %q = %+v, want the line of dir/a.txt", p, grep)
		}
	}

	t.Run("symlink", func(t *testing.T) {
		f.Symlink(t, "dir", "linkdir")
		c := c.on(t)
		// A symlink to a directory, with a /, is the directory for the
		// tools that read it.
		var info fileInfoOut
		c.ok(mcpfs.GetFileInfo, map[string]any{"path": "linkdir/"}, &info)
		if info.Type != "directory" || info.Path != f.Path("linkdir") || info.Name != "linkdir" {
			t.Errorf("get_file_info linkdir/ = %+v, want the directory it leads to", info)
		}
		var grep grepOut
		c.ok(mcpfs.Grep, map[string]any{"pattern": "needle", "path": "linkdir/"}, &grep)
		if len(grep.Matches) != 1 {
			t.Errorf("grep linkdir/ = %+v, want the line of a.txt", grep)
		}
		// Moving or deleting it is refused: both act on the link itself.
		c.fail(mcpfs.DeleteFile, map[string]any{"path": "linkdir/", "recursive": true},
			f.Path("linkdir")+string(filepath.Separator), "not a directory", "symlink")
		c.fail(mcpfs.MoveFile, map[string]any{"source": "linkdir/", "destination": "moved"},
			f.Path("linkdir")+string(filepath.Separator), "not a directory", "symlink")
		f.MustExist(t, "linkdir")
		f.MustExist(t, "dir/a.txt", "needle\n")
		f.MustNotExist(t, "moved")
	})

	// A missing path says so.
	c.fail(mcpfs.GetFileInfo, map[string]any{"path": "missing/"}, "stat "+f.Path("missing"), "does not exist")
	c.fail(mcpfs.DeleteFile, map[string]any{"path": "missing/"}, "delete "+f.Path("missing"), "does not exist")
	c.fail(mcpfs.MoveFile, map[string]any{"source": "missing/", "destination": "moved"}, "move "+f.Path("missing"), "does not exist")

	// Directories are created, moved (to a destination with a / too) and
	// deleted.
	var created createOut
	c.ok(mcpfs.CreateDirectory, map[string]any{"path": "dir/new/"}, &created)
	f.MustExist(t, "dir/new")
	var moved moveOut
	c.ok(mcpfs.MoveFile, map[string]any{"source": "dir/sub/", "destination": "dir/moved/"}, &moved)
	if moved.Source != f.Path("dir/sub") || moved.Destination != f.Path("dir/moved") {
		t.Errorf("move_file dir/sub/ dir/moved/ = %+v", moved)
	}
	f.MustNotExist(t, "dir/sub")
	c.ok(mcpfs.MoveFile, map[string]any{"source": "dir/moved", "destination": "dir/again/"}, nil)
	var deleted deleteOut
	c.ok(mcpfs.DeleteFile, map[string]any{"path": "dir/again/"}, &deleted)
	if deleted.Type != "directory" {
		t.Errorf("delete_file dir/again/ = %+v, want type directory", deleted)
	}
	f.MustNotExist(t, "dir/again")
}

// A resource URI that ends in / names a directory: a file's is refused,
// for reading and for subscribing.
func TestResourceTrailingSlash(t *testing.T) {
	f := mcpfstest.NewFixture(t, false)
	f.WriteFile(t, "file.txt", "keep\n")
	uri := fspath.FileURI(f.Path("file.txt"))
	for _, era := range mcpfstest.Eras {
		t.Run(era.Name, func(t *testing.T) {
			c := mcpfstest.Connect(t, f.Srv, era.Version)
			for _, u := range []string{uri + "/", uri + "%2F", uri + "/."} {
				_, err := readResource(t, c, u)
				wantErr(t, "read "+u, err, u, "names a directory")
			}
		})
	}
	c := mcpfstest.Connect(t, f.Srv, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	wantErr(t, "subscribe", subscribe(t, c, uri+"/"), uri+"/", "names a directory")
}
