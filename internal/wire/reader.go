package wire

import (
	"bufio"
	"bytes"
	"io"
	"log/slog"
	"runtime"
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
	// maxNoProgress is how many reads in a row may return nothing before
	// a Reader gives up with io.ErrNoProgress, as bufio.Reader does.
	maxNoProgress = 100
)

// ReaderOptions configures a Reader.
type ReaderOptions struct {
	// MaxLineSize is the longest line accepted, in bytes, not counting the
	// "\n" (a "\r" before it counts). Longer lines are discarded while
	// being read, and reported with an *OverlongError: the Reader never
	// holds more than MaxLineSize plus its 64 KiB read buffer of one line
	// (and, while it grows the buffer a long line is read into, the
	// buffer before, at most half that size).
	// Zero or negative means DefaultMaxLineSize (64 MiB).
	MaxLineSize int
	// Logger receives one warning per skipped line. nil means
	// slog.Default().
	Logger *slog.Logger
	// Label names the peer in log lines, e.g. "editor" or "agent".
	Label string
	// DeferEscapes leaves the escapes of long strings to the consumer,
	// which decodes them anyway: such a string is marked Unchecked in
	// Message.LongStrings, and the consumer must check it (LongString.Check,
	// Message.CheckEscapes) or decode it with a decoder that checks
	// before it trusts the message. It spares a pass over a large text.
	DeferEscapes bool
}

// A Reader reads newline-delimited JSON-RPC 2.0 messages. It is not safe
// for concurrent use.
type Reader struct {
	br      *bufio.Reader
	src     source // what br reads from
	max     int
	logger  *slog.Logger
	label   string
	lazy    bool              // DeferEscapes
	hint    int               // the size to read the next long line into
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
	rd := &Reader{
		src:     source{r: r},
		max:     max,
		logger:  opts.Logger,
		label:   opts.Label,
		lazy:    opts.DeferEscapes,
		methods: make(map[string]string),
	}
	rd.br = bufio.NewReaderSize(&rd.src, readBufferSize)
	return rd
}

// A source is a Reader's input: what a long line's last read took past
// its end, then the underlying reader.
type source struct {
	r       io.Reader
	pending []byte // read past a line, to be read again
	buf     []byte // holds pending
	err     error  // what r returned with the bytes now pending, for after them
}

func (s *source) Read(p []byte) (int, error) {
	if len(s.pending) > 0 {
		n := copy(p, s.pending)
		s.pending = s.pending[n:]
		return n, nil
	}
	if s.err != nil {
		return 0, s.err
	}
	return s.r.Read(p)
}

// unread puts b, read from s with err, back in front of what s has
// still to give.
func (s *source) unread(b []byte, err error) {
	if err != nil {
		s.err = err
	}
	if len(s.pending) == 0 {
		s.buf = append(s.buf[:0], b...)
		s.pending = s.buf
		return
	}
	s.pending = append(bytes.Clone(b), s.pending...)
}

func (r *Reader) log() *slog.Logger {
	if r.logger != nil {
		return r.logger
	}
	return slog.Default()
}

// Next returns the next well-formed message (see Parse), skipping blank
// lines silently and malformed ones with a warning each (label, reason, and
// the line's first 200 bytes); "\r\n" endings and a last line without a
// newline are read. A line over MaxLineSize streams past unkept and gives
// an *OverlongError, which does not end the stream. Otherwise Next returns
// io.EOF at the end, or the reader's error, and then the same on every
// call. A Message returned stays valid after later calls.
func (r *Reader) Next() (Message, error) {
	for r.err == nil {
		line, long, err := r.readLine()
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
		env, reason := scanObject(line, true, r.lazy)
		if reason == "" {
			reason = env.check(line)
		}
		if reason != "" {
			r.warn("skipping malformed JSON-RPC line", reason, line, len(line))
			continue
		}
		if !r.warned && !env.versionOK(line) {
			r.warned = true
			r.log().Warn("wire: peer sent a message without \"jsonrpc\":\"2.0\"; accepting it (logged once)",
				"peer", r.label, "prefix", Prefix(line))
		}
		raw := line[:len(line):len(line)] // a long line is already the message's own
		if !long {
			raw = bytes.Clone(line)
		}
		return env.message(raw, r.methods), nil
	}
	return Message{}, r.err
}

// readLine returns the next line without its "\n". The line is either in
// the bufio.Reader's buffer (valid until the next read) or, when long, a
// new slice of its own. It returns a nil line after discarding an overlong
// one, which it leaves in r.over, and err as ReadSlice does (io.EOF may
// come with the last line).
func (r *Reader) readLine() (line []byte, long bool, err error) {
	chunk, err := r.br.ReadSlice('\n')
	switch {
	case err == bufio.ErrBufferFull:
		return r.readLong(chunk)
	case err == nil:
		chunk = chunk[:len(chunk)-1]
	case err != io.EOF:
		return nil, false, err
	}
	if len(chunk) > r.max {
		r.scan.reset()
		r.scan.feed(chunk)
		r.overlong(Prefix(chunk), int64(len(chunk)), err == io.EOF)
		return nil, false, err
	}
	if len(chunk) == 0 {
		return nil, false, err
	}
	return chunk, false, err
}

// readLong reads a line longer than the bufio buffer, whose first bytes,
// first, fill it. It reads the rest straight into the slice it returns,
// sized for a line as long as the last long one: lines of about the same
// size, as a client writing files sends, then cost no copy but that of
// the first bytes. A longer line grows the slice by doubling; a much
// shorter one is copied into a slice of its size, so that little memory is
// held past its end.
func (r *Reader) readLong(first []byte) ([]byte, bool, error) {
	if len(first) > r.max {
		r.scan.reset()
		r.scan.feed(first)
		return nil, false, r.discard(Prefix(first), int64(len(first)))
	}
	line := make([]byte, len(first), min(max(r.hint, 2*len(first)), r.max+1))
	copy(line, first)
	for searched, empty := len(line), 0; ; {
		if len(line) == cap(line) {
			if len(line) > r.max {
				r.scan.reset()
				r.scan.feed(line)
				p, n := Prefix(line), int64(len(line))
				releaseOverlong(&line)
				return nil, false, r.discard(p, n)
			}
			grown := make([]byte, len(line), min(2*cap(line), r.max+1))
			copy(grown, line)
			line = grown
		}
		// A read at most the size of the bufio buffer, so that what it
		// takes past the line is little to hand back.
		n, err := r.src.Read(line[len(line):min(cap(line), len(line)+readBufferSize)])
		line = line[:len(line)+n]
		if i := bytes.IndexByte(line[searched:], '\n'); i >= 0 {
			end := searched + i
			r.src.unread(line[end+1:], err)
			return r.longLine(line[:end]), true, nil
		}
		searched = len(line)
		switch {
		case err == io.EOF:
			if len(line) > r.max {
				r.scan.reset()
				r.scan.feed(line)
				r.overlong(Prefix(line), int64(len(line)), true)
				releaseOverlong(&line)
				return nil, false, err
			}
			return r.longLine(line), true, err
		case err != nil:
			return nil, false, err
		case n > 0:
			empty = 0
		default:
			if empty++; empty >= maxNoProgress {
				return nil, false, io.ErrNoProgress
			}
		}
	}
}

// releaseOverlong drops *line, the buffers of an overlong line (about
// MaxLineSize and half as much again), and collects them at once, so that
// the next long line reuses their memory instead of adding to it: the
// memory an overlong line costs then stays the same however many come,
// rather than depending on when the collector would have run. Overlong
// lines are rare (a faulty or hostile peer), so the collection is cheap
// against the reading of the line.
func releaseOverlong(line *[]byte) {
	*line = nil
	runtime.GC()
}

// longLine returns line, a long line read whole, as a slice of its own
// size or close to it, and sizes the next long line's buffer after it,
// with room to spare for one a little longer.
func (r *Reader) longLine(line []byte) []byte {
	r.hint = len(line) + len(line)/16
	if cap(line)-len(line) > len(line)/4 {
		line = bytes.Clone(line)
	}
	return line[:len(line):len(line)]
}

// discard skips the rest of an overlong line, whose first n bytes the
// envelope scan has seen, reading it a buffer at a time, and scanning it
// as it goes. prefix is its start, for the log.
func (r *Reader) discard(prefix string, n int64) error {
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
			r.overlong(prefix, n, err == io.EOF)
		}
		return err
	}
}

// overlong records the overlong line of n bytes just discarded, whose
// envelope r.scan has seen whole, and logs it.
func (r *Reader) overlong(prefix string, n int64, atEOF bool) {
	kind, id, method := r.scan.result()
	r.over = &OverlongError{Peer: r.label, Kind: kind, ID: id, Method: method, Tool: r.scan.tool(), Inner: r.scan.innerRequest(), Len: n, Max: r.max}
	reason := "line longer than MaxLineSize"
	if atEOF {
		reason = "last line longer than MaxLineSize"
	}
	r.log().Warn("wire: skipping overlong JSON-RPC line", "peer", r.label, "reason", reason,
		"len", n, "max", r.max, "kind", kind.String(), "id", string(id), "method", method, "prefix", prefix)
}

func (r *Reader) warn(msg, reason string, line []byte, n int) {
	r.log().Warn("wire: "+msg, "peer", r.label, "reason", reason, "len", n, "prefix", Prefix(line))
}

// Prefix is what a log shows of a line it drops: at most its first 200
// bytes (logPrefixLen), cut at a rune boundary, invalid UTF-8 replaced.
func Prefix(b []byte) string {
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
