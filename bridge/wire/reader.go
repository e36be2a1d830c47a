package wire

import (
	"bufio"
	"io"
	"log/slog"
	"unicode/utf8"
)

// DefaultMaxLineSize is the MaxLineSize used when ReaderOptions leaves it
// zero.
const DefaultMaxLineSize = 64 << 20

const (
	// readBufferSize is the bufio.Reader's size: lines up to it are parsed
	// in place and copied once.
	readBufferSize = 64 << 10
	// logPrefixLen bounds how much of a skipped line is logged.
	logPrefixLen = 200
	// keepBufferCap is the largest assembly buffer kept between lines.
	keepBufferCap = 1 << 20
)

// ReaderOptions configures a Reader.
type ReaderOptions struct {
	// MaxLineSize is the longest line accepted, in bytes, not counting the
	// "\n" (a "\r" before it counts). Longer lines are discarded while
	// being read, and reported with an *OverlongError: the Reader never
	// holds more than MaxLineSize plus its 64 KiB read buffer of one line.
	// Zero or negative means DefaultMaxLineSize (64 MiB).
	MaxLineSize int
	// Logger receives one warning per skipped line. nil means
	// slog.Default().
	Logger *slog.Logger
	// Label names the peer in log lines, e.g. "editor" or "agent".
	Label string
}

// A Reader reads newline-delimited JSON-RPC 2.0 messages. It is not safe
// for concurrent use.
type Reader struct {
	br      *bufio.Reader
	max     int
	logger  *slog.Logger
	label   string
	buf     []byte            // assembles lines longer than the bufio buffer
	methods map[string]string // interned method names
	err     error             // sticky: returned by every later Next
	warned  bool              // the jsonrpc version warning was logged
	scan    envScan           // of the overlong line being discarded
	over    *OverlongError    // the line readLine just discarded, if any
}

// NewReader returns a Reader that reads messages from r.
func NewReader(r io.Reader, opts ReaderOptions) *Reader {
	max := opts.MaxLineSize
	if max <= 0 {
		max = DefaultMaxLineSize
	}
	return &Reader{
		br:      bufio.NewReaderSize(r, readBufferSize),
		max:     max,
		logger:  opts.Logger,
		label:   opts.Label,
		methods: make(map[string]string),
	}
}

func (r *Reader) log() *slog.Logger {
	if r.logger != nil {
		return r.logger
	}
	return slog.Default()
}

// Next returns the next well-formed message (see Parse for what is
// malformed). It skips blank lines silently, tolerates "\r\n" line endings,
// and skips malformed lines with one warning each, naming the label, the
// reason and at most 200 bytes from the start of the line. A last line
// without a newline is still read.
//
// A line longer than MaxLineSize is discarded as it streams past, with one
// warning, and Next returns an *OverlongError for it, which says what the
// line was (a request, say, and its id) so that the caller can answer it.
// That error does not end the stream: the next call reads the next line.
//
// Otherwise Next returns io.EOF at the end of the input, or the underlying
// reader's error (a line cut short by it is lost). Once Next has returned
// such an error it returns the same error on every call.
//
// The returned Message does not share memory with the Reader: it stays
// valid after later calls.
func (r *Reader) Next() (Message, error) {
	for r.err == nil {
		line, inBuf, err := r.readLine()
		if err != nil && err != io.EOF {
			r.err = err
			break
		}
		if err == io.EOF {
			r.err = io.EOF // after this line, if any
		}
		if over := r.over; over != nil {
			r.over = nil
			return Message{}, over
		}
		if line == nil { // nothing before EOF
			continue
		}
		line = trimSpace(line)
		if len(line) == 0 {
			continue
		}
		env, reason := scanObject(line)
		if reason == "" {
			reason = env.check(line)
		}
		if reason != "" {
			r.warn("skipping malformed JSON-RPC line", reason, line, len(line))
			r.dropBuf()
			continue
		}
		if !r.warned && !env.versionOK(line) {
			r.warned = true
			r.log().Warn("wire: peer sent a message without \"jsonrpc\":\"2.0\"; accepting it (logged once)",
				"peer", r.label, "prefix", prefix(line))
		}
		var raw []byte
		if inBuf {
			// The assembled line is handed over rather than copied
			// again; the next long line assembles in a new buffer.
			raw = line[:len(line):len(line)]
			r.buf = nil
		} else {
			raw = make([]byte, len(line))
			copy(raw, line)
		}
		return env.message(raw, r.methods), nil
	}
	return Message{}, r.err
}

// readLine returns the next line without its "\n". The line is either in
// the bufio.Reader's buffer (valid until the next read) or, when inBuf, in
// r.buf. It returns a nil line after discarding an overlong one, which it
// leaves in r.over, and err as ReadSlice does (io.EOF may come with the
// last line).
func (r *Reader) readLine() (line []byte, inBuf bool, err error) {
	r.buf = r.buf[:0]
	for {
		chunk, err := r.br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			if len(r.buf)+len(chunk) > r.max {
				return nil, false, r.discard(chunk)
			}
			r.appendBuf(chunk)
			continue
		}
		if err == nil {
			chunk = chunk[:len(chunk)-1]
		} else if err != io.EOF {
			return nil, false, err
		}
		if len(r.buf)+len(chunk) > r.max {
			p, n := r.longPrefix(chunk), int64(len(r.buf)+len(chunk))
			r.scanLong(chunk)
			r.overlong(p, n, err == io.EOF)
			return nil, false, err
		}
		if len(r.buf) == 0 {
			if len(chunk) == 0 {
				return nil, false, err
			}
			return chunk, false, err
		}
		r.appendBuf(chunk)
		return r.buf, true, err
	}
}

// appendBuf appends chunk to r.buf, doubling its capacity as needed but
// never beyond MaxLineSize. (append grows large slices by 1.25x, which
// would allocate several times the line in total.)
func (r *Reader) appendBuf(chunk []byte) {
	if need := len(r.buf) + len(chunk); need > cap(r.buf) {
		c := min(max(2*cap(r.buf), 2*readBufferSize), r.max)
		nb := make([]byte, len(r.buf), max(c, need))
		copy(nb, r.buf)
		r.buf = nb
	}
	r.buf = append(r.buf, chunk...)
}

// discard skips the rest of an overlong line whose first bytes are in
// r.buf followed by chunk, reading it a buffer at a time, and scanning it
// for its envelope as it goes.
func (r *Reader) discard(chunk []byte) error {
	p := r.longPrefix(chunk)
	n := int64(len(r.buf) + len(chunk))
	r.scanLong(chunk)
	for {
		chunk, err := r.br.ReadSlice('\n')
		n += int64(len(chunk))
		switch err {
		case bufio.ErrBufferFull:
			r.scan.feed(chunk)
			continue
		case nil:
			n-- // the newline
			chunk = chunk[:len(chunk)-1]
		}
		if err == nil || err == io.EOF {
			r.scan.feed(chunk)
			r.overlong(p, n, err == io.EOF)
		}
		return err
	}
}

// scanLong starts the envelope scan of an overlong line whose first bytes
// are in r.buf followed by chunk, and lets r.buf go.
func (r *Reader) scanLong(chunk []byte) {
	r.scan.reset()
	r.scan.feed(r.buf)
	r.scan.feed(chunk)
	r.buf = r.buf[:0]
	r.dropBuf()
}

// overlong records the overlong line of n bytes just discarded, whose
// envelope r.scan has seen whole, and logs it.
func (r *Reader) overlong(prefix string, n int64, atEOF bool) {
	kind, id, method := r.scan.result()
	r.over = &OverlongError{Peer: r.label, Kind: kind, ID: id, Method: method, Len: n, Max: r.max}
	reason := "line longer than MaxLineSize"
	if atEOF {
		reason = "last line longer than MaxLineSize"
	}
	r.log().Warn("wire: skipping overlong JSON-RPC line", "peer", r.label, "reason", reason,
		"len", n, "max", r.max, "kind", kind.String(), "id", string(id), "method", method, "prefix", prefix)
}

// longPrefix copies the start of a line assembled from r.buf and chunk.
func (r *Reader) longPrefix(chunk []byte) string {
	var b []byte
	if len(r.buf) >= logPrefixLen+utf8.UTFMax {
		b = r.buf
	} else {
		b = append(r.buf[:len(r.buf):len(r.buf)], chunk[:min(len(chunk), logPrefixLen+utf8.UTFMax)]...)
	}
	return prefix(b)
}

// dropBuf forgets r.buf if it grew large, so that one huge line does not
// pin its memory for the life of the stream.
func (r *Reader) dropBuf() {
	if cap(r.buf) > keepBufferCap {
		r.buf = nil
	}
}

func (r *Reader) warn(msg, reason string, line []byte, n int) {
	r.log().Warn("wire: "+msg, "peer", r.label, "reason", reason, "len", n, "prefix", prefix(line))
}

// prefix returns at most logPrefixLen bytes from the start of b, cut at a
// rune boundary, with invalid UTF-8 replaced.
func prefix(b []byte) string {
	if len(b) > logPrefixLen {
		n := logPrefixLen
		for n > logPrefixLen-utf8.UTFMax && n > 0 && !utf8.RuneStart(b[n]) {
			n--
		}
		b = b[:n]
	}
	if utf8.Valid(b) {
		return string(b)
	}
	return string([]rune(string(b))) // replaces invalid bytes with U+FFFD
}
