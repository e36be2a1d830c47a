package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// A Kind says what a Message is.
type Kind uint8

const (
	// KindInvalid is the Kind of the zero Message.
	KindInvalid Kind = iota
	// KindRequest is a message with a method and an id (which may be
	// null); it expects a response.
	KindRequest
	// KindNotification is a message with a method and no id.
	KindNotification
	// KindResponse is a message with an id and exactly one of result and
	// error.
	KindResponse
)

// String returns "request", "notification", "response" or "invalid".
func (k Kind) String() string {
	switch k {
	case KindRequest:
		return "request"
	case KindNotification:
		return "notification"
	case KindResponse:
		return "response"
	}
	return "invalid"
}

// A Message is one JSON-RPC 2.0 message: the envelope members parsed out
// of a line, and the line itself. ID, Params, Result and Error are the
// members' JSON values exactly as they appear in Raw (sub-slices of it,
// capped so that appending to one cannot overwrite Raw), or nil when the
// member is absent: "id":null gives ID == json.RawMessage("null"). Nothing
// inside params, result or error is decoded; other members ("jsonrpc",
// "_meta", extensions) are only in Raw, which is what a proxy forwards.
type Message struct {
	// Raw is the line without its terminator and surrounding whitespace:
	// exactly one JSON object.
	Raw []byte
	// ID is the raw "id" value: a string, a number or null. It is nil for
	// a notification.
	ID json.RawMessage
	// Method is the decoded "method" string of a request or
	// notification, "" for a response.
	Method string
	// Params is the raw "params" value, nil when absent.
	Params json.RawMessage
	// Result is the raw "result" value of a successful response ("null"
	// included), nil otherwise.
	Result json.RawMessage
	// Error is the raw "error" object of a failed response, nil otherwise.
	// DecodeError decodes it.
	Error json.RawMessage

	// LongStrings are the strings of LongStringMin bytes or more in Raw,
	// in order, as the scan of the line found them; nil if it has none.
	LongStrings []LongString

	// idAt is where ID starts in Raw, -1 if Raw has no id, 0 if the
	// Message was not made by this package's parser.
	idAt int
}

// Kind reports whether m is a request, a notification or a response. It
// relies on m being well formed, as every Message from Reader and Parse is.
func (m Message) Kind() Kind {
	switch {
	case m.Raw == nil:
		return KindInvalid
	case m.Result != nil || m.Error != nil:
		return KindResponse
	case m.ID != nil:
		return KindRequest
	default:
		return KindNotification
	}
}

// CheckEscapes checks the escapes of m's long strings that the reader
// left unchecked (ReaderOptions.DeferEscapes), and reports the first that
// is not well formed.
func (m Message) CheckEscapes() error {
	for _, ls := range m.LongStrings {
		if err := ls.Check(m.Raw); err != nil {
			return err
		}
	}
	return nil
}

// DecodeError decodes the error object of a failed response. It fails if
// m has no error or the error is not a JSON-RPC error object (an integer
// code and a string message).
func (m Message) DecodeError() (*ErrorObject, error) {
	if m.Error == nil {
		return nil, errors.New("wire: message has no error member")
	}
	var e struct {
		Code    *int64          `json:"code"`
		Message *string         `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(m.Error, &e); err != nil {
		return nil, fmt.Errorf("wire: decoding error object: %w", err)
	}
	if e.Code == nil || e.Message == nil {
		return nil, errors.New("wire: error object lacks code or message")
	}
	return &ErrorObject{Code: *e.Code, Message: *e.Message, Data: e.Data}, nil
}

// WithID returns a copy of m.Raw with its top-level "id" set to id, as
// SetID(m.Raw, id) does. For a Message from Reader.Next or Parse (whose
// Raw is unchanged) it uses the id's recorded offset, so the cost is one
// copy, whatever the size of the message; otherwise it calls SetID.
func (m Message) WithID(id json.RawMessage) ([]byte, error) {
	switch {
	case m.idAt > 0 && m.idAt+len(m.ID) <= len(m.Raw) && len(m.ID) > 0 && &m.Raw[m.idAt] == &m.ID[0]:
		v, err := scanScalarID(id)
		if err != nil {
			return nil, err
		}
		out := make([]byte, 0, len(m.Raw)-len(m.ID)+len(v))
		out = append(out, m.Raw[:m.idAt]...)
		out = append(out, v...)
		return append(out, m.Raw[m.idAt+len(m.ID):]...), nil
	case m.idAt < 0 && m.ID == nil && len(m.Raw) > 1 && m.Raw[0] == '{':
		// Raw is a trimmed object with at least a method or a result.
		v, err := scanScalarID(id)
		if err != nil {
			return nil, err
		}
		out := make([]byte, 0, len(m.Raw)+len(`"id":,`)+len(v))
		out = append(out, '{')
		out = append(out, `"id":`...)
		out = append(out, v...)
		out = append(out, ',')
		return append(out, m.Raw[1:]...), nil
	}
	return SetID(m.Raw, id)
}

// ErrMalformed is wrapped by the errors Parse returns.
var ErrMalformed = errors.New("malformed JSON-RPC message")

// Parse parses one line (without its newline) as a JSON-RPC 2.0 message,
// which aliases line; surrounding whitespace is trimmed. It returns an
// error wrapping ErrMalformed for anything but exactly one JSON object (a
// batch included), a newline inside, a "method" not a string, an "id" not
// a string, number or null, an "error" not an object, "method" with
// "result" or "error", a response (no "method") without an "id" or without
// exactly one of "result" and "error", or an envelope member twice.
// Otherwise it is lenient: unknown members, any "params" and "jsonrpc".
func Parse(line []byte) (Message, error) {
	line = trimSpace(line)
	if bytes.IndexByte(line, '\n') >= 0 {
		return Message{}, fmt.Errorf("wire: %w: line contains a newline", ErrMalformed)
	}
	env, reason := scanObject(line, true, false)
	if reason == "" {
		reason = env.check(line)
	}
	if reason != "" {
		return Message{}, fmt.Errorf("wire: %w: %s", ErrMalformed, reason)
	}
	m := env.message(line, nil)
	return m, nil
}

// check applies the JSON-RPC rules to a scanned object and returns why it is
// not a message, or "".
func (env *envelope) check(b []byte) string {
	first := func(m member) byte { return b[env.mem[m].start] }
	method := env.mem[memMethod].present()
	id := env.mem[memID].present()
	result := env.mem[memResult].present()
	errm := env.mem[memError].present()
	if method && first(memMethod) != '"' {
		return `"method" is not a string`
	}
	if id {
		switch c := first(memID); {
		case c == '"', c == '-', c == 'n', '0' <= c && c <= '9':
		default:
			return `"id" is not a string, number or null`
		}
	}
	if errm && first(memError) != '{' {
		return `"error" is not an object`
	}
	switch {
	case method && (result || errm):
		return `both "method" and "result" or "error"`
	case method:
		return ""
	case !result && !errm:
		return `no "method", "result" or "error"`
	case result && errm:
		return `response with both "result" and "error"`
	case !id:
		return `response without "id"`
	}
	return ""
}

// versionOK reports whether the message says "jsonrpc":"2.0".
func (env *envelope) versionOK(b []byte) bool {
	s := env.mem[memJSONRPC]
	return s.present() && string(b[s.start:s.end]) == `"2.0"`
}

// message builds the Message for a checked envelope over raw. methods, if
// not nil, interns method names.
func (env *envelope) message(raw []byte, methods map[string]string) Message {
	m := Message{Raw: raw, LongStrings: env.long}
	sub := func(mm member) json.RawMessage {
		s := env.mem[mm]
		if !s.present() {
			return nil
		}
		return raw[s.start:s.end:s.end]
	}
	m.ID = sub(memID)
	m.idAt = -1
	if m.ID != nil {
		m.idAt = env.mem[memID].start
	}
	m.Params = sub(memParams)
	m.Result = sub(memResult)
	m.Error = sub(memError)
	if s := env.mem[memMethod]; s.present() {
		name := raw[s.start+1 : s.end-1]
		switch {
		case env.methodEscaped || !utf8.Valid(name):
			// Decode as encoding/json does, replacing invalid UTF-8.
			m.Method = decodeString(raw[s.start:s.end])
		case methods != nil:
			if v, ok := methods[string(name)]; ok {
				m.Method = v
			} else {
				m.Method = string(name)
				if len(methods) < maxInterned && len(name) <= 64 {
					methods[m.Method] = m.Method
				}
			}
		default:
			m.Method = string(name)
		}
	}
	return m
}

// decodeString decodes a JSON string the scanner has checked.
func decodeString(b []byte) string {
	var v string
	_ = json.Unmarshal(b, &v)
	return v
}

// maxInterned bounds the method names a Reader remembers.
const maxInterned = 256

// trimSpace trims JSON whitespace from both ends of b.
func trimSpace(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && isJSONSpace(b[i]) {
		i++
	}
	for j > i && isJSONSpace(b[j-1]) {
		j--
	}
	return b[i:j]
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
