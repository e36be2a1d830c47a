package lift

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
)

// Min is the length from which a string is lifted, in bytes of its
// JSON form. Below it, mcp-go's passes cost a few microseconds.
const Min = 1 << 10

// Arguments are the string arguments that may be lifted, by tool name:
// each a path of member names into the arguments, "[]" standing for every
// element of an array. Their handlers call [Unlift] on each, before they
// act on the call: it checks what the wire reader may have left unchecked.
type Arguments map[string][][]string

// Table holds the strings lifted out of one tool call and its result.
type Table struct {
	prefix string

	mu      sync.Mutex
	n       int
	args    map[string]*liftedArg // placeholder -> the argument
	results map[string]string     // placeholder -> the result's text
	quoted  map[string][]byte     // placeholder -> the result's text quoted, once spliced
	raw     map[string][]byte     // placeholder -> a result's value, already JSON
	kept    map[string][]byte     // placeholder -> a shared value, already JSON: never released
}

// liftedArg is one string argument lifted out of a call.
type liftedArg struct {
	quoted []byte // the JSON string, over the bytes of the request's line
	ascii  bool   // quoted is known to hold ASCII only
	done   bool   // quoted has been decoded, over itself, into text
	text   string
	err    error
}

type liftKey struct{}

// NewTable returns an empty table whose placeholders begin with prefix.
func NewTable(prefix string) *Table {
	return &Table{prefix: prefix}
}

// WithTable returns ctx carrying lt, for the handlers of its call.
func WithTable(ctx context.Context, lt *Table) context.Context {
	return context.WithValue(ctx, liftKey{}, lt)
}

// placeholder returns a new placeholder; the caller holds lt.mu.
func (lt *Table) placeholderLocked() string {
	lt.n++
	return lt.prefix + strconv.Itoa(lt.n)
}

// LiftArguments returns line, a tools/call request the wire reader
// accepted, with the large string arguments its tool allows swapped for
// placeholders that lt maps back to them; long are its long strings
// (Message.LongStrings), or nil. With none to lift it returns line itself;
// else a new line, and line belongs to lt (Unlift decodes over its bytes).
// It fails on a long string with a malformed escape the reader left
// unchecked, unless a handler gets it, whose Unlift checks it. See
// DESIGN.md, "Escapes left to the decoder (ReaderOptions.DeferEscapes)".
func (lt *Table) LiftArguments(line []byte, long []wire.LongString, lifted Arguments) ([]byte, error) {
	spans := liftable(line, long, lifted)
	k := 0 // spans, like long, are in order
	for _, ls := range long {
		for k < len(spans) && spans[k].start < ls.Start {
			k++
		}
		if k < len(spans) && spans[k].start == ls.Start && spans[k].bound {
			continue // its handler's Unlift checks it
		}
		if err := ls.Check(line); err != nil {
			return nil, err
		}
	}
	if len(spans) == 0 {
		return line, nil
	}
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if lt.args == nil {
		lt.args = make(map[string]*liftedArg, len(spans))
	}
	n := len(line)
	for _, s := range spans {
		n += len(lt.prefix) + 22 - (s.end - s.start) // its placeholder quoted, up to 20 digits
	}
	out := make([]byte, 0, n)
	last := 0
	for _, s := range spans {
		ph := lt.placeholderLocked()
		lt.args[ph] = &liftedArg{quoted: line[s.start:s.end:s.end], ascii: s.ascii}
		out = append(out, line[last:s.start]...)
		out = append(out, '"')
		out = append(out, ph...)
		out = append(out, '"')
		last = s.end
	}
	return append(out, line[last:]...), nil
}

// liftable returns the spans of the strings of line, a tools/call
// request, that its tool allows lifted, in order, or none.
func liftable(line []byte, long []wire.LongString, lifted Arguments) []liftSpan {
	if len(line) < Min {
		return nil
	}
	w := Walker{b: line, long: long}
	params := -1
	w.Members(0, func(key []byte, v int) bool {
		if string(key) == `"params"` {
			params = v
			return false // the only one: not skipped, a pass over it spared
		}
		return true
	})
	if params < 0 || line[params] != '{' {
		return nil
	}
	nameAt, argsAt := -1, -1
	w.Members(params, func(key []byte, v int) bool {
		switch string(key) { // the last of each, as decoders take
		case `"name"`:
			nameAt = v
		case `"arguments"`:
			argsAt = v
		}
		return true
	})
	if nameAt < 0 || argsAt < 0 || line[nameAt] != '"' || line[argsAt] != '{' {
		return nil
	}
	var name string
	if json.Unmarshal(line[nameAt:w.Skip(nameAt)], &name) != nil {
		return nil
	}
	var spans []liftSpan
	for _, path := range lifted[name] {
		spans = w.appendLiftable(spans, argsAt, path, true)
	}
	if len(spans) == 0 {
		return nil
	}
	slices.SortFunc(spans, func(a, b liftSpan) int { return a.start - b.start }) // they never overlap
	return spans
}

// A liftSpan is a string to lift: line[start:end], quotes included.
type liftSpan struct {
	start, end int
	ascii      bool // known to hold ASCII only
	bound      bool // a handler gets it: no later member of its name shadows it
}

// appendLiftable appends the spans of the strings of Min bytes or more
// found at path from the value at w.b[at:], which a handler gets if bound.
func (w *Walker) appendLiftable(spans []liftSpan, at int, path []string, bound bool) []liftSpan {
	b := w.b
	if len(path) == 0 {
		if b[at] == '"' {
			if end := w.Skip(at); end-at >= Min {
				ls, _ := w.longString(at)
				spans = append(spans, liftSpan{start: at, end: end, ascii: ls.ASCII, bound: bound})
			}
		}
		return spans
	}
	if path[0] == "[]" {
		if b[at] != '[' {
			return spans
		}
		w.Elements(at, func(el int) { spans = w.appendLiftable(spans, el, path[1:], bound) })
		return spans
	}
	if b[at] != '{' {
		return spans
	}
	// Every member of that name: decoders take the last one, and each
	// placeholder maps back to its own string either way.
	var values []int
	w.Members(at, func(key []byte, v int) bool {
		if string(key) == `"`+path[0]+`"` {
			values = append(values, v)
		}
		return true
	})
	for i, v := range values {
		spans = w.appendLiftable(spans, v, path[1:], bound && i == len(values)-1)
	}
	return spans
}

// Unlift puts back the argument *s stands for, if the transport
// lifted it out of the call: its JSON string, decoded as encoding/json (and
// so mcp-go, had the string stayed in place) decodes it.
// See DESIGN.md, "Lifted text is not copied (Unlift)".
func Unlift(ctx context.Context, s *string) error {
	lt, _ := ctx.Value(liftKey{}).(*Table)
	if lt == nil || !strings.HasPrefix(*s, lt.prefix) {
		return nil
	}
	lt.mu.Lock()
	defer lt.mu.Unlock()
	a, ok := lt.args[*s]
	if !ok {
		return nil
	}
	if !a.done {
		a.done = true
		text, err := unquoteInPlace(a.quoted, a.ascii)
		a.quoted = nil
		if err != nil {
			a.err = fmt.Errorf("a string argument: %w", err)
		} else {
			a.text = unsafe.String(unsafe.SliceData(text), len(text))
		}
	}
	if a.err != nil {
		return a.err
	}
	*s = a.text
	return nil
}

// unquoteInPlace decodes the JSON string q, quotes included, over its own
// bytes, and returns the text: q[1:1+n], or, when q holds invalid UTF-8
// (unchecked if ascii says q is ASCII), a new slice. It decodes as
// encoding/json does: an invalid UTF-8 byte, or a \u escape of a lone
// surrogate, becomes U+FFFD; a surrogate pair becomes its rune. q must be a
// JSON string the wire reader accepted; an escape that is not well formed
// is an error. See DESIGN.md, "Decoding in place (unquoteInPlace)".
func unquoteInPlace(q []byte, ascii bool) ([]byte, error) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return nil, errors.New("not a JSON string")
	}
	b := q[1 : len(q)-1 : len(q)-1]
	if !ascii && !utf8.Valid(b) {
		// Rare: encoding/json replaces invalid bytes. (The escapes are
		// ASCII, so b is valid exactly when the text between them is.)
		var v string
		if err := json.Unmarshal(q, &v); err != nil {
			return nil, err
		}
		return []byte(v), nil
	}
	w, r := 0, 0
	for {
		n := bytes.IndexByte(b[r:], '\\')
		if n < 0 {
			n = len(b) - r
		}
		if w != r {
			copy(b[w:], b[r:r+n])
		}
		w, r = w+n, r+n
		if r == len(b) {
			return b[:w], nil
		}
		// An escape at b[r].
		if r+1 == len(b) {
			return nil, errors.New("unterminated escape")
		}
		var c byte
		switch b[r+1] {
		case '"', '\\', '/':
			c = b[r+1]
		case 'b':
			c = '\b'
		case 'f':
			c = '\f'
		case 'n':
			c = '\n'
		case 'r':
			c = '\r'
		case 't':
			c = '\t'
		case 'u':
			rr := hex4(b[r+2:])
			if rr < 0 {
				return nil, errors.New(`invalid \u escape`)
			}
			r += 6
			if utf16.IsSurrogate(rr) {
				// A pair, or U+FFFD for this escape alone.
				rr1 := rune(-1)
				if r+1 < len(b) && b[r] == '\\' && b[r+1] == 'u' {
					rr1 = hex4(b[r+2:])
				}
				if d := utf16.DecodeRune(rr, rr1); d != utf8.RuneError {
					rr = d
					r += 6
				} else {
					rr = utf8.RuneError
				}
			}
			w += utf8.EncodeRune(b[w:], rr)
			continue
		default:
			return nil, fmt.Errorf("invalid escape %q", b[r:r+2])
		}
		b[w] = c
		w, r = w+1, r+2
	}
}

// hex4 returns the value of the four hexadecimal digits b starts with, or
// -1.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var v rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		v = v<<4 | rune(c)
	}
	return v
}

// QuoteJSON appends text to q as a JSON string. Valid UTF-8 (every text a
// tool returns) takes a fast path that looks for what must be escaped a
// word at a time and copies the runs between, where encoding/json goes
// rune by rune; anything else goes to encoding/json, which replaces
// invalid bytes with U+FFFD.
func QuoteJSON(q []byte, text string) ([]byte, error) {
	if len(text) <= 64 && plainASCII(text) { // a name, a path: no setup
		q = append(q, '"')
		q = append(q, text...)
		return append(q, '"'), nil
	}
	if !utf8.ValidString(text) {
		m, err := json.Marshal(text)
		return append(q, m...), err
	}
	const hex = "0123456789abcdef"
	q = append(q, '"')
	for i := 0; ; i++ {
		n := wire.PlainRun(text[i:])
		q = append(q, text[i:i+n]...)
		if i += n; i == len(text) {
			break
		}
		switch c := text[i]; c {
		case '"', '\\':
			q = append(q, '\\', c)
		case '\n':
			q = append(q, '\\', 'n')
		case '\r':
			q = append(q, '\\', 'r')
		case '\t':
			q = append(q, '\\', 't')
		default:
			q = append(q, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
	}
	return append(q, '"'), nil
}

// plainASCII reports whether text is ASCII with nothing to escape in a
// JSON string.
func plainASCII(text string) bool {
	for i := 0; i < len(text); i++ {
		if c := text[i]; c >= utf8.RuneSelf || mustEscape(c) {
			return false
		}
	}
	return true
}

// mustEscape reports whether c must be escaped in a JSON string.
func mustEscape(c byte) bool { return c < 0x20 || c == '"' || c == '\\' }

// Result returns what a handler puts in its result in place of text:
// text itself, or, when the transport will splice it in, a placeholder.
func Result(ctx context.Context, text string) string {
	lt, _ := ctx.Value(liftKey{}).(*Table)
	if lt == nil || len(text) < Min {
		return text
	}
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if lt.results == nil {
		lt.results = make(map[string]string, 1)
	}
	ph := lt.placeholderLocked()
	lt.results[ph] = text
	return ph
}

// Structured returns what a handler puts in its result as structured
// content: v itself, or, when the transport will splice it in, a
// placeholder for v as appendJSON encodes it. size is about how long that
// JSON is. A large listing is then encoded by a direct appender rather
// than by reflection, and the line the transport searches for
// placeholders stays short. appendJSON must encode v as encoding/json
// would, up to the escaping of valid JSON strings (QuoteJSON).
func Structured(ctx context.Context, v any, size int, appendJSON func([]byte) ([]byte, error)) any {
	lt, _ := ctx.Value(liftKey{}).(*Table)
	if lt == nil || size < Min {
		return v
	}
	raw, err := appendJSON(getQuoteBuf(size))
	if err != nil {
		return v // encoding/json will say what is wrong
	}
	return lt.addJSON(&lt.raw, raw)
}

// addJSON records raw, a JSON value, in *m (lt.raw or lt.kept) under a new
// placeholder, and returns the placeholder.
func (lt *Table) addJSON(m *map[string][]byte, raw []byte) string {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if *m == nil {
		*m = make(map[string][]byte, 2)
	}
	ph := lt.placeholderLocked()
	(*m)[ph] = raw
	return ph
}

// JSON returns a placeholder for raw, a JSON value the transport
// splices into the response as it is, and true; or false when ctx's
// transport splices nothing in. raw may be shared with other calls: it is
// never modified or released, and must not be modified after.
func JSON(ctx context.Context, raw []byte) (string, bool) {
	lt, _ := ctx.Value(liftKey{}).(*Table)
	if lt == nil {
		return "", false
	}
	return lt.addJSON(&lt.kept, raw), true
}

// Splices reports whether ctx's transport splices lifted results
// in, so that JSON would lift.
func Splices(ctx context.Context) bool {
	_, ok := ctx.Value(liftKey{}).(*Table)
	return ok
}

// SpliceResults returns line, an encoded response, as the pieces of the
// line to write with the texts lifted out of the result in place of their
// placeholders. Each text is quoted once, however often it occurs; the
// pieces are written as they are, not copied into one line. The quoted
// texts are lt's: once the pieces are written, Release lets them be
// reused.
func (lt *Table) SpliceResults(line []byte) ([][]byte, error) {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if len(lt.results) == 0 && len(lt.raw) == 0 && len(lt.kept) == 0 {
		return [][]byte{line}, nil
	}
	if lt.quoted == nil {
		lt.quoted = make(map[string][]byte, len(lt.results))
	}
	var pieces [][]byte
	last := 0
	for i := 0; ; {
		j := bytes.Index(line[i:], []byte(`"`+lt.prefix))
		if j < 0 {
			break
		}
		at := i + j
		end := at + 1 + bytes.IndexByte(line[at+1:], '"') + 1
		ph := string(line[at+1 : end-1])
		raw, ok := lt.raw[ph]
		if !ok {
			raw, ok = lt.kept[ph]
		}
		if ok {
			pieces = append(pieces, line[last:at], raw)
			last, i = end, end
			continue
		}
		text, ok := lt.results[ph]
		if !ok {
			i = end
			continue
		}
		q, ok := lt.quoted[ph]
		if !ok {
			var err error
			if q, err = QuoteJSON(getQuoteBuf(len(text)), text); err != nil {
				return nil, err
			}
			lt.quoted[ph] = q
		}
		pieces = append(pieces, line[last:at], q)
		last, i = end, end
	}
	if len(pieces) == 0 {
		return nil, errors.New("a lifted result text is missing from the response")
	}
	return append(pieces, line[last:]), nil
}

// Release hands the buffers SpliceResults quoted texts into, and
// those Structured encoded values into, back for reuse, and forgets
// the shared values of JSON. The caller has written the pieces that
// held them and uses them no more.
func (lt *Table) Release() {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	for _, q := range lt.quoted {
		putQuoteBuf(q)
	}
	for _, r := range lt.raw {
		putQuoteBuf(r)
	}
	lt.quoted, lt.raw, lt.kept = nil, nil, nil
}

// quoteBufs holds buffers to quote result texts into: a text read from a
// file is quoted into one, written to the client, and done with. Reusing
// them spares allocating (and clearing) a buffer the size of each text.
var quoteBufs sync.Pool // of *[]byte

// maxPooledQuote bounds the buffers quoteBufs keeps: a huge text gets a
// buffer of its own, which goes with it.
const maxPooledQuote = 8 << 20

// getQuoteBuf returns an empty buffer to quote a text of n bytes into,
// sized for a few escapes: growing a 1 MiB slice costs more than quoting
// it.
func getQuoteBuf(n int) []byte {
	size := n + n/16 + 2
	if p, ok := quoteBufs.Get().(*[]byte); ok && cap(*p) >= size {
		return (*p)[:0]
	}
	return make([]byte, 0, size)
}

// putQuoteBuf gives b back to quoteBufs; nothing may use it after.
func putQuoteBuf(b []byte) {
	if cap(b) <= maxPooledQuote {
		quoteBufs.Put(&b)
	}
}

// A Walker walks JSON that is known to be well formed (the wire reader
// checked it). Offsets point at the first byte of a value. It steps over
// the long strings it is given in no time, and remembers the end of the
// last value it skipped, so that finding another large string's end and
// then stepping past it is one pass over the string, not two.
type Walker struct {
	b               []byte
	long            []wire.LongString // b's long strings, in order
	lastAt, lastEnd int
}

// NewWalker returns a Walker over b, well-formed JSON.
func NewWalker(b []byte) Walker { return Walker{b: b} }

// Skip returns the offset just past the value at w.b[at:].
func (w *Walker) Skip(at int) int {
	if at != w.lastAt || w.lastEnd == 0 {
		w.lastAt, w.lastEnd = at, w.skipValue(at)
	}
	return w.lastEnd
}

// longString returns the long string that starts at w.b[at], if w was
// given one.
func (w *Walker) longString(at int) (wire.LongString, bool) {
	i, ok := slices.BinarySearchFunc(w.long, at, func(ls wire.LongString, at int) int { return ls.Start - at })
	if !ok {
		return wire.LongString{}, false
	}
	return w.long[i], true
}

// Members calls f with the raw (quoted) name and the value offset of each
// member of the object at w.b[at:], until f returns false.
func (w *Walker) Members(at int, f func(key []byte, valueAt int) bool) {
	b := w.b
	i := skipWS(b, at+1)
	for i < len(b) && b[i] == '"' {
		keyEnd := w.Skip(i)
		v := skipWS(b, skipWS(b, keyEnd)+1) // past ':'
		if !f(b[i:keyEnd], v) {
			return
		}
		i = skipWS(b, w.Skip(v))
		if i >= len(b) || b[i] != ',' {
			return
		}
		i = skipWS(b, i+1)
	}
}

// Elements calls f with the offset of each element of the array at
// w.b[at:].
func (w *Walker) Elements(at int, f func(valueAt int)) {
	b := w.b
	i := skipWS(b, at+1)
	if i < len(b) && b[i] == ']' {
		return
	}
	for i < len(b) {
		f(i)
		i = skipWS(b, w.Skip(i))
		if i >= len(b) || b[i] != ',' {
			return
		}
		i = skipWS(b, i+1)
	}
}

// skipValue returns the offset just past the value at w.b[at:].
func (w *Walker) skipValue(at int) int {
	b := w.b
	switch b[at] {
	case '"':
		if ls, ok := w.longString(at); ok {
			return ls.End
		}
		for i := at + 1; ; {
			j := bytes.IndexByte(b[i:], '"')
			if j < 0 {
				return len(b)
			}
			q := i + j
			n := 0
			for p := q - 1; p > at && b[p] == '\\'; p-- {
				n++
			}
			if n%2 == 0 {
				return q + 1
			}
			i = q + 1
		}
	case '{', '[':
		depth := 0
		for i := at; i < len(b); {
			switch b[i] {
			case '"':
				i = w.skipValue(i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(b)
	}
	i := at
	for i < len(b) && !strings.ContainsRune(",}] \t\r\n", rune(b[i])) {
		i++
	}
	return i
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}
