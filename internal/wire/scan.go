package wire

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/bits"
)

// maxDepth is the deepest nesting the scanner accepts. It matches
// encoding/json's limit, so that a line this package accepts is one that
// encoding/json (and so sourcegraph/jsonrpc2) also accepts.
const maxDepth = 10000

// A span is the half-open byte range [start, end) of a JSON value in a
// line. start < 0 means the member is absent.
type span struct{ start, end int }

func (s span) present() bool { return s.start >= 0 }

// member indexes the top-level members an envelope records.
type member int

const (
	memJSONRPC member = iota
	memID
	memMethod
	memParams
	memResult
	memError
	numMembers
)

var memberNames = [numMembers]string{"jsonrpc", "id", "method", "params", "result", "error"}

// An envelope is where the JSON-RPC members of one top-level object are.
type envelope struct {
	mem           [numMembers]span
	open          int          // offset of the object's '{'
	empty         bool         // the object has no members at all
	methodEscaped bool         // the method string contains escapes
	long          []LongString // the object's long strings, in order
}

// LongStringMin is the length, in bytes with its quotes, from which the
// scan of a line records a string in Message.LongStrings.
const LongStringMin = 1 << 10

// A LongString is where a string of LongStringMin bytes or more lies in a
// Message's Raw, and what the scan that checked it learned: a reader of
// the message can step over it, and decode it, without looking again.
type LongString struct {
	Start, End int  // Raw[Start:End] is the JSON string, quotes included
	ASCII      bool // each of its bytes is below 0x80; false if not known
	// Unchecked is set when the reader left its escapes to be checked
	// (ReaderOptions.DeferEscapes): see Check.
	Unchecked bool
}

// Check checks the escapes of ls, a long string of raw (its Message's
// Raw), if they are unchecked, and reports the first that is not well
// formed.
func (ls LongString) Check(raw []byte) error {
	if !ls.Unchecked {
		return nil
	}
	s := scanner{b: raw, i: ls.Start}
	if _, ok := s.scanStr(true); !ok {
		return fmt.Errorf("the string at offset %d: %s", ls.Start, s.err)
	}
	return nil
}

// scanObject checks that b is exactly one JSON object, optionally
// surrounded by whitespace, and records the spans of the top-level members
// named in memberNames, keys compared after unescaping as encoding/json
// does. A repeated envelope member is an error: decoders disagree on which
// one wins. It returns a reason for the log, or "" if b is a valid JSON
// object. If collect is set, it records the long strings in env.long, and
// if lazy is set too, leaves their escapes unchecked (lazyStr). See
// DESIGN.md, "One pass over the line (scanObject)".
func scanObject(b []byte, collect, lazy bool) (env envelope, reason string) {
	for i := range env.mem {
		env.mem[i] = span{-1, -1}
	}
	s := scanner{b: b, collect: collect, lazy: collect && lazy}
	s.skipSpace()
	switch {
	case s.i == len(b):
		return env, "empty line"
	case b[s.i] == '[':
		return env, "JSON-RPC batches (JSON arrays) are not supported"
	case b[s.i] != '{':
		if s.value(0) && s.skipSpace() == len(b) {
			return env, "not a JSON object"
		}
		return env, "not JSON"
	}
	env.open = s.i
	s.i++
	s.skipSpace()
	if s.peek() == '}' {
		s.i++
		env.empty = true
	} else {
		for {
			if s.peek() != '"' {
				s.failAt("expected a member name")
				return env, s.err
			}
			kstart := s.i
			escaped, ok := s.str()
			if !ok {
				return env, s.err
			}
			m := lookupMember(b[kstart+1:s.i-1], escaped)
			s.skipSpace()
			if s.peek() != ':' {
				s.failAt("expected ':' after member name")
				return env, s.err
			}
			s.i++
			s.skipSpace()
			vstart := s.i
			if m == memMethod && s.peek() == '"' {
				escaped, ok := s.str()
				if !ok {
					return env, s.err
				}
				env.methodEscaped = escaped
			} else if !s.value(1) {
				return env, s.err
			}
			if m >= 0 {
				if env.mem[m].present() {
					return env, fmt.Sprintf("duplicate %q member", memberNames[m])
				}
				env.mem[m] = span{vstart, s.i}
			}
			s.skipSpace()
			switch s.peek() {
			case ',':
				s.i++
				s.skipSpace()
				continue
			case '}':
				s.i++
			default:
				s.failAt("expected ',' or '}' after object member")
				return env, s.err
			}
			break
		}
	}
	if s.skipSpace() != len(b) {
		return env, fmt.Sprintf("data after the JSON object at offset %d", s.i)
	}
	env.long = s.long
	return env, ""
}

// lookupMember returns the envelope member a key names, or -1.
func lookupMember(key []byte, escaped bool) member {
	if escaped {
		var k string
		if json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &k) != nil {
			return -1
		}
		key = []byte(k)
	}
	for m, name := range memberNames {
		if string(key) == name {
			return member(m)
		}
	}
	return -1
}

// scanScalarID checks that id is one JSON string, number or null,
// optionally surrounded by whitespace, and returns it without the
// whitespace.
func scanScalarID(id []byte) ([]byte, error) {
	s := scanner{b: id}
	start := s.skipSpace()
	if start == len(id) {
		return nil, fmt.Errorf("wire: empty id")
	}
	switch c := id[start]; {
	case c == '"', c == '-', c == 'n', '0' <= c && c <= '9':
	default:
		return nil, fmt.Errorf("wire: id %.40q is not a string, number or null", id)
	}
	if !s.value(0) {
		return nil, fmt.Errorf("wire: invalid id %.40q: %s", id, s.err)
	}
	end := s.i
	if s.skipSpace() != len(id) {
		return nil, fmt.Errorf("wire: id %.40q is more than one JSON value", id)
	}
	return id[start:end], nil
}

// A scanner validates JSON in b from offset i. The first error is kept in
// err.
type scanner struct {
	b       []byte
	i       int
	err     string
	ascii   bool         // the string just scanned is known to be ASCII
	checked bool         // the string just scanned had its escapes checked
	collect bool         // record long strings in long
	lazy    bool         // leave long strings' escapes unchecked
	long    []LongString // the long strings scanned
}

func (s *scanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// skipSpace skips JSON whitespace and returns the new offset.
func (s *scanner) skipSpace() int {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return s.i
		}
	}
	return s.i
}

func (s *scanner) failAt(what string) bool {
	if s.i >= len(s.b) {
		s.err = what + ", found end of line"
	} else {
		s.err = fmt.Sprintf("%s, found %q at offset %d", what, s.b[s.i], s.i)
	}
	return false
}

// value scans one JSON value. depth is the nesting depth of the container
// holding it.
func (s *scanner) value(depth int) bool {
	switch c := s.peek(); {
	case c == '"':
		_, ok := s.str()
		return ok
	case c == '{':
		return s.object(depth + 1)
	case c == '[':
		return s.array(depth + 1)
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-', '0' <= c && c <= '9':
		return s.number()
	}
	return s.failAt("expected a JSON value")
}

func (s *scanner) object(depth int) bool {
	if depth > maxDepth {
		return s.failAt("JSON nested too deeply")
	}
	s.i++ // '{'
	s.skipSpace()
	if s.peek() == '}' {
		s.i++
		return true
	}
	for {
		if s.peek() != '"' {
			return s.failAt("expected a member name")
		}
		if _, ok := s.str(); !ok {
			return false
		}
		s.skipSpace()
		if s.peek() != ':' {
			return s.failAt("expected ':' after member name")
		}
		s.i++
		s.skipSpace()
		if !s.value(depth) {
			return false
		}
		s.skipSpace()
		switch s.peek() {
		case ',':
			s.i++
			s.skipSpace()
		case '}':
			s.i++
			return true
		default:
			return s.failAt("expected ',' or '}' after object member")
		}
	}
}

func (s *scanner) array(depth int) bool {
	if depth > maxDepth {
		return s.failAt("JSON nested too deeply")
	}
	s.i++ // '['
	s.skipSpace()
	if s.peek() == ']' {
		s.i++
		return true
	}
	for {
		if !s.value(depth) {
			return false
		}
		s.skipSpace()
		switch s.peek() {
		case ',':
			s.i++
			s.skipSpace()
		case ']':
			s.i++
			return true
		default:
			return s.failAt("expected ',' or ']' after array element")
		}
	}
}

func (s *scanner) literal(lit string) bool {
	if len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit {
		s.i += len(lit)
		return true
	}
	return s.failAt("invalid literal")
}

// number scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (s *scanner) number() bool {
	b := s.b
	i := s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i)
	default:
		s.i = i
		return s.failAt("invalid number")
	}
	if i < len(b) && b[i] == '.' {
		i++
		j := digits(b, i)
		if j == i {
			s.i = i
			return s.failAt("invalid number: no digits after '.'")
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			s.i = i
			return s.failAt("invalid number: no digits in exponent")
		}
		i = j
	}
	s.i = i
	return true
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// specials returns a mask of top bits whose lowest set bit (if any) is
// that of the first byte of the little-endian word x that is a quote, a
// backslash or a control character (< 0x20), and that is zero if x has
// none. Bits above the lowest may be wrong: a borrow out of a byte that is
// flagged can flag the next one, never an earlier one.
func specials(x uint64) uint64 {
	const (
		quotes      = '"' * lsb
		backslashes = '\\' * lsb
	)
	less := (x - 0x20*lsb) &^ x // a byte < 0x20 sets its top bit
	q := x ^ quotes
	bs := x ^ backslashes
	zq := (q - lsb) &^ q
	zb := (bs - lsb) &^ bs
	return (less | zq | zb) & msb
}

// PlainRun returns how many bytes s starts with that a JSON string holds
// as they are: none is a quote, a backslash or a control character. It
// looks at eight bytes at a time.
func PlainRun[S ~string | ~[]byte](s S) int {
	n := 0
	for n+8 <= len(s) {
		// One little-endian load (the compiler merges the bytes' loads).
		x := uint64(s[n]) | uint64(s[n+1])<<8 | uint64(s[n+2])<<16 | uint64(s[n+3])<<24 |
			uint64(s[n+4])<<32 | uint64(s[n+5])<<40 | uint64(s[n+6])<<48 | uint64(s[n+7])<<56
		if m := specials(x); m != 0 {
			return n + bits.TrailingZeros64(m)/8
		}
		n += 8
	}
	for n < len(s) {
		if c := s[n]; c < 0x20 || c == '"' || c == '\\' {
			break
		}
		n++
	}
	return n
}

// sparseRun is the length of a run of plain bytes in a string, ending at
// an escape, after which str expects the runs that follow to be long too.
const sparseRun = 32

// str scans a JSON string starting at the opening quote, reports whether
// it contains escapes, and records it in s.long if it is long.
//
// It finds the next byte that is not plain (a quote, a backslash or a
// control character) a word at a time, which suits short strings and short
// runs between escapes. After a long run that ends at an escape, as in a
// file's text with a newline every line, it hands the rest of the string
// to sparseStr.
func (s *scanner) str() (escaped, ok bool) {
	start := s.i
	s.ascii, s.checked = false, true
	escaped, ok = s.scanStr(true)
	if ok && s.collect && s.i-start >= LongStringMin {
		s.long = append(s.long, LongString{Start: start, End: s.i, ASCII: s.ascii, Unchecked: !s.checked})
	}
	return escaped, ok
}

// scanStr is str, which may hand over to sparseStr, or, if not, scans
// the string byte by byte after each byte that is not plain and records
// the first error in it.
func (s *scanner) scanStr(sparse bool) (escaped, ok bool) {
	b := s.b
	i := s.i + 1
	for {
		from := i
		i += PlainRun(b[i:]) // to the next byte that is not plain
		if i >= len(b) {
			s.i = i
			return escaped, s.failAt("unterminated string")
		}
		switch c := b[i]; {
		case c == '"':
			s.i = i + 1
			return escaped, true
		case c == '\\':
			escaped = true
			if sparse && i-from >= sparseRun {
				if s.lazy {
					return s.lazyStr(i)
				}
				return s.sparseStr(i)
			}
			if i+1 >= len(b) {
				s.i = i + 1
				return escaped, s.failAt("unterminated escape")
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					s.i = i
					return escaped, s.failAt(`invalid \u escape`)
				}
				i += 6
			default:
				s.i = i + 1
				return escaped, s.failAt("invalid escape")
			}
		case c < 0x20:
			s.i = i
			return escaped, s.failAt("control character in string")
		default:
			i++ // in the last word's bytes
		}
	}
}

// sparseStr scans the rest of a string from the escape at b[i] on, all
// before it checked. It finds the closing quote and each backslash with
// bytes.IndexByte, which looks at many bytes at once, rather than look at
// every word for all three kinds of byte that are not plain, and checks
// the whole string for control characters, and for bytes that are not
// ASCII, in one pass at the end. If the string is wrong it scans it again
// with scanStr, for the first error and its offset.
func (s *scanner) sparseStr(i int) (escaped, ok bool) {
	b := s.b
	open := s.i // the opening quote
	end := -1   // the first quote at or after i, once looked for
	for {
		if end < i {
			end = len(b)
			if q := bytes.IndexByte(b[i:], '"'); q >= 0 {
				end = i + q
			}
		}
		n := bytes.IndexByte(b[i:end], '\\')
		if n < 0 {
			break
		}
		i += n
		switch {
		case i+1 < len(b) && simpleEscape[b[i+1]]:
			i += 2
		case i+5 < len(b) && b[i+1] == 'u' && isHex(b[i+2]) && isHex(b[i+3]) && isHex(b[i+4]) && isHex(b[i+5]):
			i += 6
		default:
			return s.scanStr(false)
		}
	}
	if end == len(b) {
		return s.scanStr(false)
	}
	ctl, hi := textBits(b[open+1 : end])
	if ctl != 0 {
		return s.scanStr(false)
	}
	s.i, s.ascii = end+1, hi == 0
	return true, true
}

// lazyStr is sparseStr for a scan that leaves long strings' escapes
// unchecked: it finds the closing quote, the first after an even run of
// backslashes, without looking at each escape, and checks the string for
// control characters, and for bytes that are not ASCII, as sparseStr
// does. A string too short to be recorded, whose escapes no one would
// check later, it hands to sparseStr.
func (s *scanner) lazyStr(i int) (escaped, ok bool) {
	b := s.b
	open := s.i // the opening quote
	end := i
	for {
		q := bytes.IndexByte(b[end:], '"')
		if q < 0 {
			return s.scanStr(false) // for the error and its offset
		}
		end += q
		if !oddRun(b[open+1:end], false) {
			break
		}
		end++
	}
	if end+1-open < LongStringMin {
		return s.sparseStr(i)
	}
	ctl, hi := textBits(b[open+1 : end])
	if ctl != 0 {
		return s.scanStr(false)
	}
	s.i, s.ascii, s.checked = end+1, hi == 0, false
	return true, true
}

// simpleEscape holds the characters that make a two-byte escape after a
// backslash.
var simpleEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// hasControl reports whether b holds a control character (< 0x20).
func hasControl(b []byte) bool {
	ctl, _ := textBits(b)
	return ctl != 0
}

// textBits reports, each as msb or 0, whether b holds a control character
// (< 0x20) and whether it holds a byte of 0x80 or more, looking at four
// words at a time.
func textBits(b []byte) (ctl, hi uint64) {
	for len(b) >= 32 {
		x0 := binary.LittleEndian.Uint64(b)
		x1 := binary.LittleEndian.Uint64(b[8:])
		x2 := binary.LittleEndian.Uint64(b[16:])
		x3 := binary.LittleEndian.Uint64(b[24:])
		// A byte's top bit is set after subtracting 0x20 when it was
		// below 0x20 (or is borrowed from, which takes one that was),
		// and was clear before.
		ctl |= (x0-0x20*lsb)&^x0 | (x1-0x20*lsb)&^x1 | (x2-0x20*lsb)&^x2 | (x3-0x20*lsb)&^x3
		hi |= x0 | x1 | x2 | x3
		b = b[32:]
	}
	for len(b) >= 8 {
		x := binary.LittleEndian.Uint64(b)
		ctl |= (x - 0x20*lsb) &^ x
		hi |= x
		b = b[8:]
	}
	for _, c := range b {
		if c < 0x20 {
			ctl |= msb
		}
		hi |= uint64(c)
	}
	return ctl & msb, hi & msb
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
