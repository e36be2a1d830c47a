//go:build unix

package mcpfs_test

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpfstest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcptest"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
	"golang.org/x/sys/unix"
)

// TestToolsOnAHugeDirectory runs every tool that reads a directory on one
// of 20,000 files (200,000 with MCP_ACPFS_LONG=1), each of which matches
// the search: each answers with its documented truncation, and its peak
// heap stays within a bound. The tools that list one directory keep a
// bounded number of entries whatever its size; those that walk a tree
// hold one directory's names at a time (tens of bytes an entry), never its
// entries' descriptions or all their results.
func TestToolsOnAHugeDirectory(t *testing.T) {
	n := 20_000
	if mcptest.LongRun() {
		n = 200_000
	}
	f := mcpfstest.NewFixture(t, false)
	dir := f.Path("huge")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	makeFiles(t, dir, n)
	t.Logf("made %d files in %v", n, time.Since(start).Round(time.Millisecond))
	c := mcpfstest.Connect(t, f.Srv, mcpfstest.Eras[0].Version)

	// The heap stays near the live data while the tools run.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	const flat = 3 << 20       // results of up to 2000 entries, and the rest
	perEntry := 100 * int64(n) // a name, and its place in a sorted slice
	for _, tc := range []struct {
		tool  string
		args  map[string]any
		bound int64
		want  []string
	}{
		{mcpfs.ListDirectory, map[string]any{"path": "huge"}, flat, []string{"1000 entries (truncated: the directory has more than 1000 entries)"}},
		{mcpfs.GetFileInfo, map[string]any{"path": "huge"}, flat, []string{"type: directory"}},
		{mcpfs.DirectoryTree, map[string]any{"path": "."}, flat + perEntry, []string{"truncated at 2000 entries"}},
		{mcpfs.Glob, map[string]any{"pattern": "**/*.txt"}, flat + perEntry, []string{"The first 1000 paths", "there are more"}},
		{mcpfs.Grep, map[string]any{"pattern": "needle"}, flat + perEntry, []string{"The first 200 lines", "More lines match"}},
		{mcpfs.DeleteFile, map[string]any{"path": "huge", "recursive": true}, flat, []string{"deleted directory " + dir + " and everything in it"}},
	} {
		var res *mcp.CallToolResult
		peak := peakHeap(func() { res = mcpfstest.Call(t, c, tc.tool, tc.args) })
		text := mcpfstest.WantOK(t, res)
		t.Logf("%s: peak heap %.1f MiB over the start, %d bytes an entry (bound %.1f MiB)",
			tc.tool, float64(peak)/(1<<20), peak/int64(n), float64(tc.bound)/(1<<20))
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: %.300q, want it to say %q", tc.tool, text, w)
			}
		}
		if peak > tc.bound {
			t.Errorf("%s on %d entries: peak heap %.1f MiB over the start, over the bound of %.1f MiB",
				tc.tool, n, float64(peak)/(1<<20), float64(tc.bound)/(1<<20))
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("after delete_file: %v", err)
	}
}

// makeFiles makes n files in dir, each holding "needle", a few at a time
// and each with one openat and one write relative to dir: making them is
// most of the test's time.
func makeFiles(t *testing.T, dir string, n int) {
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	dfd := int(d.Fd())
	const workers = 4
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				fd, err := unix.Openat(dfd, fmt.Sprintf("file-%06d.txt", i), unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o644)
				if err == nil {
					_, err = unix.Write(fd, []byte("needle\n"))
					unix.Close(fd)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
}

// peakHeap returns how far the heap's live objects grew above where they
// were when f started, sampled every millisecond while it ran.
func peakHeap(f func()) int64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() int64 {
		metrics.Read(sample)
		return int64(sample[0].Value.Uint64())
	}
	runtime.GC()
	base := read()
	stop, peak := make(chan struct{}), make(chan int64)
	go func() {
		top := base
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				peak <- max(top, read())
				return
			case <-tick.C:
				top = max(top, read())
			}
		}
	}()
	f()
	close(stop)
	return <-peak - base
}
