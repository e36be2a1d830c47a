package mcpfs_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

// DryRun reads the file through the FS and applies the call as the tool
// does, writing nothing.
func TestDryRun(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.txt")
	crlf := filepath.Join(dir, "crlf.txt")
	buffers := fsruntimetest.NewMemFS()
	buffers.Set(file, "one\ntwo\nthree\n")
	buffers.Set(crlf, "\uFEFFone\r\ntwo\r\n")
	for _, tc := range []struct {
		name, tool, args string
		want             mcpfs.Change
		err              error // nil: any error is a failure; errAny: some error
	}{
		{name: "write over a file", tool: mcpfs.WriteTextFile, args: `{"path":"a.txt","content":"new\n"}`,
			want: mcpfs.Change{Path: file, Old: "one\ntwo\nthree\n", New: "new\n"}},
		{name: "write a new file", tool: mcpfs.WriteTextFile, args: `{"path":"` + filepath.ToSlash(filepath.Join(dir, "b.txt")) + `","content":"b"}`,
			want: mcpfs.Change{Path: filepath.Join(dir, "b.txt"), New: "b", Created: true}},
		{name: "edits in order", tool: mcpfs.EditTextFile,
			args: `{"path":"a.txt","edits":[{"oldText":"two","newText":"2"},{"oldText":"2\nthree","newText":"2\n3"}],"expectedHash":"` + zeros + `"}`,
			want: mcpfs.Change{Path: file, Old: "one\ntwo\nthree\n", New: "one\n2\n3\n"}},
		{name: "an edit keeps the BOM and line endings", tool: mcpfs.EditTextFile,
			args: `{"path":"crlf.txt","edits":[{"oldText":"one\ntwo","newText":"1\n2"}]}`,
			want: mcpfs.Change{Path: crlf, Old: "\uFEFFone\r\ntwo\r\n", New: "\uFEFF1\r\n2\r\n"}},
		{name: "replaceAll", tool: mcpfs.EditTextFile, args: `{"path":"a.txt","edits":[{"oldText":"o","newText":"0","replaceAll":true}]}`,
			want: mcpfs.Change{Path: file, Old: "one\ntwo\nthree\n", New: "0ne\ntw0\nthree\n"}},
		{name: "an edit that does not match", tool: mcpfs.EditTextFile, args: `{"path":"a.txt","edits":[{"oldText":"four","newText":"4"}]}`, err: errAny},
		{name: "an edit of a missing file", tool: mcpfs.EditTextFile, args: `{"path":"c.txt","edits":[{"oldText":"x","newText":"y"}]}`, err: fs.ErrNotExist},
		{name: "an edit that is a dry run", tool: mcpfs.EditTextFile, args: `{"path":"a.txt","dryRun":true,"edits":[{"oldText":"one","newText":"1"}]}`, err: errAny},
		{name: "an empty oldText", tool: mcpfs.EditTextFile, args: `{"path":"a.txt","edits":[{"oldText":"","newText":"1"}]}`, err: errAny},
		{name: "unknown arguments", tool: mcpfs.WriteTextFile, args: `{"path":"a.txt","content":"x","mode":1}`, err: errAny},
		{name: "another tool", tool: mcpfs.ReadTextFile, args: `{"path":"a.txt"}`, err: errAny},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := mcpfs.DryRun(context.Background(), buffers, dir, tc.tool, json.RawMessage(tc.args))
			switch {
			case tc.err == nil && err != nil:
				t.Fatalf("error %v", err)
			case tc.err != nil && err == nil:
				t.Fatalf("no error; got %+v", got)
			case tc.err != nil && tc.err != errAny && !errors.Is(err, tc.err):
				t.Fatalf("error %v, want %v", err, tc.err)
			case tc.err == nil && got != tc.want:
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
	if got, _ := buffers.Get(file); got != "one\ntwo\nthree\n" {
		t.Errorf("the file changed: %q", got)
	}
}

var errAny = errors.New("any error")

const zeros = "0000000000000000000000000000000000000000000000000000000000000000"
