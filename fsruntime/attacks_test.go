package fsruntime_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/capabilities"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fspath"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/search"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
)

// attackFixture lays out a root with a prefix sibling and an outside
// directory next to it, and, where working symlinks can be made,
// symlinks inside the root that lead out: links is nil if they were made,
// or says why none could be (ostest.NoSymlinks).
func attackFixture(t *testing.T) (base, root string, links error) {
	t.Helper()
	base = realTempDir(t)
	links = ostest.NoSymlinks(t, base)
	root = filepath.Join(base, "root")
	writeFile(t, filepath.Join(root, "sub/ok.txt"), "ok\n")
	writeFile(t, filepath.Join(base, "root_backup/secret.txt"), "sibling secret\n")
	writeFile(t, filepath.Join(base, "outside/secret.txt"), "outside secret\n")
	if links != nil {
		return base, root, links
	}
	targets := map[string]string{
		"link_file":    filepath.Join(base, "outside/secret.txt"),
		"link_dir":     filepath.Join(base, "outside"),
		"link_rel":     "../outside/secret.txt",
		"chain1":       "chain2",
		"chain2":       "../outside",
		"dangling_out": filepath.Join(base, "outside/new.txt"),
		"parent_link":  filepath.Join(base, "outside"),
		"proc_root":    "/proc/self/root",
		"dev_zero":     "/dev/zero",
		"inner_ok":     "sub/ok.txt",
		"sub/up_ok":    "../sub/ok.txt",
		"loop_a":       "loop_b",
		"loop_b":       "loop_a",
	}
	for name, target := range targets {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	return base, root, nil
}

// linkAttackFixture is attackFixture for a test of what its symlinks
// lead to: it skips the test where they cannot be made.
func linkAttackFixture(t *testing.T) (base, root string) {
	t.Helper()
	base, root, links := attackFixture(t)
	ostest.SkipWithoutSymlinks(t, links)
	return base, root
}

// snapshot records every file under dir with its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			m[p] = string(b)
		}
		return nil
	})
	return m
}

// pathAttacks returns paths that every operation must refuse, absolute or
// relative to the root of attackFixture (resolve them with fspath.Abs):
// outside it lexically, through a prefix sibling or "..", or not a path
// at all; linkAttacks add those through its symlinks. Where names are
// case-sensitive, the root written in another case is another directory.
func pathAttacks(base, root string) []string {
	attacks := []string{
		filepath.Join(base, "root_backup/secret.txt"),
		filepath.Join(base, "root_backup"),
		filepath.Join(base, "rootx"),
		filepath.Join(base, "outside/secret.txt"),
		"/etc/passwd",
		"/proc/self/root/etc/passwd",
		"../outside/secret.txt",
		"../root_backup/secret.txt",
		"sub/../../outside/secret.txt",
		"./../outside/secret.txt",
		"sub/../../root_backup/secret.txt",
		root + "/../outside/secret.txt",
		root + "/sub/../../outside/secret.txt",
		root + "//..//outside/secret.txt",
		"sub/\x00/ok.txt",
		"ok.txt\x00",
		fspath.FileURI(filepath.Join(base, "outside/secret.txt")),
		"file://localhost" + uriPath(root) + "/%2e%2e/outside/secret.txt",
		"file://" + uriPath(root) + "/sub%2F..%2F..%2Froot_backup/secret.txt",
		"file:" + uriPath(filepath.Join(base, "outside/secret.txt")),
		"file:" + uriPath(root) + "/../root_backup/secret.txt",
		"FILE:" + uriPath(root) + "/%2e%2e/outside/secret.txt",
	}
	if runtime.GOOS != "darwin" && runtime.GOOS != "windows" { // names match byte for byte
		attacks = append(attacks, filepath.Join(strings.ToUpper(root), "sub/ok.txt"), filepath.Join(base, "ROOT/sub/ok.txt"), filepath.Join(base, "Root"))
	}
	return attacks
}

// linkAttacks are the paths, relative to the root of attackFixture, that
// every operation must refuse because a symlink on the way leads out of
// the root, or loops. Those in finalLinks end in such a symlink: an
// operation that acts on a link itself (Stat, Move, Remove) may act on
// them, and must touch only the link.
var linkAttacks = []string{
	"link_file",
	"link_dir/secret.txt",
	"link_dir/new.txt",
	"link_rel",
	"chain1/secret.txt",
	"dangling_out",
	"parent_link/new.txt",
	"parent_link/deeper/new.txt",
	"proc_root/etc/passwd",
	"dev_zero",
	"loop_a",
}

func TestDiskRefusesPathAttacks(t *testing.T) {
	base, root, links := attackFixture(t)
	d := openDisk(t, fsruntime.DiskOptions{}, root)
	before := snapshot(t, filepath.Join(base, "outside"))
	beforeSibling := snapshot(t, filepath.Join(base, "root_backup"))
	try := func(t *testing.T, attacks []string) {
		t.Helper()
		tried := 0
		for _, attack := range attacks {
			for _, op := range []string{"read", "write"} {
				tried++
				abs, err := fspath.Abs(root, attack)
				if err == nil {
					if op == "read" {
						var got string
						got, err = d.ReadTextFile(t.Context(), abs, 0, 0)
						if strings.Contains(got, "secret") {
							t.Errorf("read %q leaked %q", attack, got)
						}
					} else {
						err = d.WriteTextFile(t.Context(), abs, "pwned\n")
					}
				}
				if err == nil {
					t.Errorf("%s %q succeeded", op, attack)
					continue
				}
				var pe *fs.PathError
				if !errors.As(err, &pe) {
					t.Errorf("%s %q: error %v is not a *fs.PathError", op, attack, err)
				}
				if !errors.Is(err, fsruntime.ErrOutsideRoots) && !errors.Is(err, fs.ErrInvalid) {
					t.Errorf("%s %q: err = %v, want outside roots or invalid", op, attack, err)
				}
			}
		}
		t.Logf("%d path attacks tried, all refused", tried)
	}
	try(t, pathAttacks(base, root))
	t.Run("symlinks", func(t *testing.T) {
		ostest.SkipWithoutSymlinks(t, links)
		try(t, linkAttacks)
		// Links that stay inside the root work.
		for _, ok := range []string{"inner_ok", "sub/up_ok", "sub/ok.txt"} {
			abs, _ := fspath.Abs(root, ok)
			if got, err := d.ReadTextFile(t.Context(), abs, 0, 0); err != nil || got != "ok\n" {
				t.Errorf("read %s = %q, %v", ok, got, err)
			}
		}
		// A dangling link inside the root is written through to its target.
		if err := os.Symlink("sub/created.txt", filepath.Join(root, "dangling_in")); err != nil {
			t.Fatal(err)
		}
		if err := d.WriteTextFile(t.Context(), filepath.Join(root, "dangling_in"), "made\n"); err != nil {
			t.Fatalf("write through a dangling link inside the root: %v", err)
		}
		if got := readFile(t, filepath.Join(root, "sub/created.txt")); got != "made\n" {
			t.Errorf("dangling link target = %q", got)
		}
	})
	if after := snapshot(t, filepath.Join(base, "outside")); !equalMaps(before, after) {
		t.Errorf("outside directory changed: %v -> %v", before, after)
	}
	if after := snapshot(t, filepath.Join(base, "root_backup")); !equalMaps(beforeSibling, after) {
		t.Errorf("sibling directory changed: %v -> %v", beforeSibling, after)
	}
}

func TestDiskOutsideErrorNamesPathAndRoots(t *testing.T) {
	base, root, links := attackFixture(t)
	d := openDisk(t, fsruntime.DiskOptions{}, root)
	p := filepath.Join(base, "root_backup/secret.txt")
	_, err := d.ReadTextFile(t.Context(), p, 0, 0)
	want := "read " + p + ": outside the allowed roots (" + root + ")"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if !errors.Is(err, fs.ErrPermission) {
		t.Errorf("outside roots does not match fs.ErrPermission")
	}
	// The same holds when a symlink is what leads out.
	t.Run("symlinks", func(t *testing.T) {
		ostest.SkipWithoutSymlinks(t, links)
		_, err = d.ReadTextFile(t.Context(), filepath.Join(root, "link_file"), 0, 0)
		if !errors.Is(err, fsruntime.ErrOutsideRoots) || !strings.Contains(err.Error(), filepath.Join(root, "link_file")) {
			t.Errorf("symlink escape: err = %v", err)
		}
	})
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// finalLinks are the attacks (with a few more) whose last component is a
// symlink in the root that leads out or loops.
var finalLinks = []string{"link_file", "link_rel", "dangling_out", "dev_zero", "loop_a", "link_dir", "parent_link", "chain1", "proc_root"}

// fullFS is an FS with every optional interface, as Disk and Router are.
type fullFS interface {
	fsruntime.FS
	fsruntime.StatFS
	fsruntime.DirFS
	fsruntime.WalkFS
	fsruntime.MoveFS
	fsruntime.BinaryFS
	fsruntime.HashFS
}

// An extAttack is one operation of the optional interfaces, tried on a
// path. It returns the operation's error and anything it let through.
type extAttack struct {
	name string
	// link: the operation acts on a final symlink itself, so the
	// finalLinks are not attacks for it.
	link bool
	run  func(ctx context.Context, fsys fullFS, root, p string) (err error, leaked string)
}

var extAttacks = []extAttack{
	{"stat", true, func(ctx context.Context, fsys fullFS, _, p string) (error, string) {
		info, err := fsys.Stat(ctx, p)
		if err == nil {
			return nil, fmt.Sprintf("%+v", info)
		}
		return err, ""
	}},
	{"readdir", false, func(ctx context.Context, fsys fullFS, _, p string) (error, string) {
		entries, _, err := fsys.ReadDir(ctx, p, 0)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name)
		}
		return err, strings.Join(names, " ")
	}},
	{"mkdir", false, func(ctx context.Context, fsys fullFS, _, p string) (error, string) {
		return fsys.MkdirAll(ctx, p), ""
	}},
	{"walk", false, func(ctx context.Context, fsys fullFS, _, p string) (error, string) {
		var seen []string
		err := fsys.Walk(ctx, p, func(path string, info fsruntime.FileInfo, err error) error {
			if err == nil {
				seen = append(seen, path)
			}
			return err
		})
		return err, strings.Join(seen, " ")
	}},
	{"move from", true, func(ctx context.Context, fsys fullFS, root, p string) (error, string) {
		dst := filepath.Join(root, "sub/moved-here")
		err := fsys.Move(ctx, p, dst, false)
		if _, lerr := os.Lstat(dst); lerr == nil {
			os.RemoveAll(dst)
			return err, "something was moved in"
		}
		return err, ""
	}},
	{"move to", true, func(ctx context.Context, fsys fullFS, root, p string) (error, string) {
		victim := filepath.Join(root, "sub/victim.txt")
		os.WriteFile(victim, []byte("victim\n"), 0o644)
		defer os.Remove(victim)
		err := fsys.Move(ctx, victim, p, false)
		if _, lerr := os.Lstat(victim); lerr != nil {
			return err, "the source was moved out"
		}
		return err, ""
	}},
	{"move over", true, func(ctx context.Context, fsys fullFS, root, p string) (error, string) {
		victim := filepath.Join(root, "sub/victim.txt")
		os.WriteFile(victim, []byte("victim\n"), 0o644)
		defer os.Remove(victim)
		err := fsys.Move(ctx, victim, p, true)
		if _, lerr := os.Lstat(victim); lerr != nil {
			return err, "the source was moved out"
		}
		return err, ""
	}},
	{"remove", true, func(ctx context.Context, fsys fullFS, _, p string) (error, string) {
		return fsys.Remove(ctx, p, false), ""
	}},
	{"remove recursive", true, func(ctx context.Context, fsys fullFS, _, p string) (error, string) {
		return fsys.Remove(ctx, p, true), ""
	}},
	{"readfile", false, func(ctx context.Context, fsys fullFS, _, p string) (error, string) {
		b, err := fsys.ReadFile(ctx, p, 0)
		return err, string(b)
	}},
	{"hash", false, func(ctx context.Context, fsys fullFS, _, p string) (error, string) {
		h, err := fsys.HashTextFile(ctx, p)
		return err, h
	}},
}

// extLinkAttacks are linkAttacks with a few more, for the optional
// operations: the links that lead to a directory outside.
var extLinkAttacks = append(slices.Clip(linkAttacks), "link_dir", "parent_link", "chain1", "proc_root")

// runExtAttacks tries every extAttack on every attack path (pathAttacks,
// or extLinkAttacks) against fsys, and checks that each is refused with an
// error naming the path, and that nothing outside the root, nor inside it,
// changed.
func runExtAttacks(t *testing.T, fsys fullFS, base, root string, attacks []string) int {
	t.Helper()
	outside, sibling, inside := fsruntimetest.Tree(t, filepath.Join(base, "outside")), fsruntimetest.Tree(t, filepath.Join(base, "root_backup")), fsruntimetest.Tree(t, root)
	tried := 0
	for _, op := range extAttacks {
		for _, attack := range attacks {
			if op.link && slices.Contains(finalLinks, attack) {
				continue // see TestDiskActsOnLinksThatLeadOut
			}
			p, err := fspath.Abs(root, attack)
			if err != nil {
				p = root + string(filepath.Separator) + attack // give the FS the NUL itself
			}
			tried++
			err, leaked := op.run(t.Context(), fsys, root, p)
			if leaked != "" {
				t.Errorf("%s %q let through %q", op.name, attack, leaked)
			}
			if err == nil {
				t.Errorf("%s %q succeeded", op.name, attack)
				continue
			}
			if !errors.Is(err, fsruntime.ErrOutsideRoots) && !errors.Is(err, fs.ErrInvalid) {
				t.Errorf("%s %q: err = %v, want outside roots or invalid", op.name, attack, err)
			}
			if pe, ok := errors.AsType[*fs.PathError](err); !ok || pe.Path != p {
				t.Errorf("%s %q: err = %v, want a *fs.PathError naming %q", op.name, attack, err, p)
			}
		}
	}
	if after := fsruntimetest.Tree(t, filepath.Join(base, "outside")); !maps.Equal(outside, after) {
		t.Errorf("outside directory changed:\n%v\n->\n%v", outside, after)
	}
	if after := fsruntimetest.Tree(t, filepath.Join(base, "root_backup")); !maps.Equal(sibling, after) {
		t.Errorf("sibling directory changed:\n%v\n->\n%v", sibling, after)
	}
	if after := fsruntimetest.Tree(t, root); !maps.Equal(inside, after) {
		t.Errorf("refused operations changed the root:\n%v\n->\n%v", inside, after)
	}
	return tried
}

func TestDiskRefusesPathAttacksExt(t *testing.T) {
	base, root, links := attackFixture(t)
	d := openDisk(t, fsruntime.DiskOptions{}, root)
	tried := runExtAttacks(t, d, base, root, pathAttacks(base, root))
	t.Logf("%d path attacks on the optional operations tried, all refused", tried)
	t.Run("symlinks", func(t *testing.T) {
		ostest.SkipWithoutSymlinks(t, links)
		tried := runExtAttacks(t, d, base, root, extLinkAttacks)
		t.Logf("%d attacks through symlinks on the optional operations tried, all refused", tried)
	})
}

func TestRouterRefusesPathAttacksExt(t *testing.T) {
	base, root, links := attackFixture(t)
	ed := &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS()}
	var client capabilities.Client
	client.FS.ReadTextFile, client.FS.WriteTextFile = true, true
	r := fsruntime.NewRouter(fsruntime.RouterOptions{
		Disk:   openDisk(t, fsruntime.DiskOptions{}, root),
		Editor: fsruntime.NewEditor(dialFakeEditor(t, ed), fsruntime.EditorOptions{SessionID: fixedSession("s")}),
		Client: client,
	})
	tried := runExtAttacks(t, r, base, root, pathAttacks(base, root))
	t.Logf("%d path attacks on the optional operations tried, all refused", tried)
	t.Run("symlinks", func(t *testing.T) {
		ostest.SkipWithoutSymlinks(t, links)
		tried := runExtAttacks(t, r, base, root, extLinkAttacks)
		t.Logf("%d attacks through symlinks on the optional operations tried, all refused", tried)
	})
	if calls := ed.Requests(); len(calls) != 0 {
		t.Errorf("the editor was sent paths outside the roots: %v", calls)
	}
}

// TestDiskWalkNeverFollowsLinksOut walks the attack fixture's root: every
// link is reported as one, and nothing below a link is visited.
func TestDiskWalkNeverFollowsLinksOut(t *testing.T) {
	base, root := linkAttackFixture(t)
	d := openDisk(t, fsruntime.DiskOptions{}, root)
	before := fsruntimetest.Tree(t, filepath.Join(base, "outside"))
	types := map[string]fsruntime.FileType{}
	err := d.Walk(t.Context(), root, func(path string, info fsruntime.FileInfo, err error) error {
		if err != nil {
			t.Errorf("walk: %s: %v", path, err)
			return nil
		}
		types[slashRel(root, path)] = info.Type
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]fsruntime.FileType{
		root: fsruntime.TypeDirectory, "sub": fsruntime.TypeDirectory, "sub/ok.txt": fsruntime.TypeFile, "sub/up_ok": fsruntime.TypeSymlink,
		"inner_ok": fsruntime.TypeSymlink, "loop_a": fsruntime.TypeSymlink, "loop_b": fsruntime.TypeSymlink, "chain2": fsruntime.TypeSymlink,
	}
	for _, l := range finalLinks {
		want[l] = fsruntime.TypeSymlink
	}
	if !maps.Equal(types, want) {
		t.Errorf("walk saw %v, want %v", types, want)
	}
	// The listing agrees, and a link that leads out cannot be listed.
	entries, _, err := d.ReadDir(t.Context(), root, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if want[e.Name] != e.Type {
			t.Errorf("ReadDir: %s is a %s, want a %s", e.Name, e.Type, want[e.Name])
		}
	}
	if after := fsruntimetest.Tree(t, filepath.Join(base, "outside")); !maps.Equal(before, after) {
		t.Errorf("outside directory changed: %v -> %v", before, after)
	}
}

// TestDiskActsOnLinksThatLeadOut checks the operations that act on a
// final symlink itself: Stat describes the link, Move moves it and Remove
// removes it, and the file or directory it points to outside stays as it
// was and is never read.
func TestDiskActsOnLinksThatLeadOut(t *testing.T) {
	ostest.NeedSymlinks(t, realTempDir(t))
	for _, link := range finalLinks {
		t.Run(link, func(t *testing.T) {
			base, root := linkAttackFixture(t)
			d := openDisk(t, fsruntime.DiskOptions{}, root)
			outside := fsruntimetest.Tree(t, filepath.Join(base, "outside"))
			target, err := os.Readlink(filepath.Join(root, link))
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(root, link)
			info, err := d.Stat(t.Context(), p)
			if err != nil || info.Type != fsruntime.TypeSymlink || info.Size != int64(len(target)) {
				t.Errorf("Stat = %+v, %v; want the link itself", info, err)
			}
			// Moved, it is the same link.
			moved := filepath.Join(root, "sub/moved")
			if err := d.Move(t.Context(), p, moved, false); err != nil {
				t.Fatalf("Move: %v", err)
			}
			if got, err := os.Readlink(moved); err != nil || got != target {
				t.Errorf("moved link = %q, %v; want %q", got, err, target)
			}
			// Replaced by a file, the link goes and its target stays.
			writeFile(t, filepath.Join(root, "sub/victim.txt"), "victim\n")
			if err := d.Move(t.Context(), filepath.Join(root, "sub/victim.txt"), moved, false); !errors.Is(err, fs.ErrExist) {
				t.Errorf("Move over the link without overwrite = %v, want fs.ErrExist", err)
			}
			if err := d.Move(t.Context(), filepath.Join(root, "sub/victim.txt"), moved, true); err != nil {
				t.Fatalf("Move over the link: %v", err)
			}
			if got := readFile(t, moved); got != "victim\n" {
				t.Errorf("after Move over the link it holds %q", got)
			}
			// Removed, recursively or not, it is only the link.
			for _, recursive := range []bool{false, true} {
				if err := os.Symlink(target, p); err != nil {
					t.Fatal(err)
				}
				if err := d.Remove(t.Context(), p, recursive); err != nil {
					t.Fatalf("Remove(recursive=%t): %v", recursive, err)
				}
				if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("Remove(recursive=%t) left the link: %v", recursive, err)
				}
			}
			if after := fsruntimetest.Tree(t, filepath.Join(base, "outside")); !maps.Equal(outside, after) {
				t.Errorf("outside directory changed:\n%v\n->\n%v", outside, after)
			}
		})
	}
}

// TestDiskNeverMovesOrRemovesARoot tries the root itself, by each of its
// names, as the source and the destination of a move and as what a
// removal removes.
func TestDiskNeverMovesOrRemovesARoot(t *testing.T) {
	base, real, links := attackFixture(t)
	// try tries each name of the root of d; with selfLinks, a link
	// inside the root to each name too.
	try := func(t *testing.T, d *fsruntime.Disk, names []string, selfLinks bool) {
		t.Helper()
		before := fsruntimetest.Tree(t, real)
		for _, root := range names {
			for _, recursive := range []bool{false, true} {
				if err := d.Remove(t.Context(), root, recursive); !errors.Is(err, fs.ErrPermission) || errors.Is(err, fsruntime.ErrOutsideRoots) {
					t.Errorf("Remove(%s, recursive=%t) = %v, want fs.ErrPermission for a root", root, recursive, err)
				}
			}
			for _, dst := range []string{filepath.Join(root, "sub/moved"), filepath.Join(base, "moved"), filepath.Join(base, "outside/moved")} {
				for _, overwrite := range []bool{false, true} {
					if err := d.Move(t.Context(), root, dst, overwrite); !errors.Is(err, fs.ErrPermission) {
						t.Errorf("Move(%s, %s) = %v, want fs.ErrPermission", root, dst, err)
					}
				}
			}
			if err := d.Move(t.Context(), filepath.Join(root, "sub/ok.txt"), root, true); !errors.Is(err, fs.ErrPermission) {
				t.Errorf("Move over the root %s = %v, want fs.ErrPermission", root, err)
			}
			if !selfLinks {
				continue
			}
			// A link inside the root that points at it is only a link.
			if err := os.Symlink(root, filepath.Join(real, "self")); err != nil {
				t.Fatal(err)
			}
			if err := d.Remove(t.Context(), filepath.Join(root, "self"), true); err != nil {
				t.Errorf("Remove of a link to the root: %v", err)
			}
		}
		if after := fsruntimetest.Tree(t, real); !maps.Equal(before, after) {
			t.Errorf("the root changed:\n%v\n->\n%v", before, after)
		}
	}
	t.Run("by its name", func(t *testing.T) {
		try(t, openDisk(t, fsruntime.DiskOptions{}, real), []string{real}, false)
	})
	t.Run("opened through a symlink", func(t *testing.T) {
		ostest.SkipWithoutSymlinks(t, links)
		alias := filepath.Join(base, "alias")
		if err := os.Symlink(real, alias); err != nil {
			t.Fatal(err)
		}
		try(t, openDisk(t, fsruntime.DiskOptions{}, alias), []string{alias, real}, true)
	})
}

// TestSearchNeverFollowsSymlinks runs both searches over a root whose
// symlinks lead out of it: nothing outside may show.
func TestSearchNeverFollowsSymlinks(t *testing.T) {
	_, root := linkAttackFixture(t)
	fsys := openDisk(t, fsruntime.DiskOptions{}, root)
	grepLines := func(r search.GrepResult) []string {
		var out []string
		for _, m := range r.Matches {
			out = append(out, fmt.Sprintf("%s:%d:%s", slashRel(root, m.Path), m.Line, m.Text))
		}
		return out
	}
	g, err := search.Glob(t.Context(), fsys, root, "**", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range g.Matches {
		if !strings.HasPrefix(m.Path, root+string(filepath.Separator)) {
			t.Errorf("glob matched %s, outside the root", m.Path)
		}
		if strings.Contains(m.Path, "secret") {
			t.Errorf("glob found %s through a symlink", m.Path)
		}
		if fi, _ := os.Lstat(m.Path); fi.Mode()&fs.ModeSymlink != 0 && m.Type != fsruntime.TypeSymlink {
			t.Errorf("%s is a symlink, reported as %s", m.Path, m.Type)
		}
	}
	for _, pat := range []string{"link_dir/*", "chain1/**", "parent_link/secret.txt", "proc_root/etc/*"} {
		_, err := search.Glob(t.Context(), fsys, root, pat, 0)
		if err == nil {
			t.Errorf("Glob(%q) through a symlink: no error", pat)
		}
	}
	for _, pat := range []string{"secret", "sibling", "outside"} {
		r, err := search.Grep(t.Context(), fsys, root, search.GrepOptions{Pattern: pat})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Matches) != 0 {
			t.Errorf("grep %q found %q", pat, grepLines(r))
		}
	}
	r, err := search.Grep(t.Context(), fsys, root, search.GrepOptions{Pattern: "ok"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := grepLines(r), []string{"sub/ok.txt:1:ok"}; !slices.Equal(got, want) {
		t.Errorf("grep ok = %q, want %q", got, want)
	}
	// A symlink given as the root is resolved, within the roots.
	for _, link := range []string{"link_file", "link_dir", "link_rel", "chain1", "parent_link", "proc_root", "dev_zero", "loop_a"} {
		if r, err := search.Grep(t.Context(), fsys, filepath.Join(root, link), search.GrepOptions{Pattern: "secret"}); err == nil {
			t.Errorf("grep in %s: no error, found %q", link, grepLines(r))
		}
		if r, err := search.Glob(t.Context(), fsys, filepath.Join(root, link), "**", 0); err == nil {
			t.Errorf("glob in %s: no error, found %v", link, r.Matches)
		}
	}
	for _, link := range []string{"inner_ok", "sub/up_ok"} {
		r, err := search.Grep(t.Context(), fsys, filepath.Join(root, link), search.GrepOptions{Pattern: "ok"})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := grepLines(r), []string{link + ":1:ok"}; !slices.Equal(got, want) {
			t.Errorf("grep in %s = %q, want %q", link, got, want)
		}
	}
}
