package wire

import (
	"encoding/json"
	"fmt"
)

// SetID returns a copy of the JSON object raw with its top-level "id"
// value replaced by id (a JSON string, number or null), or added as the
// first member when raw has none. Every other byte is kept (unknown
// members, nested "id" keys, whitespace, member order): the new id is
// spliced in at the old value's offsets, one validating pass and one copy,
// so a large result is never re-encoded. raw must be one JSON object without
// a repeated top-level "id". Message.WithID skips the pass.
func SetID(raw []byte, id json.RawMessage) ([]byte, error) {
	v, err := scanScalarID(id)
	if err != nil {
		return nil, err
	}
	env, reason := scanObject(raw, false, false)
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
