// Package syncwriter keeps the writes of several goroutines to one stream
// whole, so that the lines of the test peers never interleave.
package syncwriter

import (
	"io"
	"sync"
)

// A Writer makes each Write, and each Copy, whole with respect to the
// others.
type Writer struct {
	mu sync.Mutex
	w  io.Writer
}

// New returns a Writer to w.
func New(w io.Writer) *Writer { return &Writer{w: w} }

func (l *Writer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Copy writes what r yields, however long, with no other write in between,
// without holding it.
func (l *Writer) Copy(r io.Reader) (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return io.Copy(l.w, r)
}
