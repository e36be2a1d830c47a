//go:build unix

package fsruntime_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fspath"
)

// fuzzSecret is the content of the file outside the root of FuzzDiskPolicy.
const fuzzSecret = "FUZZ-OUTSIDE-SECRET"

// FuzzDiskPolicy resolves any string against a root that holds files,
// symlinks that lead out (to a file, a directory, through a chain, to
// /proc and /dev), a hard link to the outside file, a FIFO and a loop, and
// checks the policy on it: whatever Check, ReadTextFile, ReadFile,
// HashTextFile and Stat let through lies inside the root as the kernel
// resolves it, and no read ever returns the outside file's content. The
// operations only read, so each iteration is cheap and leaves the fixture
// as it was.
func FuzzDiskPolicy(f *testing.F) {
	base, err := filepath.EvalSymlinks(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	root := base + "/root"
	for name, content := range map[string]string{
		root + "/in.txt":              "inside\n",
		root + "/sub/deep/x.txt":      "deep\n",
		base + "/outside/secret.txt":  fuzzSecret + "\n",
		base + "/root_backup/bak.txt": fuzzSecret + " sibling\n",
	} {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"out_file":   base + "/outside/secret.txt",
		"out_dir":    base + "/outside",
		"out_rel":    "../outside",
		"chain":      "sub/hop",
		"sub/hop":    "../out_rel",
		"in_link":    "sub/deep/x.txt",
		"proc":       "/proc/self/root",
		"stdin":      "/dev/stdin",
		"zero":       "/dev/zero",
		"loop":       "loop",
		"sub/up":     "..",
		"sub/upup":   "../..",
		"dangling":   base + "/outside/new.txt",
		"sibling":    "../root_backup",
		"root_alias": root,
	} {
		if err := os.Symlink(target, root+"/"+link); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.Link(base+"/outside/secret.txt", root+"/hard"); err != nil {
		f.Fatal(err)
	}
	mkfifo(f, root+"/fifo")
	d, err := fsruntime.OpenDisk([]string{root}, fsruntime.DiskOptions{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { d.Close() })

	// inside reports whether the kernel resolves p (following every
	// symlink) to the root or below it; a path that does not exist is
	// judged by its nearest existing ancestor.
	inside := func(p string) bool {
		for {
			real, err := filepath.EvalSymlinks(p)
			if err == nil {
				return real == root || strings.HasPrefix(real, root+"/")
			}
			if parent := filepath.Dir(p); parent != p {
				p = parent
				continue
			}
			return false
		}
	}

	f.Fuzz(func(t *testing.T, arg string) {
		p, err := fspath.Abs(root, arg)
		if err != nil {
			return
		}
		ctx := t.Context()
		leaks := func(op, s string) {
			if strings.Contains(s, fuzzSecret) {
				t.Fatalf("%s %q (%s) returned the outside file's content", op, arg, p)
			}
		}
		if err := d.Check(p); err == nil && !inside(p) {
			t.Fatalf("Check(%q) passed %s, which leads out of the root", arg, p)
		}
		if text, err := d.ReadTextFile(ctx, p, 0, 0); err == nil {
			leaks("read", text)
			if !inside(p) {
				t.Fatalf("read %q (%s) succeeded outside the root", arg, p)
			}
		}
		if b, err := d.ReadFile(ctx, p, 0); err == nil {
			leaks("read media", string(b))
			if !inside(p) {
				t.Fatalf("read media %q (%s) succeeded outside the root", arg, p)
			}
		}
		if _, err := d.HashTextFile(ctx, p); err == nil && !inside(p) {
			t.Fatalf("hash %q (%s) succeeded outside the root", arg, p)
		}
		// Stat describes a final symlink itself: its directory must be
		// inside.
		if _, err := d.Stat(ctx, p); err == nil && p != root && !inside(filepath.Dir(p)) {
			t.Fatalf("stat %q (%s) succeeded outside the root", arg, p)
		}
	})
}
