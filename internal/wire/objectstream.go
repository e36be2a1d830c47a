package wire

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sourcegraph/jsonrpc2"
)

// aliasPrefix starts the string that stands in for an id jsonrpc2 cannot
// represent. The alias is aliasPrefix followed by the raw JSON of the
// original id (see aliasFor), so it restores byte for byte without a table.
const aliasPrefix = "wire-alias:"

// An ObjectStream is a jsonrpc2.ObjectStream for newline-delimited JSON-RPC 2.0,
// to be used with jsonrpc2.NewConn instead of jsonrpc2.NewPlainObjectStream.
// It differs from that stream in three ways.
//
// A malformed line does not close the Conn: ObjectStream reads with a Reader,
// which logs and skips it. A message that is well formed but that
// jsonrpc2's decoder still rejects (for example an error object whose code
// is not an integer) is logged and skipped too; if it was a request, the
// ObjectStream answers it with CodeInvalidRequest itself so that the peer does
// not wait forever.
//
// A line longer than the Reader's MaxLineSize is discarded without being
// held (see [OverlongError]). If it was a request, the ObjectStream answers it
// with CodeInvalidRequest and a message that names the limit; if it was a
// response, the ObjectStream hands jsonrpc2 an error response with
// CodeInternalError for that id instead, so the call waiting for it fails
// at once rather than never.
//
// Ids that jsonrpc2.ID cannot carry work. jsonrpc2 decodes a request id
// only as a string or an int64 and a response id as a string or a uint64;
// it rejects negative, fractional and exponent numbers (closing the Conn),
// and takes a null id for a notification (request) or for 0 (response). On
// read, the ObjectStream replaces such an id, and every string id that could be
// taken for an alias or might not survive decoding and re-encoding (one
// with escapes or invalid UTF-8), with the alias string
// "wire-alias:<raw id>". On write, a response whose id is an alias gets
// the original raw id back. A response read with such an id is aliased
// too, so it matches no pending call and jsonrpc2 logs and drops it (a
// null id, as peers use to report a parse error, no longer resolves the
// call with id 0).
//
// The alias carries the original id, so there is no table to grow or to
// clean up. A string id that a peer sends starting with "wire-alias:" is
// itself aliased, so aliases never collide with real ids.
//
// WriteObject is safe for concurrent use; ReadObject must be called from
// one goroutine at a time, as jsonrpc2.Conn does.
type ObjectStream struct {
	rwc io.ReadWriteCloser
	r   *Reader
	w   *Writer
}

var _ jsonrpc2.ObjectStream = (*ObjectStream)(nil)

// NewObjectStream returns an ObjectStream that reads and writes rwc. opts configures
// its Reader; the ObjectStream logs through the same logger and label.
func NewObjectStream(rwc io.ReadWriteCloser, opts ReaderOptions) *ObjectStream {
	r := NewReader(rwc, opts)
	return &ObjectStream{rwc: rwc, r: r, w: NewWriter(rwc)}
}

// ReadObject implements jsonrpc2.ObjectStream. It decodes the next message
// that jsonrpc2 can decode into v, which must be a non-nil pointer.
func (s *ObjectStream) ReadObject(v any) error {
	for {
		m, err := s.r.Next()
		if over, ok := errors.AsType[*OverlongError](err); ok {
			if m, err = s.overlong(over); err != nil {
				return err
			}
			if m.Raw == nil {
				continue
			}
		} else if err != nil {
			return err
		}
		data := m.Raw
		if m.ID != nil && !representable(m.ID, m.Kind()) {
			alias, err := json.Marshal(aliasFor(m.ID))
			if err == nil {
				data, err = m.WithID(alias)
			}
			if err != nil { // cannot happen: m was parsed
				return fmt.Errorf("wire: aliasing id %s: %w", m.ID, err)
			}
		}
		err = json.Unmarshal(data, v)
		if err == nil {
			return nil
		}
		if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && !rv.IsNil() {
			rv.Elem().SetZero() // a failed decode may have set part of v
		}
		s.r.warn("skipping JSON-RPC message jsonrpc2 cannot decode", err.Error(), m.Raw, len(m.Raw))
		if m.Kind() == KindRequest {
			reply := ErrorResponse(m.ID, CodeInvalidRequest, "Invalid request", err.Error())
			if err := s.w.Write(reply); err != nil {
				return err
			}
		}
	}
}

// overlong answers an overlong request with an error, and turns an
// overlong response into an error response for jsonrpc2 to deliver.
func (s *ObjectStream) overlong(over *OverlongError) (Message, error) {
	switch over.Kind {
	case KindRequest:
		return Message{}, s.w.Write(ErrorResponse(over.ID, CodeInvalidRequest, over.Error(), nil))
	case KindResponse:
		m, err := Parse(ErrorResponse(over.ID, CodeInternalError, over.Error(), nil))
		if err != nil { // cannot happen: ErrorResponse gives a valid line
			return Message{}, fmt.Errorf("wire: %w", err)
		}
		return m, nil
	}
	return Message{}, nil
}

// WriteObject implements jsonrpc2.ObjectStream: it writes obj as one
// compact JSON line, restoring an aliased response id.
func (s *ObjectStream) WriteObject(obj any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	// jsonrpc2 marshals a Response with "id" first, so an aliased id is
	// always at the start; nothing else needs a look.
	if bytes.HasPrefix(data, []byte(`{"id":"`+aliasPrefix)) {
		if data, err = restoreID(data); err != nil {
			return err
		}
	}
	return s.w.Write(data)
}

// Close implements jsonrpc2.ObjectStream by closing the underlying stream.
func (s *ObjectStream) Close() error {
	return s.rwc.Close()
}

// restoreID puts back the original id of a response whose id is an alias.
func restoreID(data []byte) ([]byte, error) {
	m, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("wire: restoring id: %w", err)
	}
	if m.Kind() != KindResponse || len(m.ID) == 0 || m.ID[0] != '"' {
		return data, nil
	}
	var id string
	if err := json.Unmarshal(m.ID, &id); err != nil {
		return nil, fmt.Errorf("wire: restoring id: %w", err)
	}
	raw, ok := originalID(id)
	if !ok {
		return data, nil
	}
	return m.WithID(raw)
}

// aliasFor returns the alias of a raw id. A raw id that is not valid UTF-8
// (it can only be a string with invalid bytes) is base64-encoded after a
// '~', which starts no JSON value: encoding/json would replace the invalid
// bytes when jsonrpc2 re-encodes the alias.
func aliasFor(id []byte) string {
	if utf8.Valid(id) {
		return aliasPrefix + string(id)
	}
	return aliasPrefix + "~" + base64.RawStdEncoding.EncodeToString(id)
}

// originalID returns the raw id an alias stands for.
func originalID(alias string) (json.RawMessage, bool) {
	rest, ok := strings.CutPrefix(alias, aliasPrefix)
	if !ok {
		return nil, false
	}
	if enc, ok := strings.CutPrefix(rest, "~"); ok {
		raw, err := base64.RawStdEncoding.DecodeString(enc)
		return raw, err == nil
	}
	return json.RawMessage(rest), true
}

// representable reports whether jsonrpc2 decodes the id of a message of
// kind k into an ID that identifies it correctly and, for a request,
// marshals back to the same JSON.
func representable(id []byte, k Kind) bool {
	if id[0] == '"' {
		if k == KindResponse {
			return true // matched by decoded value against ids we sent
		}
		s := id[1 : len(id)-1]
		return bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) && !bytes.HasPrefix(s, []byte(aliasPrefix))
	}
	// A number in canonical form: no sign, fraction or exponent, no
	// leading zero, and within the range jsonrpc2 decodes.
	if id[0] < '0' || id[0] > '9' || id[0] == '0' && len(id) > 1 {
		return false
	}
	n, err := strconv.ParseUint(string(id), 10, 64)
	if err != nil {
		return false
	}
	return k == KindResponse || n <= math.MaxInt64
}
