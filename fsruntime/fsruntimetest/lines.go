package fsruntimetest

import (
	"strings"
	"unicode/utf8"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
)

// SliceLines returns the lines of content that a read with line and limit
// returns, as every [fsruntime.FS] must; it is the reference for the
// backends' streaming readers. line is 1-based and line <= 0 means 1; limit
// is a number of lines and limit <= 0 means to the end. A file's lines are
// its "\n"-terminated lines, each with its terminator ("\n" or "\r\n") as
// stored, plus any trailing text after the last "\n"; "" has no lines. A
// start line past the last line is a *[fsruntime.PastEndError] with the
// line count, except that line 1 of empty content is "".
func SliceLines(content string, line, limit int) (string, error) {
	if line < 1 {
		line = 1
	}
	if content == "" {
		if line == 1 {
			return "", nil
		}
		return "", &fsruntime.PastEndError{Line: line, Lines: 0}
	}
	start := 0
	for range line - 1 {
		i := strings.IndexByte(content[start:], '\n')
		if i < 0 || start+i+1 == len(content) {
			return "", &fsruntime.PastEndError{Line: line, Lines: countLines(content)}
		}
		start += i + 1
	}
	if limit <= 0 {
		return content[start:], nil
	}
	end := start
	for n := 0; n < limit && end < len(content); n++ {
		i := strings.IndexByte(content[end:], '\n')
		if i < 0 {
			end = len(content)
			break
		}
		end += i + 1
	}
	return content[start:end], nil
}

// countLines returns the number of lines of s, as SliceLines counts them.
func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// isText reports whether s is text: valid UTF-8 without a NUL byte.
func isText(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}
