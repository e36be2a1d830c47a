package mcpfs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/internal/lift"
)

// oddNames are entry names that JSON must escape, or that encoding/json
// treats specially.
var oddNames = []string{"plain.txt", `quo"te`, `back\slash`, "tab\tnew\nline", "\x01\x1f", "<html>&amp;",
	"line\u2028sep", "ünïcødé 文件", "bad\xffutf8", "\xc3", ""}

// TestListAppendJSON checks list_directory's direct encoder against
// encoding/json, with and without details, for names of every kind.
func TestListAppendJSON(t *testing.T) {
	size := int64(12345)
	for _, details := range []bool{false, true} {
		out := listOutput{Path: "/r/dir \"x\"", Entries: []listEntry{}, Truncated: details}
		for i, name := range oddNames {
			e := listEntry{Name: name, Type: []fsruntime.FileType{fsruntime.TypeFile, fsruntime.TypeDirectory, fsruntime.TypeSymlink, fsruntime.TypeOther}[i%4]}
			if details {
				e.Size, e.Modified = &size, "2025-07-01T08:00:00Z"
			}
			out.Entries = append(out.Entries, e)
		}
		for _, o := range []listOutput{out, {Path: "/r/empty", Entries: []listEntry{}}} {
			got, err := o.appendJSON([]byte("prefix"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(got, []byte("prefix")) {
				t.Fatalf("appendJSON did not append: %.40q", got)
			}
			want, err := json.Marshal(o)
			if err != nil {
				t.Fatal(err)
			}
			var g, w any
			if err := json.Unmarshal(got[len("prefix"):], &g); err != nil {
				t.Fatalf("appendJSON gave no JSON: %v\n%s", err, got)
			}
			if err := json.Unmarshal(want, &w); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(g, w) {
				t.Errorf("details=%t:\nappendJSON %s\njson       %s", details, got[len("prefix"):], want)
			}
		}
	}
}

// TestLiftStructured checks that structured content lifted as JSON comes
// out of the splice as the value itself, beside a lifted text, and that
// nothing is lifted without a transport to splice it or below lift.Min.
func TestLiftStructured(t *testing.T) {
	out := listOutput{Path: "/r", Entries: []listEntry{}}
	for i := range 200 {
		out.Entries = append(out.Entries, listEntry{Name: fmt.Sprintf("%s-%03d", oddNames[i%len(oddNames)], i), Type: fsruntime.TypeFile})
	}
	if got := lift.Structured(context.Background(), out, 1<<20, out.appendJSON); !reflect.DeepEqual(got, out) {
		t.Error("a value was lifted without a transport to splice it")
	}
	lt := lift.NewTable("mcp-acpfs-lifted-0123-")
	ctx := lift.WithTable(context.Background(), lt)
	if got := lift.Structured(ctx, out, lift.Min-1, out.appendJSON); !reflect.DeepEqual(got, out) {
		t.Error("a small value was lifted")
	}
	structured := lift.Structured(ctx, out, 64*len(out.Entries), out.appendJSON)
	if _, ok := structured.(string); !ok {
		t.Fatalf("the value was not lifted: %T", structured)
	}
	text := listText(out)
	res := mcp.NewToolResultStructured(structured, lift.Result(ctx, text))
	line, err := json.Marshal(mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(5)), res))
	if err != nil {
		t.Fatal(err)
	}
	if len(line) > 512 {
		t.Errorf("the encoded line still holds the listing: %d bytes", len(line))
	}
	pieces, err := lt.SpliceResults(line)
	if err != nil {
		t.Fatal(err)
	}
	spliced := bytes.Join(pieces, nil)
	lt.Release()
	if strings.Contains(string(spliced), "mcp-acpfs-lifted-0123-") {
		t.Error("a placeholder is left in the response")
	}
	var got struct {
		ID     int `json:"id"`
		Result struct {
			Content           []mcp.TextContent `json:"content"`
			StructuredContent json.RawMessage   `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(spliced, &got); err != nil {
		t.Fatalf("the spliced response is not JSON: %v", err)
	}
	var g, w any
	want, _ := json.Marshal(out)
	json.Unmarshal(got.Result.StructuredContent, &g)
	json.Unmarshal(want, &w)
	if got.ID != 5 || len(got.Result.Content) != 1 || got.Result.Content[0].Text != strings.ToValidUTF8(text, "\uFFFD") || !reflect.DeepEqual(g, w) {
		t.Errorf("the spliced response differs from the result: %.400s", spliced)
	}
}
