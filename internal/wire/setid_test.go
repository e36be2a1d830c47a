package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// jsonEqualExceptID reports whether a and b are JSON objects that are equal
// after removing their top-level "id" members.
func jsonEqualExceptID(t testing.TB, a, b []byte) bool {
	t.Helper()
	dec := func(b []byte) map[string]any {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		var m map[string]any
		if err := d.Decode(&m); err != nil {
			t.Fatalf("decoding %q: %v", b, err)
		}
		delete(m, "id")
		return m
	}
	return reflect.DeepEqual(dec(a), dec(b))
}

func TestSetIDReplacesOnlyTheTopLevelID(t *testing.T) {
	tests := []struct {
		name, in, id, want string
	}{
		{"id first", `{"id":1,"method":"a"}`, `-5`, `{"id":-5,"method":"a"}`},
		{"id last", `{"method":"a","params":{},"id":"x"}`, `7`, `{"method":"a","params":{},"id":7}`},
		{"id in the middle", `{"jsonrpc":"2.0","id":12345678901234567890,"result":{}}`, `"s"`,
			`{"jsonrpc":"2.0","id":"s","result":{}}`},
		{"nested ids untouched", `{"params":{"id":1,"x":[{"id":2}]},"id":3,"result":{"id":4}}`, `9`,
			`{"params":{"id":1,"x":[{"id":2}]},"id":9,"result":{"id":4}}`},
		{"string containing an id member", `{"params":"\"id\":1,","id":2,"method":"m"}`, `3`,
			`{"params":"\"id\":1,","id":3,"method":"m"}`},
		{"key that ends like id", `{"xid":1,"\"id":2,"id":3,"method":"m"}`, `4`,
			`{"xid":1,"\"id":2,"id":4,"method":"m"}`},
		{"escaped quotes and backslashes", `{"params":"a\\\"id\":5\\","id":6,"method":"m"}`, `0`,
			`{"params":"a\\\"id\":5\\","id":0,"method":"m"}`},
		{"whitespace around colons", "{ \"id\" \t:  1 ,\r \"method\" : \"m\" }", `2`,
			"{ \"id\" \t:  2 ,\r \"method\" : \"m\" }"},
		{"escaped id key", `{"\u0069d":1,"method":"m"}`, `2`, `{"\u0069d":2,"method":"m"}`},
		{"null to number", `{"id":null,"method":"m"}`, `1`, `{"id":1,"method":"m"}`},
		{"number to null", `{"id":1,"result":1}`, `null`, `{"id":null,"result":1}`},
		{"fraction", `{"id":1,"result":1}`, `1.5`, `{"id":1.5,"result":1}`},
		{"exponent", `{"id":1,"result":1}`, `-2.5E+10`, `{"id":-2.5E+10,"result":1}`},
		{"string with escapes", `{"id":1,"result":1}`, `"a\"b\u00e9"`, `{"id":"a\"b\u00e9","result":1}`},
		{"surrounding whitespace dropped", `{"id":1,"result":1}`, " \t\"k\"\r\n ", `{"id":"k","result":1}`},
		{"_meta and unknown members kept", `{"_meta":{"id":1},"id":1,"x-ext":[1,2],"result":{}}`, `"n"`,
			`{"_meta":{"id":1},"id":"n","x-ext":[1,2],"result":{}}`},
		{"added when absent", `{"method":"m","params":{"id":1}}`, `5`, `{"id":5,"method":"m","params":{"id":1}}`},
		{"added to an empty object", `{}`, `5`, `{"id":5}`},
		{"added with whitespace", ` { "method":"m" } `, `5`, ` {"id":5, "method":"m" } `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SetID([]byte(tt.in), json.RawMessage(tt.id))
			if err != nil {
				t.Fatalf("SetID: %v", err)
			}
			if string(got) != tt.want {
				t.Errorf("SetID(%s, %s) =\n%s\nwant\n%s", tt.in, tt.id, got, tt.want)
			}
			if !jsonEqualExceptID(t, []byte(tt.in), got) {
				t.Errorf("SetID changed more than the id")
			}
		})
	}
}

func TestSetIDDoesNotModifyItsInput(t *testing.T) {
	in := []byte(`{"id":1,"method":"m"}`)
	orig := string(in)
	out, err := SetID(in[:len(in):len(in)], json.RawMessage(`"a much longer id than before"`))
	if err != nil {
		t.Fatal(err)
	}
	out[1] = 'X'
	if string(in) != orig {
		t.Errorf("input changed to %s", in)
	}
}

func TestSetIDRejectsBadInput(t *testing.T) {
	tests := []struct {
		name, in, id string
	}{
		{"id is an object", `{"id":1,"result":1}`, `{}`},
		{"id is an array", `{"id":1,"result":1}`, `[1]`},
		{"id is true", `{"id":1,"result":1}`, `true`},
		{"id is empty", `{"id":1,"result":1}`, ``},
		{"id is two values", `{"id":1,"result":1}`, `1 2`},
		{"id is invalid", `{"id":1,"result":1}`, `01`},
		{"id is an unterminated string", `{"id":1,"result":1}`, `"abc`},
		{"message not JSON", `{"id":1,`, `1`},
		{"message an array", `[{"id":1}]`, `1`},
		{"duplicate id", `{"id":1,"id":2,"result":1}`, `3`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := SetID([]byte(tt.in), json.RawMessage(tt.id)); err == nil {
				t.Errorf("SetID(%s, %s) = %s, want an error", tt.in, tt.id, got)
			}
		})
	}
	if _, err := SetID([]byte(`nope`), json.RawMessage(`1`)); !errors.Is(err, ErrMalformed) {
		t.Errorf("SetID on non-JSON: error %v, want ErrMalformed", err)
	}
}

func TestSetIDOnLargeResultCopiesOnce(t *testing.T) {
	in := bigResponse(10 << 20)
	id := json.RawMessage(`-5`)
	allocs := testing.AllocsPerRun(3, func() {
		if _, err := SetID(in, id); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 {
		t.Errorf("SetID on a 10 MiB response made %v allocations, want 1 (the output)", allocs)
	}
	out, _ := SetID(in, json.RawMessage(`-5`))
	if !bytes.HasPrefix(out, []byte(`{"jsonrpc":"2.0","id":-5,"result":`)) || !bytes.Equal(out[30:], in[30:]) {
		t.Errorf("SetID changed more than the id of the large response")
	}
}

// bigResponse returns an fs/read_text_file response of about n bytes whose
// content has the escapes real file text has.
func bigResponse(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":12,"result":{"content":"`)
	line := `func main() {\n\tfmt.Println(\"hello, \u4e16\u754c\") // \"id\":1\n}\n`
	for b.Len() < n {
		b.WriteString(line)
	}
	b.WriteString(`","_meta":{"id":"x"}}}`)
	return []byte(b.String())
}

func TestMessageWithIDSplicesLikeSetID(t *testing.T) {
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"a","params":{"id":2}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"id":2}}`,
		`{ "result" : {"id":3} , "\u0069d" : "x" }`,
		`{"id":null,"error":{"code":1,"message":"m"}}`,
	} {
		m, err := Parse([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{`-5`, `"s"`, `null`, ` 1.5e3 `} {
			got, err := m.WithID(json.RawMessage(id))
			want, werr := SetID(m.Raw, json.RawMessage(id))
			if err != nil || werr != nil || !bytes.Equal(got, want) {
				t.Errorf("%s.WithID(%s) = %s, %v; SetID gives %s, %v", line, id, got, err, want, werr)
			}
		}
		if _, err := m.WithID(json.RawMessage(`{}`)); err == nil {
			t.Errorf("WithID accepted an object id")
		}
	}
}

func TestMessageWithIDFallsBackForHandMadeMessages(t *testing.T) {
	m := Message{Raw: []byte(`{"id":1,"result":2}`), ID: json.RawMessage(`1`)}
	got, err := m.WithID(json.RawMessage(`7`))
	if err != nil || string(got) != `{"id":7,"result":2}` {
		t.Errorf("WithID = %s, %v", got, err)
	}
	parsed, _ := Parse([]byte(`{"id":1,"result":2}`))
	parsed.Raw = []byte(`{"result":2, "id":1}`) // changed after parsing
	parsed.ID = parsed.Raw[len(parsed.Raw)-2 : len(parsed.Raw)-1]
	got, err = parsed.WithID(json.RawMessage(`7`))
	if err != nil || string(got) != `{"result":2, "id":7}` {
		t.Errorf("WithID after Raw changed = %s, %v", got, err)
	}
}
