package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The hosts' rules for turning an MCP CallToolResult into what the model
// receives, as /work/shared/reference/model-view.md records them
// ("How each host turns a CallToolResult into what the model sees",
// measured 2026-11-28 with the versions named there). Where the reference
// says nothing (several text blocks for most hosts, audio, embedded
// resources), each rule says what it assumes.

// A View is what a model receives of one tool result.
type View struct {
	// Parts are the texts the model gets, in order: a host that keeps
	// text blocks apart gives several.
	Parts []string
	// Media counts the images, audio and blobs passed to the model as
	// media (an image block, inlineData, image_url), not as text.
	Media int
}

// Bytes is the size of the view's text.
func (v View) Bytes() int {
	n := 0
	for _, p := range v.Parts {
		n += len(p)
	}
	return n
}

// Text is the view's text, its parts joined with nothing between them.
func (v View) Text() string { return strings.Join(v.Parts, "") }

// A Renderer turns a CallToolResult, as JSON, into a View.
type Renderer func(result []byte) (View, error)

// toolResult is the part of a CallToolResult that the hosts look at.
type toolResult struct {
	Content    []json.RawMessage `json:"content"`
	Structured json.RawMessage   `json:"structuredContent"`
}

// A block is one content block.
type block struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Resource *struct {
		Text *string `json:"text"`
		Blob *string `json:"blob"`
	} `json:"resource"`
}

// kind is what a host makes of a block: text (with its text), media, or
// neither.
func (b block) kind() (text string, isText, isMedia bool) {
	switch b.Type {
	case "text":
		return b.Text, true, false
	case "image", "audio":
		return "", false, true
	case "resource":
		if b.Resource != nil && b.Resource.Text != nil {
			return *b.Resource.Text, true, false
		}
		if b.Resource != nil && b.Resource.Blob != nil {
			return "", false, true
		}
	}
	return "", false, false
}

// parsed is a result taken apart: its content blocks, raw and decoded,
// and its structured content as a host would stringify it ("" if absent).
type parsed struct {
	raw        []json.RawMessage
	blocks     []block
	structured string
	hasStruct  bool
}

func parse(result []byte) (parsed, error) {
	var r toolResult
	if err := json.Unmarshal(result, &r); err != nil {
		return parsed{}, fmt.Errorf("a tool result: %w", err)
	}
	p := parsed{raw: r.Content, blocks: make([]block, len(r.Content))}
	for i, raw := range r.Content {
		if err := json.Unmarshal(raw, &p.blocks[i]); err != nil {
			return parsed{}, fmt.Errorf("content block %d: %w", i, err)
		}
	}
	// Present means present in the JSON, null included: Claude Code tests
	// `"structuredContent" in result && result.structuredContent !== undefined`.
	if len(r.Structured) > 0 {
		s, err := compactJS(r.Structured)
		if err != nil {
			return parsed{}, fmt.Errorf("structuredContent: %w", err)
		}
		p.structured, p.hasStruct = string(s), true
	}
	return p, nil
}

// contentArray is the JSON array of the blocks, [] if none.
func contentArray(blocks []json.RawMessage) []byte {
	b := []byte{'['}
	for i, raw := range blocks {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, raw...)
	}
	return append(b, ']')
}

// texts returns the texts of p's text blocks (and text resources), and
// how many media blocks it has.
func (p parsed) texts() (texts []string, media int) {
	for _, b := range p.blocks {
		t, isText, isMedia := b.kind()
		switch {
		case isText:
			texts = append(texts, t)
		case isMedia:
			media++
		}
	}
	return texts, media
}

// Claude renders as Claude Code 2.1.83: only structuredContent, as
// compact JSON (JSON.stringify), whenever it is present, every content
// block dropped; otherwise each text block as a text block and each image
// as an image. Audio and blobs are counted as media too (not measured).
func Claude(result []byte) (View, error) {
	p, err := parse(result)
	if err != nil {
		return View{}, err
	}
	if p.hasStruct {
		return View{Parts: []string{p.structured}}, nil
	}
	texts, media := p.texts()
	return View{Parts: texts, Media: media}, nil
}

// Codex renders as codex-acp 0.16.0: structuredContent as JSON when
// present, else the whole content array JSON-encoded, as one text. An
// image without structuredContent is taken to go as its JSON text too (the
// reference only saw codex drop acpfs's image, which came with
// structuredContent).
func Codex(result []byte) (View, error) {
	p, err := parse(result)
	if err != nil {
		return View{}, err
	}
	if p.hasStruct {
		return View{Parts: []string{p.structured}}, nil
	}
	content, err := compactJS(contentArray(p.raw))
	if err != nil {
		return View{}, err
	}
	return View{Parts: []string{string(content)}}, nil
}

// Copilot renders as Copilot CLI 1.0.102: the text, then "\n\n\n" and the
// JSON of structuredContent when present. Several text blocks are taken to
// follow one another with nothing between (not measured). Its own-key
// provider gives the model no MCP image: media are dropped.
func Copilot(result []byte) (View, error) {
	p, err := parse(result)
	if err != nil {
		return View{}, err
	}
	texts, _ := p.texts()
	if p.hasStruct {
		texts = append(texts, "\n\n\n"+p.structured)
	}
	return View{Parts: texts}, nil
}

// Qwen renders as Qwen Code 0.24.4: one text block, the JSON of
// structuredContent, "\n", then the text. Without structuredContent the
// JSON part is empty and the "\n" stays: that is the one byte by which a
// 134-byte plain text arrives as 135 (the reference's table; the
// reference does not say where the byte goes, so its place is a guess).
// Several text blocks are taken to be joined by "\n" (not measured).
// Images go as image_url (media).
func Qwen(result []byte) (View, error) {
	p, err := parse(result)
	if err != nil {
		return View{}, err
	}
	texts, media := p.texts()
	return View{Parts: []string{p.structured + "\n" + strings.Join(texts, "\n")}, Media: media}, nil
}

// Gemini wrappers: the tags come from the reference; the three newlines
// come from its figures (a 134-byte text arrives as 176 bytes: the tags
// are 39 bytes), their places are a guess.
const (
	geminiOpen  = "<untrusted_context>\n"
	geminiClose = "\n</untrusted_context>\n"
)

// Gemini renders as gemini-cli 0.61.0: only the content blocks, each text
// wrapped in <untrusted_context>…</untrusted_context>; images, audio and
// resource blobs become inlineData (media). Text resources are taken as
// text (not measured).
func Gemini(result []byte) (View, error) {
	p, err := parse(result)
	if err != nil {
		return View{}, err
	}
	texts, media := p.texts()
	for i, t := range texts {
		texts[i] = geminiOpen + t + geminiClose
	}
	return View{Parts: texts, Media: media}, nil
}

// OpenCode renders as opencode 1.18.33: only the text content. A 134-byte
// text arrives as 135 bytes: taken as a newline added at the end, and
// several text blocks as joined by "\n" (neither measured beyond that one
// figure). Images go as image_url (media).
func OpenCode(result []byte) (View, error) {
	p, err := parse(result)
	if err != nil {
		return View{}, err
	}
	texts, media := p.texts()
	return View{Parts: []string{strings.Join(texts, "\n") + "\n"}, Media: media}, nil
}

// compactJS re-encodes the JSON value raw as JSON.stringify (or
// serde_json) would after parsing it: compact, keys in their order, and
// strings escaped only where JSON requires, so "<" stays "<" where Go's
// encoder (and so the server's wire) writes \u003c.
func compactJS(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out []byte
	if err := jsValue(dec, &out); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, fmt.Errorf("JSON value followed by more")
	}
	return out, nil
}

func jsValue(dec *json.Decoder, out *[]byte) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch v := tok.(type) {
	case json.Delim:
		open, close := byte(v), byte(']')
		if v == '{' {
			close = '}'
		}
		*out = append(*out, open)
		for i := 0; dec.More(); i++ {
			if i > 0 {
				*out = append(*out, ',')
			}
			if open == '{' {
				key, err := dec.Token()
				if err != nil {
					return err
				}
				*out = appendJSString(*out, key.(string))
				*out = append(*out, ':')
			}
			if err := jsValue(dec, out); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
		*out = append(*out, close)
	case string:
		*out = appendJSString(*out, v)
	case json.Number:
		*out = append(*out, v...)
	case bool:
		*out = strconv.AppendBool(*out, v)
	case nil:
		*out = append(*out, "null"...)
	}
	return nil
}

// appendJSString appends s as JSON.stringify writes a string: ", \ and the
// control characters escaped (\b \f \n \r \t short, the rest as \u00xx),
// everything else as is.
func appendJSString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			b = utf8.AppendRune(b, r) // invalid UTF-8 becomes U+FFFD, as on decoding
			i += n
			continue
		}
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			if c < 0x20 {
				b = append(b, fmt.Sprintf(`\u%04x`, c)...)
			} else {
				b = append(b, c)
			}
		}
		i++
	}
	return append(b, '"')
}
