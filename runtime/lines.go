package runtime

import (
	"bufio"
	"bytes"
	"io"
	"unicode/utf8"
)

// sniffLen is how much of the start of a file is checked for binary
// content: a NUL byte or invalid UTF-8 there marks the file as binary.
const sniffLen = 8 << 10

// readBufSize is the read buffer of a line-range read. Skipped lines are
// counted a buffer at a time, so it bounds memory, not line length.
const readBufSize = 64 << 10

// readLines returns lines [line, line+limit) of r, with their terminators
// as stored. line is 1-based (0 means 1); limit <= 0 means to the end. It
// reads only as far as the last line it returns and holds only those lines.
// It refuses content that is binary (a NUL byte or invalid UTF-8 in the
// first sniffLen bytes, or invalid UTF-8 in what it returns) and returned
// content over max bytes.
func readLines(r io.Reader, line, limit int, max int64) (string, error) {
	if line < 1 {
		line = 1
	}
	br := bufio.NewReaderSize(r, readBufSize)
	if err := sniff(br); err != nil {
		return "", err
	}
	skipped, err := skipLines(br, line-1)
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	n := 0
	for limit <= 0 || n < limit {
		chunk, err := br.ReadSlice('\n')
		if int64(out.Len()+len(chunk)) > max {
			return "", &TooLargeError{Size: int64(out.Len() + len(chunk)), Limit: max, Read: true}
		}
		out.Write(chunk)
		switch err {
		case nil:
			n++
			continue
		case bufio.ErrBufferFull:
			continue // the same line goes on
		case io.EOF:
			if len(chunk) > 0 || out.Len() > 0 && !endsLine(out.Bytes()) {
				n++ // a last line without a terminator
			}
		default:
			return "", err
		}
		break
	}
	if n == 0 && line > 1 {
		// Nothing at the start line: it is past the end, unless the
		// file is empty and line 1 was asked for (handled above).
		return "", &PastEndError{Line: line, Lines: skipped}
	}
	if !utf8.Valid(out.Bytes()) {
		return "", ErrBinary
	}
	return out.String(), nil
}

func endsLine(b []byte) bool { return len(b) > 0 && b[len(b)-1] == '\n' }

// sniff refuses binary content at the start of br without consuming it.
func sniff(br *bufio.Reader) error {
	head, err := br.Peek(sniffLen)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return err
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return ErrBinary
	}
	if len(head) == sniffLen {
		// The last rune may be cut by the window; drop an incomplete tail.
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
		if c := bytes.Count(buf, []byte{'\n'}); seen+c < n {
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

func validUTF8(s string) bool { return utf8.ValidString(s) }
