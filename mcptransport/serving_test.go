package mcptransport_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpfstest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcptest"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
	"github.com/mcp-acpfs/mcp-acpfs/mcptransport"
)

// The file tools answer alike in process (mcp-go's own path, no
// transport), over stdio in each serving (the fast paths on, each alone,
// and off), and over Streamable HTTP: the fast paths change what an answer
// costs, never the answer.
func TestToolsAnswerAlikeOverEveryServing(t *testing.T) {
	version := mcp.LATEST_LEGACY_PROTOCOL_VERSION
	want := toolAnswers(t, func(t *testing.T, f *mcpfstest.Fixture) *client.Client {
		return mcpfstest.Connect(t, f.Srv, version)
	})
	check := func(t *testing.T, got []string) {
		t.Helper()
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("call %d:\n got: %.600s\nwant: %.600s", i, got[i], want[i])
			}
		}
	}
	for _, s := range mcpfstest.Servings {
		t.Run("stdio-"+s.Name, func(t *testing.T) {
			check(t, toolAnswers(t, func(t *testing.T, f *mcpfstest.Fixture) *client.Client {
				return mcpfstest.StdioClient(t, f.Srv, s.Transport(t, f), version)
			}))
		})
	}
	t.Run("http", func(t *testing.T) {
		check(t, toolAnswers(t, func(t *testing.T, f *mcpfstest.Fixture) *client.Client {
			ts := httptest.NewServer(mcptransport.NewHTTPHandler(f.Srv, "", f.Transport(t)))
			t.Cleanup(ts.Close)
			c, err := client.NewStreamableHttpClient(ts.URL + mcptransport.EndpointPath)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			mcptest.Initialize(t, c, version)
			return c
		}))
	})
}

// toolAnswers makes a fixture, connects to it with connect, and returns
// the answers to a fixed run of tool calls, as JSON, with the fixture's
// directory written <dir> (and its parent <parent>). The calls cover large texts both ways (lifted
// past mcp-go when the transport lifts), a listing large enough to be kept
// rendered, searches, and failures of every kind: file errors, invalid
// arguments, paths outside the roots.
func toolAnswers(t *testing.T, connect func(*testing.T, *mcpfstest.Fixture) *client.Client) []string {
	t.Helper()
	f := mcpfstest.NewFixtureMax(t, 4<<20)
	big := mcptest.HardText(300 << 10)
	f.WriteFile(t, "small.txt", "one\ntwo\nthree\n")
	f.WriteFile(t, "big.txt", big)
	f.WriteFile(t, "bin.dat", "\x00\x01\x02binary")
	f.WriteFile(t, "tree/a.go", "package a // needle\n")
	f.WriteFile(t, "tree/b/c.go", "package c\n")
	for i := range 100 {
		f.WriteFile(t, fmt.Sprintf("many/file-%03d.txt", i), "x")
	}
	when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(f.Path("small.txt"), when, when); err != nil {
		t.Fatal(err)
	}
	c := connect(t, f)

	calls := []struct {
		tool string
		args map[string]any
	}{
		{mcpfs.ReadTextFile, map[string]any{"path": "small.txt"}},
		{mcpfs.ReadTextFile, map[string]any{"path": "small.txt", "line": 2, "limit": 1}},
		{mcpfs.ReadTextFile, map[string]any{"path": "big.txt"}},
		{mcpfs.WriteTextFile, map[string]any{"path": "w.txt", "content": big + "written\n"}},
		{mcpfs.ReadTextFile, map[string]any{"path": "w.txt"}},
		{mcpfs.EditTextFile, map[string]any{"path": "w.txt", "edits": []map[string]any{{"oldText": big[:4000], "newText": strings.ToUpper(big[:5000])}}}},
		{mcpfs.ReadTextFile, map[string]any{"path": "w.txt"}},
		{mcpfs.WriteTextFile, map[string]any{"path": "w.txt", "content": "x", "expectedHash": strings.Repeat("0", 64)}},
		{mcpfs.ListDirectory, map[string]any{"path": "many"}},
		{mcpfs.ListDirectory, map[string]any{"path": "many"}},
		{mcpfs.DirectoryTree, map[string]any{"path": "tree"}},
		{mcpfs.Glob, map[string]any{"pattern": "**/*.go"}},
		{mcpfs.Grep, map[string]any{"pattern": "needle", "path": "tree"}},
		{mcpfs.GetFileInfo, map[string]any{"path": "small.txt"}},
		{mcpfs.ReadMediaFile, map[string]any{"path": "bin.dat"}},
		{mcpfs.ReadTextFile, map[string]any{"path": "missing.txt"}},
		{mcpfs.ReadTextFile, map[string]any{"path": "small.txt", "line": -1}},
		{mcpfs.ReadTextFile, map[string]any{"path": "small.txt", "extra": true}},
		{mcpfs.ReadTextFile, map[string]any{"path": "../outside.txt"}},
		{mcpfs.CreateDirectory, map[string]any{"path": "d/e"}},
		{mcpfs.MoveFile, map[string]any{"source": "w.txt", "destination": "d/e/w.txt"}},
		{mcpfs.DeleteFile, map[string]any{"path": "d/e/w.txt"}},
	}
	quoted := func(p string) string { q, _ := json.Marshal(p); return string(q[1 : len(q)-1]) }
	// The directories as paths, and as the paths of file URIs
	// (/C:/... on Windows), the directory before its parent.
	var dirs []string
	for _, d := range []string{f.Dir, filepath.Dir(f.Dir)} {
		dirs = append(dirs, quoted(d), quoted(mcpfstest.URIPath(d)))
	}
	names := strings.NewReplacer(dirs[0], "<dir>", dirs[1], "<dir>", dirs[2], "<parent>", dirs[3], "<parent>")
	var answers []string
	for _, call := range calls {
		res := mcpfstest.Call(t, c, call.tool, call.args)
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		answers = append(answers, names.Replace(string(b)))
	}
	return answers
}
