package fsruntime_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcp-acpfs/mcp-acpfs/capabilities"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fspath"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/search"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
)

// hangGuard bounds an operation that must not block; it only catches a
// hang, and says nothing about speed.
const hangGuard = 10 * time.Second

// noHang runs f and fails the test if it does not return within hangGuard.
func noHang(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(hangGuard):
		t.Fatalf("%s blocked", what)
	}
}

// TestAbsFileURIs resolves file URIs and plain paths in this OS's syntax.
// The fixtures are written for Unix; on Windows, ostest.HostPath and hostURI put
// them on drive C:, and the names and hosts that only Windows treats
// otherwise are checked apart.
func TestAbsFileURIs(t *testing.T) {
	accepted := []struct{ p, want string }{
		{"file:///etc/passwd", "/etc/passwd"},
		{"file://localhost/w/a.txt", "/w/a.txt"},
		{"FILE://LocalHost/w/a.txt", "/w/a.txt"},
		{"file:///w/a%20b.txt", "/w/a b.txt"},
		{"file:///w/%E2%9C%93.txt", "/w/✓.txt"},
		{"file:///w/sub/%2e%2e/%2E%2E/outside", "/outside"},
		{"file:///w/sub%2F..%2F..%2Fetc", "/etc"},
		{"file:///w/100%25.txt", "/w/100%.txt"},
		// A plain path keeps % as a character.
		{"/w/%2e%2e/x", "/w/%2e%2e/x"},
		{"a%20b.txt", "/w/a%20b.txt"},
	}
	refused := []struct{ p, cause string }{
		{"file://user@localhost/etc/passwd", "user information"},
		{"file:///w/a.txt?x=1", "query"},
		{"file:///w/a.txt?", "query"},
		{"file:///w/a.txt#top", "fragment"},
		{"file:///w/a.txt#", "fragment"},
		{"file://localhost", "no absolute path"},
		{"file://", "no absolute path"},
		{"file:///w/a%00b", "NUL"},
		{"file:///w/%zz", "not a valid file:// URI"},
	}
	if runtime.GOOS == "windows" {
		// Another host names a share on it; a name keeps no colon (it
		// would name a stream) and no question mark.
		accepted = append(accepted,
			struct{ p, want string }{"file://evil.example/etc/passwd", `\\evil.example\etc\passwd`},
			struct{ p, want string }{"file://127.0.0.1/etc/passwd", `\\127.0.0.1\etc\passwd`})
		refused = append(refused,
			struct{ p, cause string }{"file:///w/a%3Fb%23c", "which Windows does not allow in a name"},
			struct{ p, cause string }{"file:", "alternate data stream"})
	} else {
		accepted = append(accepted,
			struct{ p, want string }{"file:///w/a%3Fb%23c", "/w/a?b#c"},
			struct{ p, want string }{"file:", "/w/file:"})
		refused = append(refused,
			struct{ p, cause string }{"file://evil.example/etc/passwd", `host "evil.example"`},
			struct{ p, cause string }{"file://127.0.0.1/etc/passwd", `host "127.0.0.1"`})
	}
	wd := ostest.HostPath("/w")
	// host puts a fixture on drive C: on Windows: a URI's path, a plain
	// absolute path, and a path that is absolute already is kept.
	host := func(p string) string {
		switch {
		case strings.HasPrefix(strings.ToLower(p), "file:"):
			return hostURI(p)
		case strings.HasPrefix(p, "/"):
			return ostest.HostPath(p)
		}
		return p
	}
	for _, tc := range accepted {
		p, want := host(tc.p), host(tc.want)
		got, err := fspath.Abs(wd, p)
		if err != nil || got != want {
			t.Errorf("Abs(%q) = %q, %v; want %q", p, got, err, want)
		}
	}
	for _, tc := range refused {
		p := host(tc.p)
		_, err := fspath.Abs(wd, p)
		pe, ok := errors.AsType[*fs.PathError](err)
		if !ok || pe.Path != p || !errors.Is(err, fs.ErrInvalid) || !strings.Contains(err.Error(), tc.cause) {
			t.Errorf("Abs(%q) = %v; want a *fs.PathError for the path as given, matching fs.ErrInvalid, naming %q", p, err, tc.cause)
		}
	}
}

// TestFileURIsAreConfined: a file:// URI is held to the roots like the
// path it names.
func TestFileURIsAreConfined(t *testing.T) {
	base, root, links := attackFixture(t)
	d := openDisk(t, fsruntime.DiskOptions{}, root)
	confined := func(t *testing.T, uris ...string) {
		t.Helper()
		for _, uri := range uris {
			p, err := fspath.Abs(root, uri)
			if err != nil {
				t.Fatalf("Abs(%q): %v", uri, err)
			}
			if got, err := d.ReadTextFile(t.Context(), p, 0, 0); !errors.Is(err, fsruntime.ErrOutsideRoots) {
				t.Errorf("read %s (%s) = %q, %v; want outside the roots", uri, p, got, err)
			}
		}
	}
	confined(t,
		fspath.FileURI(filepath.Join(base, "outside/secret.txt")),
		"file://localhost"+uriPath(filepath.Join(base, "outside/secret.txt")),
		fspath.FileURI(root)+"/%2e%2e/outside/secret.txt",
		fspath.FileURI(root)+"%2F..%2Foutside%2Fsecret.txt",
		hostURI("file:///etc/passwd"),
	)
	t.Run("symlink", func(t *testing.T) {
		ostest.SkipWithoutSymlinks(t, links)
		confined(t, fspath.FileURI(filepath.Join(root, "link_file")))
	})
	p, err := fspath.Abs(ostest.HostPath("/elsewhere"), fspath.FileURI(filepath.Join(root, "sub/ok.txt")))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := d.ReadTextFile(t.Context(), p, 0, 0); err != nil || got != "ok\n" {
		t.Errorf("read through a file:// URI inside the root = %q, %v", got, err)
	}
}

func TestLongPathsAndNames(t *testing.T) {
	dir := realTempDir(t)
	d := openDisk(t, fsruntime.DiskOptions{}, dir)
	long := strings.Repeat("n", 256)
	deep := dir + strings.Repeat(string(filepath.Separator)+strings.Repeat("d", 200), 21) // > 4096 bytes, every name short
	for _, tc := range []struct{ p, cause string }{
		{filepath.Join(dir, long), "NAME_MAX"},
		{filepath.Join(dir, long, "x.txt"), "NAME_MAX"},
		{filepath.Join(deep, "x.txt"), "PATH_MAX"},
	} {
		if _, err := fspath.Abs(dir, tc.p); !errors.Is(err, fs.ErrInvalid) || !strings.Contains(err.Error(), tc.cause) {
			t.Errorf("Abs(%.40q...) = %v; want fs.ErrInvalid naming %s", tc.p, err, tc.cause)
		}
		ops := map[string]error{}
		_, ops["read"] = d.ReadTextFile(t.Context(), tc.p, 0, 0)
		ops["write"] = d.WriteTextFile(t.Context(), tc.p, "x")
		ops["mkdir"] = d.MkdirAll(t.Context(), tc.p)
		_, ops["stat"] = d.Stat(t.Context(), tc.p)
		ops["check"] = d.Check(tc.p)
		for op, err := range ops {
			if !errors.Is(err, fs.ErrInvalid) || !strings.Contains(err.Error(), tc.cause) {
				t.Errorf("%s %.40q...: err = %v; want fs.ErrInvalid naming %s", op, tc.p, err, tc.cause)
			}
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("refused writes left %v", entries)
	}
	// At the limits, it works.
	name := filepath.Join(dir, strings.Repeat("n", 255))
	if err := d.WriteTextFile(t.Context(), name, "max\n"); err != nil {
		t.Errorf("write a 255-byte name: %v", err)
	}
	// The file system's own refusal names the cause too: a symlink that
	// stays short while its target does not.
	t.Run("symlink", func(t *testing.T) {
		ostest.NeedSymlinks(t, dir)
		if err := os.Symlink(strings.Repeat("t", 300), filepath.Join(dir, "to-long")); err != nil {
			t.Fatal(err)
		}
		if _, err := d.ReadTextFile(t.Context(), filepath.Join(dir, "to-long"), 0, 0); !errors.Is(err, fs.ErrInvalid) || !strings.Contains(err.Error(), "too long") {
			t.Errorf("read through a link to a long name: %v; want fs.ErrInvalid saying it is too long", err)
		}
	})
}

// hardLinkFixture lays out a root with a hard link to a file outside it,
// one to a file inside it (so in.txt has two names too), a plain file,
// and, where working symlinks can be made, a symlink to the first: links
// is nil if it was made, or says why it could not be (ostest.NoSymlinks).
func hardLinkFixture(t *testing.T) (base, root string, links error) {
	t.Helper()
	base = realTempDir(t)
	root = filepath.Join(base, "root")
	writeFile(t, filepath.Join(root, "in.txt"), "inside\n")
	writeFile(t, filepath.Join(root, "plain.txt"), "plain inside\n")
	writeFile(t, filepath.Join(base, "outside/secret.txt"), "outside secret\n")
	for link, target := range map[string]string{"hl-out.txt": filepath.Join(base, "outside/secret.txt"), "hl-in.txt": filepath.Join(root, "in.txt")} {
		if err := os.Link(target, filepath.Join(root, link)); err != nil {
			t.Skipf("no hard links here: %v", err)
		}
	}
	if links = ostest.NoSymlinks(t, base); links != nil {
		return base, root, links
	}
	if err := os.Symlink("hl-out.txt", filepath.Join(root, "sym-to-hl")); err != nil {
		t.Fatal(err)
	}
	return base, root, nil
}

// contentOps are the Disk operations on a file's content, each returning
// its error and what it let through.
var contentOps = map[string]func(ctx context.Context, d *fsruntime.Disk, p string) (error, string){
	"read": func(ctx context.Context, d *fsruntime.Disk, p string) (error, string) {
		s, err := d.ReadTextFile(ctx, p, 0, 0)
		return err, s
	},
	"read range": func(ctx context.Context, d *fsruntime.Disk, p string) (error, string) {
		s, err := d.ReadTextFile(ctx, p, 1, 1)
		return err, s
	},
	"read with hash": func(ctx context.Context, d *fsruntime.Disk, p string) (error, string) {
		s, sum, err := d.ReadTextFileHash(ctx, p, 0, 0)
		return err, s + sum
	},
	"write": func(ctx context.Context, d *fsruntime.Disk, p string) (error, string) {
		return d.WriteTextFile(ctx, p, "pwned\n"), ""
	},
	"read media": func(ctx context.Context, d *fsruntime.Disk, p string) (error, string) {
		b, err := d.ReadFile(ctx, p, 0)
		return err, string(b)
	},
	"hash": func(ctx context.Context, d *fsruntime.Disk, p string) (error, string) {
		sum, err := d.HashTextFile(ctx, p)
		return err, sum
	},
	"open": func(ctx context.Context, d *fsruntime.Disk, p string) (error, string) {
		f, _, err := d.OpenFile(ctx, p)
		if err != nil {
			return err, ""
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		return nil, string(b)
	},
	"open in its directory": func(ctx context.Context, d *fsruntime.Disk, p string) (error, string) {
		dir, err := d.OpenDir(ctx, filepath.Dir(p))
		if err != nil {
			return err, ""
		}
		defer dir.Close()
		f, _, err := dir.OpenFile(ctx, filepath.Base(p))
		if err != nil {
			return err, ""
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		return nil, string(b)
	},
	"grep": func(ctx context.Context, d *fsruntime.Disk, p string) (error, string) {
		res, err := search.Grep(ctx, d, p, search.GrepOptions{Pattern: "."})
		var out []string
		for _, m := range res.Matches {
			out = append(out, m.Text)
		}
		return err, strings.Join(out, "\n")
	},
	"check": func(_ context.Context, d *fsruntime.Disk, p string) (error, string) {
		return d.Check(p), ""
	},
}

func TestDiskRefusesHardLinks(t *testing.T) {
	base, root, links := hardLinkFixture(t)
	d := openDisk(t, fsruntime.DiskOptions{}, root)
	outside := fsruntimetest.Tree(t, filepath.Join(base, "outside"))
	refused := func(t *testing.T, names ...string) {
		t.Helper()
		for _, name := range names {
			p := filepath.Join(root, name)
			for op, run := range contentOps {
				err, leaked := run(t.Context(), d, p)
				if leaked != "" {
					t.Errorf("%s %s let through %q", op, name, leaked)
				}
				pe, ok := errors.AsType[*fs.PathError](err)
				if !ok || pe.Path != p || !errors.Is(err, fsruntime.ErrHardLinked) || !errors.Is(err, fs.ErrPermission) ||
					!strings.Contains(err.Error(), "2 names (hard links)") {
					t.Errorf("%s %s: err = %v; want ErrHardLinked, fs.ErrPermission, naming the path and the links", op, name, err)
				}
			}
		}
	}
	refused(t, "hl-out.txt", "hl-in.txt", "in.txt")
	t.Run("through a symlink", func(t *testing.T) {
		ostest.SkipWithoutSymlinks(t, links)
		refused(t, "sym-to-hl")
	})
	// A search of the directory leaves them out, and says so.
	res, err := search.Grep(t.Context(), d, root, search.GrepOptions{Pattern: "secret|inside"})
	if err != nil || len(res.Matches) != 1 || res.Matches[0].Path != filepath.Join(root, "plain.txt") || res.SkippedUnreadable != 3 {
		t.Errorf("grep of the root = %+v, %v; want only plain.txt's line, and the three hard-linked files skipped", res, err)
	}
	// What does not touch the content still works on the name: it is
	// inside the root.
	if info, err := d.Stat(t.Context(), filepath.Join(root, "hl-out.txt")); err != nil || info.Type != fsruntime.TypeFile {
		t.Errorf("stat = %+v, %v", info, err)
	}
	if err := d.Move(t.Context(), filepath.Join(root, "hl-out.txt"), filepath.Join(root, "moved.txt"), false); err != nil {
		t.Errorf("move: %v", err)
	}
	if _, err := d.ReadTextFile(t.Context(), filepath.Join(root, "moved.txt"), 0, 0); !errors.Is(err, fsruntime.ErrHardLinked) {
		t.Errorf("read after the move: %v; want still refused", err)
	}
	if err := d.Remove(t.Context(), filepath.Join(root, "moved.txt"), false); err != nil {
		t.Errorf("remove: %v", err)
	}
	if after := fsruntimetest.Tree(t, filepath.Join(base, "outside")); !maps.Equal(outside, after) {
		t.Errorf("outside changed:\n%v\n->\n%v", outside, after)
	}
	// A file that has one name again is no longer refused.
	if err := os.Remove(filepath.Join(root, "hl-in.txt")); err != nil {
		t.Fatal(err)
	}
	if got, err := d.ReadTextFile(t.Context(), filepath.Join(root, "in.txt"), 0, 0); err != nil || got != "inside\n" {
		t.Errorf("read in.txt = %q, %v", got, err)
	}
}

func TestDiskAllowHardLinks(t *testing.T) {
	base, root, _ := hardLinkFixture(t)
	d := openDisk(t, fsruntime.DiskOptions{AllowHardLinks: true}, root)
	if got, err := d.ReadTextFile(t.Context(), filepath.Join(root, "hl-in.txt"), 0, 0); err != nil || got != "inside\n" {
		t.Errorf("read = %q, %v", got, err)
	}
	if err := d.Check(filepath.Join(root, "hl-out.txt")); err != nil {
		t.Errorf("check = %v", err)
	}
	// Narrowed roots keep the option.
	n, err := d.Narrow([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if _, err := n.HashTextFile(t.Context(), filepath.Join(root, "hl-in.txt")); err != nil {
		t.Errorf("hash in narrowed roots = %v", err)
	}
	// A write replaces the name, as ever: the other name keeps its content.
	if err := d.WriteTextFile(t.Context(), filepath.Join(root, "hl-out.txt"), "new\n"); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(base, "outside/secret.txt")); got != "outside secret\n" {
		t.Errorf("the outside name now holds %q", got)
	}
}

func TestDiskMoveAcrossFileSystemsRefusesHardLinks(t *testing.T) {
	base, root, _ := hardLinkFixture(t)
	other := ostest.OtherFileSystemDir(t, root)
	d := openDisk(t, fsruntime.DiskOptions{}, root, other)
	err := d.Move(t.Context(), filepath.Join(root, "hl-out.txt"), filepath.Join(other, "copy.txt"), false)
	if !errors.Is(err, fsruntime.ErrHardLinked) || !strings.Contains(err.Error(), filepath.Join(root, "hl-out.txt")) {
		t.Errorf("move a hard-linked file across file systems = %v; want ErrHardLinked naming it", err)
	}
	if _, err := os.Lstat(filepath.Join(other, "copy.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the content was copied: %v", err)
	}
	if got := readFile(t, filepath.Join(base, "outside/secret.txt")); got != "outside secret\n" {
		t.Errorf("outside = %q", got)
	}
}

// TestRouterRefusesHardLinksBeforeTheEditor: with reads and writes routed
// to the editor, a hard-linked file is refused by the roots check, and the
// editor is never asked.
func TestRouterRefusesHardLinksBeforeTheEditor(t *testing.T) {
	_, root, links := hardLinkFixture(t)
	ed := &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS()}
	ed.Buffers.Set(filepath.Join(root, "hl-out.txt"), "a buffer\n")
	var client capabilities.Client
	client.FS.ReadTextFile, client.FS.WriteTextFile = true, true
	r := fsruntime.NewRouter(fsruntime.RouterOptions{
		Disk:   openDisk(t, fsruntime.DiskOptions{}, root),
		Editor: fsruntime.NewEditor(dialFakeEditor(t, ed), fsruntime.EditorOptions{SessionID: fixedSession("s")}),
		Client: client,
	})
	refused := func(t *testing.T, name string) {
		t.Helper()
		p := filepath.Join(root, name)
		if _, err := r.ReadTextFile(t.Context(), p, 0, 0); !errors.Is(err, fsruntime.ErrHardLinked) {
			t.Errorf("read %s = %v", name, err)
		}
		if err := r.WriteTextFile(t.Context(), p, "x"); !errors.Is(err, fsruntime.ErrHardLinked) {
			t.Errorf("write %s = %v", name, err)
		}
		if _, err := r.HashTextFile(t.Context(), p); !errors.Is(err, fsruntime.ErrHardLinked) {
			t.Errorf("hash %s = %v", name, err)
		}
	}
	refused(t, "hl-out.txt")
	t.Run("through a symlink", func(t *testing.T) {
		ostest.SkipWithoutSymlinks(t, links)
		refused(t, "sym-to-hl")
	})
	if calls := ed.Requests(); len(calls) != 0 {
		t.Errorf("the editor was asked about hard-linked files: %v", calls)
	}
}

// TestSymlinkSwappedInBetweenCalls: a file that was read is replaced by a
// symlink that leads out, and a directory by a symlink to an outside
// directory; every later call is refused, as os.Root resolves each path
// anew at each operation.
func TestSymlinkSwappedInBetweenCalls(t *testing.T) {
	base, root := linkAttackFixture(t)
	writeFile(t, filepath.Join(root, "sub/victim.txt"), "victim\n")
	d := openDisk(t, fsruntime.DiskOptions{}, root)
	outside := fsruntimetest.Tree(t, filepath.Join(base, "outside"))
	p := filepath.Join(root, "sub/victim.txt")
	if got, err := d.ReadTextFile(t.Context(), p, 0, 0); err != nil || got != "victim\n" {
		t.Fatalf("first read = %q, %v", got, err)
	}
	// Swap atomically: a link made beside it is renamed over it.
	swap := func(target, at string) {
		t.Helper()
		tmp := at + ".swap"
		if err := os.Symlink(target, tmp); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, at); err != nil {
			t.Fatal(err)
		}
	}
	swap(filepath.Join(base, "outside/secret.txt"), p)
	for op, run := range contentOps {
		if err, leaked := run(t.Context(), d, p); !errors.Is(err, fsruntime.ErrOutsideRoots) || leaked != "" {
			t.Errorf("%s after the swap = %v, %q; want outside the roots", op, err, leaked)
		}
	}
	// The directory itself.
	if err := os.RemoveAll(filepath.Join(root, "sub")); err != nil {
		t.Fatal(err)
	}
	swap(filepath.Join(base, "outside"), filepath.Join(root, "sub"))
	for op, run := range contentOps {
		if err, leaked := run(t.Context(), d, filepath.Join(root, "sub/secret.txt")); !errors.Is(err, fsruntime.ErrOutsideRoots) || leaked != "" {
			t.Errorf("%s through the swapped directory = %v, %q; want outside the roots", op, err, leaked)
		}
	}
	if err := d.WriteTextFile(t.Context(), filepath.Join(root, "sub/new.txt"), "x"); !errors.Is(err, fsruntime.ErrOutsideRoots) {
		t.Errorf("write a new file in the swapped directory = %v", err)
	}
	if err := d.MkdirAll(t.Context(), filepath.Join(root, "sub/newdir")); !errors.Is(err, fsruntime.ErrOutsideRoots) {
		t.Errorf("mkdir in the swapped directory = %v", err)
	}
	if after := fsruntimetest.Tree(t, filepath.Join(base, "outside")); !maps.Equal(outside, after) {
		t.Errorf("outside changed:\n%v\n->\n%v", outside, after)
	}
}
