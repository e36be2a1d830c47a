package mcpfs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpfstest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

// FuzzToolArguments sends every tool of a server on a real disk root
// tools/call requests with arbitrary arguments (a tool by index, and the
// raw bytes of "arguments", sent as a JSON string when not JSON), and
// checks the answer: never a panic, one response with the request's id, a
// protocol error only with an invalid-request or invalid-params code and a
// message, an error result that says something, and a success whose
// structured content matches the tool's output schema.
func FuzzToolArguments(f *testing.F) {
	dir, err := filepath.EvalSymlinks(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	ostest.WriteFiles(f, dir, map[string]string{
		"a.txt":         "one\ntwo\nthree\n",
		"sub/b.go":      "package b\n\nfunc B() {}\n",
		"sub/deep/c.md": "# c\r\nline\r\n",
		"img.png":       "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
	})
	// A small limit keeps each iteration cheap whatever a write carries.
	disk, err := fsruntime.OpenDisk([]string{dir}, fsruntime.DiskOptions{MaxFileSize: 64 << 10})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { disk.Close() })
	srv, err := mcpfs.NewServer(mcpfs.DiskFiles(disk, false), mcpfs.Options{Tools: mcpfstest.Structured})
	if err != nil {
		f.Fatal(err)
	}
	tools, schemas := listToolSchemas(f, srv)

	for i, args := range []string{
		`{"path":"a.txt"}`,
		`{"path":"a.txt","line":2,"limit":1}`,
		`{"path":"new.txt","content":"x\n"}`,
		`{"path":"a.txt","edits":[{"oldText":"two","newText":"2"}],"dryRun":true}`,
		`{"path":"img.png"}`,
		`{"path":"sub"}`,
		`{"path":".","depth":2}`,
		`{"pattern":"**/*.go"}`,
		`{"pattern":"func","path":"sub","glob":"*.go"}`,
		`{"path":"sub/new"}`,
		`{"source":"a.txt","destination":"sub/a.txt"}`,
		`{"path":"sub/deep","recursive":true}`,
		`{"path":1e309}`,
		`{"path":"a.txt","line":-1,"limit":1e20}`,
		`{"path":"a.txt","edits":[{}]}`,
		`{"path":"a.txt","expectedHash":"sha256:zz"}`,
		`{"path":"a.txt","unknown":null}`,
		`{"path":"../../etc/passwd"}`,
		`{"path":"a.txt\u0000"}`,
		`[]`, `null`, `"a.txt"`, `{}`, `not json`,
	} {
		f.Add(uint8(i), []byte(args))
	}

	f.Fuzz(func(t *testing.T, which uint8, args []byte) {
		name := tools[int(which)%len(tools)]
		if !json.Valid(args) {
			args, _ = json.Marshal(string(args))
		}
		req, err := json.Marshal(map[string]any{
			"jsonrpc": "2.0", "id": 7, "method": "tools/call",
			"params": map[string]any{"name": name, "arguments": json.RawMessage(args)},
		})
		if err != nil {
			t.Skip() // arguments json.Valid accepts but cannot re-encode
		}
		resp := srv.HandleMessage(context.Background(), req)
		raw, err := json.Marshal(resp)
		if err != nil {
			t.Fatalf("%s %s: response does not encode: %v", name, args, err)
		}
		var got struct {
			ID    json.RawMessage `json:"id"`
			Error *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
			Result *struct {
				Content           []map[string]any `json:"content"`
				StructuredContent json.RawMessage  `json:"structuredContent"`
				IsError           bool             `json:"isError"`
			} `json:"result"`
		}
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatalf("%s %s: response %s: %v", name, args, raw, err)
		}
		if string(got.ID) != "7" {
			t.Fatalf("%s %s: response id %s, want 7: %s", name, args, got.ID, raw)
		}
		switch {
		case got.Error != nil:
			// -32600 is mcp-go's answer to arguments it cannot decode
			// at all (a number too big for a float64, say).
			bad := got.Error.Code != -32602 && got.Error.Code != -32600
			if bad || got.Error.Message == "" || strings.Contains(strings.ToLower(got.Error.Message), "panic") {
				t.Fatalf("%s %s: protocol error %d %q, want -32602 or -32600 with a message", name, args, got.Error.Code, got.Error.Message)
			}
		case got.Result == nil:
			t.Fatalf("%s %s: neither result nor error: %s", name, args, raw)
		case len(got.Result.Content) == 0:
			t.Fatalf("%s %s: result without content: %s", name, args, raw)
		case got.Result.IsError:
			text, _ := got.Result.Content[0]["text"].(string)
			if strings.TrimSpace(text) == "" || strings.Contains(strings.ToLower(text), "panic") {
				t.Fatalf("%s %s: error result says %q", name, args, text)
			}
		default:
			sch := schemas[name]
			if sch == nil {
				return
			}
			if len(got.Result.StructuredContent) == 0 {
				t.Fatalf("%s %s: success without structured content: %s", name, args, raw)
			}
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(got.Result.StructuredContent))
			if err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(v); err != nil {
				t.Fatalf("%s %s: structured content does not match the output schema: %v", name, args, err)
			}
		}
	})
}

// listToolSchemas returns the names of srv's tools, in its order, and the
// compiled output schema of each tool that has one.
func listToolSchemas(tb testing.TB, srv *server.MCPServer) ([]string, map[string]*jsonschema.Schema) {
	tb.Helper()
	resp := srv.HandleMessage(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	raw, err := json.Marshal(resp)
	if err != nil {
		tb.Fatal(err)
	}
	var list struct {
		Result struct {
			Tools []struct {
				Name         string          `json:"name"`
				OutputSchema json.RawMessage `json:"outputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		tb.Fatal(err)
	}
	var names []string
	schemas := map[string]*jsonschema.Schema{}
	for _, tool := range list.Result.Tools {
		names = append(names, tool.Name)
		if sch := compileOutputSchema(tb, tool.Name, tool.OutputSchema); sch != nil {
			schemas[tool.Name] = sch
		}
	}
	if len(names) < 12 {
		tb.Fatalf("tools/list gave %d tools (%v), want all 12: %s", len(names), names, raw)
	}
	return names, schemas
}
