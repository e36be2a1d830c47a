package fsruntime

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// SniffLen is how much of the start of a file is checked for binary
// content: a NUL byte or invalid UTF-8 there marks the file as binary.
const SniffLen = 8 << 10

// readBufSize is the read buffer of a line-range read. Skipped lines are
// counted a buffer at a time, so it bounds memory, not line length.
const readBufSize = 64 << 10

// readLines returns lines [line, line+limit) of r, with their terminators
// as stored. line is 1-based (0 means 1); limit <= 0 means to the end. It
// reads only as far as the last line it returns and holds only those lines.
// It refuses content that is binary (a NUL byte or invalid UTF-8 in the
// first SniffLen bytes, or invalid UTF-8 in what it returns) and returned
// content over maxBytes. size is the size of the input if known, else -1;
// it only sizes buffers.
func readLines(r io.Reader, line, limit int, maxBytes, size int64) (string, error) {
	if line < 1 {
		line = 1
	}
	if line == 1 && limit <= 0 && size >= 0 && size <= maxBytes {
		return readWhole(r, maxBytes, size)
	}
	bufSize := readBufSize
	if size >= 0 && size < readBufSize {
		// Room to see EOF in one read, and to sniff all of SniffLen: a
		// smaller buffer would see the file's start as cut short whether
		// or not it is.
		bufSize = max(int(size)+1, SniffLen)
	}
	br := bufio.NewReaderSize(r, bufSize)
	if err := sniff(br); err != nil {
		return "", err
	}
	skipped, err := skipLines(br, line-1)
	if err != nil {
		return "", err
	}
	out := &cappedBuilder{max: maxBytes}
	if limit <= 0 {
		if line == 1 && size > 0 {
			out.Grow(int(min(size, maxBytes)))
		}
		_, err = br.WriteTo(out)
	} else {
		err = copyLines(out, br, limit)
	}
	if err != nil {
		return "", err
	}
	if out.Len() == 0 && line > 1 {
		// Every line has at least its terminator or one byte, so nothing
		// at the start line means there is no such line. (An empty file
		// read from line 1 is "", not an error.)
		return "", &PastEndError{Line: line, Lines: skipped}
	}
	text := out.String()
	if !utf8.ValidString(text) {
		return "", ErrBinary
	}
	return text, nil
}

// readWhole is readLines for a whole read of a file of known size within
// maxBytes: the file is read into one buffer of its size, which becomes the
// text, with no read buffer in between and no copy. If the file has grown
// since its size was taken, what was read and the rest go through
// readLines' general path.
func readWhole(r io.Reader, maxBytes, size int64) (string, error) {
	buf := make([]byte, size+1) // room to see EOF in one read
	n, err := readFull(r, buf)
	switch {
	case n == len(buf):
		return readLines(io.MultiReader(bytes.NewReader(buf), r), 1, 0, maxBytes, -1)
	case err != io.EOF && err != io.ErrUnexpectedEOF:
		return "", err
	}
	text := buf[:n]
	if bytes.IndexByte(text[:min(n, SniffLen)], 0) >= 0 || !utf8.Valid(text) {
		return "", ErrBinary
	}
	// buf is never written again: the string may share its bytes, as a
	// strings.Builder's does.
	return unsafe.String(unsafe.SliceData(text), n), nil
}

// wholeReadChunk is the most readWhole asks of r in one Read, so that a
// reader that checks a context before each Read (as the disk's does) sees
// it cancelled within a few milliseconds, not after a read of the whole
// file.
const wholeReadChunk = 4 << 20

// readFull is io.ReadFull, asking r for at most wholeReadChunk bytes at a
// time.
func readFull(r io.Reader, buf []byte) (n int, err error) {
	for n < len(buf) && err == nil {
		var m int
		m, err = r.Read(buf[n:min(n+wholeReadChunk, len(buf))])
		n += m
	}
	switch {
	case n == len(buf):
		err = nil
	case n > 0 && err == io.EOF:
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// copyLines copies up to limit lines from br to out.
func copyLines(out io.Writer, br *bufio.Reader, limit int) error {
	for n := 0; n < limit; {
		chunk, err := br.ReadSlice('\n')
		if _, werr := out.Write(chunk); werr != nil {
			return werr
		}
		switch err {
		case nil:
			n++
		case bufio.ErrBufferFull:
			// The same line goes on.
		case io.EOF:
			return nil
		default:
			return err
		}
	}
	return nil
}

// cappedBuilder is a strings.Builder that refuses to grow past max bytes.
type cappedBuilder struct {
	strings.Builder
	max int64
}

func (b *cappedBuilder) Write(p []byte) (int, error) {
	if n := int64(b.Len() + len(p)); n > b.max {
		return 0, &TooLargeError{Size: n, Limit: b.max, Read: true}
	}
	return b.Builder.Write(p)
}

var newline = []byte{'\n'}

func endsLine(b []byte) bool { return len(b) > 0 && b[len(b)-1] == '\n' }

// sniff refuses binary content at the start of br without consuming it.
func sniff(br *bufio.Reader) error {
	head, err := br.Peek(SniffLen)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return err
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return ErrBinary
	}
	if err != io.EOF {
		// More may follow, so the last rune may be cut by the window:
		// drop an incomplete tail.
		for i := 1; i < utf8.UTFMax && i <= len(head); i++ {
			if utf8.RuneStart(head[len(head)-i]) {
				if !utf8.FullRune(head[len(head)-i:]) {
					head = head[:len(head)-i]
				}
				break
			}
		}
	}
	if !utf8.Valid(head) {
		return ErrBinary
	}
	return nil
}

// skipLines discards the first n lines of br, counting terminators a
// buffer at a time. It returns how many lines it saw, which is less than n
// only at the end of the input (a final line without a terminator counts).
func skipLines(br *bufio.Reader, n int) (int, error) {
	seen := 0
	pending := false // bytes of an unterminated line were discarded
	for seen < n {
		if br.Buffered() == 0 {
			if _, err := br.Peek(1); err == io.EOF {
				if pending {
					seen++
				}
				return seen, nil
			} else if err != nil {
				return seen, err
			}
		}
		buf, _ := br.Peek(br.Buffered())
		if c := bytes.Count(buf, newline); seen+c < n {
			seen += c
			pending = !endsLine(buf)
			br.Discard(len(buf))
			continue
		}
		// The n-th terminator is in this buffer: find it.
		off := 0
		for seen < n {
			i := bytes.IndexByte(buf[off:], '\n')
			off += i + 1
			seen++
		}
		br.Discard(off)
		pending = false
	}
	return seen, nil
}
