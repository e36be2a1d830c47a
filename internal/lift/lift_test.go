package lift

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-acpfs/mcp-acpfs/internal/mcptest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
)

// The tools and arguments the tests lift, as a file server's.
const (
	WriteTextFile = "write_text_file"
	EditTextFile  = "edit_text_file"
)

var testLifted = Arguments{
	WriteTextFile: {{"content"}},
	EditTextFile:  {{"edits", "[]", "oldText"}, {"edits", "[]", "newText"}},
}

// writeArgs and editArgs are the arguments of the two tools, as their
// handlers bind them.
type writeArgs struct {
	Path         string `json:"path"`
	Content      string `json:"content"`
	ExpectedHash string `json:"expectedHash"`
}

type editArgs struct {
	Path  string    `json:"path"`
	Edits []editArg `json:"edits"`
}

type editArg struct {
	OldText    string `json:"oldText"`
	NewText    string `json:"newText"`
	ReplaceAll bool   `json:"replaceAll"`
}

// mustLift lifts line's arguments into lt, long being its long strings.
func mustLift(t *testing.T, lt *Table, line []byte, long []wire.LongString) []byte {
	t.Helper()
	lifted, err := lt.LiftArguments(line, long, testLifted)
	if err != nil {
		t.Fatalf("LiftArguments(%.80s): %v", line, err)
	}
	return lifted
}

// decodeArgs decodes a tools/call line's arguments as a handler binds them.
func decodeArgs(t *testing.T, line []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(argumentsOf(t, line), v); err != nil {
		t.Fatal(err)
	}
}

// argumentsOf returns the raw arguments of a tools/call line.
func argumentsOf(t *testing.T, line []byte) json.RawMessage {
	t.Helper()
	var req struct {
		Params struct {
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	if err := json.Unmarshal(line, &req); err != nil {
		t.Fatalf("the line is not JSON: %v\n%.300s", err, line)
	}
	return req.Params.Arguments
}

func TestLiftArgumentsWrite(t *testing.T) {
	content := mcptest.HardText(64 << 10)
	lt := NewTable("mcp-acpfs-lifted-0123-")
	line := mcptest.CallLine(t, WriteTextFile, map[string]any{"path": "a.txt", "content": content, "expectedHash": strings.Repeat("a", 64)})
	lifted := mustLift(t, lt, line, nil)
	if len(lifted) > 1024 {
		t.Errorf("the lifted line has %d bytes; the content was not lifted", len(lifted))
	}
	var args writeArgs
	decodeArgs(t, lifted, &args)
	if args.Path != "a.txt" || args.ExpectedHash != strings.Repeat("a", 64) {
		t.Errorf("other arguments changed: %+v", args)
	}
	if !strings.HasPrefix(args.Content, lt.prefix) {
		t.Fatalf("content %.100q is not a placeholder", args.Content)
	}
	ctx := WithTable(context.Background(), lt)
	if err := Unlift(ctx, &args.Content); err != nil {
		t.Fatal(err)
	}
	if args.Content != content {
		t.Errorf("the content put back differs from the content sent (%d and %d bytes)", len(args.Content), len(content))
	}
	// Without the table (another transport), nothing is put back.
	s := lt.prefix + "1"
	if err := Unlift(context.Background(), &s); err != nil || s != lt.prefix+"1" {
		t.Errorf("without a table: %q, %v", s, err)
	}
}

func TestLiftArgumentsEdit(t *testing.T) {
	old, repl := mcptest.HardText(4<<10), mcptest.HardText(8<<10)+"more"
	lt := NewTable("mcp-acpfs-lifted-0123-")
	line := mcptest.CallLine(t, EditTextFile, map[string]any{"path": "a.txt", "edits": []map[string]any{
		{"oldText": "small", "newText": repl},
		{"oldText": old, "newText": "", "replaceAll": true},
	}})
	var args editArgs
	decodeArgs(t, mustLift(t, lt, line, nil), &args)
	if len(lt.args) != 2 {
		t.Errorf("%d strings lifted, want the 2 large ones", len(lt.args))
	}
	ctx := WithTable(context.Background(), lt)
	for i := range args.Edits {
		if err := Unlift(ctx, &args.Edits[i].OldText); err != nil {
			t.Fatal(err)
		}
		if err := Unlift(ctx, &args.Edits[i].NewText); err != nil {
			t.Fatal(err)
		}
	}
	want := []editArg{{OldText: "small", NewText: repl}, {OldText: old, NewText: "", ReplaceAll: true}}
	for i := range want {
		if args.Edits[i] != want[i] {
			t.Errorf("edit %d differs after lifting", i)
		}
	}
}

// Only the listed arguments of the listed tools are lifted: anything else
// reaches mcp-go and the handler as sent.
func TestLiftArgumentsLeavesTheRest(t *testing.T) {
	big := mcptest.HardText(8 << 10)
	for _, tc := range []struct {
		name string
		line []byte
	}{
		{"another tool", mcptest.CallLine(t, "grep", map[string]any{"pattern": big})},
		{"another argument", mcptest.CallLine(t, WriteTextFile, map[string]any{"path": big, "content": "x"})},
		{"a short string", mcptest.CallLine(t, WriteTextFile, map[string]any{"path": "a", "content": strings.Repeat("x", Min-10)})},
		{"not a string", mcptest.CallLine(t, WriteTextFile, map[string]any{"path": "a", "content": []string{big}})},
		{"edits not an array", mcptest.CallLine(t, EditTextFile, map[string]any{"path": "a", "edits": map[string]any{"oldText": big}})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lt := NewTable("mcp-acpfs-lifted-0123-")
			if got := mustLift(t, lt, tc.line, nil); string(got) != string(tc.line) {
				t.Errorf("the line changed:\n%.200s", got)
			}
		})
	}
}

// A member repeated inside the arguments: each placeholder maps back to
// its own string, so whichever one a decoder takes is right.
func TestLiftArgumentsRepeatedMember(t *testing.T) {
	a, b := mcptest.HardText(2<<10)+"A", mcptest.HardText(2<<10)+"B"
	qa, _ := json.Marshal(a)
	qb, _ := json.Marshal(b)
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_text_file","arguments":{"path":"x","content":` +
		string(qa) + `,"content":` + string(qb) + `}}}`)
	lt := NewTable("mcp-acpfs-lifted-0123-")
	var args writeArgs
	decodeArgs(t, mustLift(t, lt, line, nil), &args)
	if err := Unlift(WithTable(context.Background(), lt), &args.Content); err != nil {
		t.Fatal(err)
	}
	if args.Content != b {
		t.Errorf("got the %q... content, want the last one, as encoding/json takes", args.Content[len(args.Content)-1:])
	}
}

func TestSpliceResults(t *testing.T) {
	text := mcptest.HardText(32 << 10)
	lt := NewTable("mcp-acpfs-lifted-0123-")
	ctx := WithTable(context.Background(), lt)
	ph := Result(ctx, text)
	if ph == text {
		t.Fatal("the text was not lifted")
	}
	if got := Result(ctx, "short"); got != "short" {
		t.Errorf("a short text was lifted: %q", got)
	}
	if got := Result(context.Background(), text); got != text {
		t.Error("a text was lifted without a transport to splice it")
	}
	res := mcp.NewToolResultStructured(map[string]any{"content": ph, "lines": 3}, ph)
	line, err := json.Marshal(mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(3)), res))
	if err != nil {
		t.Fatal(err)
	}
	pieces, err := lt.SpliceResults(line)
	if err != nil {
		t.Fatal(err)
	}
	spliced := bytes.Join(pieces, nil)
	var got struct {
		ID     int `json:"id"`
		Result struct {
			Content           []mcp.TextContent `json:"content"`
			StructuredContent struct {
				Content string `json:"content"`
				Lines   int    `json:"lines"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(spliced, &got); err != nil {
		t.Fatalf("the spliced response is not JSON: %v", err)
	}
	if got.ID != 3 || len(got.Result.Content) != 1 || got.Result.Content[0].Text != text ||
		got.Result.StructuredContent.Content != text || got.Result.StructuredContent.Lines != 3 {
		t.Errorf("the spliced response differs from the result: %.300s", spliced)
	}
	if strings.Contains(string(spliced), lt.prefix+"1") {
		t.Error("a placeholder is left in the response")
	}
	// A placeholder the handler made that is not in the response.
	lt2 := NewTable("mcp-acpfs-lifted-0123-")
	Result(WithTable(context.Background(), lt2), text)
	if _, err := lt2.SpliceResults([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)); err == nil {
		t.Error("a lifted text missing from the response was not an error")
	}
}

// checkQuoteJSON checks that QuoteJSON(s) decodes to what s encodes to.
func checkQuoteJSON(t *testing.T, s string) {
	t.Helper()
	q, err := QuoteJSON([]byte("x"), s)
	if err != nil {
		t.Fatal(err)
	}
	var got, want string
	if q[0] != 'x' {
		t.Fatalf("QuoteJSON(%q) did not append: %s", s, q)
	}
	q = q[1:]
	if err := json.Unmarshal(q, &got); err != nil {
		t.Fatalf("QuoteJSON(%q) = %s: not a JSON string: %v", s, q, err)
	}
	ref, _ := json.Marshal(s)
	json.Unmarshal(ref, &want)
	if got != want {
		t.Errorf("QuoteJSON(%q) = %s, decodes to %q, want %q", s, q, got, want)
	}
}

func TestQuoteJSON(t *testing.T) {
	var every strings.Builder
	for c := range 0x80 {
		every.WriteByte(byte(c))
		every.WriteString("abcdefgh") // each byte at every offset of a word, in turn
	}
	for _, s := range []string{
		"", "a", "12345678", "1234567\n", "\n1234567", `"\"\\`, every.String(),
		mcptest.HardText(4 << 10), "é😀\u2028\u2029<&>", "\xff\xfe invalid", strings.Repeat("\x1f", 17),
	} {
		checkQuoteJSON(t, s)
	}
}

func FuzzQuoteJSON(f *testing.F) {
	for _, s := range []string{"", "plain text\n", "tab\t\"q\"\\", "\x00\x01\x7f", "é😀\u2028", "\xc3(", mcptest.HardText(300)} {
		f.Add(s)
	}
	f.Fuzz(checkQuoteJSON)
}

// A lifted argument with invalid UTF-8 is put back as encoding/json would
// have decoded it in place: each invalid byte becomes U+FFFD.
func TestUnliftInvalidUTF8(t *testing.T) {
	raw := strings.Repeat("a", 2<<10) + "\xff\\n"
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_text_file","arguments":{"path":"x","content":"` + raw + `"}}}`)
	var want writeArgs
	decodeArgs(t, line, &want)
	lt := NewTable("mcp-acpfs-lifted-0123-")
	var args writeArgs
	decodeArgs(t, mustLift(t, lt, line, nil), &args)
	if err := Unlift(WithTable(context.Background(), lt), &args.Content); err != nil {
		t.Fatal(err)
	}
	if args.Content != want.Content || !strings.HasSuffix(args.Content, "\uFFFD\n") {
		t.Errorf("put back %q…, want %q…", args.Content[len(args.Content)-8:], want.Content[len(want.Content)-8:])
	}
}

// LiftArguments passes on what the wire reader's long strings say of their
// bytes: a string they call ASCII is decoded without a UTF-8 check. Here
// the claim is false, so that the check's absence shows: the invalid byte
// stays as it is instead of becoming U+FFFD, as it does without the claim.
func TestLiftArgumentsTrustsLongStrings(t *testing.T) {
	raw := strings.Repeat("a", 2<<10) + "\xff\\n"
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_text_file","arguments":{"path":"x","content":"` + raw + `"}}}`)
	m, err := wire.Parse(line)
	if err != nil || len(m.LongStrings) != 1 || m.LongStrings[0].ASCII {
		t.Fatalf("the reader's long strings = %+v (%v), want one, not ASCII", m.LongStrings, err)
	}
	for _, ascii := range []bool{false, true} {
		long := []wire.LongString{{Start: m.LongStrings[0].Start, End: m.LongStrings[0].End, ASCII: ascii}}
		lt := NewTable("mcp-acpfs-lifted-0123-")
		var args writeArgs
		decodeArgs(t, mustLift(t, lt, bytes.Clone(line), long), &args)
		if err := Unlift(WithTable(context.Background(), lt), &args.Content); err != nil {
			t.Fatal(err)
		}
		want := "\uFFFD\n"
		if ascii {
			want = "\xff\n"
		}
		if !strings.HasSuffix(args.Content, want) || len(args.Content) != 2<<10+len(want) {
			t.Errorf("called ASCII: %v: put back …%q, want …%q", ascii, args.Content[len(args.Content)-4:], want)
		}
	}
}

// checkUnquote checks that unquoteInPlace decodes the JSON string body s
// as encoding/json does, when the string is one the wire reader accepts.
func checkUnquote(t *testing.T, s string) {
	t.Helper()
	q := []byte(`"` + s + `"`)
	var want string
	if !json.Valid(q) || json.Unmarshal(q, &want) != nil {
		return
	}
	got, err := unquoteInPlace(q, false)
	if err != nil {
		t.Fatalf("unquoteInPlace(%q): %v", q, err)
	}
	if string(got) != want {
		t.Errorf("unquoteInPlace(%q) = %q, want %q", `"`+s+`"`, got, want)
	}
}

func TestUnquoteInPlace(t *testing.T) {
	hard, _ := json.Marshal(mcptest.HardText(4 << 10))
	for _, s := range []string{
		"", "a", "12345678", `\n`, `\"\\\/\b\f\n\r\t`, `1234567\n`, `12345678\n12345678`,
		`\u00e9\u4e16\u754c`, `\ud83d\ude00`, `\uD83D\uDE00`, // a pair
		`\ud83d`, `\ude00`, `\ud83dx`, `\ud83d\u0041`, `\ude00\ud83d`, `\ud83d\ud83d\ude00`, // lone surrogates
		"é😀\u2028 plain", "\xff", "\xc3(", "ok\xff\\n\xe2\x82", "\xed\xa0\x80", // invalid UTF-8
		"abcdefg\xffhijklmn\\tend", `\\\\\\\\\\\\\\\\x`, string(hard[1 : len(hard)-1]),
	} {
		checkUnquote(t, s)
	}
	for _, bad := range []string{`"\x"`, `"\u12"`, `"\`, `x`, `"\u12g4"`} {
		if _, err := unquoteInPlace([]byte(bad), false); err == nil {
			t.Errorf("unquoteInPlace(%s): no error", bad)
		}
	}
}

func FuzzUnquoteInPlace(f *testing.F) {
	for _, s := range []string{"", "plain", `a\"b\\c\/d\n`, `\u00e9\ud83d\ude00`, `\ud83d`, "\xff\\n", "é😀\u2028\\t"} {
		f.Add(s)
	}
	f.Fuzz(checkUnquote)
}

// A lifted argument is decoded over the request's own bytes, not copied,
// and only once: putting it back twice gives the same text.
func TestUnliftDecodesInPlaceOnce(t *testing.T) {
	content := mcptest.HardText(8<<10) + `\u0041"`
	line := mcptest.CallLine(t, WriteTextFile, map[string]any{"path": "a.txt", "content": content})
	lt := NewTable("mcp-acpfs-lifted-0123-")
	var args writeArgs
	decodeArgs(t, mustLift(t, lt, line, nil), &args)
	ph := args.Content
	ctx := WithTable(context.Background(), lt)
	if err := Unlift(ctx, &args.Content); err != nil {
		t.Fatal(err)
	}
	if args.Content != content {
		t.Fatalf("put back %d bytes, want %d", len(args.Content), len(content))
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(line)))
	if p := uintptr(unsafe.Pointer(unsafe.StringData(args.Content))); p < start || p >= start+uintptr(len(line)) {
		t.Error("the text put back is a copy, not the request's own bytes")
	}
	again := ph
	if err := Unlift(ctx, &again); err != nil || again != content {
		t.Errorf("putting the argument back again gave %d bytes (%v), want the same text", len(again), err)
	}
}

// fileText is text like a source file's: a newline, which JSON escapes,
// every 60 bytes or so.
func fileText(n int) string {
	var b strings.Builder
	for i := 1; b.Len() < n; i++ {
		fmt.Fprintf(&b, "line %6d: the quick brown fox jumps over the lazy dog\n", i)
	}
	return b.String()
}

func BenchmarkQuoteJSON(b *testing.B) {
	text := fileText(1 << 20)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	var q []byte // reused, as the transport reuses its buffers
	for b.Loop() {
		var err error
		if q, err = QuoteJSON(q[:0], text); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnquoteInPlace decodes a copy of the quoted text each time: the
// copy is part of what it measures. "ascii" is a text the wire scan saw to
// be ASCII, whose UTF-8 goes unchecked.
func BenchmarkUnquoteInPlace(b *testing.B) {
	q, _ := json.Marshal(fileText(1 << 20))
	buf := make([]byte, len(q))
	for _, ascii := range []bool{false, true} {
		b.Run(map[bool]string{false: "utf8", true: "ascii"}[ascii], func(b *testing.B) {
			b.SetBytes(int64(len(q)))
			b.ReportAllocs()
			for b.Loop() {
				copy(buf, q)
				if _, err := unquoteInPlace(buf, ascii); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// liftShapes place a large JSON string (%[1]s) and a small one (%[2]s) in
// the arguments of a call in the ways a client may: where a tool takes
// lifted arguments, repeated, nested, spaced out, and where it does not.
var liftShapes = []struct{ tool, args string }{
	{WriteTextFile, `{"path":%[2]s,"content":%[1]s}`},
	{WriteTextFile, `{ "content" : %[1]s , "path" : "a" , "content" : %[2]s }`},
	{WriteTextFile, `{"content":%[2]s,"x":[%[1]s,{"content":%[1]s}],"content":%[1]s}`},
	{WriteTextFile, `{"path":%[1]s,"content":{"content":%[1]s}}`},
	{EditTextFile, `{"path":"a","edits":[{"oldText":%[1]s,"newText":%[2]s},{"newText":%[1]s,"oldText":%[1]s,"replaceAll":true}]}`},
	{EditTextFile, "{\"edits\" :\t[ {\"oldText\":%[2]s, \"oldText\":%[1]s} ,{\"x\":[%[1]s]}],\"edits\":[{\"newText\":%[1]s}]}"},
	{"grep", `{"pattern":%[1]s,"path":%[2]s}`},
}

// FuzzLiftArguments checks that lifting a call's large strings and putting
// them back gives its handler exactly the arguments it would have got
// without: any string (escapes, surrogates, invalid UTF-8), anywhere, with
// and without the long strings the wire reader found, escapes checked or
// deferred. A line that holds a malformed escape the reader deferred is
// refused by LiftArguments or by an Unlift of its handler.
func FuzzLiftArguments(f *testing.F) {
	for i := range liftShapes {
		f.Add(uint8(i), `line \"quoted\" \\ tab\t \u00e9\ud83d\ude00 é\n`, "x")
		f.Add(uint8(i), "\xff\\n\\ud800 lone", `\u0041`)
		f.Add(uint8(i), `bad \x`, "y")
	}
	f.Fuzz(func(t *testing.T, shape uint8, text, small string) {
		sh := liftShapes[int(shape)%len(liftShapes)]
		// A long run first, after which the reader may defer the escapes.
		large := `"` + strings.Repeat("p", 40) + `\n` + strings.Repeat(text, Min/max(len(text), 1)+1) + `"`
		line := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + sh.tool + `","arguments":` +
			fmt.Sprintf(sh.args, large, `"`+small+`"`) + `}}`)
		var deferred []wire.LongString
		if !bytes.ContainsAny(line, "\r\n") {
			r := wire.NewReader(bytes.NewReader(line), wire.ReaderOptions{DeferEscapes: true, Logger: slog.New(slog.DiscardHandler)})
			if d, err := r.Next(); err == nil {
				deferred = d.LongStrings
			}
		}
		m, err := wire.Parse(line)
		if err != nil {
			if deferred != nil {
				checkLiftRefuses(t, sh.tool, line, deferred)
			}
			return // the reader would not have passed it on
		}
		for _, long := range [][]wire.LongString{nil, m.LongStrings, deferred} {
			checkLift(t, sh.tool, line, long)
		}
	})
}

// checkLiftRefuses checks that line, a tools/call of tool that holds a
// malformed escape in one of long, its long strings, which the reader
// left unchecked, is refused: by LiftArguments, or by the Unlift of an
// argument its handler gets (or by the binding of its arguments).
func checkLiftRefuses(t *testing.T, tool string, line []byte, long []wire.LongString) {
	t.Helper()
	lt := NewTable("mcp-acpfs-lifted-0123-")
	lifted, err := lt.LiftArguments(bytes.Clone(line), long, testLifted)
	if err != nil {
		return
	}
	ctx := WithTable(context.Background(), lt)
	switch tool {
	case WriteTextFile:
		var args writeArgs
		if json.Unmarshal(argumentsOf(t, lifted), &args) != nil || Unlift(ctx, &args.Content) != nil {
			return
		}
	case EditTextFile:
		var args editArgs
		if json.Unmarshal(argumentsOf(t, lifted), &args) != nil {
			return
		}
		for i := range args.Edits {
			if errors.Join(Unlift(ctx, &args.Edits[i].OldText), Unlift(ctx, &args.Edits[i].NewText)) != nil {
				return
			}
		}
	}
	t.Fatalf("%.200s: a malformed escape passed LiftArguments and every Unlift", line)
}

// checkLift checks that lifting the large strings of line, a tools/call of
// tool, given long as its long strings, and putting them back gives the
// arguments line has.
func checkLift(t *testing.T, tool string, line []byte, long []wire.LongString) {
	t.Helper()
	lt := NewTable("mcp-acpfs-lifted-0123-")
	ctx := WithTable(context.Background(), lt)
	unlift := func(s *string) {
		if err := Unlift(ctx, s); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	// Both decodings fail alike (a content that is not a string, say),
	// or both give the same arguments.
	decode := func(line []byte, v any) error { return json.Unmarshal(argumentsOf(t, line), v) }
	switch tool {
	case WriteTextFile:
		var want, got writeArgs
		errWant, errGot := decode(line, &want), decode(mustLift(t, lt, bytes.Clone(line), long), &got)
		if errGot == nil {
			unlift(&got.Content)
		}
		if (errGot == nil) != (errWant == nil) || got != want {
			t.Fatalf("%s: put back %+.80v (%v), want %+.80v (%v)", line, got, errGot, want, errWant)
		}
	case EditTextFile:
		var want, got editArgs
		errWant, errGot := decode(line, &want), decode(mustLift(t, lt, bytes.Clone(line), long), &got)
		for i := range got.Edits {
			unlift(&got.Edits[i].OldText)
			unlift(&got.Edits[i].NewText)
		}
		if (errGot == nil) != (errWant == nil) || !slices.Equal(got.Edits, want.Edits) || got.Path != want.Path {
			t.Fatalf("%s: put back %+.80v (%v), want %+.80v (%v)", line, got, errGot, want, errWant)
		}
	default:
		if lifted := mustLift(t, lt, bytes.Clone(line), long); !bytes.Equal(lifted, line) {
			t.Fatalf("%s: lifted an argument of a tool that takes none: %s", line, lifted)
		}
	}
}

// A Walker steps over a long string it is given without looking at it:
// it takes the string's end from the record (here false, so that the
// trust shows), and finds the end itself only without one.
func TestWalkerStepsOverLongStrings(t *testing.T) {
	s := `"` + strings.Repeat(`text\n`, Min) + `"`
	line := []byte(`{"a":` + s + `,"b":1}`)
	at := strings.IndexByte(string(line), ':') + 1
	if got, want := (&Walker{b: line}).Skip(at), at+len(s); got != want {
		t.Fatalf("Skip without a record = %d, want %d", got, want)
	}
	w := Walker{b: line, long: []wire.LongString{{Start: at, End: at + 7}}}
	if got := w.Skip(at); got != at+7 {
		t.Errorf("Skip with a record ending at %d = %d: the string was scanned", at+7, got)
	}
}
