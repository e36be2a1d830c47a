package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// envelope is what the client reads of a JSON-RPC message without decoding
// its payload: a 1 MiB result is skipped at memchr speed instead of being
// decoded, so the client spends little of the CPU it shares with the
// server under test.
type envelope struct {
	ID      []byte // the raw id; nil if absent
	Method  string // set for a request or notification
	Error   []byte // the raw error object; nil if absent
	Result  bool   // a result member is present
	IsError bool   // result.isError is true: a failed tool call
}

var errSyntax = errors.New("malformed JSON")

// scanEnvelope reads the envelope of one JSON-RPC message. It checks the
// structure it walks (objects, arrays, strings and their escapes) but does
// not validate numbers and literals beyond their extent, nor decode string
// escapes inside the envelope's member names, which every server spells
// plainly; result.isError it matches as encoding/json does (isErrorKey).
func scanEnvelope(b []byte) (envelope, error) {
	var env envelope
	err := scanObject(b, skipSpace(b, 0), func(key []byte, i int) (int, error) {
		var err error
		switch string(key) {
		case "result":
			env.Result = true
			if i < len(b) && b[i] == '{' {
				return scanObjectEnd(b, i, func(key []byte, j int) (int, error) {
					end, err := skipValue(b, j)
					if err == nil && isErrorKey(key) {
						env.IsError = string(b[j:end]) == "true"
					}
					return end, err
				})
			}
			return skipValue(b, i)
		case "id", "error", "method":
			end, err := skipValue(b, i)
			if err != nil {
				return end, err
			}
			switch string(key) {
			case "id":
				env.ID = b[i:end]
			case "error":
				env.Error = b[i:end]
			case "method":
				if err := json.Unmarshal(b[i:end], &env.Method); err != nil {
					return end, fmt.Errorf("method: %w", err)
				}
			}
			return end, nil
		default:
			i, err = skipValue(b, i)
			return i, err
		}
	})
	if err != nil {
		return envelope{}, err
	}
	return env, nil
}

// isErrorKey reports whether key, a raw member name, names isError as
// encoding/json matches a name to a field: escapes decoded, and case
// folded as bytes.EqualFold folds it.
func isErrorKey(key []byte) bool {
	if bytes.IndexByte(key, '\\') >= 0 {
		var k string
		if json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &k) != nil {
			return false
		}
		key = []byte(k)
	}
	return bytes.EqualFold(key, []byte("isError"))
}

// member is called with each member of an object: its raw name, and the
// offset of its value in the message. It returns the offset just past the
// value.
type member func(key []byte, valueAt int) (int, error)

// scanObject walks the object at b[i:], which must be all of b but for
// white space.
func scanObject(b []byte, i int, f member) error {
	end, err := scanObjectEnd(b, i, f)
	if err != nil {
		return err
	}
	if skipSpace(b, end) != len(b) {
		return fmt.Errorf("%w: data after the object at offset %d", errSyntax, end)
	}
	return nil
}

// scanObjectEnd walks the object at b[i:] and returns the offset past it.
func scanObjectEnd(b []byte, i int, f member) (int, error) {
	if i >= len(b) || b[i] != '{' {
		return i, fmt.Errorf("%w: want an object at offset %d", errSyntax, i)
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return i, fmt.Errorf("%w: want a member name at offset %d", errSyntax, i)
		}
		end, err := skipString(b, i)
		if err != nil {
			return end, err
		}
		key := b[i+1 : end-1]
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return i, fmt.Errorf("%w: want ':' at offset %d", errSyntax, i)
		}
		i = skipSpace(b, i+1)
		if i, err = f(key, i); err != nil {
			return i, err
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return i, fmt.Errorf("%w: unterminated object", errSyntax)
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return i + 1, nil
		default:
			return i, fmt.Errorf("%w: want ',' or '}' at offset %d", errSyntax, i)
		}
	}
}

// skipValue returns the offset just past the JSON value at b[i:].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return i, fmt.Errorf("%w: want a value at the end", errSyntax)
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		return skipNested(b, i)
	}
	start := i
scan:
	for ; i < len(b); i++ {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			break scan
		case '{', '[', '"', ':':
			return i, fmt.Errorf("%w: unexpected %q at offset %d", errSyntax, b[i], i)
		}
	}
	if i == start {
		return i, fmt.Errorf("%w: want a value at offset %d", errSyntax, i)
	}
	return i, nil
}

// skipNested returns the offset just past the object or array at b[i:],
// matching brackets and skipping strings. Only the brackets are checked.
func skipNested(b []byte, i int) (int, error) {
	var stack []byte
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			end, err := skipString(b, i)
			if err != nil {
				return end, err
			}
			i = end
			continue
		case '{', '[':
			stack = append(stack, c)
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1] != c-2 { // '{'+2 == '}', '['+2 == ']'
				return i, fmt.Errorf("%w: unbalanced %q at offset %d", errSyntax, c, i)
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return i + 1, nil
			}
		}
		i++
	}
	return i, fmt.Errorf("%w: unterminated object or array", errSyntax)
}

// skipString returns the offset just past the string at b[i:], which
// starts with its opening quote. A quote preceded by an odd number of
// backslashes is escaped.
func skipString(b []byte, i int) (int, error) {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b), fmt.Errorf("%w: unterminated string at offset %d", errSyntax, i)
		}
		q := j + k
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1, nil
		}
		j = q + 1
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}
