package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
)

// logRecorder is a slog.Handler that keeps records for assertions.
type logRecorder struct {
	mu   sync.Mutex
	recs []logRecord
}

type logRecord struct {
	Level slog.Level
	Msg   string
	Attrs map[string]any
}

func (l *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logRecorder) WithGroup(string) slog.Handler            { return l }

func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	rec := logRecord{Level: r.Level, Msg: r.Message, Attrs: map[string]any{}}
	r.Attrs(func(a slog.Attr) bool {
		rec.Attrs[a.Key] = a.Value.Any()
		return true
	})
	l.mu.Lock()
	defer l.mu.Unlock()
	l.recs = append(l.recs, rec)
	return nil
}

func (l *logRecorder) records() []logRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]logRecord(nil), l.recs...)
}

func newRecordingReader(input io.Reader, opts ReaderOptions) (*Reader, *logRecorder) {
	logs := &logRecorder{}
	opts.Logger = slog.New(logs)
	if opts.Label == "" {
		opts.Label = "editor"
	}
	return NewReader(input, opts), logs
}

// readAll reads messages until an error other than an *OverlongError and
// returns them with that error.
func readAll(r *Reader) ([]Message, error) {
	msgs, _, err := readAllOverlong(r)
	return msgs, err
}

// readAllOverlong reads messages until an error other than an
// *OverlongError and returns them, the overlong lines, and that error.
func readAllOverlong(r *Reader) ([]Message, []*OverlongError, error) {
	var msgs []Message
	var overs []*OverlongError
	for {
		m, err := r.Next()
		if over, ok := errors.AsType[*OverlongError](err); ok {
			overs = append(overs, over)
			continue
		}
		if err != nil {
			return msgs, overs, err
		}
		msgs = append(msgs, m)
	}
}

func TestReaderParsesEnvelopeOfEachKind(t *testing.T) {
	input := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"id":"nested"}}}
{"jsonrpc":"2.0","id":"abc","result":{"content":"x"},"_meta":{"k":1}}
{"jsonrpc":"2.0","id":7,"error":{"code":-32002,"message":"Resource not found","data":{"uri":"/a"}}}
{"jsonrpc":"2.0","id":null,"method":"m"}
{"jsonrpc":"2.0","id":1,"result":null}
`
	r, logs := newRecordingReader(strings.NewReader(input), ReaderOptions{})
	msgs, err := readAll(r)
	if err != io.EOF {
		t.Fatalf("Next error = %v, want io.EOF", err)
	}
	type want struct {
		kind                         Kind
		id, method, params, res, err string // "-" means absent
	}
	wants := []want{
		{KindRequest, "0", "initialize", `{"protocolVersion":1}`, "-", "-"},
		{KindNotification, "-", "session/update", `{"sessionId":"s","update":{"id":"nested"}}`, "-", "-"},
		{KindResponse, `"abc"`, "", "-", `{"content":"x"}`, "-"},
		{KindResponse, "7", "", "-", "-", `{"code":-32002,"message":"Resource not found","data":{"uri":"/a"}}`},
		{KindRequest, "null", "m", "-", "-", "-"},
		{KindResponse, "1", "", "-", "null", "-"},
	}
	if len(msgs) != len(wants) {
		t.Fatalf("got %d messages, want %d", len(msgs), len(wants))
	}
	lines := strings.Split(strings.TrimSuffix(input, "\n"), "\n")
	show := func(b []byte) string {
		if b == nil {
			return "-"
		}
		return string(b)
	}
	for i, m := range msgs {
		w := wants[i]
		got := want{m.Kind(), show(m.ID), m.Method, show(m.Params), show(m.Result), show(m.Error)}
		if got != w {
			t.Errorf("message %d = %+v, want %+v", i, got, w)
		}
		if string(m.Raw) != lines[i] {
			t.Errorf("message %d Raw = %s, want the line %s", i, m.Raw, lines[i])
		}
	}
	if recs := logs.records(); len(recs) != 0 {
		t.Errorf("unexpected log records: %+v", recs)
	}
}

func TestReaderSkipsMalformedLinesAndGoesOn(t *testing.T) {
	tooDeep := strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)
	tests := []struct {
		name, line, reason string
	}{
		{"truncated JSON", `{"jsonrpc":"2.0","method":`, "expected a JSON value"},
		{"batch", `[{"jsonrpc":"2.0","method":"a"}]`, "batches"},
		{"number", `42`, "not a JSON object"},
		{"string", `"hello"`, "not a JSON object"},
		{"text", `Content-Length: 12`, "not JSON"},
		{"method not a string", `{"jsonrpc":"2.0","method":5}`, `"method" is not a string`},
		{"null method", `{"jsonrpc":"2.0","id":1,"method":null}`, `"method" is not a string`},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"a"}`, `"id" is not a string`},
		{"boolean id", `{"jsonrpc":"2.0","id":true,"result":1}`, `"id" is not a string`},
		{"string error", `{"jsonrpc":"2.0","id":1,"error":"oops"}`, `"error" is not an object`},
		{"method and result", `{"jsonrpc":"2.0","id":1,"method":"a","result":1}`, `both "method" and`},
		{"result and error", `{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":""}}`, `both "result" and "error"`},
		{"only id", `{"jsonrpc":"2.0","id":1}`, `no "method", "result" or "error"`},
		{"empty object", `{}`, `no "method", "result" or "error"`},
		{"response without id", `{"jsonrpc":"2.0","result":1}`, `response without "id"`},
		{"duplicate id", `{"jsonrpc":"2.0","id":1,"id":-5,"result":1}`, `duplicate "id"`},
		{"duplicate id escaped", `{"jsonrpc":"2.0","id":1,"\u0069d":2,"result":1}`, `duplicate "id"`},
		{"duplicate method", `{"method":"a","method":"b"}`, `duplicate "method"`},
		{"two objects", `{"method":"a"}{"method":"b"}`, "data after the JSON object"},
		{"trailing garbage", `{"method":"a"} x`, "data after the JSON object"},
		{"control character", "{\"method\":\"a\tb\"}", "control character"},
		{"bad escape", `{"method":"a\qb"}`, "invalid escape"},
		{"bad unicode escape", `{"method":"a\u12G4"}`, `invalid \u escape`},
		{"leading zero", `{"method":"a","params":[01]}`, "expected ',' or ']'"},
		{"bare minus", `{"method":"a","params":[-]}`, "invalid number"},
		{"no fraction digits", `{"method":"a","params":[1.]}`, "no digits after"},
		{"no exponent digits", `{"method":"a","params":[1e+]}`, "no digits in exponent"},
		{"unterminated string", `{"method":"a`, "unterminated string"},
		{"bad literal", `{"method":"a","params":nul}`, "invalid literal"},
		{"single quotes", `{'method':'a'}`, "expected a member name"},
		{"trailing comma", `{"method":"a",}`, "expected a member name"},
		{"missing colon", `{"method" "a"}`, "expected ':'"},
		{"nested too deeply", `{"method":"a","params":` + tooDeep + `}`, "nested too deeply"},
	}
	const next = `{"jsonrpc":"2.0","id":2,"method":"next"}`
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, logs := newRecordingReader(strings.NewReader(tt.line+"\n"+next+"\n"), ReaderOptions{Label: "agent"})
			msgs, err := readAll(r)
			if err != io.EOF {
				t.Fatalf("Next error = %v, want io.EOF", err)
			}
			if len(msgs) != 1 || string(msgs[0].Raw) != next {
				t.Fatalf("got %d messages (%q), want only the line after the bad one", len(msgs), rawOf(msgs))
			}
			if _, err := Parse([]byte(tt.line)); !errors.Is(err, ErrMalformed) {
				t.Errorf("Parse error = %v, want ErrMalformed", err)
			}
			recs := logs.records()
			if len(recs) != 1 {
				t.Fatalf("got %d log records, want 1: %+v", len(recs), recs)
			}
			rec := recs[0]
			if rec.Level != slog.LevelWarn || rec.Attrs["peer"] != "agent" {
				t.Errorf("log record = %+v, want a warning naming peer agent", rec)
			}
			if reason, _ := rec.Attrs["reason"].(string); !strings.Contains(reason, tt.reason) {
				t.Errorf("logged reason = %q, want it to contain %q", reason, tt.reason)
			}
			if p, _ := rec.Attrs["prefix"].(string); !strings.HasPrefix(tt.line, p) || p == "" {
				t.Errorf("logged prefix = %q, want a prefix of the line", p)
			}
		})
	}
	t.Run("nesting limit agrees with encoding/json", func(t *testing.T) {
		for depth := maxDepth - 1; depth <= maxDepth+1; depth++ {
			// The object is depth 1.
			line := `{"method":"a","params":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`
			_, err := Parse([]byte(line))
			if valid := json.Valid([]byte(line)); (err == nil) != valid {
				t.Errorf("depth %d: Parse error %v, but json.Valid = %v", depth, err, valid)
			}
		}
	})
}

func TestReaderLogsOnlyAShortPrefixOfABadLine(t *testing.T) {
	line := `{"method":"é` + strings.Repeat("é", 5000) + `", oops}`
	r, logs := newRecordingReader(strings.NewReader(line+"\n"), ReaderOptions{})
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("Next error = %v, want io.EOF", err)
	}
	recs := logs.records()
	if len(recs) != 1 {
		t.Fatalf("got %d records, want 1", len(recs))
	}
	p := recs[0].Attrs["prefix"].(string)
	if len(p) > logPrefixLen || !strings.HasPrefix(line, p) || len(p) < logPrefixLen-4 {
		t.Errorf("prefix has %d bytes (a prefix of the line: %v), want at most %d and whole runes",
			len(p), strings.HasPrefix(line, p), logPrefixLen)
	}
	if n := recs[0].Attrs["len"]; n != int64(len(line)) {
		t.Errorf("logged len = %v, want %d", n, len(line))
	}
}

// repeatReader yields n bytes of b repeated, without holding them.
type repeatReader struct {
	block []byte
	n     int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	total := 0
	for len(p) > 0 && r.n > 0 {
		k := copy(p[:min(int64(len(p)), r.n)], r.block)
		p = p[k:]
		r.n -= int64(k)
		total += k
	}
	return total, nil
}

func TestReaderDiscardsOverlongLineWithoutBufferingIt(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 200 MiB")
	}
	const maxLine = 1 << 20
	const long = 200 << 20
	// As the TypeScript SDK writes it: "id" last, after the huge params.
	head := `{"jsonrpc":"2.0","method":"fs/write_text_file","params":{"path":"/a","content":"`
	tail := `"},"id":7}`
	next := `{"jsonrpc":"2.0","id":1,"method":"after"}`
	// Escaped quotes and backslashes, wherever the reads split them.
	block := strings.Repeat("x", 4089) + `\"\\`
	body := long - int64(len(head)+len(tail))
	pad := strings.Repeat("x", int(body%int64(len(block))))
	input := io.MultiReader(
		strings.NewReader(head),
		&repeatReader{block: []byte(block), n: body - int64(len(pad))},
		strings.NewReader(pad+tail+"\n"+next+"\n"),
	)
	r, logs := newRecordingReader(input, ReaderOptions{MaxLineSize: maxLine, Label: "agent"})

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	msgs, overs, err := readAllOverlong(r)
	runtime.ReadMemStats(&after)

	if err != io.EOF {
		t.Fatalf("Next error = %v, want io.EOF", err)
	}
	if len(msgs) != 1 || string(msgs[0].Raw) != next {
		t.Fatalf("got %d messages, want just the line after the long one", len(msgs))
	}
	if len(overs) != 1 {
		t.Fatalf("got %d overlong errors, want 1", len(overs))
	}
	want := OverlongError{Peer: "agent", Kind: KindRequest, ID: json.RawMessage("7"), Method: "fs/write_text_file", Len: long, Max: maxLine}
	if o := overs[0]; o.Peer != want.Peer || o.Kind != want.Kind || string(o.ID) != string(want.ID) || o.Method != want.Method || o.Len != want.Len || o.Max != want.Max {
		t.Errorf("overlong error = %+v, want %+v", *o, want)
	}
	if got, want := overs[0].Error(), `request id 7 ("fs/write_text_file") of 200.0 MiB exceeds the 1.0 MiB limit on one message`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("reading a %d MiB line with MaxLineSize %d allocated %d bytes", long>>20, maxLine, alloc)
	if alloc > 4*maxLine {
		t.Errorf("reading a %d MiB line allocated %d bytes, want at most about MaxLineSize (%d)", long>>20, alloc, maxLine)
	}
	recs := logs.records()
	if len(recs) != 1 {
		t.Fatalf("got %d log records, want 1: %+v", len(recs), recs)
	}
	if n := recs[0].Attrs["len"]; n != int64(long) {
		t.Errorf("logged len = %v, want %d", n, long)
	}
	if id := recs[0].Attrs["id"]; id != "7" {
		t.Errorf("logged id = %v, want 7", id)
	}
	if p := recs[0].Attrs["prefix"].(string); !strings.HasPrefix(p, head) || len(p) > logPrefixLen {
		t.Errorf("logged prefix = %q, want the first at most %d bytes of the line", p, logPrefixLen)
	}
}

func TestReaderEnforcesMaxLineSize(t *testing.T) {
	msg := func(n int) string { // a notification of exactly n bytes
		base := `{"jsonrpc":"2.0","method":"m","params":""}`
		return `{"jsonrpc":"2.0","method":"m","params":"` + strings.Repeat("a", n-len(base)) + `"}`
	}
	for _, tc := range []struct {
		name    string
		max     int
		line    int
		deliver bool
	}{
		{"exactly max, in buffer", 100, 100, true},
		{"one over max, in buffer", 100, 101, false},
		{"exactly max, assembled", 200 << 10, 200 << 10, true},
		{"one over max, assembled", 200 << 10, 200<<10 + 1, false},
		{"far over max, assembled", 100 << 10, 1 << 20, false},
	} {
		for _, eol := range []string{"\n", "\r\n", ""} {
			t.Run(fmt.Sprintf("%s/eol=%q", tc.name, eol), func(t *testing.T) {
				line := msg(tc.line)
				input := "\n" + line + eol
				if eol != "" {
					input += `{"jsonrpc":"2.0","method":"after"}` + "\n"
				}
				// MaxLineSize does not count the "\n", but counts a "\r".
				maxLine := tc.max
				if eol == "\r\n" {
					maxLine++
				}
				r, logs := newRecordingReader(strings.NewReader(input), ReaderOptions{MaxLineSize: maxLine})
				msgs, overs, err := readAllOverlong(r)
				if err != io.EOF {
					t.Fatalf("Next error = %v, want io.EOF", err)
				}
				if tc.deliver != (len(overs) == 0) || len(overs) > 1 {
					t.Fatalf("got overlong errors %v; want one only if the line is not delivered", overs)
				}
				if len(overs) == 1 && (overs[0].Kind != KindNotification || overs[0].Method != "m" || overs[0].Len != int64(len(line)+len(eol)-min(len(eol), 1))) {
					t.Errorf("overlong error = %+v, want notification m of the line's length", *overs[0])
				}
				var got []string
				for _, m := range msgs {
					got = append(got, m.Method)
				}
				want := []string{}
				if tc.deliver {
					want = append(want, "m")
				}
				if eol != "" {
					want = append(want, "after")
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("got methods %v, want %v", got, want)
				}
				if tc.deliver && string(msgs[0].Raw) != line {
					t.Errorf("Raw differs from the line")
				}
				wantLogs := 1
				if tc.deliver {
					wantLogs = 0
				}
				if n := len(logs.records()); n != wantLogs {
					t.Errorf("got %d log records, want %d", n, wantLogs)
				}
			})
		}
	}
}

func TestReaderToleratesBlankLinesAndCRLF(t *testing.T) {
	input := "\n\r\n   \n\t\r\n" + `{"method":"a"}` + "\r\n\r\n" + `  {"method":"b"}  ` + "\r\n\n"
	r, logs := newRecordingReader(strings.NewReader(input), ReaderOptions{})
	msgs, err := readAll(r)
	if err != io.EOF {
		t.Fatalf("Next error = %v, want io.EOF", err)
	}
	if len(msgs) != 2 || string(msgs[0].Raw) != `{"method":"a"}` || string(msgs[1].Raw) != `{"method":"b"}` {
		t.Fatalf("got %q, want the two messages without whitespace", rawOf(msgs))
	}
	for _, rec := range logs.records() {
		if rec.Msg != `wire: peer sent a message without "jsonrpc":"2.0"; accepting it (logged once)` {
			t.Errorf("unexpected log record %+v", rec)
		}
	}
}

func TestReaderDeliversLastLineWithoutNewline(t *testing.T) {
	for _, tail := range []string{`{"method":"last"}`, `{"method":"last"}` + "\r", `{"method":"last"}  `} {
		r, _ := newRecordingReader(strings.NewReader(`{"method":"first"}`+"\n"+tail), ReaderOptions{})
		msgs, err := readAll(r)
		if err != io.EOF || len(msgs) != 2 || msgs[1].Method != "last" {
			t.Errorf("tail %q: got %d messages, error %v; want first and last, then io.EOF", tail, len(msgs), err)
		}
		if _, err := r.Next(); err != io.EOF {
			t.Errorf("Next after EOF = %v, want io.EOF again", err)
		}
	}
}

func TestReaderReassemblesLinesFromTinyReads(t *testing.T) {
	big := `{"method":"big","params":"` + strings.Repeat("z", 3*readBufferSize) + `"}`
	input := `{"method":"a"}` + "\n" + big + "\n" + `{"method":"b"}` + "\n"
	r, _ := newRecordingReader(iotest.OneByteReader(strings.NewReader(input)), ReaderOptions{})
	msgs, err := readAll(r)
	if err != io.EOF || len(msgs) != 3 || string(msgs[1].Raw) != big || msgs[2].Method != "b" {
		t.Fatalf("got %d messages, error %v; want a, big, b", len(msgs), err)
	}
}

func TestReaderMessagesSurviveLaterReads(t *testing.T) {
	big := func(c string) string {
		return `{"method":"big","params":"` + strings.Repeat(c, 2*readBufferSize) + `"}`
	}
	lines := []string{`{"method":"a","params":[1]}`, big("x"), `{"method":"b","params":[2]}`, big("y"), big("q"), `{"id":1,"result":3}`}
	r, _ := newRecordingReader(strings.NewReader(strings.Join(lines, "\n")), ReaderOptions{})
	msgs, err := readAll(r)
	if err != io.EOF || len(msgs) != len(lines) {
		t.Fatalf("got %d messages, error %v", len(msgs), err)
	}
	for i, m := range msgs {
		if string(m.Raw) != lines[i] {
			t.Errorf("message %d was overwritten by a later read", i)
		}
		if i+1 < len(msgs) && m.Params != nil && cap(m.Params) != len(m.Params) {
			t.Errorf("message %d Params has spare capacity %d; appending to it would clobber Raw", i, cap(m.Params)-len(m.Params))
		}
	}
}

// A long line costs one allocation of about its own size once the Reader
// has seen one as long, which it reads straight into: not a buffer grown
// by doubling, which allocates (and clears) about four times the line.
func TestReaderAllocatesALongLineOnce(t *testing.T) {
	line := `{"method":"big","params":"` + strings.Repeat("z", 1<<20-100) + `"}` + "\n"
	r, _ := newRecordingReader(strings.NewReader(strings.Repeat(line, 4)), ReaderOptions{})
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 3 {
		if m, err := r.Next(); err != nil || len(m.Raw) != len(line)-1 {
			t.Fatalf("Next = %d bytes, %v", len(m.Raw), err)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / 3; per > uint64(len(line)+len(line)/8) {
		t.Errorf("reading a line of %d bytes allocated %d bytes", len(line), per)
	}
}

// chunkReader returns its data in reads of the sizes it cycles through.
type chunkReader struct {
	data  []byte
	sizes []int
	n     int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	k := min(len(p), len(c.data), c.sizes[c.n%len(c.sizes)])
	c.n++
	k = copy(p, c.data[:k])
	c.data = c.data[k:]
	return k, nil
}

// Long lines of every size around the read buffer's, one after another,
// come through whole however the reads split them: a long line's last
// read may take in the lines after it, the last line may come with
// io.EOF, and an error after the data comes after every line before it.
func TestReaderLongLinesInAnyReads(t *testing.T) {
	var lines []string
	for i, n := range []int{10, readBufferSize - 1, readBufferSize, readBufferSize + 1, 3 * readBufferSize, 20, 1 << 20, 5000, 300 << 10, 2*readBufferSize + 7, 1 << 20, 15} {
		line := fmt.Sprintf(`{"method":"m%d","params":"`, i)
		line += strings.Repeat(string(rune('a'+i)), max(n-len(line)-2, 0)) + `"}`
		if i%3 == 1 {
			line += "\r"
		}
		lines = append(lines, line)
	}
	input := []byte(strings.Join(lines, "\n"))
	check := func(t *testing.T, msgs []Message) {
		t.Helper()
		if len(msgs) != len(lines) {
			t.Fatalf("got %d messages, want %d", len(msgs), len(lines))
		}
		for i, m := range msgs {
			if want := strings.TrimSuffix(lines[i], "\r"); string(m.Raw) != want {
				t.Fatalf("message %d has %d bytes, want %d", i, len(m.Raw), len(want))
			}
		}
	}
	for _, sizes := range [][]int{{1 << 30}, {readBufferSize}, {1000, 70000, 3, 1 << 20}, {readBufferSize + 1, 17}, {4096}} {
		t.Run(fmt.Sprint(sizes), func(t *testing.T) {
			r, _ := newRecordingReader(&chunkReader{data: input, sizes: sizes}, ReaderOptions{})
			msgs, err := readAll(r)
			if err != io.EOF {
				t.Fatalf("Next error = %v, want io.EOF", err)
			}
			check(t, msgs)
		})
	}
	t.Run("data with EOF", func(t *testing.T) {
		r, _ := newRecordingReader(iotest.DataErrReader(&chunkReader{data: input, sizes: []int{50000, 1 << 20}}), ReaderOptions{})
		msgs, err := readAll(r)
		if err != io.EOF {
			t.Fatalf("Next error = %v, want io.EOF", err)
		}
		check(t, msgs)
	})
	t.Run("error after the data", func(t *testing.T) {
		boom := errors.New("boom")
		in := io.MultiReader(&chunkReader{data: append(input, '\n'), sizes: []int{1 << 30}}, iotest.ErrReader(boom))
		r, _ := newRecordingReader(in, ReaderOptions{})
		msgs, err := readAll(r)
		if err != boom {
			t.Fatalf("Next error = %v, want the reader's", err)
		}
		check(t, msgs)
	})
}

// The ways a long line can end besides its newline: over MaxLineSize
// already in its first read buffer, over it at the end of the input, cut
// short by an error, or by a reader that stops giving anything.
func TestReaderLongLineEnds(t *testing.T) {
	big := func(n int) string { return `{"id":1,"method":"big","params":"` + strings.Repeat("a", n) + `"}` }
	next := `{"method":"next"}`
	boom := errors.New("boom")
	for _, tc := range []struct {
		name    string
		input   io.Reader
		max     int
		msgs    int // of next
		overs   int
		overEOF bool
		err     error
	}{
		{"over the limit in the first buffer", strings.NewReader(big(100000) + "\n" + next), 1000, 1, 1, false, io.EOF},
		{"over the limit at the end", strings.NewReader(next + "\n" + big(150000)), 100000, 1, 1, true, io.EOF},
		{"cut short by an error", io.MultiReader(strings.NewReader(next+"\n"+big(150000)), iotest.ErrReader(boom)), 0, 1, 0, false, boom},
		{"no progress", io.MultiReader(strings.NewReader(next+"\n"+big(150000)), emptyReader{}), 0, 1, 0, false, io.ErrNoProgress},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, logs := newRecordingReader(tc.input, ReaderOptions{MaxLineSize: tc.max})
			msgs, overs, err := readAllOverlong(r)
			if err != tc.err || len(msgs) != tc.msgs || len(overs) != tc.overs {
				t.Fatalf("got %d messages, %d overlong, error %v; want %d, %d, %v", len(msgs), len(overs), err, tc.msgs, tc.overs, tc.err)
			}
			for _, m := range msgs {
				if m.Method != "next" {
					t.Errorf("got message %q", m.Method)
				}
			}
			if tc.overs > 0 {
				if o := overs[0]; o.Kind != KindRequest || string(o.ID) != "1" || o.Method != "big" {
					t.Errorf("overlong error = %+v, want request 1, big", *o)
				}
				want := "line longer than MaxLineSize"
				if tc.overEOF {
					want = "last " + want
				}
				if !slices.ContainsFunc(logs.records(), func(r logRecord) bool { return r.Attrs["reason"] == want }) {
					t.Errorf("log records %+v, want one with reason %q", logs.records(), want)
				}
			}
		})
	}
}

// emptyReader returns nothing, and no error, forever.
type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, nil }

// What a long line's last read takes past it comes back in order, before
// the rest of the input, and its error after it.
func TestSourceUnread(t *testing.T) {
	boom := errors.New("boom")
	s := source{r: strings.NewReader("xyz")}
	s.unread([]byte("de"), nil)
	p := make([]byte, 1)
	if n, err := s.Read(p); n != 1 || err != nil || p[0] != 'd' {
		t.Fatalf("Read = %d %q, %v", n, p[:n], err)
	}
	s.unread([]byte("bc"), nil)
	if got, err := io.ReadAll(&s); string(got) != "bcexyz" || err != nil {
		t.Fatalf("read %q, %v; want bcexyz", got, err)
	}
	s = source{r: strings.NewReader("never")}
	s.unread([]byte("ab"), boom)
	if got, err := io.ReadAll(&s); string(got) != "ab" || err != boom {
		t.Fatalf("read %q, %v; want ab, then the error", got, err)
	}
}

func TestReaderReturnsReadErrorAndKeepsIt(t *testing.T) {
	boom := errors.New("boom")
	input := io.MultiReader(strings.NewReader(`{"method":"a"}`+"\n"+`{"method":"cut`), iotest.ErrReader(boom))
	r, _ := newRecordingReader(input, ReaderOptions{})
	m, err := r.Next()
	if err != nil || m.Method != "a" {
		t.Fatalf("first Next = %q, %v; want message a", m.Raw, err)
	}
	for range 2 {
		if _, err := r.Next(); err != boom {
			t.Fatalf("Next error = %v, want the reader's error", err)
		}
	}
}

func TestReaderWarnsOnceAboutMissingJSONRPCVersion(t *testing.T) {
	input := `{"jsonrpc":"2.0","method":"ok"}` + "\n" + `{"method":"none"}` + "\n" + `{"jsonrpc":"1.0","method":"old"}` + "\n" + `{"jsonrpc":2,"method":"num"}` + "\n"
	r, logs := newRecordingReader(strings.NewReader(input), ReaderOptions{})
	msgs, err := readAll(r)
	if err != io.EOF || len(msgs) != 4 {
		t.Fatalf("got %d messages, error %v; want all 4 accepted", len(msgs), err)
	}
	if recs := logs.records(); len(recs) != 1 || !strings.Contains(recs[0].Msg, "jsonrpc") || recs[0].Attrs["prefix"] != `{"method":"none"}` {
		t.Errorf("log records = %+v, want one warning about the first message lacking jsonrpc 2.0", recs)
	}
}

func TestReaderDecodesEscapedMethodAndKeys(t *testing.T) {
	input := `{"jsonrpc":"2.0","\u0069d":3,"m\u0065thod":"session\/upd\u0061te","params":{}}` + "\n"
	r, _ := newRecordingReader(strings.NewReader(input), ReaderOptions{})
	m, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	if m.Method != "session/update" || string(m.ID) != "3" || m.Kind() != KindRequest {
		t.Errorf("got method %q id %s kind %v, want session/update, 3, request", m.Method, m.ID, m.Kind())
	}
}

func TestReaderUsesDefaultLoggerWhenNil(t *testing.T) {
	logs := &logRecorder{}
	old := slog.Default()
	slog.SetDefault(slog.New(logs))
	defer slog.SetDefault(old)
	r := NewReader(strings.NewReader("nope\n"), ReaderOptions{Label: "editor"})
	if _, err := r.Next(); err != io.EOF {
		t.Fatal(err)
	}
	if recs := logs.records(); len(recs) != 1 || recs[0].Attrs["peer"] != "editor" {
		t.Errorf("default logger got %+v, want one warning", recs)
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{KindInvalid: "invalid", KindRequest: "request", KindNotification: "notification", KindResponse: "response"} {
		if k.String() != want {
			t.Errorf("Kind(%d).String() = %q, want %q", k, k.String(), want)
		}
	}
	if (Message{}).Kind() != KindInvalid {
		t.Errorf("zero Message kind = %v, want invalid", Message{}.Kind())
	}
}

func TestMessageDecodeError(t *testing.T) {
	m, err := Parse([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"Resource not found","data":{"uri":"/x"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	e, err := m.DecodeError()
	if err != nil || e.Code != CodeResourceNotFound || e.Message != "Resource not found" || string(e.Data) != `{"uri":"/x"}` {
		t.Errorf("DecodeError = %+v, %v", e, err)
	}
	for _, line := range []string{`{"id":1,"error":{"code":1.5,"message":"x"}}`, `{"id":1,"error":{"message":"x"}}`, `{"id":1,"result":{}}`} {
		m, err := Parse([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		if e, err := m.DecodeError(); err == nil {
			t.Errorf("DecodeError(%s) = %+v, want an error", line, e)
		}
	}
}

func TestParseRejectsEmbeddedNewline(t *testing.T) {
	if _, err := Parse([]byte("{\"method\":\n\"a\"}")); !errors.Is(err, ErrMalformed) {
		t.Errorf("Parse error = %v, want ErrMalformed", err)
	}
}
