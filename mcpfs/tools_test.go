package mcpfs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpfstest"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

func TestReadTextFile(t *testing.T) {
	for _, era := range mcpfstest.Eras {
		t.Run(era.Name, func(t *testing.T) {
			f := mcpfstest.NewFixture(t, false)
			f.WriteFile(t, "lines.txt", "one\ntwo\nthree\n")
			f.WriteFile(t, "crlf.txt", "a\r\nb\r\nc")
			f.WriteFile(t, "empty.txt", "")
			f.WriteFile(t, "sub/dir/deep.txt", "deep\n")
			f.WriteFile(t, "utf8.txt", "héllo, 世界\n")
			c := mcpfstest.Connect(t, f.Srv, era.Version)

			for _, tc := range []struct {
				args map[string]any
				want string
			}{
				{map[string]any{"path": "lines.txt"}, "one\ntwo\nthree\n"},
				{map[string]any{"path": f.Path("lines.txt")}, "one\ntwo\nthree\n"},
				{map[string]any{"path": "./sub/../lines.txt"}, "one\ntwo\nthree\n"},
				{map[string]any{"path": "lines.txt", "line": 0}, "one\ntwo\nthree\n"},
				{map[string]any{"path": "lines.txt", "line": 1}, "one\ntwo\nthree\n"},
				{map[string]any{"path": "lines.txt", "line": 2}, "two\nthree\n"},
				{map[string]any{"path": "lines.txt", "line": 2, "limit": 1}, "two\n"},
				{map[string]any{"path": "lines.txt", "limit": 2}, "one\ntwo\n"},
				{map[string]any{"path": "lines.txt", "line": 3, "limit": 100}, "three\n"},
				{map[string]any{"path": "crlf.txt"}, "a\r\nb\r\nc"},
				{map[string]any{"path": "crlf.txt", "line": 2, "limit": 1}, "b\r\n"},
				{map[string]any{"path": "crlf.txt", "line": 3}, "c"},
				{map[string]any{"path": "empty.txt"}, ""},
				{map[string]any{"path": "sub/dir/deep.txt"}, "deep\n"},
				{map[string]any{"path": "utf8.txt"}, "héllo, 世界\n"},
			} {
				got := mcpfstest.WantOK(t, mcpfstest.Call(t, c, mcpfs.ReadTextFile, tc.args))
				if got != tc.want {
					t.Errorf("read %v = %q, want %q", tc.args, got, tc.want)
				}
			}
		})
	}
}

func TestWriteTextFile(t *testing.T) {
	for _, era := range mcpfstest.Eras {
		t.Run(era.Name, func(t *testing.T) {
			f := mcpfstest.NewFixture(t, false)
			c := mcpfstest.Connect(t, f.Srv, era.Version)

			for _, tc := range []struct {
				path    string // as given to the tool
				rel     string // where it lands
				content string
			}{
				{"new.txt", "new.txt", "hello\n"},
				{"a/b/c/nested.txt", "a/b/c/nested.txt", "nested"},
				{f.Path("abs.txt"), "abs.txt", "absolute\r\nwith CRLF\r\n"},
				{"new.txt", "new.txt", "short"}, // a shorter overwrite shrinks the file
				{"empty.txt", "empty.txt", ""},
				{"utf8.txt", "utf8.txt", "héllo, 世界"},
			} {
				msg := mcpfstest.WantOK(t, mcpfstest.Call(t, c, mcpfs.WriteTextFile, map[string]any{"path": tc.path, "content": tc.content}))
				want := fmt.Sprintf("wrote %d bytes to %s", len(tc.content), f.Path(tc.rel))
				if msg != want {
					t.Errorf("write %s: %q, want %q", tc.path, msg, want)
				}
				b, err := os.ReadFile(f.Path(tc.rel))
				if err != nil {
					t.Fatal(err)
				}
				if string(b) != tc.content {
					t.Errorf("after write %s: file has %q, want %q", tc.path, b, tc.content)
				}
				if got := mcpfstest.WantOK(t, mcpfstest.Call(t, c, mcpfs.ReadTextFile, map[string]any{"path": tc.path})); got != tc.content {
					t.Errorf("read back %s: %q, want %q", tc.path, got, tc.content)
				}
			}
		})
	}
}

func TestToolErrors(t *testing.T) {
	for _, era := range mcpfstest.Eras {
		t.Run(era.Name, func(t *testing.T) {
			f := mcpfstest.NewFixture(t, false, "root")
			f.WriteFile(t, "root/lines.txt", "one\ntwo\n")
			f.WriteFile(t, "root/binary.bin", "\x00\x01\x02\xff\xfe")
			f.WriteFile(t, "root/big.txt", strings.Repeat("0123456789abcde\n", 2*mcpfstest.TestMaxFileSize/16))
			f.WriteFile(t, "outside.txt", "secret\n")
			if err := os.Mkdir(f.Path("root/dir"), 0o755); err != nil {
				t.Fatal(err)
			}
			c := mcpfstest.Connect(t, f.Srv, era.Version)
			root := f.Path("root")

			for _, tc := range []struct {
				name string
				tool string
				args map[string]any
				want []string // parts of the error text
			}{
				{"missing", mcpfs.ReadTextFile, map[string]any{"path": "nope.txt"},
					[]string{"read " + filepath.Join(root, "nope.txt") + ": ", "file does not exist"}},
				{"outside absolute", mcpfs.ReadTextFile, map[string]any{"path": f.Path("outside.txt")},
					[]string{f.Path("outside.txt"), "outside the allowed roots", root}},
				{"outside dotdot", mcpfs.ReadTextFile, map[string]any{"path": "../outside.txt"},
					[]string{f.Path("outside.txt"), "outside the allowed roots"}},
				{"outside symlink", mcpfs.ReadTextFile, map[string]any{"path": "link.txt"},
					[]string{filepath.Join(root, "link.txt")}},
				{"past end", mcpfs.ReadTextFile, map[string]any{"path": "lines.txt", "line": 5},
					[]string{filepath.Join(root, "lines.txt"), "line 5", "past the end", "2 lines"}},
				{"too large", mcpfs.ReadTextFile, map[string]any{"path": "big.txt"},
					[]string{filepath.Join(root, "big.txt"), "too large", "line and limit"}},
				{"binary", mcpfs.ReadTextFile, map[string]any{"path": "binary.bin"},
					[]string{filepath.Join(root, "binary.bin"), "binary", "UTF-8"}},
				{"directory", mcpfs.ReadTextFile, map[string]any{"path": "dir"},
					[]string{filepath.Join(root, "dir"), "not a regular file"}},
				{"empty path", mcpfs.ReadTextFile, map[string]any{"path": ""},
					[]string{"read", "empty path"}},
				{"NUL in path", mcpfs.ReadTextFile, map[string]any{"path": "a\x00b"},
					[]string{"read", `"a\x00b"`, "NUL"}},
				{"write outside", mcpfs.WriteTextFile, map[string]any{"path": "../escape.txt", "content": "x"},
					[]string{"write " + f.Path("escape.txt"), "outside the allowed roots"}},
				{"write too large", mcpfs.WriteTextFile, map[string]any{"path": "huge.txt", "content": strings.Repeat("x", mcpfstest.TestMaxFileSize+1)},
					[]string{"write " + filepath.Join(root, "huge.txt"), "too large"}},
				{"write directory", mcpfs.WriteTextFile, map[string]any{"path": "dir", "content": "x"},
					[]string{"write " + filepath.Join(root, "dir")}},

				// Bad arguments fail schema validation, as a result too.
				{"negative line", mcpfs.ReadTextFile, map[string]any{"path": "lines.txt", "line": -1},
					[]string{"read " + filepath.Join(root, "lines.txt") + ": invalid arguments for read_text_file: line must be at least 0, not -1"}},
				{"zero limit", mcpfs.ReadTextFile, map[string]any{"path": "lines.txt", "limit": 0},
					[]string{"read " + filepath.Join(root, "lines.txt") + ": invalid arguments for read_text_file: limit must be at least 1, not 0"}},
				{"fractional line", mcpfs.ReadTextFile, map[string]any{"path": "lines.txt", "line": 1.5},
					[]string{filepath.Join(root, "lines.txt"), "line must be an integer, not 1.5"}},
				{"line as a string", mcpfs.ReadTextFile, map[string]any{"path": "lines.txt", "line": "2"},
					[]string{"line must be an integer, not a string"}},
				{"missing path", mcpfs.ReadTextFile, map[string]any{},
					[]string{"path is required"}},
				{"path not a string", mcpfs.ReadTextFile, map[string]any{"path": 7},
					[]string{"path must be a string, not 7"}},
				{"unknown argument", mcpfs.ReadTextFile, map[string]any{"path": "lines.txt", "offset": 3},
					[]string{filepath.Join(root, "lines.txt"), `unknown argument "offset" (the arguments are limit, line, lineNumbers, path)`}},
				{"write without content", mcpfs.WriteTextFile, map[string]any{"path": "x.txt"},
					[]string{"write " + filepath.Join(root, "x.txt") + ": invalid arguments for write_text_file: content is required"}},
				{"write null content", mcpfs.WriteTextFile, map[string]any{"path": "x.txt", "content": nil},
					[]string{"content must be a string, not null"}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					if tc.name == "outside symlink" {
						f.Symlink(t, f.Path("outside.txt"), "root/link.txt")
					}
					msg := mcpfstest.WantError(t, mcpfstest.Call(t, c, tc.tool, tc.args), tc.want...)
					t.Log(msg)
				})
			}
			if _, err := os.Stat(f.Path("escape.txt")); err == nil {
				t.Error("a write outside the roots created the file")
			}
			if _, err := os.Stat(f.Path("root/x.txt")); err == nil {
				t.Error("a write without content created the file")
			}
		})
	}
}
