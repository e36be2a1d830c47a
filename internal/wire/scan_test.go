package wire

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// specials's lowest flag is the first quote, backslash or control
// character in any word, so the scan stops exactly there, and never at a
// word without one. The words tried put every byte value at every offset,
// next to every kind of byte, alone and in runs.
func TestSpecialsFlagsTheFirstByteExactly(t *testing.T) {
	special := func(c byte) bool { return c < 0x20 || c == '"' || c == '\\' }
	for c := range 256 {
		for _, other := range []byte{0, 0x1f, 0x20, 0x21, '"', 0x23, '\\', 'a', 0x7f, 0x80, 0xa2, 0xdc, 0xff} {
			for pos := range 8 {
				for _, fill := range []int{0, pos, 8} { // bytes [0, fill) are other, the rest c
					var w [8]byte
					for k := range w {
						w[k] = other
						if k >= fill {
							w[k] = byte(c)
						}
					}
					w[pos] = byte(c)
					first := -1
					for k := range w {
						if special(w[k]) {
							first = k
							break
						}
					}
					m := specials(binary.LittleEndian.Uint64(w[:]))
					switch {
					case first < 0 && m != 0:
						t.Fatalf("specials(% x) = %#x, want 0", w, m)
					case first >= 0 && (m == 0 || bits.TrailingZeros64(m)/8 != first || m&^msb != 0):
						t.Fatalf("specials(% x) = %#x, want the lowest flag on byte %d", w, m, first)
					}
					if got, want := hasControl(w[:]), slices.ContainsFunc(w[:], func(c byte) bool { return c < 0x20 }); got != want {
						t.Fatalf("hasControl(% x) = %v, want %v", w, got, want)
					}
				}
			}
		}
	}
}

// A string with long runs between its escapes is scanned by sparseStr;
// whatever is wrong with it, the error and its offset are those of the
// byte-by-byte scan, and it is accepted exactly when encoding/json accepts
// it.
func TestLongStringsScanLikeShortOnes(t *testing.T) {
	long := strings.Repeat("a", sparseRun+5)
	var bodies []string
	for _, tail := range []string{
		``, `\n`, `\"`, `\\`, `\u00e9`, `\ud83d\ude00`, `\"` + long, `\\"`, // fine
		"\x01", "\x1f" + long, `\x`, `\u12`, `\u12g4`, `\`, `"`, // wrong, or cut short
	} {
		for _, mid := range []string{"", "b", long, `\t` + long, long + "\x00" + long, long + `\q`} {
			bodies = append(bodies, long+`\n`+mid+tail, long+`\n`+long+`\n`+mid+tail+long)
		}
	}
	for _, body := range bodies {
		for _, end := range []string{`"`, ``} {
			b := []byte(`"` + body + end)
			fast := scanner{b: b}
			fastEsc, fastOK := fast.str()
			exact := scanner{b: b}
			exactEsc, exactOK := exact.scanStr(false)
			if fastOK != exactOK || fast.err != exact.err || fast.i != exact.i || fastOK && fastEsc != exactEsc {
				t.Errorf("%q: str = %v %q at %d, the byte-by-byte scan = %v %q at %d", b, fastOK, fast.err, fast.i, exactOK, exact.err, exact.i)
			}
			if accepted := fastOK && fast.i == len(b); accepted != json.Valid(b) {
				t.Errorf("%q: str accepts it: %v, encoding/json: %v", b, accepted, json.Valid(b))
			}
		}
	}
}

// TestPlainRun checks PlainRun against a byte-by-byte count, for every byte
// value at every offset of strings that span a word and its tail, as a
// string and as bytes.
func TestPlainRun(t *testing.T) {
	plain := func(c byte) bool { return c >= 0x20 && c != '"' && c != '\\' }
	for n := range 20 {
		for pos := range n {
			for c := range 256 {
				b := bytes.Repeat([]byte{'a'}, n)
				b[pos] = byte(c)
				want := n
				if !plain(byte(c)) {
					want = pos
				}
				if got := PlainRun(b); got != want {
					t.Fatalf("PlainRun(%q) = %d, want %d", b, got, want)
				}
				if got := PlainRun(string(b)); got != want {
					t.Fatalf("PlainRun(string %q) = %d, want %d", b, got, want)
				}
			}
		}
	}
}

// The scan of a line records where its long strings are, keys and nested
// values included, and which of them it saw to be ASCII: those it checked
// a run at a time (a file's text, with an escape every line). Offsets are
// in Raw, after the whitespace around the line is trimmed.
func TestLongStrings(t *testing.T) {
	lines := func(line string, n int) string {
		q, _ := json.Marshal(strings.Repeat(line+"\n", n))
		return string(q)
	}
	ascii := lines("func main() { fmt.Println(`hello, world`) }", 40)
	utf := lines("// Grüße aus Köln 😀", 60)
	plain := `"` + strings.Repeat("x", LongStringMin) + `"`
	dense := `"` + strings.Repeat(`\n`, LongStringMin) + `"`
	key := `"` + strings.Repeat("k", LongStringMin-2) + `"`
	short := `"` + strings.Repeat("s", LongStringMin-3) + `"`
	obj := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"a":` + ascii + `,"b":[` + utf + `,` + short + `],` +
		key + `:` + plain + `,"c":{"d":` + dense + `}}}`
	want := []LongString{
		{Start: strings.Index(obj, ascii), End: strings.Index(obj, ascii) + len(ascii), ASCII: true},
		{Start: strings.Index(obj, utf), End: strings.Index(obj, utf) + len(utf)},
		{Start: strings.Index(obj, key), End: strings.Index(obj, key) + len(key)},
		{Start: strings.Index(obj, plain), End: strings.Index(obj, plain) + len(plain)},
		{Start: strings.Index(obj, dense), End: strings.Index(obj, dense) + len(dense)},
	}
	check := func(t *testing.T, m Message) {
		t.Helper()
		if string(m.Raw) != obj {
			t.Fatalf("Raw has %d bytes, want %d", len(m.Raw), len(obj))
		}
		if !slices.Equal(m.LongStrings, want) {
			t.Fatalf("LongStrings = %+v\nwant %+v", m.LongStrings, want)
		}
	}
	t.Run("Parse", func(t *testing.T) {
		m, err := Parse([]byte(" \t" + obj + " "))
		if err != nil {
			t.Fatal(err)
		}
		check(t, m)
	})
	t.Run("Reader", func(t *testing.T) {
		long := strings.Repeat(" ", readBufferSize) + obj + " \r\n" + obj + "\n"
		r := NewReader(iotest.HalfReader(strings.NewReader(long)), ReaderOptions{})
		for range 2 {
			m, err := r.Next()
			if err != nil {
				t.Fatal(err)
			}
			check(t, m)
		}
	})
	t.Run("none", func(t *testing.T) {
		m, err := Parse([]byte(`{"jsonrpc":"2.0","method":"m","params":[` + short + `]}`))
		if err != nil || m.LongStrings != nil {
			t.Fatalf("LongStrings = %+v (%v), want none", m.LongStrings, err)
		}
	})
}

// A reader told to defer the escapes of long strings finds where such a
// string ends without checking each escape after its first long run, and
// marks it Unchecked for its consumer to check. Everything else it checks
// as ever: a string too short to be recorded, control characters, an end
// it cannot find.
func TestDeferEscapes(t *testing.T) {
	run := strings.Repeat("a", sparseRun)
	long := func(tail string) string { return run + `\n` + strings.Repeat("b", LongStringMin) + tail }
	for _, tc := range []struct {
		name, body string
		eager      bool   // the eager reader accepts the line
		deferred   bool   // the deferring reader delivers it
		check      string // what its CheckEscapes says, if it delivers it
	}{
		{"fine", long(`\t\"\\\u00e9\ud83d\ude00 \\`), true, true, ""},
		{"a bad escape", long(`\x`), false, true, `invalid escape, found 'x'`},
		{"a bad \\u", long(`\u12g4`), false, true, `invalid \u escape`},
		{"a short string", run + `\n\x`, false, false, ""},
		{"a bad escape before the long run", `\x` + long(""), false, false, ""},
		{"a control character", long("\x01"), false, false, ""},
		{"no end", long(`\`), false, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line := `{"jsonrpc":"2.0","method":"m","params":["` + tc.body + `",1]}` + "\n"
			for _, lazy := range []bool{false, true} {
				r := NewReader(strings.NewReader(line), ReaderOptions{DeferEscapes: lazy, Logger: discardLogger})
				m, err := r.Next()
				want := map[bool]bool{false: tc.eager, true: tc.deferred}[lazy]
				if (err == nil) != want {
					t.Fatalf("deferring: %v: Next = %v, want a message: %v", lazy, err, want)
				}
				if err != nil {
					continue
				}
				if len(m.LongStrings) != 1 || m.LongStrings[0].Unchecked != lazy {
					t.Fatalf("deferring: %v: LongStrings = %+v, want one, Unchecked: %v", lazy, m.LongStrings, lazy)
				}
				if err := m.CheckEscapes(); (err == nil) != (tc.check == "") || err != nil && !strings.Contains(err.Error(), tc.check) {
					t.Errorf("deferring: %v: CheckEscapes = %v, want %q", lazy, err, tc.check)
				}
			}
		})
	}
}
