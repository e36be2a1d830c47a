package wire

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
)

var discardLogger = slog.New(slog.DiscardHandler)

// fuzzMaxLine is the MaxLineSize FuzzReader uses, so that overlong lines
// get exercised too.
const fuzzMaxLine = 512

// fuzzTrailer ends every FuzzReader input: it must always come through.
const fuzzTrailer = `{"jsonrpc":"2.0","id":"end","method":"fuzz/end","params":{}}`

var readerSeeds = []string{
	``,
	"\n\r\n  \n",
	`{"jsonrpc":"2.0","id":1,"method":"fs/read_text_file","params":{"path":"/a"}}`,
	`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{}}}`,
	`{"jsonrpc":"2.0","id":-5,"result":{"content":"a\nb"}}`,
	`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
	`{"jsonrpc":"2.0","id":1.5e3,"result":null,"_meta":{"id":2}}`,
	`[{"jsonrpc":"2.0","method":"batch"}]`,
	`{"jsonrpc":"2.0","id":1,"id":2,"result":1}`,
	`{"\u0069d":1,"m\u0065thod":"\u0073"}`,
	`{"method":"a"}{"method":"b"}`,
	`{"method":"a`,
	"{\"method\":\"\xff\xfe\"}",
	`{"method":"a","params":"\ud800\udc00\"\\"}`,
	`{"jsonrpc":"2.0","method":"x"` + "\r\n" + `}`,
	`{"method":` + strings.Repeat(`[`, 40) + strings.Repeat(`]`, 40) + `}`,
	`{"method":"long","params":"` + strings.Repeat("x", fuzzMaxLine) + `"}`,
	`{"jsonrpc":"2.0","m\u0065thod":"fs/write_text_file","params":{"content":"` + strings.Repeat(`x\"\\`, fuzzMaxLine/4) + `","id":1},"id":"last"}`,
	`{"jsonrpc":"2.0","id":-2.5e1,"result":[{"id":3},"` + strings.Repeat("y", fuzzMaxLine) + `"]}`,
	"not json\n{\"method\":\"ok\"}\r\n42\n\"s\"\nnull",
	// Long runs between escapes, which str scans another way, then each
	// kind of error.
	`{"method":"m","params":"` + strings.Repeat("a", 40) + `\n` + strings.Repeat("b", 40) + `\t\u00e9\"` + strings.Repeat("c", 40) + `\\"}`,
	`{"method":"m","params":"` + strings.Repeat("a", 40) + `\n` + strings.Repeat("b", 40) + "\x01" + `"}`,
	`{"method":"m","params":"` + strings.Repeat("a", 40) + `\n` + strings.Repeat("b", 40) + `\x"}`,
	`{"method":"m","params":"` + strings.Repeat("a", 40) + `\n` + strings.Repeat("b", 40) + `\u12"}`,
	`{"method":"m","params":"` + strings.Repeat("a", 40) + `\n` + strings.Repeat("b", 40) + `}`,
}

func FuzzReader(f *testing.F) {
	for _, s := range readerSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		input := make([]byte, 0, len(data)+len(fuzzTrailer)+2)
		input = append(append(append(input, data...), '\n'), fuzzTrailer+"\n"...)
		r := NewReader(bytes.NewReader(input), ReaderOptions{MaxLineSize: fuzzMaxLine, Logger: discardLogger})
		msgs, overs, err := readAllOverlong(r)
		if err != io.EOF {
			t.Fatalf("Next error = %v, want io.EOF", err)
		}
		checkOverlong(t, input, fuzzMaxLine, overs)
		if len(msgs) == 0 || string(msgs[len(msgs)-1].Raw) != fuzzTrailer {
			t.Fatalf("the valid line after the fuzz input was not delivered last")
		}
		want := referenceMessages(t, input, fuzzMaxLine)
		if len(msgs) != len(want) {
			t.Fatalf("Reader delivered %d messages, encoding/json accepts %d lines:\n%q\n%q", len(msgs), len(want), rawOf(msgs), rawOf(want))
		}
		for i, m := range msgs {
			w := want[i]
			if !bytes.Equal(m.Raw, w.Raw) || !bytes.Equal(m.ID, w.ID) || m.Method != w.Method ||
				!bytes.Equal(m.Params, w.Params) || !bytes.Equal(m.Result, w.Result) || !bytes.Equal(m.Error, w.Error) ||
				(m.ID == nil) != (w.ID == nil) || m.Kind() != w.Kind() {
				t.Fatalf("message %d = %+v, encoding/json says %+v", i, m, w)
			}
		}
	})
}

// checkLongStrings checks that m's long strings are, in order, strings of
// Raw of LongStringMin bytes or more, and ASCII where they say so.
func checkLongStrings(t *testing.T, m Message) {
	t.Helper()
	end := 0
	for _, ls := range m.LongStrings {
		if ls.Start < end || ls.End > len(m.Raw) || ls.End-ls.Start < LongStringMin {
			t.Fatalf("long string %+v out of order, out of Raw (%d bytes), or short", ls, len(m.Raw))
		}
		s := m.Raw[ls.Start:ls.End]
		var v string
		if s[0] != '"' || json.Unmarshal(s, &v) != nil {
			t.Fatalf("long string %+v is not a JSON string: %.80q", ls, s)
		}
		if ls.ASCII && slices.ContainsFunc(s, func(c byte) bool { return c >= 0x80 }) {
			t.Fatalf("long string %+v says ASCII but is not: %.80q", ls, s)
		}
		end = ls.End
	}
}

// checkOverlong checks the overlong errors a Reader returned for input:
// one per line over maxLine, in order, with its length; and, for a line
// that encoding/json takes for a message whose id and method are short
// enough for the scan to keep, the same kind, id and method.
func checkOverlong(t *testing.T, input []byte, maxLine int, overs []*OverlongError) {
	t.Helper()
	var long [][]byte
	lines := bytes.Split(input, []byte("\n"))
	for i, line := range lines {
		if len(line) > maxLine && (i < len(lines)-1 || len(line) > 0) {
			long = append(long, line)
		}
	}
	if len(overs) != len(long) {
		t.Fatalf("Reader reported %d overlong lines, the input has %d", len(overs), len(long))
	}
	for i, line := range long {
		o := overs[i]
		if o.Len != int64(len(line)) || o.Max != maxLine {
			t.Fatalf("overlong line %d: Len %d, Max %d; want %d, %d", i, o.Len, o.Max, len(line), maxLine)
		}
		if o.Kind == KindInvalid && (o.ID != nil || o.Method != "") {
			t.Fatalf("overlong line %d: kind invalid with id %s, method %q", i, o.ID, o.Method)
		}
		trimmed := bytes.Trim(line, " \t\r")
		if len(trimmed) == 0 || trimmed[0] != '{' || !json.Valid(trimmed) {
			continue
		}
		m, ok := referenceParse(t, trimmed)
		if !ok || len(m.ID) > maxValueCapture || len(m.Method) > maxValueCapture/6 {
			continue
		}
		if o.Kind != m.Kind() || !bytes.Equal(o.ID, m.ID) || o.Method != m.Method {
			t.Fatalf("overlong line %q: scan found %v id %s method %q; encoding/json says %v id %s method %q",
				line, o.Kind, o.ID, o.Method, m.Kind(), m.ID, m.Method)
		}
	}
}

func rawOf(msgs []Message) []string {
	var s []string
	for _, m := range msgs {
		s = append(s, string(m.Raw))
	}
	return s
}

// referenceMessages applies the rules of Parse to each line of input using
// encoding/json, as an independent oracle for the Reader.
func referenceMessages(t *testing.T, input []byte, maxLine int) []Message {
	var out []Message
	lines := bytes.Split(input, []byte("\n"))
	for i, line := range lines {
		if i == len(lines)-1 && len(line) == 0 {
			break // after the last newline
		}
		if len(line) > maxLine {
			continue
		}
		line = bytes.Trim(line, " \t\r")
		if len(line) == 0 || line[0] != '{' || !json.Valid(line) {
			continue
		}
		if m, ok := referenceParse(t, line); ok {
			out = append(out, m)
		}
	}
	return out
}

func referenceParse(t *testing.T, line []byte) (Message, bool) {
	d := json.NewDecoder(bytes.NewReader(line))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("json.Valid object %q: first token %v, %v", line, tok, err)
	}
	members := map[string]json.RawMessage{}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			t.Fatalf("json.Valid object %q: %v", line, err)
		}
		key := tok.(string)
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			t.Fatalf("json.Valid object %q: %v", line, err)
		}
		switch key {
		case "jsonrpc", "id", "method", "params", "result", "error":
			if _, dup := members[key]; dup {
				return Message{}, false
			}
			members[key] = v
		}
	}
	first := func(k string) byte {
		if v, ok := members[k]; ok {
			return v[0]
		}
		return 0
	}
	_, hasMethod := members["method"]
	_, hasID := members["id"]
	_, hasResult := members["result"]
	_, hasError := members["error"]
	switch {
	case hasMethod && first("method") != '"':
		return Message{}, false
	case hasID && !strings.ContainsRune(`"-0123456789n`, rune(first("id"))):
		return Message{}, false
	case hasError && first("error") != '{':
		return Message{}, false
	case hasMethod && (hasResult || hasError):
		return Message{}, false
	case !hasMethod && (!hasID || hasResult == hasError):
		return Message{}, false
	}
	m := Message{Raw: line, ID: members["id"], Params: members["params"], Result: members["result"], Error: members["error"]}
	if hasMethod {
		if err := json.Unmarshal(members["method"], &m.Method); err != nil {
			t.Fatal(err)
		}
	}
	return m, true
}

func FuzzSetID(f *testing.F) {
	ids := []string{`1`, `-5`, `1.5`, `-0.0e-0`, `null`, `"s"`, `"a\"b"`, ` 7 `, `{}`, `true`, ``, `01`, `"\ud800"`, `1 2`}
	for i, s := range readerSeeds {
		f.Add([]byte(s), ids[i%len(ids)])
	}
	f.Add([]byte(`{"params":{"id":1},"id":2,"method":"m"}`), `3`)
	f.Add([]byte(`{"params":"\"id\":1,","method":"m"}`), `"x"`)
	f.Add([]byte(` { } `), `1`)
	f.Fuzz(func(t *testing.T, raw []byte, id string) {
		in, err := Parse(raw)
		if err != nil {
			return
		}
		out, err := SetID(raw, json.RawMessage(id))
		trimmed := strings.Trim(id, " \t\r\n")
		validID := json.Valid([]byte(trimmed)) && len(trimmed) > 0 && strings.ContainsRune(`"-0123456789n`, rune(trimmed[0]))
		if !validID {
			if err == nil {
				t.Fatalf("SetID accepted id %q", id)
			}
			return
		}
		if err != nil {
			t.Fatalf("SetID(%q, %q): %v", raw, id, err)
		}
		m, err := Parse(out)
		if err != nil {
			t.Fatalf("SetID output %q does not parse: %v", out, err)
		}
		if string(m.ID) != trimmed {
			t.Fatalf("SetID output id = %s, want %s", m.ID, trimmed)
		}
		if in.ID != nil && m.Kind() != in.Kind() || m.Method != in.Method ||
			!bytes.Equal(m.Params, in.Params) || !bytes.Equal(m.Result, in.Result) || !bytes.Equal(m.Error, in.Error) {
			t.Fatalf("SetID changed the message: %q -> %q", raw, out)
		}
		if viaMsg, err := in.WithID(json.RawMessage(id)); err != nil || !bytes.Equal(viaMsg, bytes.Trim(out, " \t\r\n")) {
			t.Fatalf("Message.WithID = %q, %v; SetID gives %q", viaMsg, err, out)
		}
		if !jsonEqualExceptID(t, raw, out) {
			t.Fatalf("SetID output %q is not JSON-equal to %q except for the id", out, raw)
		}
	})
}

// FuzzLongStrings checks the long strings that Parse records, for any
// text repeated to make them long: both are found, each where it is, and
// ASCII only where it is. A reader that defers their escapes (the first
// after a long run, so that the scan defers the rest) delivers the line
// exactly when checking its escapes then accepts it too.
func FuzzLongStrings(f *testing.F) {
	for _, s := range []string{`line\n`, `Grüße \"x\"\n`, `\ud83d\ude00 `, "\xff\\t", `a`, "\x01\\n", `ab\x`, `\u12`, `\\\"`, `\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if text == "" || strings.ContainsAny(text, "\n\r") {
			return
		}
		s := `"` + strings.Repeat("p", sparseRun) + `\n` + strings.Repeat(text, LongStringMin/len(text)+1) + `"`
		line := []byte(`{"method":"m","params":{"a":` + s + `,"b":[1,` + s + `]}}`)
		m, err := Parse(line)
		checkDeferred(t, line, m, err)
		if err != nil {
			return
		}
		checkLongStrings(t, m)
		if len(m.LongStrings) != 2 {
			t.Fatalf("%d long strings, want 2", len(m.LongStrings))
		}
	})
}

// checkDeferred checks that a reader that defers the escapes of long
// strings delivers line, whose Parse gave m and err, exactly when its
// unchecked escapes check out and err is nil, and then the same message.
func checkDeferred(t *testing.T, line []byte, m Message, err error) {
	t.Helper()
	r := NewReader(bytes.NewReader(line), ReaderOptions{DeferEscapes: true, Logger: discardLogger})
	d, derr := r.Next()
	var cerr error
	if derr == nil {
		cerr = d.CheckEscapes()
	}
	if (err == nil) != (derr == nil && cerr == nil) {
		t.Fatalf("Parse: %v; the deferring reader: %v, its escapes: %v", err, derr, cerr)
	}
	if err != nil {
		return
	}
	same := func(a, b LongString) bool { return a.Start == b.Start && a.End == b.End && a.ASCII == b.ASCII }
	if !bytes.Equal(d.Raw, m.Raw) || !slices.EqualFunc(d.LongStrings, m.LongStrings, same) {
		t.Fatalf("the deferring reader's long strings %+v, Parse's %+v", d.LongStrings, m.LongStrings)
	}
}
