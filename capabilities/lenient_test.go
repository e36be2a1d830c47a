package capabilities

import (
	"encoding/json"
	"testing"
)

func TestFlagAndPresence(t *testing.T) {
	tests := []struct {
		json           string
		flag, presence bool
	}{
		{`true`, true, false},
		{` true `, true, false},
		{`{}`, false, true},
		{`{"_meta":{"x":1}}`, false, true},
		{` { } `, false, true},
		{`false`, false, false},
		{`null`, false, false},
		{``, false, false},
		{`"true"`, false, false},
		{`"yes"`, false, false},
		{`1`, false, false},
		{`0`, false, false},
		{`[]`, false, false},
		{`[true]`, false, false},
		{`"{}"`, false, false},
		// Not JSON: only reachable by calling UnmarshalJSON directly.
		{`tru`, false, false},
		{`{`, false, false},
		{`{}}`, false, false},
		{`{"a":}`, false, false},
	}
	for _, tt := range tests {
		var f Flag
		if err := f.UnmarshalJSON([]byte(tt.json)); err != nil || bool(f) != tt.flag {
			t.Errorf("Flag.UnmarshalJSON(%q) = %v, %v; want %v, nil", tt.json, f, err, tt.flag)
		}
		var p Presence
		if err := p.UnmarshalJSON([]byte(tt.json)); err != nil || bool(p) != tt.presence {
			t.Errorf("Presence.UnmarshalJSON(%q) = %v, %v; want %v, nil", tt.json, p, err, tt.presence)
		}
	}
}

// Flag and Presence fields never fail the struct they sit in.
func TestFlagAndPresenceInStructs(t *testing.T) {
	type fields struct {
		A, B, C, D Flag
		E, F, G, H Presence
	}
	var got fields
	body := `{"A":true,"B":"yes","C":[1],"D":null,"E":{},"F":true,"G":"{}","H":null}`
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	if want := (fields{A: true, E: true}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestParseObject(t *testing.T) {
	if o := parseObject([]byte(`{}`)); o == nil {
		t.Error(`parseObject("{}") = nil, want an empty object`)
	}
	for _, s := range []string{``, `null`, `[]`, `"x"`, `{`, `{} {}`} {
		if o := parseObject([]byte(s)); o != nil {
			t.Errorf("parseObject(%q) = %v, want nil", s, o)
		}
	}
	o := parseObject([]byte(`{"a":true,"a":false,"b":"s","c":1}`))
	if o.flag("a") || o.str("b") != "s" || o.str("c") != "" || o.flag("missing") {
		t.Errorf("object %v: a=%v b=%q c=%q", o, o.flag("a"), o.str("b"), o.str("c"))
	}
	var none object
	if none.flag("a") || none.present("a") || none.str("a") != "" || none.version("a") != 0 {
		t.Error("a nil object found a member")
	}
}
