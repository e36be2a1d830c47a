package wire

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
)

// ErrNewline is returned by Writer.Write for a line that contains a
// newline, which would split it into two lines on the wire.
var ErrNewline = errors.New("wire: line contains a newline")

// coalesceMax is the longest line Writer copies so as to write it and its
// newline in one call; longer lines go out as two buffers (one writev on a
// net.Conn).
const coalesceMax = 32 << 10

// A Writer writes newline-terminated lines. Its methods are safe for
// concurrent use: each line is written whole before another starts.
//
// A failed write may have left part of a line on the wire, after which the
// framing cannot be trusted, so the first write error is returned by every
// later Write.
type Writer struct {
	mu      sync.Mutex
	w       io.Writer
	scratch []byte
	err     error
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: w}
}

// Write writes line followed by "\n". line should be one compact JSON
// message (Parse, SetID and ErrorResponse give such lines); Write refuses
// one that contains "\n" with ErrNewline and writes nothing.
func (w *Writer) Write(line []byte) error {
	if bytes.IndexByte(line, '\n') >= 0 {
		return ErrNewline
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	var err error
	if len(line) <= coalesceMax {
		w.scratch = append(append(w.scratch[:0], line...), '\n')
		_, err = w.w.Write(w.scratch)
	} else {
		bufs := net.Buffers{line, []byte{'\n'}}
		_, err = bufs.WriteTo(w.w)
	}
	if err != nil {
		w.err = fmt.Errorf("wire: write: %w", err)
		return w.err
	}
	return nil
}
