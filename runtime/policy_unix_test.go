//go:build unix

package runtime_test

import (
	"errors"
	"maps"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/runtime"
	"github.com/mcp-acpfs/mcp-acpfs/runtime/runtimetest"
)

// TestSpecialFilesNeverBlock: named pipes, sockets, devices and the magic
// links of /proc are refused by every operation on content, each within
// the hang guard, whether they are reached through a root, through a
// symlink in one, or by their own path.
func TestSpecialFilesNeverBlock(t *testing.T) {
	base, root := attackFixture(t)
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
	d := openDisk(t, runtime.DiskOptions{}, root)
	outside := runtimetest.Tree(t, base+"/outside")
	for name, want := range map[string]error{
		root + "/fifo":                runtime.ErrNotRegular,
		root + "/sock":                runtime.ErrNotRegular,
		root + "/stdin":               runtime.ErrOutsideRoots,
		root + "/fd0":                 runtime.ErrOutsideRoots,
		root + "/zero":                runtime.ErrOutsideRoots,
		root + "/proc_root/etc/hosts": runtime.ErrOutsideRoots,
		"/dev/stdin":                  runtime.ErrOutsideRoots,
		"/dev/zero":                   runtime.ErrOutsideRoots,
		"/proc/self/root/etc/hosts":   runtime.ErrOutsideRoots,
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
	if after := runtimetest.Tree(t, base+"/outside"); !maps.Equal(outside, after) {
		t.Errorf("outside changed:\n%v\n->\n%v", outside, after)
	}

	// A root that holds the devices themselves: they are still not
	// regular files, and /dev/stdin still leads out.
	dev := openDisk(t, runtime.DiskOptions{}, "/dev")
	for name, want := range map[string]error{"/dev/zero": runtime.ErrNotRegular, "/dev/null": runtime.ErrNotRegular, "/dev/stdin": runtime.ErrOutsideRoots} {
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
