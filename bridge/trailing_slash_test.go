package bridge_test

import (
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
)

// A path that ends in / (or /.) names a directory, as in POSIX: on a file
// it is "not a directory" (ENOTDIR), and no tool reads, moves or deletes
// the file instead.
func TestTrailingSlashOnAFile(t *testing.T) {
	f := newFixture(t, false)
	f.writeFile(t, "file.txt", "keep\n")
	f.symlink(t, "file.txt", "linkfile")
	file := f.path("file.txt")
	c := connectChecked(t, f, mcp.LATEST_LEGACY_PROTOCOL_VERSION)

	paths := []string{"file.txt/", "file.txt/.", "file.txt//", file + "/", fileURI(file) + "/", fileURI(file) + "%2F", "linkfile/"}
	for _, p := range paths {
		calls := []struct {
			tool string
			args map[string]any
		}{
			{bridge.GetFileInfo, map[string]any{"path": p}},
			{bridge.ListDirectory, map[string]any{"path": p}},
			{bridge.DirectoryTree, map[string]any{"path": p}},
			{bridge.CreateDirectory, map[string]any{"path": p}},
			{bridge.MoveFile, map[string]any{"source": p, "destination": "moved", "overwrite": true}},
			{bridge.DeleteFile, map[string]any{"path": p, "recursive": true}},
			{bridge.Glob, map[string]any{"pattern": "*", "path": p}},
			{bridge.Glob, map[string]any{"pattern": "sub/*", "path": p}},
			{bridge.Grep, map[string]any{"pattern": "keep", "path": p}},
			{bridge.ReadTextFile, map[string]any{"path": p}},
			{bridge.WriteTextFile, map[string]any{"path": p, "content": "lost\n"}},
			{bridge.EditTextFile, map[string]any{"path": p, "edits": []any{map[string]any{"oldText": "keep", "newText": "lost"}}}},
			{bridge.ReadMediaFile, map[string]any{"path": p}},
		}
		for _, k := range calls {
			msg := c.fail(k.tool, k.args)
			// The tools that take a file say that the path names a
			// directory; the others that the file is not one.
			if !strings.Contains(msg, "not a directory") && !strings.Contains(msg, "names a directory") {
				t.Errorf("%s %q: %q does not say that the path is not a directory", k.tool, p, msg)
			}
			if !strings.Contains(msg, p) && !strings.Contains(msg, file) && !strings.Contains(msg, f.path("linkfile")) {
				t.Errorf("%s %q: %q does not name the path", k.tool, p, msg)
			}
		}
	}
	// A destination that ends in / names a directory too: a file cannot
	// be moved there.
	c.fail(bridge.MoveFile, map[string]any{"source": "file.txt", "destination": "new.txt/"},
		f.path("new.txt")+"/", "not a directory", "the source is a file")
	// What is wrong with the destination itself comes first.
	c.fail(bridge.MoveFile, map[string]any{"source": "file.txt", "destination": "/"}, "move /:", "outside the allowed roots")

	f.mustExist(t, "file.txt", "keep\n")
	f.mustExist(t, "linkfile")
	f.mustNotExist(t, "moved")
	f.mustNotExist(t, "new.txt")
	f.mustNotExist(t, "file.txt/sub")
}

// On a directory, a path with a trailing / works as one without; on a
// symlink to a directory it is followed by the tools that read the path,
// and refused by those that act on the link itself, so that no move or
// delete reaches into the link's target.
func TestTrailingSlashOnADirectory(t *testing.T) {
	f := newFixture(t, false)
	f.writeFile(t, "dir/a.txt", "needle\n")
	f.mkdir(t, "dir/sub")
	f.symlink(t, "dir", "linkdir")
	c := connectChecked(t, f, mcp.LATEST_LEGACY_PROTOCOL_VERSION)

	for _, p := range []string{"dir/", "dir/.", fileURI(f.path("dir")) + "/"} {
		var info fileInfoOut
		c.ok(bridge.GetFileInfo, map[string]any{"path": p}, &info)
		if info.Type != "directory" || info.Path != f.path("dir") {
			t.Errorf("get_file_info %q = %+v, want the directory", p, info)
		}
		var list listOut
		c.ok(bridge.ListDirectory, map[string]any{"path": p}, &list)
		if len(list.Entries) != 2 {
			t.Errorf("list_directory %q = %+v, want a.txt and sub", p, list)
		}
		var tree treeOut
		c.ok(bridge.DirectoryTree, map[string]any{"path": p}, &tree)
		if got := render(tree.Tree); got != "a.txt sub/[]" {
			t.Errorf("directory_tree %q = %s", p, got)
		}
		var glob globOut
		c.ok(bridge.Glob, map[string]any{"pattern": "*.txt", "path": p}, &glob)
		if len(glob.Matches) != 1 || glob.Matches[0].Path != f.path("dir/a.txt") {
			t.Errorf("glob %q = %+v, want dir/a.txt", p, glob)
		}
		var grep grepOut
		c.ok(bridge.Grep, map[string]any{"pattern": "needle", "path": p}, &grep)
		if len(grep.Matches) != 1 || grep.Matches[0].Path != f.path("dir/a.txt") {
			t.Errorf("grep %q = %+v, want the line of dir/a.txt", p, grep)
		}
	}

	// A symlink to a directory, with a /, is the directory for the tools
	// that read it.
	var info fileInfoOut
	c.ok(bridge.GetFileInfo, map[string]any{"path": "linkdir/"}, &info)
	if info.Type != "directory" || info.Path != f.path("linkdir") || info.Name != "linkdir" {
		t.Errorf("get_file_info linkdir/ = %+v, want the directory it leads to", info)
	}
	var grep grepOut
	c.ok(bridge.Grep, map[string]any{"pattern": "needle", "path": "linkdir/"}, &grep)
	if len(grep.Matches) != 1 {
		t.Errorf("grep linkdir/ = %+v, want the line of a.txt", grep)
	}
	// Moving or deleting it is refused: both act on the link itself.
	c.fail(bridge.DeleteFile, map[string]any{"path": "linkdir/", "recursive": true},
		f.path("linkdir")+"/", "not a directory", "symlink")
	c.fail(bridge.MoveFile, map[string]any{"source": "linkdir/", "destination": "moved"},
		f.path("linkdir")+"/", "not a directory", "symlink")
	f.mustExist(t, "linkdir")
	f.mustExist(t, "dir/a.txt", "needle\n")
	f.mustNotExist(t, "moved")

	// A missing path says so.
	c.fail(bridge.GetFileInfo, map[string]any{"path": "missing/"}, "stat "+f.path("missing"), "does not exist")
	c.fail(bridge.DeleteFile, map[string]any{"path": "missing/"}, "delete "+f.path("missing"), "does not exist")
	c.fail(bridge.MoveFile, map[string]any{"source": "missing/", "destination": "moved"}, "move "+f.path("missing"), "does not exist")

	// Directories are created, moved (to a destination with a / too) and
	// deleted.
	var created createOut
	c.ok(bridge.CreateDirectory, map[string]any{"path": "dir/new/"}, &created)
	f.mustExist(t, "dir/new")
	var moved moveOut
	c.ok(bridge.MoveFile, map[string]any{"source": "dir/sub/", "destination": "dir/moved/"}, &moved)
	if moved.Source != f.path("dir/sub") || moved.Destination != f.path("dir/moved") {
		t.Errorf("move_file dir/sub/ dir/moved/ = %+v", moved)
	}
	f.mustNotExist(t, "dir/sub")
	c.ok(bridge.MoveFile, map[string]any{"source": "dir/moved", "destination": "dir/again/"}, nil)
	var deleted deleteOut
	c.ok(bridge.DeleteFile, map[string]any{"path": "dir/again/"}, &deleted)
	if deleted.Type != "directory" {
		t.Errorf("delete_file dir/again/ = %+v, want type directory", deleted)
	}
	f.mustNotExist(t, "dir/again")
}

// A resource URI that ends in / names a directory: a file's is refused,
// for reading and for subscribing.
func TestResourceTrailingSlash(t *testing.T) {
	f := newFixture(t, false)
	f.writeFile(t, "file.txt", "keep\n")
	uri := fileURI(f.path("file.txt"))
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			c := connect(t, f.srv, era.version)
			for _, u := range []string{uri + "/", uri + "%2F", uri + "/."} {
				_, err := readResource(t, c, u)
				wantErr(t, "read "+u, err, u, "names a directory")
			}
		})
	}
	c := connect(t, f.srv, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	wantErr(t, "subscribe", subscribe(t, c, uri+"/"), uri+"/", "names a directory")
}
