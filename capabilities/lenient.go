package capabilities

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
)

// A Flag is an ACP boolean capability such as fs.readTextFile. It decodes as
// the schema's x-deserialize-default-on-error asks: JSON true is true, and
// anything else (false, null, "yes", 1, {}, [true], or bytes that are not
// JSON) is false. Its UnmarshalJSON never fails.
type Flag bool

// UnmarshalJSON sets f to whether b is the JSON literal true. It never fails.
func (f *Flag) UnmarshalJSON(b []byte) error {
	*f = Flag(string(bytes.TrimSpace(b)) == "true")
	return nil
}

// A Presence is an ACP capability advertised by sending an object, such as
// sessionCapabilities.list: {} (or an object with _meta) means supported, and
// null, a missing member or any other value means not. Its UnmarshalJSON
// never fails.
type Presence bool

// UnmarshalJSON sets p to whether b is a JSON object. It never fails.
func (p *Presence) UnmarshalJSON(b []byte) error {
	*p = Presence(isObject(b))
	return nil
}

// isObject reports whether b is one well-formed JSON object.
func isObject(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}

// An object holds the members of a JSON object by exact name. ACP's SDKs
// match names exactly; encoding/json's struct decoding would also take
// "ReadTextFile" for readTextFile, and so would advertise what the peer did
// not. Looking a name up in a nil object finds nothing.
type object map[string]json.RawMessage

// parseObject returns the members of b, or nil if b is not a JSON object.
// A repeated name keeps its last value.
func parseObject(b []byte) object {
	var o object // Unmarshal leaves it nil for null, and makes it for {}
	if json.Unmarshal(b, &o) != nil {
		return nil
	}
	return o
}

// flag decodes member name as a [Flag].
func (o object) flag(name string) bool {
	var f Flag
	_ = f.UnmarshalJSON(o[name])
	return bool(f)
}

// present decodes member name as a [Presence].
func (o object) present(name string) bool {
	var p Presence
	_ = p.UnmarshalJSON(o[name])
	return bool(p)
}

// str returns member name if it is a JSON string, else "".
func (o object) str(name string) string {
	var s string
	if json.Unmarshal(o[name], &s) != nil {
		return ""
	}
	return s
}

// version decodes member name as an ACP ProtocolVersion: an integer from 0
// to 65535 (a uint16 in the schema), also accepted when written as 1.0 or
// 1e0. Anything else, or no member, is 0.
func (o object) version(name string) int {
	v, err := strconv.ParseFloat(string(bytes.TrimSpace(o[name])), 64)
	if err != nil || v != math.Trunc(v) || v < 0 || v > math.MaxUint16 {
		return 0
	}
	return int(v)
}
