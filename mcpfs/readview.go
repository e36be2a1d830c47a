package mcpfs

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
)

// A view is what read_text_file shows of a file: a run of its lines, as a
// model is given them, and where they stand in the file.
type view struct {
	text  string // the lines, each with its line ending as stored
	from  int    // the 1-based line the text starts at
	lines int    // how many lines text has
	total int    // how many lines the file has; -1 if not known
	more  bool   // lines follow that text leaves out
	cut   []int  // the lines shortened to fit (paged views only)
}

// next is the line to go on at.
func (v view) next() int { return v.from + v.lines }

// sliceLines returns the view of lines [line, line+limit) of whole (to its
// end when limit <= 0), as fsruntime reads a range: a line at or past the
// end of a non-empty file is an error.
func sliceLines(whole string, line, limit int) (view, error) {
	line = max(line, 1)
	total := countLines(whole)
	v := view{from: line, total: total}
	if line > total {
		if line == 1 { // an empty file
			return v, nil
		}
		return view{}, &fsruntime.PastEndError{Line: line, Lines: total}
	}
	start := lineOffset(whole, 0, line-1)
	end := len(whole)
	if limit > 0 && line-1+limit < total {
		end = lineOffset(whole, start, limit)
		v.more = true
	}
	v.text = whole[start:end]
	v.lines = countLines(v.text)
	return v, nil
}

// lineOffset returns the offset in s of the line n lines after the one
// that starts at from.
func lineOffset(s string, from, n int) int {
	for ; n > 0; n-- {
		i := strings.IndexByte(s[from:], '\n')
		if i < 0 {
			return len(s)
		}
		from += i + 1
	}
	return from
}

// paged cuts v to a page of at most size bytes and maxPageLines lines, as
// the model will be given them (numbered, if numbers), and cuts a line
// longer than maxPageLine (or the page) with a marker. A page holds at
// least one line.
func (v view) paged(size int, numbers bool) view {
	long := min(maxPageLine, size)
	var b strings.Builder
	rest, n, used := v.text, 0, 0
	for rest != "" {
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line = rest[:i+1]
		}
		shown, cut := cutLine(line, long)
		width := len(shown)
		if numbers {
			width += numberWidth(v.from + n)
		}
		if n == maxPageLines || (n > 0 && used+width > size) {
			break
		}
		if cut {
			v.cut = append(v.cut, v.from+n)
		}
		if numbers {
			writeNumber(&b, v.from+n)
		}
		b.WriteString(shown)
		rest, used, n = rest[len(line):], used+width, n+1
	}
	if rest != "" {
		v.more = true
	}
	v.text, v.lines = b.String(), n
	return v
}

// cutLine shortens a line longer than max bytes to about max, at a rune
// boundary, with a marker in place of the rest; its line ending stays.
func cutLine(line string, max int) (string, bool) {
	body := strings.TrimRight(line, "\r\n")
	if len(body) <= max {
		return line, false
	}
	end := max
	for end > 0 && !utf8.RuneStart(body[end]) {
		end--
	}
	return body[:end] + fmt.Sprintf("… [%d more bytes]", len(body)-end) + line[len(body):], true
}

// numberArrow is what follows a line's number, as in Claude Code's Read.
const numberArrow = "→"

// numberWidth is the length of the prefix writeNumber writes for line n.
func numberWidth(n int) int { return max(6, len(strconv.Itoa(n))) + len(numberArrow) }

// writeNumber writes the prefix of line n: the number right-aligned in six
// columns, then an arrow.
func writeNumber(b *strings.Builder, n int) {
	s := strconv.Itoa(n)
	for i := len(s); i < 6; i++ {
		b.WriteByte(' ')
	}
	b.WriteString(s)
	b.WriteString(numberArrow)
}

// numbered returns v with each of its lines numbered.
func (v view) numbered() view {
	var b strings.Builder
	b.Grow(len(v.text) + v.lines*(6+len(numberArrow)))
	rest := v.text
	for n := v.from; rest != ""; n++ {
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line = rest[:i+1]
		}
		writeNumber(&b, n)
		b.WriteString(line)
		rest = rest[len(line):]
	}
	v.text = b.String()
	return v
}

// status is the line that follows a view's text when there is something
// to say: where the text stands in the file and how to go on, the lines
// cut short, and note, if any. "" when there is nothing to say.
func (v view) status(note string) string {
	var parts []string
	last := v.from + v.lines - 1
	switch {
	case v.total == 0:
		parts = append(parts, "empty file")
	case v.more || v.from > 1:
		where := fmt.Sprintf("lines %d–%d", v.from, last)
		if v.lines == 0 {
			where = fmt.Sprintf("no lines from line %d", v.from)
		}
		if v.total > 0 {
			where += " of " + strconv.Itoa(v.total)
		}
		if v.more {
			where += fmt.Sprintf("; continue with line=%d", v.next())
		}
		parts = append(parts, where)
	}
	if len(v.cut) > 0 {
		nums := make([]string, len(v.cut))
		for i, n := range v.cut {
			nums[i] = strconv.Itoa(n)
		}
		what := "line " + nums[0] + " is"
		if len(nums) > 1 {
			what = "lines " + strings.Join(nums, ", ") + " are"
		}
		parts = append(parts, fmt.Sprintf("%s cut short (…); read one whole with line=%s limit=1", what, nums[0]))
	}
	if note != "" {
		parts = append(parts, note)
	}
	if len(parts) == 0 {
		return ""
	}
	return "[" + strings.Join(parts, "; ") + "]"
}

// stripNumbers returns text without the line-number prefixes that a
// numbered read puts before each line, and whether every line had one. A
// model may copy numbered lines into an edit.
func stripNumbers(text string) (string, bool) {
	if text == "" {
		return text, false
	}
	var b strings.Builder
	rest := text
	for rest != "" {
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line = rest[:i+1]
		}
		rest = rest[len(line):]
		digits := strings.TrimLeft(line, " \t")
		n := 0
		for n < len(digits) && digits[n] >= '0' && digits[n] <= '9' {
			n++
		}
		if n == 0 {
			return text, false
		}
		after, ok := strings.CutPrefix(digits[n:], numberArrow)
		if !ok {
			if after, ok = strings.CutPrefix(digits[n:], "\t"); !ok {
				return text, false
			}
		}
		b.WriteString(after)
	}
	return b.String(), true
}
