package mcpfs_test

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpfstest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

// realTemp is a new temporary directory by its real path.
func realTemp(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestHomePathsOutsideTheRoots: a leading ~ is the user's home directory,
// and the roots apply to it; an error names the path as written and as
// expanded. Nothing named ~ appears in the root.
func TestHomePathsOutsideTheRoots(t *testing.T) {
	home := realTemp(t)
	if err := os.WriteFile(filepath.Join(home, "notes.txt"), []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	f := mcpfstest.NewFixture(t, false)
	f.WriteFile(t, "in.txt", "in\n")
	c := mcpfstest.Connect(t, f.Srv, mcpfstest.Eras[0].Version)
	notes := filepath.Join(home, "notes.txt")

	mcpfstest.WantError(t, mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": "~/notes.txt"}),
		"read ~/notes.txt ("+notes+"): ", "outside the allowed roots ("+f.Dir+")")
	mcpfstest.WantError(t, mcpfstest.Call(t, c, mcpfs.WriteTextFile, map[string]any{"path": "~/new.txt", "content": "x"}),
		"write ~/new.txt ("+filepath.Join(home, "new.txt")+"): ", "outside the allowed roots")
	mcpfstest.WantError(t, mcpfstest.Call(t, c, mcpfs.ListDirectory, map[string]any{"path": "~"}),
		"~ ("+home+"): ", "outside the allowed roots")
	mcpfstest.WantError(t, mcpfstest.Call(t, c, mcpfs.Grep, map[string]any{"path": "~/", "pattern": "secret"}),
		"~/ ("+home+"): ", "outside the allowed roots")
	mcpfstest.WantError(t, mcpfstest.Call(t, c, mcpfs.MoveFile, map[string]any{"source": "in.txt", "destination": "~/stolen.txt"}),
		"~/stolen.txt ("+filepath.Join(home, "stolen.txt")+"): ", "outside the allowed roots")
	if _, err := os.Lstat(f.Path("~")); err == nil {
		t.Error("a ~ was made in the root")
	}
	if _, err := os.Lstat(filepath.Join(home, "stolen.txt")); err == nil {
		t.Error("a file was moved to the home directory, outside the roots")
	}

	// ~user/ is a name, as is a ~ that does not start the path.
	mcpfstest.WantOK(t, mcpfstest.Call(t, c, mcpfs.WriteTextFile, map[string]any{"path": "~user/x.txt", "content": "x"}))
	mcpfstest.WantOK(t, mcpfstest.Call(t, c, mcpfs.WriteTextFile, map[string]any{"path": "sub/~/x.txt", "content": "x"}))
	for _, rel := range []string{"~user/x.txt", "sub/~/x.txt"} {
		if _, err := os.Stat(f.Path(rel)); err != nil {
			t.Errorf("%s was not written in the root: %v", rel, err)
		}
	}
}

// TestHomePathsInsideTheRoots: a home directory inside the roots is used
// as any path there.
func TestHomePathsInsideTheRoots(t *testing.T) {
	f := mcpfstest.NewFixture(t, false)
	home := f.Path("home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	srv, err := mcpfs.NewServer(mcpfs.DiskFiles(f.Disk, false), mcpfs.Options{Tools: mcpfstest.Structured, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	c := mcpfstest.Connect(t, srv, mcpfstest.Eras[0].Version)

	mcpfstest.WantOK(t, mcpfstest.Call(t, c, mcpfs.WriteTextFile, map[string]any{"path": "~/notes.txt", "content": "mine\n"}))
	if got := mcpfstest.WantOK(t, mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": f.Path("home/notes.txt")})); got != "mine\n" {
		t.Errorf("home/notes.txt holds %q", got)
	}
	if got := mcpfstest.WantOK(t, mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": "~/notes.txt"})); got != "mine\n" {
		t.Errorf("read ~/notes.txt = %q", got)
	}
	mcpfstest.WantError(t, mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": "~/missing.txt"}),
		"read ~/missing.txt ("+f.Path("home/missing.txt")+"): ")
	mcpfstest.WantError(t, mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": "~/"}),
		"~/", "names a directory", "(the path must name a file")
}

// TestFileURIWithOneSlash: file:/abs is a file URI (RFC 8089), not a
// directory named file: in the working directory. On Windows the short
// form is file:/C:/abs.
func TestFileURIWithOneSlash(t *testing.T) {
	f := mcpfstest.NewFixture(t, false)
	c := mcpfstest.Connect(t, f.Srv, mcpfstest.Eras[0].Version)
	mcpfstest.WantOK(t, mcpfstest.Call(t, c, mcpfs.WriteTextFile, map[string]any{"path": "file:" + mcpfstest.URIPath(f.Path("a.txt")), "content": "a\n"}))
	if got := mcpfstest.WantOK(t, mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": f.Path("a.txt")})); got != "a\n" {
		t.Errorf("a.txt holds %q", got)
	}
	passwd := ostest.HostPath("/etc/passwd")
	mcpfstest.WantError(t, mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": "file:" + mcpfstest.URIPath(passwd)}),
		"read "+passwd+": ", "outside the allowed roots")
	if _, err := os.Lstat(f.Path("file:")); err == nil {
		t.Error("a directory named file: was made")
	}
}
