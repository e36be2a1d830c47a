package fsruntime_test

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
)

// TestParentSwappedDuringWrites: while one goroutine writes and reads
// files in root/dir, another keeps exchanging root/dir with a symlink to
// the outside directory (renameat2 RENAME_EXCHANGE, so the name always
// exists). Every operation either works inside the root or is refused;
// nothing outside is ever read, created or changed.
func TestParentSwappedDuringWrites(t *testing.T) {
	base, root := linkAttackFixture(t)
	outsideDir := base + "/outside"
	writeFile(t, root+"/dir/keep.txt", "inside\n")
	if err := os.Symlink(outsideDir, root+"/alt"); err != nil {
		t.Fatal(err)
	}
	d := openDisk(t, fsruntime.DiskOptions{}, root)
	outside := fsruntimetest.Tree(t, outsideDir)

	const writes = 400
	var stop atomic.Bool
	var swaps atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for !stop.Load() {
			if err := unix.Renameat2(unix.AT_FDCWD, root+"/dir", unix.AT_FDCWD, root+"/alt", unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("exchange: %v", err)
				return
			}
			swaps.Add(1)
		}
	})
	// An operation caught in the middle of an exchange may also fail
	// for what it met there (a symlink in the way, a loop): any error is
	// a refusal, as long as nothing outside is touched.
	var wrote, refused, outsideRoots, read int
	for i := range writes {
		name := fmt.Sprintf("%s/dir/new-%d.txt", root, i)
		for _, err := range []error{
			d.WriteTextFile(t.Context(), name, "written\n"),
			d.MkdirAll(t.Context(), fmt.Sprintf("%s/dir/d%d/e", root, i)),
		} {
			switch {
			case err == nil:
				wrote++
			case errors.Is(err, fsruntime.ErrOutsideRoots):
				outsideRoots++
				fallthrough
			default:
				refused++
			}
		}
		for _, f := range []string{"keep.txt", "secret.txt"} {
			got, err := d.ReadTextFile(t.Context(), root+"/dir/"+f, 0, 0)
			if strings.Contains(got, "secret") {
				t.Fatalf("read %s through the swapped directory returned the outside file: %q", f, got)
			}
			if err == nil {
				read++
			}
		}
	}
	stop.Store(true)
	wg.Wait()
	if after := fsruntimetest.Tree(t, outsideDir); !maps.Equal(outside, after) {
		t.Errorf("the outside directory changed:\n%v\n->\n%v", outside, after)
	}
	if outsideRoots == 0 {
		t.Errorf("no write met the symlink: the exchanges did not interleave with the writes")
	}
	t.Logf("%d writes and mkdirs with %d exchanges of the parent: %d done inside, %d refused (%d as outside the roots); %d reads inside",
		2*writes, swaps.Load(), wrote, refused, outsideRoots, read)
}
