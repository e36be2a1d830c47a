package mcpfs_test

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-acpfs/mcp-acpfs/capabilities"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpfstest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/sessiontest"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

// routedServer serves the tools through a Router whose reads go to ed, an
// editor over a pipe with the real codec, when editorReads, else to disk.
func routedServer(t *testing.T, ed *fsruntimetest.Editor, dir string, editorReads bool, reload fsruntime.ReloadOptions) *toolClient {
	t.Helper()
	disk, err := fsruntime.OpenDisk([]string{dir}, fsruntime.DiskOptions{MaxFileSize: mcpfstest.TestMaxFileSize})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { disk.Close() })
	var client capabilities.Client
	client.FS.ReadTextFile = editorReads
	editor := fsruntime.NewEditor(sessiontest.EditorConn(t, ed), fsruntime.EditorOptions{
		SessionID:   func(context.Context) (string, error) { return "sess_1", nil },
		MaxFileSize: mcpfstest.TestMaxFileSize,
	})
	r := fsruntime.NewRouter(fsruntime.RouterOptions{Disk: disk, Editor: editor, Client: client, Reload: reload})
	srv, err := mcpfs.NewServer(mcpfs.Files{WorkDir: dir, FS: r, MaxFileSize: mcpfstest.TestMaxFileSize}, mcpfs.Options{Tools: mcpfstest.Structured})
	if err != nil {
		t.Fatal(err)
	}
	return connectTools(t, srv, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
}

// putFile writes a file on disk, saved at modified.
func putFile(t *testing.T, p, content string, modified time.Time) {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, modified, modified); err != nil {
		t.Fatal(err)
	}
}

func TestReadTextFileSaysWhereTheTextCameFrom(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	saved := time.Now().Add(-time.Hour) // no reload pending
	ed := &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS()}
	for name, files := range map[string][2]string{ // disk, buffer
		"same.txt":    {"same\n", "same\n"},
		"unsaved.txt": {"saved\nline 2\n", "unsaved\nline 2\n"},
		"crlf.txt":    {"a\r\nb\r\n", "a\nb\n"},
		"new.txt":     {"", "new\n"},
	} {
		if name != "new.txt" {
			putFile(t, filepath.Join(dir, name), files[0], saved)
		}
		ed.Buffers.Set(filepath.Join(dir, name), files[1])
	}
	for _, tc := range []struct {
		route       string
		name        string
		line, limit int
		text        string
		differs     any // the JSON value of differsFromDisk
		difference  any // the JSON value of diskDifference, nil when absent
		note        string
	}{
		{"editor", "same.txt", 0, 0, "same\n", false, nil, ""},
		{"editor", "unsaved.txt", 0, 0, "unsaved\nline 2\n", true, "content", "[from the editor, which has unsaved changes or a reload pending: the disk differs]"},
		{"editor", "unsaved.txt", 2, 1, "line 2\n", true, "content", "[lines 2–2 of 2; from the editor, which has unsaved changes or a reload pending: the disk differs]"},
		{"editor", "crlf.txt", 0, 0, "a\nb\n", true, "lineEndings", `[from the editor, with \n line endings where the disk has \r\n or \r]`},
		{"editor", "new.txt", 0, 0, "new\n", true, "notOnDisk", "[from the editor: a new buffer, not on disk]"},
		{"disk", "same.txt", 0, 0, "same\n", false, nil, ""},
		{"disk", "unsaved.txt", 0, 0, "saved\nline 2\n", false, nil, ""},
		{"disk", "unsaved.txt", 2, 1, "line 2\n", false, nil, "[lines 2–2 of 2]"},
		{"disk", "crlf.txt", 0, 0, "a\r\nb\r\n", false, nil, ""},
	} {
		t.Run(tc.route+"/"+tc.name, func(t *testing.T) {
			before := len(ed.Requests())
			c := routedServer(t, ed, dir, tc.route == "editor", fsruntime.ReloadOptions{})
			args := map[string]any{"path": tc.name}
			if tc.line > 0 {
				args["line"], args["limit"] = tc.line, tc.limit
			}
			res := mcpfstest.Call(t, c.Client, mcpfs.ReadTextFile, args)
			out := c.structured(t, mcpfs.ReadTextFile, res) // validates against the output schema
			if out["content"] != tc.text || out["source"] != tc.route || out["differsFromDisk"] != tc.differs || out["diskDifference"] != tc.difference {
				t.Errorf("structured %v; want content %q, source %s, differsFromDisk %v, diskDifference %v",
					out, tc.text, tc.route, tc.differs, tc.difference)
			}
			var texts []string
			for _, c := range res.Content {
				texts = append(texts, c.(mcp.TextContent).Text)
			}
			switch {
			case len(texts) == 0 || texts[0] != tc.text:
				t.Errorf("text contents %q: the first must be exactly the text %q", texts, tc.text)
			case tc.note == "" && len(texts) != 1:
				t.Errorf("text contents %q: want the text alone", texts)
			case tc.note != "" && (len(texts) != 2 || texts[1] != tc.note):
				t.Errorf("text contents %q: want the text, then the status %q", texts, tc.note)
			}
			asked := len(ed.Requests()) - before
			if want := map[string]int{"editor": 1, "disk": 0}[tc.route]; asked != want {
				t.Errorf("the editor was asked %d times, want %d", asked, want)
			}
		})
	}
}

// A file that changed on disk just now, whose buffer the editor reloads
// at the second ask: the read returns the reloaded text, and says it is
// the disk's.
func TestReadTextFileWaitsForAPendingReload(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "main.go")
	changed := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	putFile(t, p, "// changed by a shell\n", changed)
	ed := &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS()}
	ed.Buffers.Set(p, "// before\n")
	var asks atomic.Int32
	ed.Delay = func(context.Context, string) {
		if asks.Add(1) == 2 {
			ed.Buffers.Set(p, "// changed by a shell\n")
		}
	}
	// The clock says the file changed a moment ago; the bound is wide, so
	// that the second ask comes within it however slow the machine.
	c := routedServer(t, ed, dir, true, fsruntime.ReloadOptions{
		Bound: time.Minute,
		Now:   func() time.Time { return changed.Add(100 * time.Millisecond) },
	})
	res := mcpfstest.Call(t, c.Client, mcpfs.ReadTextFile, map[string]any{"path": "main.go"})
	out := c.structured(t, mcpfs.ReadTextFile, res)
	if out["content"] != "// changed by a shell\n" || out["source"] != "editor" || out["differsFromDisk"] != false || len(res.Content) != 1 {
		t.Errorf("read %v with %d contents; want the reloaded text from the editor, the same as the disk, and no note", out, len(res.Content))
	}
	if n := asks.Load(); n != 2 {
		t.Errorf("the editor was asked %d times, want 2", n)
	}
}

// A backend that does not say where its text comes from gets neither
// source nor differsFromDisk.
func TestReadTextFileWithoutSource(t *testing.T) {
	env := memEnv(t, false)
	env.put(t, env.Path("a.txt"), "a\n")
	c := connectTools(t, env.Srv, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	out := c.structured(t, mcpfs.ReadTextFile, mcpfstest.Call(t, c.Client, mcpfs.ReadTextFile, map[string]any{"path": "a.txt"}))
	for _, k := range []string{"source", "differsFromDisk", "diskDifference"} {
		if v, ok := out[k]; ok {
			t.Errorf("%s = %v, want it absent", k, v)
		}
	}
}
