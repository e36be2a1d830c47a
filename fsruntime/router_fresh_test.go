package fsruntime_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/mcp-acpfs/mcp-acpfs/capabilities"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
)

// backdate sets path's modification time an hour back: a file that has
// not changed lately.
func backdate(t *testing.T, path string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
}

// modified is the modification time the stale-buffer tests give the file
// on disk; their clock tells the time relative to it.
var modified = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// staleFixture is a file on disk and an editor that serves an older text
// of it until it has been asked reloadAfter times (never when 0).
type staleFixture struct {
	dir  string
	path string
	ed   *fsruntimetest.Editor
	asks atomic.Int32
	log  bytes.Buffer
}

func newStaleFixture(t *testing.T, disk, buffer string, reloadAfter int32) *staleFixture {
	t.Helper()
	f := &staleFixture{dir: realTempDir(t), ed: &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS()}}
	f.path = filepath.Join(f.dir, "main.go")
	if disk != "" {
		writeFile(t, f.path, disk)
		if err := os.Chtimes(f.path, modified, modified); err != nil {
			t.Fatal(err)
		}
	}
	f.ed.Buffers.Set(f.path, buffer)
	f.ed.Delay = func(_ context.Context, method string) {
		if method == fsruntime.MethodReadTextFile && f.asks.Add(1) == reloadAfter {
			f.ed.Buffers.Set(f.path, disk) // the editor reloads the file
		}
	}
	return f
}

// router returns a router whose reads go to the fixture's editor, and
// whose clock says it is age after the file's modification.
func (f *staleFixture) router(t *testing.T, age time.Duration, opts fsruntime.ReloadOptions) *fsruntime.Router {
	t.Helper()
	start := time.Now()
	opts.Now = func() time.Time { return modified.Add(age + time.Since(start)) }
	var client capabilities.Client
	client.FS.ReadTextFile = true
	return fsruntime.NewRouter(fsruntime.RouterOptions{
		Disk:   openDisk(t, fsruntime.DiskOptions{}, f.dir),
		Editor: fsruntime.NewEditor(dialFakeEditor(t, f.ed), fsruntime.EditorOptions{SessionID: fixedSession("s")}),
		Client: client,
		Reload: opts,
		Log:    slog.New(slog.NewTextHandler(&f.log, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
}

// TestRouterAsksAgainWhileAReloadIsPending runs in a synctest bubble: the
// waits between asks pass on its clock, so the time each read took is
// exact, and nothing sleeps for real.
func TestRouterAsksAgainWhileAReloadIsPending(t *testing.T) {
	const disk, stale = "package main // changed by a shell\n", "package main // before\n"
	tests := []struct {
		name        string
		disk        string // "": no such file on disk
		buffer      string
		age         time.Duration // of the file on disk, by the router's clock
		reloadAfter int32
		opts        fsruntime.ReloadOptions
		wantText    string
		wantMatch   fsruntime.DiskMatch
		wantAsks    int32
		wantTook    time.Duration
	}{
		{"already reloaded", disk, disk, 0, 0, fsruntime.ReloadOptions{}, disk, fsruntime.DiskSame, 1, 0},
		{"reloads at the second ask", disk, stale, 0, 2, fsruntime.ReloadOptions{}, disk, fsruntime.DiskSame, 2, 10 * time.Millisecond},
		{"reloads at the fourth ask", disk, stale, 100 * time.Millisecond, 4, fsruntime.ReloadOptions{}, disk, fsruntime.DiskSame, 4, 70 * time.Millisecond},
		// Waits of 10, 20, 40, 80, 100, 100 and 100 ms: the next one
		// would end past the bound.
		{"stays stale: stops at the bound", disk, stale, 0, 0, fsruntime.ReloadOptions{}, stale, fsruntime.DiskDiffers, 8, 500 * time.Millisecond},
		{"stays stale: a shorter bound", disk, stale, 0, 0, fsruntime.ReloadOptions{Bound: 100 * time.Millisecond}, stale, fsruntime.DiskDiffers, 4, 100 * time.Millisecond},
		{"reloads after the bound", disk, stale, 0, 9, fsruntime.ReloadOptions{}, stale, fsruntime.DiskDiffers, 8, 500 * time.Millisecond},
		{"just inside the window", disk, stale, 1900 * time.Millisecond, 2, fsruntime.ReloadOptions{}, disk, fsruntime.DiskSame, 2, 10 * time.Millisecond},
		{"a clock behind the disk's", disk, stale, -time.Second, 2, fsruntime.ReloadOptions{}, disk, fsruntime.DiskSame, 2, 10 * time.Millisecond},
		{"outside the window: unsaved changes", disk, stale, 2 * time.Second, 2, fsruntime.ReloadOptions{}, stale, fsruntime.DiskDiffers, 1, 0},
		{"an old file", disk, stale, time.Hour, 2, fsruntime.ReloadOptions{}, stale, fsruntime.DiskDiffers, 1, 0},
		{"a wider window", disk, stale, 5 * time.Second, 2, fsruntime.ReloadOptions{Window: 10 * time.Second}, disk, fsruntime.DiskSame, 2, 10 * time.Millisecond},
		{"never asking again", disk, stale, 0, 2, fsruntime.ReloadOptions{Window: -1}, stale, fsruntime.DiskDiffers, 1, 0},
		{"no bound", disk, stale, 0, 2, fsruntime.ReloadOptions{Bound: -1}, stale, fsruntime.DiskDiffers, 1, 0},
		{"a new buffer", "", stale, 0, 0, fsruntime.ReloadOptions{}, stale, fsruntime.DiskMissing, 1, 0},
		{"line endings alone", "a\r\nb\rc\r\n", "a\nb\nc\n", 0, 0, fsruntime.ReloadOptions{}, "a\nb\nc\n", fsruntime.DiskLineEndings, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newStaleFixture(t, tc.disk, tc.buffer, tc.reloadAfter)
				r := f.router(t, tc.age, tc.opts)
				start := time.Now()
				read, err := r.ReadTextFileSource(t.Context(), f.path, 0, 0)
				took := time.Since(start)
				if err != nil {
					t.Fatal(err)
				}
				if read.Text != tc.wantText || read.Disk != tc.wantMatch || read.Route != capabilities.RouteEditor {
					t.Errorf("read %q from %v, %v; want %q from the editor, %v", read.Text, read.Route, read.Disk, tc.wantText, tc.wantMatch)
				}
				if read.SHA256 != fsruntime.HashText(tc.wantText) {
					t.Errorf("sha256 %s is not the text's", read.SHA256)
				}
				if n := int32(len(f.ed.Requests())); n != tc.wantAsks {
					t.Errorf("the editor was asked %d times, want %d", n, tc.wantAsks)
				}
				if n := fsruntime.DiskCompares(r); n != int64(tc.wantAsks) {
					t.Errorf("%d comparisons with the disk, want one per ask (%d)", n, tc.wantAsks)
				}
				if took != tc.wantTook {
					t.Errorf("the read took %v, want %v", took, tc.wantTook)
				}
				if gaveUp := strings.Contains(f.log.String(), "still differs"); gaveUp != (tc.wantAsks > 1 && tc.wantMatch == fsruntime.DiskDiffers) {
					t.Errorf("giving up logged: %v; log:\n%s", gaveUp, &f.log)
				}
			})
		})
	}
}

func TestRouterReadThatWaitsEndsWithItsContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newStaleFixture(t, "new\n", "old\n", 0)
		r := f.router(t, 0, fsruntime.ReloadOptions{})
		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		defer cancel()
		start := time.Now()
		text, err := r.ReadTextFile(ctx, f.path, 0, 0)
		if !errors.Is(err, context.DeadlineExceeded) || text != "" {
			t.Errorf("read = %q, %v; want the context's end", text, err)
		}
		if took := time.Since(start); took != 50*time.Millisecond {
			t.Errorf("the read took %v, want the context's 50ms", took)
		}
	})
}

func TestRouterKeepsTheTextWhenAnAskAgainFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newStaleFixture(t, "new\n", "old\n", 0)
		f.ed.Fail = func(string, json.RawMessage) *jsonrpc2.Error {
			if f.asks.Load() > 1 {
				return &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: "buffer closed"}
			}
			return nil
		}
		r := f.router(t, 0, fsruntime.ReloadOptions{})
		read, err := r.ReadTextFileSource(t.Context(), f.path, 0, 0)
		if err != nil || read.Text != "old\n" || read.Disk != fsruntime.DiskDiffers {
			t.Errorf("read = %q, %v, %v; want the first answer, which differs", read.Text, read.Disk, err)
		}
		if n := len(f.ed.Requests()); n != 2 {
			t.Errorf("the editor was asked %d times, want 2", n)
		}
	})
}

// A ranged read compares the whole file, which it reads anyway for its
// hash, unless the file is over the size limit: then the range alone is
// read from the editor and compared with the same range on disk.
func TestRouterComparesARangeAsItReadsIt(t *testing.T) {
	disk := "one\ntwo\nthree\n" + strings.Repeat("x", 80) + "\n"
	buffer := "ONE\ntwo\nthree\n" + strings.Repeat("x", 80) + "\n"
	for _, tc := range []struct {
		name        string
		max         int64
		line, limit int
		text        string
		match       fsruntime.DiskMatch
		hashed      bool
	}{
		{"whole file within the limit, same range", 0, 2, 1, "two\n", fsruntime.DiskDiffers, true},
		{"whole file within the limit, other range", 0, 1, 1, "ONE\n", fsruntime.DiskDiffers, true},
		{"over the limit, same range", 64, 2, 2, "two\nthree\n", fsruntime.DiskSame, false},
		{"over the limit, other range", 64, 1, 1, "ONE\n", fsruntime.DiskDiffers, false},
		{"over the limit, past the end on disk", 64, 5, 1, "", fsruntime.DiskDiffers, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := realTempDir(t)
			writeFile(t, filepath.Join(dir, "f.txt"), disk)
			backdate(t, filepath.Join(dir, "f.txt"))
			ed := &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS()}
			ed.Buffers.Set(filepath.Join(dir, "f.txt"), buffer)
			if tc.line == 5 {
				ed.Buffers.Set(filepath.Join(dir, "f.txt"), buffer+"five\n")
				tc.text = "five\n"
			}
			var client capabilities.Client
			client.FS.ReadTextFile = true
			r := fsruntime.NewRouter(fsruntime.RouterOptions{
				Disk:   openDisk(t, fsruntime.DiskOptions{MaxFileSize: tc.max}, dir),
				Editor: fsruntime.NewEditor(dialFakeEditor(t, ed), fsruntime.EditorOptions{SessionID: fixedSession("s"), MaxFileSize: tc.max}),
				Client: client,
			})
			read, err := r.ReadTextFileSource(t.Context(), filepath.Join(dir, "f.txt"), tc.line, tc.limit)
			if err != nil || read.Text != tc.text || read.Disk != tc.match || (read.SHA256 != "") != tc.hashed {
				t.Errorf("read = %q (sha256 %q), %v, %v; want %q, %v, hashed %v", read.Text, read.SHA256, read.Disk, err, tc.text, tc.match, tc.hashed)
			}
			if n := fsruntime.DiskCompares(r); n != 1 {
				t.Errorf("%d comparisons with the disk, want 1", n)
			}
		})
	}
}

// The disk route reads once, and compares nothing.
func TestRouterDiskRouteComparesNothing(t *testing.T) {
	f := newRouterFixture(t)
	r := f.router(t, false, false, capabilities.PolicyAuto)
	p := filepath.Join(f.dir, "main.go")
	for _, rng := range [][2]int{{0, 0}, {1, 1}} {
		read, err := r.ReadTextFileSource(t.Context(), p, rng[0], rng[1])
		if err != nil || read.Text != "package main // on disk\n" || read.Route != capabilities.RouteDisk || read.Disk != fsruntime.DiskSame {
			t.Errorf("read %v = %+v, %v; want the disk's text, from disk", rng, read, err)
		}
	}
	if _, err := r.ReadTextFile(t.Context(), p, 0, 0); err != nil {
		t.Fatal(err)
	}
	if n := fsruntime.DiskCompares(r); n != 0 {
		t.Errorf("%d comparisons with the disk on the disk route, want none", n)
	}
	if reqs := f.ed.Requests(); len(reqs) != 0 {
		t.Errorf("the editor got %v", reqs)
	}
	d := f.disk
	read, err := d.ReadTextFileSource(t.Context(), p, 0, 0)
	if err != nil || read.Route != capabilities.RouteDisk || read.Disk != fsruntime.DiskSame || read.SHA256 != fsruntime.HashText(read.Text) {
		t.Errorf("Disk.ReadTextFileSource = %+v, %v", read, err)
	}
}

// Unsaved changes in an old file: one request, one comparison, no wait.
func TestRouterUnsavedChangesCostOneComparison(t *testing.T) {
	f := newRouterFixture(t)
	r := f.router(t, true, false, capabilities.PolicyAuto)
	read, err := r.ReadTextFileSource(t.Context(), filepath.Join(f.dir, "main.go"), 0, 0)
	if err != nil || read.Text != "package main // unsaved buffer\n" || read.Route != capabilities.RouteEditor || read.Disk != fsruntime.DiskDiffers {
		t.Errorf("read = %+v, %v; want the buffer, which differs", read, err)
	}
	if n, c := len(f.ed.Requests()), fsruntime.DiskCompares(r); n != 1 || c != 1 {
		t.Errorf("%d editor requests and %d comparisons, want 1 and 1", n, c)
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r *strings.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func TestMatchText(t *testing.T) {
	big := strings.Repeat("0123456789abcdef\n", 64<<10) // 1.06 MiB
	for _, tc := range []struct {
		name, disk, text string
		want             fsruntime.DiskMatch
		maxRead          int // the most it may read
	}{
		{"empty", "", "", fsruntime.DiskSame, 0},
		{"same", "a\nb\n", "a\nb\n", fsruntime.DiskSame, 4},
		{"same, large", big, big, fsruntime.DiskSame, len(big)},
		{"last byte", big[:len(big)-1] + "X", big, fsruntime.DiskDiffers, len(big)},
		{"shorter on disk: not read", "a\n", "a\nb\n", fsruntime.DiskDiffers, 0},
		{"longer on disk", "a\nb\nc\n", "a\nb\n", fsruntime.DiskDiffers, 6},
		{"much longer on disk: stops early", big + big, "a\n", fsruntime.DiskDiffers, 64 << 10},
		{"CRLF", "a\r\nb\r\n", "a\nb\n", fsruntime.DiskLineEndings, 6},
		{"lone CR", "a\rb\r", "a\nb\n", fsruntime.DiskLineEndings, 4},
		{"CR CR LF", "a\r\r\nb", "a\n\nb", fsruntime.DiskLineEndings, 6},
		{"CRLF cut between buffers", strings.Repeat("x", 64<<10-1) + "\r\ny", strings.Repeat("x", 64<<10-1) + "\ny", fsruntime.DiskLineEndings, 64<<10 + 2},
		{"CRLF, and other text", "a\r\nb\r\n", "a\nc\n", fsruntime.DiskDiffers, 6},
		{"CRLF in the text too", "a\r\n", "a\r\n", fsruntime.DiskSame, 3},
		{"CR where the text has none", "a\r\n", "a\r", fsruntime.DiskDiffers, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cr := &countingReader{r: strings.NewReader(tc.disk)}
			got, err := fsruntime.MatchText(cr, tc.text, int64(len(tc.disk)))
			if err != nil || got != tc.want {
				t.Errorf("MatchText = %v, %v; want %v", got, err, tc.want)
			}
			if cr.n > tc.maxRead {
				t.Errorf("read %d bytes, want at most %d", cr.n, tc.maxRead)
			}
		})
	}
}

// FuzzMatchText holds the streaming comparison to its definition.
func FuzzMatchText(f *testing.F) {
	f.Add("a\r\nb\r\n", "a\nb\n")
	f.Add("a\rb", "a\nb")
	f.Add("same", "same")
	f.Add("a\r\r\n", "a\n\n")
	f.Fuzz(func(t *testing.T, disk, text string) {
		want := fsruntime.DiskDiffers
		normal := strings.ReplaceAll(strings.ReplaceAll(disk, "\r\n", "\n"), "\r", "\n")
		switch {
		case disk == text:
			want = fsruntime.DiskSame
		case normal == text && strings.Contains(disk, "\r"):
			want = fsruntime.DiskLineEndings
		}
		// A reader that yields a byte at a time cuts every "\r\n".
		got, err := fsruntime.MatchText(oneByteReader{strings.NewReader(disk)}, text, int64(len(disk)))
		if err != nil || got != want {
			t.Errorf("MatchText(%q, %q) = %v, %v; want %v", disk, text, got, err, want)
		}
	})
}

type oneByteReader struct{ r *strings.Reader }

func (o oneByteReader) Read(p []byte) (int, error) {
	if len(p) > 1 {
		p = p[:1]
	}
	return o.r.Read(p)
}

// BenchmarkRouterEditorRead reads a file through the editor, whose buffer
// is the disk's (the common case): the editor's answer and the comparison
// with the disk. The disk route is the reference.
func BenchmarkRouterEditorRead(b *testing.B) {
	for _, size := range []int{4 << 10, 1 << 20} {
		content := strings.Repeat(strings.Repeat("y", 63)+"\n", size/64)
		for _, route := range []string{"editor", "disk"} {
			b.Run(fmt.Sprintf("%s/%dKiB", route, size>>10), func(b *testing.B) {
				dir := b.TempDir()
				p := filepath.Join(dir, "f.txt")
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					b.Fatal(err)
				}
				ed := &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS()}
				ed.Buffers.Set(p, content)
				disk, err := fsruntime.OpenDisk([]string{dir}, fsruntime.DiskOptions{})
				if err != nil {
					b.Fatal(err)
				}
				defer disk.Close()
				var client capabilities.Client
				client.FS.ReadTextFile = route == "editor"
				r := fsruntime.NewRouter(fsruntime.RouterOptions{
					Disk:   disk,
					Editor: fsruntime.NewEditor(dialFakeEditor(b, ed), fsruntime.EditorOptions{SessionID: fixedSession("s")}),
					Client: client,
				})
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					if read, err := r.ReadTextFileSource(b.Context(), p, 0, 0); err != nil || read.Disk != fsruntime.DiskSame {
						b.Fatal(read.Disk, err)
					}
				}
			})
		}
	}
}

// BenchmarkMatchText1MiB is the comparison alone, of a 1 MiB file on disk
// with the same text.
func BenchmarkMatchText1MiB(b *testing.B) {
	content := strings.Repeat(strings.Repeat("y", 63)+"\n", 16384)
	p := filepath.Join(b.TempDir(), "f.txt")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			b.Fatal(err)
		}
		if m, err := fsruntime.MatchText(f, content, int64(len(content))); err != nil || m != fsruntime.DiskSame {
			b.Fatal(m, err)
		}
	}
}

// TestRouterPastEndEmptyIsSame: an editor that answers a range past the
// end with "" rather than an error agrees with a disk whose file has no
// such lines either: the disk is the same, not different.
func TestRouterPastEndEmptyIsSame(t *testing.T) {
	dir := realTempDir(t)
	content := "one\ntwo\n" + strings.Repeat("x", 80) + "\n"
	writeFile(t, filepath.Join(dir, "f.txt"), content)
	backdate(t, filepath.Join(dir, "f.txt"))
	ed := &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS()}
	ed.Buffers.Set(filepath.Join(dir, "f.txt"), content)
	handle := func(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
		res, err := ed.Handle(ctx, conn, req)
		if e, ok := err.(*jsonrpc2.Error); ok && e.Data != nil && strings.Contains(string(*e.Data), "beyond the end") {
			return map[string]string{"content": ""}, nil
		}
		return res, err
	}
	a, b := net.Pipe()
	ctx := context.WithoutCancel(t.Context())
	edConn := jsonrpc2.NewConn(ctx, jsonrpc2.NewPlainObjectStream(a), jsonrpc2.AsyncHandler(jsonrpc2.HandlerWithError(handle)))
	us := jsonrpc2.NewConn(ctx, jsonrpc2.NewPlainObjectStream(b), jsonrpc2.AsyncHandler(refuseRequests{}))
	t.Cleanup(func() { us.Close(); edConn.Close() })

	var client capabilities.Client
	client.FS.ReadTextFile = true
	r := fsruntime.NewRouter(fsruntime.RouterOptions{
		Disk:   openDisk(t, fsruntime.DiskOptions{MaxFileSize: 64}, dir),
		Editor: fsruntime.NewEditor(us, fsruntime.EditorOptions{SessionID: fixedSession("s"), MaxFileSize: 64}),
		Client: client,
	})
	read, err := r.ReadTextFileSource(t.Context(), filepath.Join(dir, "f.txt"), 10, 1)
	if err != nil || read.Text != "" || read.Disk != fsruntime.DiskSame {
		t.Errorf("read past the end = %q, %v, %v; want \"\", %v", read.Text, read.Disk, err, fsruntime.DiskSame)
	}
}
