package fsruntime_test

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
)

// lineStream is an endless-looking reader of n numbered lines, generated on
// the fly, so a test can read deep into a 1 GiB stream without a file.
type lineStream struct {
	n, next int
	pending []byte
	line    []byte
}

func newLineStream(n int) *lineStream {
	return &lineStream{n: n, line: []byte(strings.Repeat("z", 99) + "\n")}
}

func (s *lineStream) Read(p []byte) (int, error) {
	total := 0
	for len(p) > 0 {
		if len(s.pending) == 0 {
			if s.next == s.n {
				if total == 0 {
					return 0, io.EOF
				}
				return total, nil
			}
			s.next++
			s.pending = s.line
		}
		c := copy(p, s.pending)
		s.pending, p, total = s.pending[c:], p[c:], total+c
	}
	return total, nil
}

// TestDeepRangeReadHoldsOnlyItsLines reads 100 lines at line 10,000,000 of
// a 1 GiB stream and checks how much memory that allocated in all: the
// skipped gigabyte must never be held.
func TestDeepRangeReadHoldsOnlyItsLines(t *testing.T) {
	if testing.Short() {
		t.Skip("scans 1 GiB")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, err := fsruntime.ReadLines(newLineStream(10_800_000), 10_000_000, 100, fsruntime.DefaultMaxFileSize, -1)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 100*100 {
		t.Fatalf("got %d bytes, want %d", len(got), 100*100)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("reading 100 lines deep in 1 GiB allocated %d bytes in all, want under 1 MiB", alloc)
	}
}

func TestReadLinesLongLines(t *testing.T) {
	long := strings.Repeat("L", 300<<10) // longer than the read buffer
	content := "a\n" + long + "\n" + "b\n" + long
	tests := []struct {
		line, limit int
		want        string
	}{
		{2, 1, long + "\n"},
		{3, 1, "b\n"},
		{4, 1, long},
		{1, 0, content},
		{2, 2, long + "\nb\n"},
	}
	for _, tt := range tests {
		got, err := fsruntime.ReadLines(strings.NewReader(content), tt.line, tt.limit, fsruntime.DefaultMaxFileSize, -1)
		if err != nil || got != tt.want {
			t.Errorf("line=%d limit=%d: got %d bytes, %v; want %d bytes", tt.line, tt.limit, len(got), err, len(tt.want))
		}
	}
	_, err := fsruntime.ReadLines(strings.NewReader(content), 5, 1, fsruntime.DefaultMaxFileSize, -1)
	var pe *fsruntime.PastEndError
	if !errors.As(err, &pe) || pe.Lines != 4 {
		t.Errorf("past end: err = %v, want 4 lines", err)
	}
}

// FuzzReadLines checks the streaming reader against the in-memory reference
// implementation of the line semantics.
func FuzzReadLines(f *testing.F) {
	f.Add("one\ntwo\nthree\nfour\n", 2, 2)
	f.Add("a\r\nb\r\nc", 3, 1)
	f.Add("", 1, 0)
	f.Add("no newline", 2, 0)
	f.Add("\n\n\n", 3, 1)
	f.Add("x\x00y", 1, 0)
	f.Add("caf\xe9", 1, 1)
	f.Fuzz(func(t *testing.T, content string, line, limit int) {
		line, limit = line%1000, limit%1000
		got, err := fsruntime.ReadLines(strings.NewReader(content), line, limit, fsruntime.DefaultMaxFileSize, int64(len(content)))
		if errors.Is(err, fsruntime.ErrBinary) {
			if utf8.ValidString(content) && !strings.Contains(content[:min(len(content), 8<<10)], "\x00") {
				t.Fatalf("text %q refused as binary", content)
			}
			return
		}
		// The size only sizes buffers: a wrong one (a file that grew or
		// shrank since its size was taken) or none gives the same.
		for _, size := range []int64{-1, int64(len(content) / 2), int64(len(content) + 10)} {
			sgot, serr := fsruntime.ReadLines(strings.NewReader(content), line, limit, fsruntime.DefaultMaxFileSize, size)
			if sgot != got || fmt.Sprint(serr) != fmt.Sprint(err) {
				t.Fatalf("ReadLines(%q, %d, %d) with size %d = %q, %v; with the right size %q, %v", content, line, limit, size, sgot, serr, got, err)
			}
		}
		want, wantErr := fsruntimetest.SliceLines(content, line, limit)
		if got != want || (err == nil) != (wantErr == nil) {
			t.Fatalf("ReadLines(%q, %d, %d) = %q, %v; reference %q, %v", content, line, limit, got, err, want, wantErr)
		}
		if err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("error %q, reference %q", err, wantErr)
		}
	})
}

// chunkReader records the largest read asked of it, and fails once it has
// given more than failAfter bytes, as the disk's reader does once its
// context is cancelled.
type chunkReader struct {
	r         io.Reader
	given     int
	failAfter int
	largest   int
}

var errStopped = errors.New("stopped")

func (c *chunkReader) Read(p []byte) (int, error) {
	c.largest = max(c.largest, len(p))
	if c.given > c.failAfter {
		return 0, errStopped
	}
	n, err := c.r.Read(p)
	c.given += n
	return n, err
}

// TestReadWholeInChunks checks that a whole read of a large file asks its
// reader for a few MiB at a time, so that a cancelled context stops it
// between reads, and that the text is the same as read in one go.
func TestReadWholeInChunks(t *testing.T) {
	t.Parallel()
	content := strings.Repeat("a line of a file of 24 MiB or so\n", 24<<20/33)
	r := &chunkReader{r: strings.NewReader(content), failAfter: len(content)}
	got, err := fsruntime.ReadLines(r, 1, 0, 64<<20, int64(len(content)))
	if err != nil || got != content {
		t.Fatalf("ReadLines = %d bytes, %v; want the %d bytes", len(got), err, len(content))
	}
	if r.largest > 4<<20 {
		t.Errorf("a read asked for %d bytes at once; want at most 4 MiB", r.largest)
	}
	stopped := &chunkReader{r: strings.NewReader(content), failAfter: 1}
	if _, err := fsruntime.ReadLines(stopped, 1, 0, 64<<20, int64(len(content))); !errors.Is(err, errStopped) || stopped.given > 4<<20 {
		t.Errorf("ReadLines of a reader that stops = %v after %d bytes; want errStopped after one read", err, stopped.given)
	}
}
