package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// An OverlongError reports a line longer than MaxLineSize, which a Reader
// discarded without holding it. It is not the end of the stream: the
// Reader goes on with the next line.
//
// While the line streamed past, a scan that keeps only a few hundred bytes
// of state looked for its top-level "id" and "method" (wherever they are:
// some peers write "id" last, after a huge "params"), so that a request can
// still be answered with an error and a call whose response was lost can
// fail at once. The scan checks the structure of the object but does not
// validate it as Parse does: Kind, ID and Method are what the line claims
// to be, and are left empty when it is not one JSON object or when its
// envelope is ambiguous (a repeated "id", say).
type OverlongError struct {
	// Peer is the Reader's label.
	Peer string
	// Kind is KindRequest (ID and Method set), KindNotification (Method
	// set), KindResponse (ID set), or KindInvalid when the scan could not
	// tell.
	Kind Kind
	// ID is the top-level "id", a JSON string, number or null, exactly as
	// in the line; nil if there is none, or it is longer than 1 KiB.
	ID json.RawMessage
	// Method is the decoded top-level "method", "" if there is none.
	Method string
	// Tool is the "name" in the "params" of a "tools/call" request: the
	// MCP tool called; "" if there is none, or the scan could not tell.
	Tool string
	// Inner is, for an "mcp/message" request (MCP over ACP), the MCP
	// request its params carry; nil otherwise, or if the scan could not
	// tell its server and request ids.
	Inner *InnerRequest
	// Len is the length of the line in bytes, not counting its "\n".
	Len int64
	// Max is the Reader's MaxLineSize.
	Max int
}

// Error says what the line was, as far as the scan could tell, and names
// the limit, in words fit to send back to the peer, e.g.
// `request id 7 ("fs/write_text_file") of 200 MiB exceeds the 64 MiB limit
// on one message`.
func (e *OverlongError) Error() string {
	var what string
	switch e.Kind {
	case KindRequest:
		what = fmt.Sprintf("request id %s (%q)", shortID(e.ID), e.Method)
	case KindNotification:
		what = fmt.Sprintf("notification %q", e.Method)
	case KindResponse:
		what = "response to request id " + shortID(e.ID)
	default:
		what = "message"
	}
	return fmt.Sprintf("%s of %s exceeds the %s limit on one message", what, formatSize(e.Len), formatSize(int64(e.Max)))
}

// shortID returns id for a message, cut if long.
func shortID(id json.RawMessage) string {
	if len(id) > 64 {
		return string(id[:60]) + "…"
	}
	return string(id)
}

// formatSize formats a size in bytes for people, as the fsruntime package's
// errors do: "512 bytes", "1.5 KiB", "64.0 MiB".
func formatSize(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " bytes"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// What the overlong scan keeps of a line: a member name or a value longer
// than this is not one it reports.
const (
	maxKeyCapture   = 64
	maxValueCapture = 1 << 10
)

// scanState is where envScan is in the top-level object.
type scanState uint8

const (
	stStart  scanState = iota // before the object
	stKey                     // expecting a member name, or '}'
	stKeyStr                  // in a member name
	stColon                   // expecting ':'
	stValue                   // expecting a member's value
	stValStr                  // in a string value at depth 1
	stScalar                  // in a number or literal at depth 1
	stNested                  // in an object or array value, depth >= 2
	stComma                   // expecting ',' or '}'
	stDone                    // after the object: only whitespace may follow
	stBroken                  // not one JSON object; the scan gave up
)

// envScan finds the top-level envelope members of a JSON object fed to it
// in pieces, keeping bounded state however long the object is. It tracks
// nesting and strings only; what is inside a nested value or a string it
// skips with bytes.IndexByte, so the cost is about one memchr per string.
type envScan struct {
	st    scanState
	depth int  // nesting depth in stNested
	inStr bool // in a string, in stNested
	esc   bool // in a string, the last byte read was an unescaped backslash

	mem     member // the member whose value is being read, or -1
	key     []byte // the member name, while short enough
	keyOver bool
	val     []byte // the captured value of "id" or "method"
	valOver bool
	valStr  bool // the value is a string (val holds what is between the quotes)

	seen     [numScanned]bool // memName and the others of params too
	dup      bool
	id       []byte // raw, valid scalar; nil if absent or unusable
	idBad    bool   // "id" is present but not a usable scalar
	method   string
	methodOK bool

	// names is set in the scan of a "params" object, which looks for its
	// "name" (memName) instead of the envelope's members, and for those of
	// an mcp/message's params: serverId, requestId, method and, unless
	// inner is set, the "name" in its own "params".
	names  bool
	inner  bool     // the scan of the params of an mcp/message's params
	params *envScan // the scan of the "params" value while it is read
	name   string   // the "name" of the params, or of this object if names
	nameOK bool

	serverID, requestID     string // of an mcp/message's params
	serverIDOK, requestIDOK bool
	innerName               string // the "name" in the params of this object's params
	innerNameOK             bool
	innerReq                *InnerRequest // what the params of an mcp/message say
}

// Members of a "params" object.
const (
	memName      = numMembers     // "name"
	memServerID  = numMembers + 1 // "serverId", of mcp/message
	memRequestID = numMembers + 2 // "requestId", of mcp/message
	numScanned   = numMembers + 3
)

func (s *envScan) reset() {
	key, val := s.key[:0], s.val[:0]
	*s = envScan{key: key, val: val, mem: -1}
}

// feed scans the next piece of the line.
func (s *envScan) feed(p []byte) {
	i := 0
	for i < len(p) {
		c := p[i]
		switch s.st {
		case stBroken:
			return
		case stStart, stDone:
			if isJSONSpace(c) {
				i++
				continue
			}
			if s.st == stStart && c == '{' {
				s.st = stKey
				i++
				continue
			}
			s.st = stBroken
		case stKey:
			switch {
			case isJSONSpace(c):
			case c == '"':
				s.st, s.key, s.keyOver = stKeyStr, s.key[:0], false
			case c == '}':
				s.st = stDone
			default:
				s.st = stBroken
			}
			i++
		case stKeyStr:
			n, end := s.str(p[i:], &s.key, &s.keyOver, maxKeyCapture)
			i += n
			if end {
				s.mem = -1
				switch {
				case s.keyOver:
				case s.names:
					switch string(s.key) {
					case "name":
						s.mem = memName
					case "serverId":
						s.mem = memServerID
					case "requestId":
						s.mem = memRequestID
					case "method":
						s.mem = memMethod
					case "params":
						s.mem = memParams
					}
				default:
					s.mem = lookupMember(s.key, bytes.IndexByte(s.key, '\\') >= 0)
				}
				s.st = stColon
			}
		case stColon:
			switch {
			case isJSONSpace(c):
			case c == ':':
				s.st = stValue
			default:
				s.st = stBroken
			}
			i++
		case stValue:
			s.val, s.valOver, s.valStr = s.val[:0], false, false
			switch {
			case isJSONSpace(c):
			case c == '"':
				s.st, s.valStr = stValStr, true
			case c == '{' || c == '[':
				s.st, s.depth, s.inStr = stNested, 2, false
				if s.mem == memParams && c == '{' && !s.inner {
					s.params = &envScan{names: true, inner: s.names, mem: -1}
					s.params.feed(p[i : i+1])
				}
			case c == '-' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z':
				s.st = stScalar
				s.capture(c)
			default:
				s.st = stBroken
			}
			i++
		case stValStr:
			var n int
			var end bool
			if s.mem == memID || s.mem == memMethod || s.mem == memName || s.mem == memServerID || s.mem == memRequestID {
				n, end = s.str(p[i:], &s.val, &s.valOver, maxValueCapture)
			} else {
				n, end = s.skipStr(p[i:])
			}
			i += n
			if end {
				s.endMember()
			}
		case stScalar:
			if isJSONSpace(c) || c == ',' || c == '}' {
				s.endMember() // c is read again in stComma
				continue
			}
			s.capture(c)
			i++
		case stNested:
			if s.inStr {
				n, end := s.skipStr(p[i:])
				if s.params != nil {
					s.params.feed(p[i : i+n])
				}
				i += n
				s.inStr = !end
				continue
			}
			if s.params != nil {
				s.params.feed(p[i : i+1])
			}
			switch c {
			case '"':
				s.inStr = true
			case '{', '[':
				s.depth++
			case '}', ']':
				s.depth--
			}
			i++
			if s.depth == 1 {
				s.endMember()
			}
		case stComma:
			switch {
			case isJSONSpace(c):
			case c == ',':
				s.st = stKey
			case c == '}':
				s.st = stDone
			default:
				s.st = stBroken
			}
			i++
		}
	}
}

// capture keeps c as part of a scalar value of "id".
func (s *envScan) capture(c byte) {
	if s.mem != memID {
		return
	}
	if len(s.val) < maxValueCapture {
		s.val = append(s.val, c)
	} else {
		s.valOver = true
	}
}

// str reads string bytes into *dst (up to limit, then only notes *over),
// and returns how many bytes of p it read and whether the closing quote was
// among them.
func (s *envScan) str(p []byte, dst *[]byte, over *bool, limit int) (int, bool) {
	if *over {
		return s.skipStr(p)
	}
	for i, c := range p {
		switch {
		case s.esc:
			s.esc = false
		case c == '\\':
			s.esc = true
		case c == '"':
			return i + 1, true
		}
		if len(*dst) == limit {
			*over = true
			n, end := s.skipStr(p[i+1:])
			return i + 1 + n, end
		}
		*dst = append(*dst, c)
	}
	return len(p), false
}

// skipStr skips string bytes up to and including the closing quote, and
// returns how many bytes of p it read and whether the quote was among them.
// A quote is escaped when an odd run of backslashes precedes it; s.esc
// carries a run's parity from one piece to the next.
func (s *envScan) skipStr(p []byte) (int, bool) {
	for i := 0; ; {
		q := bytes.IndexByte(p[i:], '"')
		if q < 0 {
			s.esc = oddRun(p[i:], s.esc)
			return len(p), false
		}
		q += i
		run := q - i - len(bytes.TrimRight(p[i:q], `\`))
		escaped := run%2 == 1
		if run == q-i && s.esc { // the run goes on from before p[i:]
			escaped = !escaped
		}
		s.esc = false
		if !escaped {
			return q + 1, true
		}
		i = q + 1
	}
}

// oddRun reports whether b leaves an escape pending: it ends with an odd
// run of backslashes, counting a pending one from before b (carry) when b
// is all backslashes.
func oddRun(b []byte, carry bool) bool {
	run := len(b) - len(bytes.TrimRight(b, `\`))
	odd := run%2 == 1
	if run == len(b) && carry {
		odd = !odd
	}
	return odd
}

// endMember records the value just read at depth 1, and expects ',' or
// '}'.
func (s *envScan) endMember() {
	s.st = stComma
	m := s.mem
	if m < 0 {
		return
	}
	if s.seen[m] {
		s.dup = true
	}
	s.seen[m] = true
	switch m {
	case memID:
		s.id, s.idBad = nil, true
		if s.valOver {
			return
		}
		raw := s.val
		if s.valStr {
			raw = make([]byte, 0, len(s.val)+2)
			raw = append(append(append(raw, '"'), s.val...), '"')
		} else if !s.scalarValue() {
			return
		}
		if v, err := scanScalarID(raw); err == nil {
			s.id, s.idBad = bytes.Clone(v), false
		}
	case memMethod:
		s.method, s.methodOK = s.stringValue()
	case memName:
		s.name, s.nameOK = s.stringValue()
	case memServerID:
		s.serverID, s.serverIDOK = s.stringValue()
	case memRequestID:
		s.requestID, s.requestIDOK = s.stringValue()
	case memParams:
		p := s.params
		s.params = nil
		if p == nil || p.st != stDone || p.dup {
			return
		}
		if s.names {
			s.innerName, s.innerNameOK = p.name, p.nameOK
			return
		}
		s.name, s.nameOK = p.name, p.nameOK
		s.innerReq = nil
		if p.serverIDOK && p.requestIDOK && p.methodOK {
			s.innerReq = &InnerRequest{ServerID: p.serverID, RequestID: p.requestID, Method: p.method}
			if p.method == "tools/call" && p.innerNameOK {
				s.innerReq.Tool = p.innerName
			}
		}
	}
}

// stringValue returns the string value just read, if it was one and whole.
func (s *envScan) stringValue() (string, bool) {
	if !s.valStr || s.valOver {
		return "", false
	}
	v := s.val
	if bytes.IndexByte(v, '\\') >= 0 || !utf8.Valid(v) {
		return decodeString(append(append([]byte{'"'}, v...), '"')), true
	}
	return string(v), true
}

// tool returns the tool a tools/call request names, from a finished scan.
func (s *envScan) tool() string {
	if kind, _, method := s.result(); kind != KindRequest || method != "tools/call" || !s.nameOK {
		return ""
	}
	return s.name
}

// An InnerRequest is the MCP request an mcp/message request carries.
type InnerRequest struct {
	ServerID  string // serverId
	RequestID string // requestId
	Method    string // method
	// Tool is the "name" in the params of a tools/call; "" if none, or
	// the scan could not tell.
	Tool string
}

// innerRequest returns the MCP request of an mcp/message request, from a
// finished scan; nil for any other line.
func (s *envScan) innerRequest() *InnerRequest {
	if kind, _, method := s.result(); kind != KindRequest || method != "mcp/message" {
		return nil
	}
	return s.innerReq
}

// scalarValue reports whether the value just read was a number or literal
// (and not an object or array, which leave val empty).
func (s *envScan) scalarValue() bool { return len(s.val) > 0 }

// result classifies the scanned object.
func (s *envScan) result() (Kind, json.RawMessage, string) {
	if s.st != stDone || s.dup {
		return KindInvalid, nil, ""
	}
	hasID := s.seen[memID] && !s.idBad
	if s.seen[memID] && s.idBad {
		return KindInvalid, nil, ""
	}
	result, errm := s.seen[memResult], s.seen[memError]
	switch {
	case s.seen[memMethod]:
		if !s.methodOK || result || errm {
			return KindInvalid, nil, ""
		}
		if hasID {
			return KindRequest, s.id, s.method
		}
		return KindNotification, nil, s.method
	case hasID && result != errm:
		return KindResponse, s.id, ""
	}
	return KindInvalid, nil, ""
}
