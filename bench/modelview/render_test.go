package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// textResult is a CallToolResult of text blocks, with structured content
// if structured is not empty.
func textResult(t *testing.T, structured string, texts ...string) []byte {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"content":[`)
	for i, s := range texts {
		if i > 0 {
			b.WriteByte(',')
		}
		q, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(`{"type":"text","text":` + string(q) + `}`)
	}
	b.WriteString(`]`)
	if structured != "" {
		b.WriteString(`,"structuredContent":` + structured)
	}
	b.WriteString(`}`)
	return []byte(b.String())
}

// referenceText is a 134-byte file as model-view.md's table "Measured per
// agent: a 134-byte file read" had: it begins "alpha\n\tbeta = 1\n" (the
// reference quotes that much) and ends in a newline (gemini's read_file
// gave 133 bytes of it). The rest is made up, and made so that JSON
// escapes 43 of its characters (its 22 newlines and 21 tabs): codex's 204
// bytes are the content array's 27 bytes around a 177-byte JSON string,
// so the file had 43 such characters. The reference does not give the
// file, so codex's figure is reproduced under that assumption only.
func referenceText() string {
	var b strings.Builder
	b.WriteString("alpha\n\tbeta = 1\n")
	for i := 0; i < 18; i++ {
		b.WriteString("\tc" + string(rune('a'+i)) + "=1\n")
	}
	b.WriteString("\tz=1\n\ty=2\n")
	return b.String()
}

func TestCalibration(t *testing.T) {
	text := referenceText()
	if len(text) != 134 {
		t.Fatalf("the reference text has %d bytes, want 134", len(text))
	}
	res := textResult(t, "", text)
	// "one plain text block from another server".
	want := map[string]int{"claude": 134, "gemini": 176, "codex": 204, "opencode": 135, "Copilot": 134, "Qwen": 135}
	for _, h := range hosts {
		v, err := h.Render(res)
		if err != nil {
			t.Fatal(err)
		}
		if v.Bytes() != want[h.Name] || v.Media != 0 {
			t.Errorf("%s: %d bytes, %d media, want %d bytes (model-view.md)", h.Name, v.Bytes(), v.Media, want[h.Name])
		}
	}
	// The hosts' own reads: gemini's read_file 133 bytes. Claude's Read
	// was 520 bytes; the numbering alone gives 134 + 9 bytes a line less
	// one, far less: what else Read adds is not known (see claudeRead).
	if n := len(geminiReadFile(text)); n != 133 {
		t.Errorf("gemini read_file: %d bytes, want 133", n)
	}
	if n, lines := len(claudeRead(text)), strings.Count(text, "\n"); n != 134+9*lines-1 || n >= 520 {
		t.Errorf("Claude Read: %d bytes for %d lines, want %d (under the 520 measured)", n, lines, 134+9*lines-1)
	}
	// The column "acpfs today" (claude 353, codex 387, Copilot 489, Qwen
	// 490) cannot be reproduced: its structuredContent holds the file's
	// path, which the reference does not give. By these rules the figures
	// imply JSON of 352 to 355 bytes by host (Copilot 489-134-3, claude
	// 353, Qwen 490-134-1), and codex's 387 more: consistent if each
	// agent read the file by a path of its own, which the reference does
	// not say either. Only the rules' arithmetic is checked: see
	// TestStructured.
}

func TestStructured(t *testing.T) {
	const structured = `{"path":"/p/a <b>.txt","content":"x\ny","line":1}`
	const js = `{"path":"/p/a <b>.txt","content":"x\ny","line":1}` // as JSON.stringify gives it
	res := textResult(t, structured, "x\ny")
	for _, tc := range []struct {
		render Renderer
		want   string
	}{
		{Claude, js},
		{Codex, js},
		{Copilot, "x\ny\n\n\n" + js},
		{Qwen, js + "\nx\ny"},
		{Gemini, "<untrusted_context>\nx\ny\n</untrusted_context>\n"},
		{OpenCode, "x\ny\n"},
	} {
		v, err := tc.render(res)
		if err != nil {
			t.Fatal(err)
		}
		if v.Text() != tc.want || v.Bytes() != len(tc.want) {
			t.Errorf("got %q (%d bytes), want %q", v.Text(), v.Bytes(), tc.want)
		}
	}
}

func TestNoStructured(t *testing.T) {
	res := textResult(t, "", "a\tb")
	for _, tc := range []struct {
		render Renderer
		want   string
	}{
		{Claude, "a\tb"},
		{Codex, `[{"type":"text","text":"a\tb"}]`},
		{Copilot, "a\tb"},
		{Qwen, "\na\tb"},
		{Gemini, "<untrusted_context>\na\tb\n</untrusted_context>\n"},
		{OpenCode, "a\tb\n"},
	} {
		v, err := tc.render(res)
		if err != nil {
			t.Fatal(err)
		}
		if v.Text() != tc.want {
			t.Errorf("got %q, want %q", v.Text(), tc.want)
		}
	}
}

func TestSeveralTextBlocks(t *testing.T) {
	res := textResult(t, "", "first", "second")
	for _, tc := range []struct {
		render Renderer
		parts  []string
	}{
		{Claude, []string{"first", "second"}},
		{Codex, []string{`[{"type":"text","text":"first"},{"type":"text","text":"second"}]`}},
		{Copilot, []string{"first", "second"}},
		{Qwen, []string{"\nfirst\nsecond"}},
		{Gemini, []string{"<untrusted_context>\nfirst\n</untrusted_context>\n", "<untrusted_context>\nsecond\n</untrusted_context>\n"}},
		{OpenCode, []string{"first\nsecond\n"}},
	} {
		v, err := tc.render(res)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(v.Parts, "|") != strings.Join(tc.parts, "|") {
			t.Errorf("got parts %q, want %q", v.Parts, tc.parts)
		}
	}
	// Claude counts each block.
	v, _ := Claude(res)
	if v.Bytes() != len("first")+len("second") {
		t.Errorf("claude: %d bytes", v.Bytes())
	}
}

func TestImages(t *testing.T) {
	const img = `{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}`
	plain := []byte(`{"content":[{"type":"text","text":"a.png"},` + img + `]}`)
	structured := []byte(`{"content":[{"type":"text","text":"a.png"},` + img + `],"structuredContent":{"path":"a.png","mimeType":"image/png","size":69}}`)
	for _, tc := range []struct {
		name          string
		render        Renderer
		plainText     string
		plainMedia    int
		structText    string
		structMedia   int
		structuredSet bool
	}{
		// Claude: the image reaches the model only without structuredContent.
		{"claude", Claude, "a.png", 1, `{"path":"a.png","mimeType":"image/png","size":69}`, 0, true},
		{"codex", Codex, `[{"type":"text","text":"a.png"},` + img + `]`, 0, `{"path":"a.png","mimeType":"image/png","size":69}`, 0, true},
		// Copilot gives the model no MCP image.
		{"Copilot", Copilot, "a.png", 0, "a.png\n\n\n" + `{"path":"a.png","mimeType":"image/png","size":69}`, 0, true},
		{"Qwen", Qwen, "\na.png", 1, `{"path":"a.png","mimeType":"image/png","size":69}` + "\na.png", 1, true},
		{"gemini", Gemini, geminiOpen + "a.png" + geminiClose, 1, geminiOpen + "a.png" + geminiClose, 1, true},
		{"opencode", OpenCode, "a.png\n", 1, "a.png\n", 1, true},
	} {
		v, err := tc.render(plain)
		if err != nil {
			t.Fatal(err)
		}
		if v.Text() != tc.plainText || v.Media != tc.plainMedia {
			t.Errorf("%s, no structuredContent: %q + %d media, want %q + %d", tc.name, v.Text(), v.Media, tc.plainText, tc.plainMedia)
		}
		v, err = tc.render(structured)
		if err != nil {
			t.Fatal(err)
		}
		if v.Text() != tc.structText || v.Media != tc.structMedia {
			t.Errorf("%s, structuredContent: %q + %d media, want %q + %d", tc.name, v.Text(), v.Media, tc.structText, tc.structMedia)
		}
	}
}

func TestResourcesAndAudio(t *testing.T) {
	res := []byte(`{"content":[` +
		`{"type":"resource","resource":{"uri":"file:///a.txt","text":"hello"}},` +
		`{"type":"resource","resource":{"uri":"file:///a.bin","blob":"AAEC"}},` +
		`{"type":"audio","data":"AAEC","mimeType":"audio/wav"}]}`)
	v, err := Claude(res)
	if err != nil {
		t.Fatal(err)
	}
	if v.Text() != "hello" || v.Media != 2 {
		t.Errorf("claude: %q + %d media, want the text resource and 2 media", v.Text(), v.Media)
	}
	v, err = Gemini(res)
	if err != nil {
		t.Fatal(err)
	}
	if v.Text() != geminiOpen+"hello"+geminiClose || v.Media != 2 {
		t.Errorf("gemini: %q + %d media", v.Text(), v.Media)
	}
}

func TestRenderRejectsJunk(t *testing.T) {
	for _, h := range hosts {
		if _, err := h.Render([]byte(`{"content":[`)); err == nil {
			t.Errorf("%s: no error for a broken result", h.Name)
		}
	}
}

func TestCompactJS(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// The server's Go encoder escapes <, > and &; JSON.stringify does not.
		{`{"b":"\u003ca\u0026b\u003e","a":[1, 2.50, true, null]}`, `{"b":"<a&b>","a":[1,2.50,true,null]}`},
		{`{ "z" : 1 , "a" : { } , "m" : [ ] }`, `{"z":1,"a":{},"m":[]}`},
		{`"tab\tnl\ncr\rq\"bs\\bell\u0007ff\fbsp\bé\u2028"`, "\"tab\\tnl\\ncr\\rq\\\"bs\\\\bell\\u0007ff\\fbsp\\bé\u2028\""},
	} {
		got, err := compactJS([]byte(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.want {
			t.Errorf("compactJS(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
	if _, err := compactJS([]byte(`{} {}`)); err == nil {
		t.Error("two values: no error")
	}
}

func TestClaudeRead(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"alpha\n\tbeta = 1\n", "     1→alpha\n     2→\tbeta = 1"},
		{"a\r\nb", "     1→a\n     2→b"},
		{"", ""},
		{"x\n\ny\n", "     1→x\n     2→\n     3→y"},
	} {
		if got := claudeRead(tc.in); got != tc.want {
			t.Errorf("claudeRead(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := claudeRead(strings.Repeat("x\n", 100000)); !strings.HasSuffix(got, "\n100000→x") {
		t.Errorf("line 100,000: %q", got[len(got)-20:])
	}
}
