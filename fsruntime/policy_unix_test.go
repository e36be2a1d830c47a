//go:build unix

package fsruntime_test

import (
	"errors"
	"maps"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
)

// TestSpecialFilesNeverBlock: named pipes, sockets, devices and the magic
// links of /proc are refused by every operation on content, each within
// the hang guard, whether they are reached through a root, through a
// symlink in one, or by their own path.
func TestSpecialFilesNeverBlock(t *testing.T) {
	base, root := linkAttackFixture(t)
	mkfifo(t, root+"/fifo")
	ln, err := net.Listen("unix", root+"/sock")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for link, target := range map[string]string{"stdin": "/dev/stdin", "fd0": "/proc/self/fd/0", "zero": "/dev/zero"} {
		if err := os.Symlink(target, root+"/"+link); err != nil {
			t.Fatal(err)
		}
	}
	d := openDisk(t, fsruntime.DiskOptions{}, root)
	outside := fsruntimetest.Tree(t, base+"/outside")
	for name, want := range map[string]error{
		root + "/fifo":                fsruntime.ErrNotRegular,
		root + "/sock":                fsruntime.ErrNotRegular,
		root + "/stdin":               fsruntime.ErrOutsideRoots,
		root + "/fd0":                 fsruntime.ErrOutsideRoots,
		root + "/zero":                fsruntime.ErrOutsideRoots,
		root + "/proc_root/etc/hosts": fsruntime.ErrOutsideRoots,
		"/dev/stdin":                  fsruntime.ErrOutsideRoots,
		"/dev/zero":                   fsruntime.ErrOutsideRoots,
		"/proc/self/root/etc/hosts":   fsruntime.ErrOutsideRoots,
	} {
		for op, run := range contentOps {
			noHang(t, op+" "+name, func() {
				err, leaked := run(t.Context(), d, name)
				if !errors.Is(err, want) || leaked != "" {
					t.Errorf("%s %s = %v, %q; want %v", op, name, err, leaked, want)
				}
			})
		}
	}
	for _, name := range []string{"fifo", "sock"} {
		_, err := d.ReadTextFile(t.Context(), root+"/"+name, 0, 0)
		if kind := map[string]string{"fifo": "named pipe", "sock": "socket"}[name]; !strings.Contains(err.Error(), kind) {
			t.Errorf("read %s: %v; want it named a %s", name, err, kind)
		}
	}
	if after := fsruntimetest.Tree(t, base+"/outside"); !maps.Equal(outside, after) {
		t.Errorf("outside changed:\n%v\n->\n%v", outside, after)
	}

	// A root that holds the devices themselves: they are still not
	// regular files, and /dev/stdin still leads out.
	dev := openDisk(t, fsruntime.DiskOptions{}, "/dev")
	for name, want := range map[string]error{"/dev/zero": fsruntime.ErrNotRegular, "/dev/null": fsruntime.ErrNotRegular, "/dev/stdin": fsruntime.ErrOutsideRoots} {
		if _, err := os.Lstat(name); err != nil {
			continue
		}
		noHang(t, "read "+name, func() {
			if _, err := dev.ReadTextFile(t.Context(), name, 0, 0); !errors.Is(err, want) {
				t.Errorf("read %s with root /dev = %v; want %v", name, err, want)
			}
			if _, err := dev.ReadFile(t.Context(), name, 0); !errors.Is(err, want) {
				t.Errorf("read media %s with root /dev = %v; want %v", name, err, want)
			}
		})
	}
}
