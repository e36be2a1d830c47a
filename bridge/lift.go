package bridge

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"weak"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mark3labs/mcp-go/server"
)

// Lifting large strings past mcp-go.
//
// mcp-go v1.2.1 decodes a tools/call message several times (the envelope,
// the protocol _meta, the request, the arguments for schema validation, and
// again when a handler binds them), and encodes a result at least twice
// (for the wire, where json.Marshal re-checks the result's own encoding),
// each a byte-by-byte pass that costs about 7 ms per MiB. For a tool call that carries a file's content that is
// most of its cost. So the stream transports (stream.go) lift such strings
// out:
//
//   - Arguments: in a tools/call of a tool listed in liftedArguments, a
//     string argument of liftMin bytes or more is replaced in the message by
//     a placeholder before mcp-go sees it, and kept, still JSON-quoted, in the
//     call's liftTable in the context. mcp-go validates the placeholder, a
//     string, where the schema wants a string (the arguments listed have no
//     other constraint), and the handler puts the text back with
//     [unliftArgument] after binding its arguments: one unquoting pass.
//   - Results: a handler hands a large text to [liftResult], which returns
//     a placeholder to put in its result in the text's place, wherever it
//     goes (text content, structured content, both). The transport encodes
//     the text once and splices it in for every occurrence of the
//     placeholder in the encoded response.
//
// Only a transport that does the splicing puts a liftTable in the context,
// and only for a server made by [NewServer], whose handlers put lifted
// arguments back; elsewhere (Streamable HTTP, in process) nothing is lifted.
// A placeholder is "mcp-acpfs-lifted-" and a random 128-bit nonce of the
// connection, then a number: no client or file can know it.

// liftMin is the length from which a string is lifted, in bytes of its
// JSON form. Below it, mcp-go's passes cost a few microseconds.
const liftMin = 1 << 10

// liftedArguments are the string arguments that may be lifted, by tool:
// each a path of member names into the arguments, "[]" standing for every
// element of an array. Their handlers call unliftArgument on each.
var liftedArguments = map[string][][]string{
	WriteTextFile: {{"content"}},
	EditTextFile:  {{"edits", "[]", "oldText"}, {"edits", "[]", "newText"}},
}

// liftingServers are the servers made by NewServer: their handlers put
// lifted arguments back. Entries go when their server is collected.
var liftingServers sync.Map // weak.Pointer[server.MCPServer] -> struct{}

// registerLifting records that srv's handlers put lifted arguments back.
func registerLifting(srv *server.MCPServer) {
	wp := weak.Make(srv)
	liftingServers.Store(wp, struct{}{})
	goruntime.AddCleanup(srv, func(wp weak.Pointer[server.MCPServer]) { liftingServers.Delete(wp) }, wp)
}

// liftsArguments reports whether srv's handlers put lifted arguments back.
func liftsArguments(srv *server.MCPServer) bool {
	_, ok := liftingServers.Load(weak.Make(srv))
	return ok
}

// liftTable holds the strings lifted out of one tool call and its result.
type liftTable struct {
	prefix string

	mu      sync.Mutex
	n       int
	args    map[string][]byte // placeholder -> the argument's JSON string
	results map[string]string // placeholder -> the result's text
}

type liftKey struct{}

func newLiftTable(prefix string) *liftTable {
	return &liftTable{prefix: prefix}
}

func withLiftTable(ctx context.Context, lt *liftTable) context.Context {
	return context.WithValue(ctx, liftKey{}, lt)
}

// placeholder returns a new placeholder; the caller holds lt.mu.
func (lt *liftTable) placeholderLocked() string {
	lt.n++
	return lt.prefix + strconv.Itoa(lt.n)
}

// liftArguments returns line, a tools/call request already checked to be
// well-formed JSON, with the large string arguments its tool allows
// replaced by placeholders, which lt maps back to them. It returns line
// itself when there is nothing to lift.
func (lt *liftTable) liftArguments(line []byte) []byte {
	if len(line) < liftMin {
		return line
	}
	params, ok := objectMember(line, 0, "params")
	if !ok || line[params] != '{' {
		return line
	}
	nameAt, ok1 := objectMember(line, params, "name")
	argsAt, ok2 := objectMember(line, params, "arguments")
	if !ok1 || !ok2 || line[nameAt] != '"' || line[argsAt] != '{' {
		return line
	}
	var name string
	if json.Unmarshal(line[nameAt:skipJSON(line, nameAt)], &name) != nil {
		return line
	}
	var spans [][2]int
	for _, path := range liftedArguments[name] {
		spans = appendLiftable(spans, line, argsAt, path)
	}
	if len(spans) == 0 {
		return line
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] }) // they never overlap
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if lt.args == nil {
		lt.args = make(map[string][]byte, len(spans))
	}
	out := make([]byte, 0, len(line)/8)
	last := 0
	for _, s := range spans {
		ph := lt.placeholderLocked()
		lt.args[ph] = line[s[0]:s[1]]
		out = append(out, line[last:s[0]]...)
		out = append(out, '"')
		out = append(out, ph...)
		out = append(out, '"')
		last = s[1]
	}
	return append(out, line[last:]...)
}

// appendLiftable appends the spans of the strings of liftMin bytes or more
// found at path from the value at b[at:].
func appendLiftable(spans [][2]int, b []byte, at int, path []string) [][2]int {
	if len(path) == 0 {
		if b[at] == '"' {
			if end := skipJSON(b, at); end-at >= liftMin {
				spans = append(spans, [2]int{at, end})
			}
		}
		return spans
	}
	if path[0] == "[]" {
		if b[at] != '[' {
			return spans
		}
		forEachElement(b, at, func(el int) { spans = appendLiftable(spans, b, el, path[1:]) })
		return spans
	}
	if b[at] != '{' {
		return spans
	}
	// Every member of that name: decoders take the last one, and each
	// placeholder maps back to its own string either way.
	forEachMember(b, at, func(key []byte, v int) {
		if string(key) == `"`+path[0]+`"` {
			spans = appendLiftable(spans, b, v, path[1:])
		}
	})
	return spans
}

// unliftArgument puts back the argument *s stands for, if the transport
// lifted it out of the call.
func unliftArgument(ctx context.Context, s *string) error {
	lt, _ := ctx.Value(liftKey{}).(*liftTable)
	if lt == nil || !strings.HasPrefix(*s, lt.prefix) {
		return nil
	}
	lt.mu.Lock()
	quoted, ok := lt.args[*s]
	lt.mu.Unlock()
	if !ok {
		return nil
	}
	text, err := jsontext.AppendUnquote(make([]byte, 0, len(quoted)), quoted)
	if err != nil {
		// jsontext refuses invalid UTF-8, which encoding/json (and so
		// mcp-go, had the string stayed in place) replaces with U+FFFD.
		var v string
		if err := json.Unmarshal(quoted, &v); err != nil {
			return fmt.Errorf("a string argument: %w", err)
		}
		*s = v
		return nil
	}
	*s = string(text)
	return nil
}

// quoteJSON returns text as a JSON string. Valid UTF-8 (every text a tool
// returns) takes a fast path that looks for what must be escaped eight
// bytes at a time, two to three times as fast as encoding/json or
// jsontext, which go rune by rune (measured on a 1 MiB text file); anything
// else goes to encoding/json, which replaces invalid bytes with U+FFFD.
func quoteJSON(text string) ([]byte, error) {
	if !utf8.ValidString(text) {
		return json.Marshal(text)
	}
	const hex = "0123456789abcdef"
	// Sized for a few escapes: growing a 1 MiB slice costs more than
	// quoting it.
	q := make([]byte, 0, len(text)+len(text)/16+2)
	q = append(q, '"')
	start, i := 0, 0
	for {
		// Find the next byte to escape: a word at a time, then the tail.
		for i+8 <= len(text) {
			if m := escapeMask(binary.LittleEndian.Uint64([]byte(text[i : i+8]))); m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
			i += 8
		}
		for i < len(text) && !mustEscape(text[i]) {
			i++
		}
		if i == len(text) {
			break
		}
		q = append(q, text[start:i]...)
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
		i++
		start = i
	}
	q = append(q, text[start:]...)
	return append(q, '"'), nil
}

// mustEscape reports whether c must be escaped in a JSON string.
func mustEscape(c byte) bool { return c < 0x20 || c == '"' || c == '\\' }

// escapeMask returns the top bit of each byte of the little-endian word x
// that must be escaped in a JSON string (mustEscape), and no other bit.
// Each byte is tested on its own: no carry crosses into the next.
func escapeMask(x uint64) uint64 {
	const (
		lsb = 0x0101010101010101
		lo7 = 0x7f7f7f7f7f7f7f7f
		msb = 0x8080808080808080
	)
	// A byte's low seven bits plus 0x60 reach 0x80 unless they are < 0x20.
	ctl := ^((x & lo7) + 0x60*lsb | x) & msb
	// A byte is zero after the XOR when it is the quote (or backslash).
	q := x ^ ('"' * lsb)
	quote := ^((q & lo7) + lo7 | q) & msb
	b := x ^ ('\\' * lsb)
	backslash := ^((b & lo7) + lo7 | b) & msb
	return ctl | quote | backslash
}

// liftResult returns what a handler puts in its result in place of text:
// text itself, or, when the transport will splice it in, a placeholder.
func liftResult(ctx context.Context, text string) string {
	lt, _ := ctx.Value(liftKey{}).(*liftTable)
	if lt == nil || len(text) < liftMin {
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

// spliceResults returns line, an encoded response, as the pieces of the
// line to write with the texts lifted out of the result in place of their
// placeholders. Each text is quoted once, however often it occurs; the
// pieces are written as they are, not copied into one line.
func (lt *liftTable) spliceResults(line []byte) ([][]byte, error) {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if len(lt.results) == 0 {
		return [][]byte{line}, nil
	}
	quoted := make(map[string][]byte, len(lt.results))
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
		text, ok := lt.results[ph]
		if !ok {
			i = end
			continue
		}
		q, ok := quoted[ph]
		if !ok {
			var err error
			if q, err = quoteJSON(text); err != nil {
				return nil, err
			}
			quoted[ph] = q
		}
		pieces = append(pieces, line[last:at], q)
		last, i = end, end
	}
	if len(pieces) == 0 {
		return nil, errors.New("a lifted result text is missing from the response")
	}
	return append(pieces, line[last:]), nil
}

// A minimal walker over JSON that is known to be well formed (the wire
// reader checked it). Offsets point at the first byte of a value.

// objectMember returns where the value of the last member named key of
// the object at b[at:] starts.
func objectMember(b []byte, at int, key string) (int, bool) {
	found, ok := 0, false
	forEachMember(b, at, func(k []byte, v int) {
		if string(k) == `"`+key+`"` {
			found, ok = v, true
		}
	})
	return found, ok
}

// forEachMember calls f with the raw (quoted) name and the value offset of
// each member of the object at b[at:].
func forEachMember(b []byte, at int, f func(key []byte, valueAt int)) {
	i := skipWS(b, at+1)
	for i < len(b) && b[i] == '"' {
		keyEnd := skipJSON(b, i)
		v := skipWS(b, skipWS(b, keyEnd)+1) // past ':'
		f(b[i:keyEnd], v)
		i = skipWS(b, skipJSON(b, v))
		if i >= len(b) || b[i] != ',' {
			return
		}
		i = skipWS(b, i+1)
	}
}

// forEachElement calls f with the offset of each element of the array at
// b[at:].
func forEachElement(b []byte, at int, f func(valueAt int)) {
	i := skipWS(b, at+1)
	if i < len(b) && b[i] == ']' {
		return
	}
	for i < len(b) {
		f(i)
		i = skipWS(b, skipJSON(b, i))
		if i >= len(b) || b[i] != ',' {
			return
		}
		i = skipWS(b, i+1)
	}
}

// skipJSON returns the offset just past the value at b[at:].
func skipJSON(b []byte, at int) int {
	switch b[at] {
	case '"':
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
				i = skipJSON(b, i)
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
