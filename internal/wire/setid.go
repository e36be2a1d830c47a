package wire

import (
	"encoding/json"
	"fmt"
)

// SetID returns a copy of the JSON object raw with its top-level "id"
// value replaced by id, or with "id" added as the first member when raw has
// none. Every other byte is kept: unknown members, "_meta", "id" keys
// nested in params or result, whitespace and member order are untouched.
//
// id must be a JSON string, number or null (surrounding whitespace is
// dropped). raw must be one valid JSON object without a repeated top-level
// "id"; it need not be a well-formed message.
//
// The cost is one validating pass over raw and one copy: the new id is
// spliced in at the old value's byte offsets, so a large result is never
// decoded or re-encoded. Message.WithID skips the pass for a message that
// has already been parsed.
func SetID(raw []byte, id json.RawMessage) ([]byte, error) {
	v, err := scanScalarID(id)
	if err != nil {
		return nil, err
	}
	env, reason := scanObject(raw)
	if reason != "" {
		return nil, fmt.Errorf("wire: SetID: %w: %s", ErrMalformed, reason)
	}
	if s := env.mem[memID]; s.present() {
		out := make([]byte, 0, len(raw)-(s.end-s.start)+len(v))
		out = append(out, raw[:s.start]...)
		out = append(out, v...)
		return append(out, raw[s.end:]...), nil
	}
	const key = `"id":`
	at := env.open + 1
	out := make([]byte, 0, len(raw)+len(key)+len(v)+1)
	out = append(out, raw[:at]...)
	out = append(out, key...)
	out = append(out, v...)
	if !env.empty {
		out = append(out, ',')
	}
	return append(out, raw[at:]...), nil
}
