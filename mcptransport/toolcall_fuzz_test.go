package mcptransport

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/internal/mcptest"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

// FuzzPlainToolCall checks the tools/call requests served past mcp-go
// (toolcall.go) on arbitrary input: plainToolCall agrees with
// encoding/json on any JSON object (a call is plain exactly when params
// has one "name" string, one "arguments" object and nothing else, and it
// returns those); and a read-only tool's call gets the same response past
// mcp-go as through HandleMessage, and is served past mcp-go only if its
// arguments are valid.
func FuzzPlainToolCall(f *testing.F) {
	dir, err := filepath.EvalSymlinks(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	srv := diskServer(f, dir, true, map[string]string{"a.txt": "one\ntwo\n", "sub/b.go": "package b\n"}) // read-only: a call may run twice
	c := testConn(srv)
	ctx := srv.WithContext(f.Context(), c.sess)
	tools := []string{mcpfs.ReadTextFile, mcpfs.ListDirectory, mcpfs.GetFileInfo, mcpfs.DirectoryTree, mcpfs.Glob, mcpfs.Grep}

	for _, seed := range []string{
		`{"name":"read_text_file","arguments":{"path":"a.txt"}}`,
		`{"name":"read_text_file","arguments":{"path":"a.txt","line":2,"limit":1}}`,
		`{"name":"list_directory","arguments":{"path":"sub","details":true}}`,
		`{"name":"glob","arguments":{"pattern":"**/*.go"}}`,
		`{"name":"grep","arguments":{"pattern":"b","path":"sub"}}`,
		`{"name":"read_text_file","arguments":{"path":"a.txt","extra":1}}`,
		`{"name":"read_text_file","arguments":{"path":"a.txt"},"_meta":{"progressToken":1}}`,
		`{"name":"read_text_file","name":"glob","arguments":{"path":"a.txt"}}`,
		`{"name":"re\u0061d_text_file","arguments":{"path":"a.txt","line":1e400}}`,
		`{"arguments":{"path":"a.txt","line":-1}}`,
		`[]`, `null`, `{}`,
	} {
		f.Add(uint8(0), []byte(seed))
	}

	f.Fuzz(func(t *testing.T, which uint8, params []byte) {
		if !json.Valid(params) {
			return
		}
		line := []byte(`{"jsonrpc":"2.0","id":"call-1","method":"tools/call","params":` + string(params) + `}`)
		name, args, plain := plainToolCall(line)

		var members []string
		var p map[string]json.RawMessage
		dec := json.NewDecoder(bytes.NewReader(params))
		if tok, err := dec.Token(); err == nil && tok == json.Delim('{') {
			for dec.More() {
				k, _ := dec.Token()
				members = append(members, k.(string))
				var v json.RawMessage
				if err := dec.Decode(&v); err != nil {
					t.Fatal(err)
				}
			}
			json.Unmarshal(params, &p)
		}
		var wantName string
		wantPlain := len(members) == 2 && len(p) == 2 &&
			json.Unmarshal(p["name"], &wantName) == nil && bytes.HasPrefix(p["name"], []byte(`"`)) &&
			bytes.HasPrefix(p["arguments"], []byte(`{`))
		// A member name with an escape, which encoding/json decodes, is
		// one plainToolCall does not know: the call goes to mcp-go.
		if plain != wantPlain && (plain || !bytes.Contains(params, []byte(`\`))) {
			t.Fatalf("%s: plain %v, want %v (members %q)", params, plain, wantPlain, members)
		}
		if !plain {
			return
		}
		if name != wantName || !bytes.Equal(args, p["arguments"]) {
			t.Fatalf("%s: name %q, arguments %s; want %q, %s", params, name, args, wantName, p["arguments"])
		}

		// The same arguments for one of the read-only tools.
		call := `{"jsonrpc":"2.0","id":"call-1","method":"tools/call","params":{"name":"` +
			tools[int(which)%len(tools)] + `","arguments":` + string(args) + `}}`
		if direct, viaMCPGo, served := callBothWays(t, c, ctx, call); served {
			mcptest.WantSameJSON(t, call, direct, viaMCPGo)
		}
	})
}
