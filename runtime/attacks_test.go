package runtime_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/runtime"
)

// attackFixture lays out a root with a prefix sibling and an outside
// directory next to it, and symlinks inside the root that lead out.
func attackFixture(t *testing.T) (base, root string) {
	t.Helper()
	base = realTempDir(t)
	root = base + "/root"
	writeFile(t, root+"/sub/ok.txt", "ok\n")
	writeFile(t, base+"/root_backup/secret.txt", "sibling secret\n")
	writeFile(t, base+"/outside/secret.txt", "outside secret\n")
	links := map[string]string{
		"link_file":    base + "/outside/secret.txt",
		"link_dir":     base + "/outside",
		"link_rel":     "../outside/secret.txt",
		"chain1":       "chain2",
		"chain2":       "../outside",
		"dangling_out": base + "/outside/new.txt",
		"parent_link":  base + "/outside",
		"proc_root":    "/proc/self/root",
		"dev_zero":     "/dev/zero",
		"inner_ok":     "sub/ok.txt",
		"sub/up_ok":    "../sub/ok.txt",
		"loop_a":       "loop_b",
		"loop_b":       "loop_a",
	}
	for name, target := range links {
		if err := os.Symlink(target, root+"/"+name); err != nil {
			t.Fatal(err)
		}
	}
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

func TestDiskRefusesPathAttacks(t *testing.T) {
	base, root := attackFixture(t)
	d := openDisk(t, runtime.DiskOptions{}, root)
	attacks := []string{
		base + "/root_backup/secret.txt",
		base + "/root_backup",
		base + "/rootx",
		base + "/outside/secret.txt",
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
		"sub/\x00/ok.txt",
		"ok.txt\x00",
	}
	before := snapshot(t, base+"/outside")
	beforeSibling := snapshot(t, base+"/root_backup")
	tried := 0
	for _, attack := range attacks {
		for _, op := range []string{"read", "write"} {
			tried++
			abs, err := runtime.Abs(root, attack)
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
			if !errors.Is(err, runtime.ErrOutsideRoots) && !errors.Is(err, fs.ErrInvalid) {
				t.Errorf("%s %q: err = %v, want outside roots or invalid", op, attack, err)
			}
		}
	}
	if after := snapshot(t, base+"/outside"); !equalMaps(before, after) {
		t.Errorf("outside directory changed: %v -> %v", before, after)
	}
	if after := snapshot(t, base+"/root_backup"); !equalMaps(beforeSibling, after) {
		t.Errorf("sibling directory changed: %v -> %v", beforeSibling, after)
	}
	t.Logf("%d path attacks tried, all refused", tried)

	// Links that stay inside the root work.
	for _, ok := range []string{"inner_ok", "sub/up_ok", "sub/ok.txt"} {
		abs, _ := runtime.Abs(root, ok)
		if got, err := d.ReadTextFile(t.Context(), abs, 0, 0); err != nil || got != "ok\n" {
			t.Errorf("read %s = %q, %v", ok, got, err)
		}
	}
	// A dangling link inside the root is written through to its target.
	if err := os.Symlink("sub/created.txt", root+"/dangling_in"); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteTextFile(t.Context(), root+"/dangling_in", "made\n"); err != nil {
		t.Fatalf("write through a dangling link inside the root: %v", err)
	}
	if got := readFile(t, root+"/sub/created.txt"); got != "made\n" {
		t.Errorf("dangling link target = %q", got)
	}
}

func TestDiskOutsideErrorNamesPathAndRoots(t *testing.T) {
	base, root := attackFixture(t)
	d := openDisk(t, runtime.DiskOptions{}, root)
	p := base + "/root_backup/secret.txt"
	_, err := d.ReadTextFile(t.Context(), p, 0, 0)
	want := "read " + p + ": outside the allowed roots (" + root + ")"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if !errors.Is(err, fs.ErrPermission) {
		t.Errorf("outside roots does not match fs.ErrPermission")
	}
	// The same holds when a symlink is what leads out.
	_, err = d.ReadTextFile(t.Context(), root+"/link_file", 0, 0)
	if !errors.Is(err, runtime.ErrOutsideRoots) || !strings.Contains(err.Error(), root+"/link_file") {
		t.Errorf("symlink escape: err = %v", err)
	}
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
