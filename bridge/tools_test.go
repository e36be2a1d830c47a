package bridge_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
)

func TestReadTextFile(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			f := newFixture(t, false)
			f.writeFile(t, "lines.txt", "one\ntwo\nthree\n")
			f.writeFile(t, "crlf.txt", "a\r\nb\r\nc")
			f.writeFile(t, "empty.txt", "")
			f.writeFile(t, "sub/dir/deep.txt", "deep\n")
			f.writeFile(t, "utf8.txt", "héllo, 世界\n")
			c := connect(t, f.srv, era.version)

			for _, tc := range []struct {
				args map[string]any
				want string
			}{
				{map[string]any{"path": "lines.txt"}, "one\ntwo\nthree\n"},
				{map[string]any{"path": f.path("lines.txt")}, "one\ntwo\nthree\n"},
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
				got := wantOK(t, call(t, c, bridge.ReadTextFile, tc.args))
				if got != tc.want {
					t.Errorf("read %v = %q, want %q", tc.args, got, tc.want)
				}
			}
		})
	}
}

func TestWriteTextFile(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			f := newFixture(t, false)
			c := connect(t, f.srv, era.version)

			for _, tc := range []struct {
				path    string // as given to the tool
				rel     string // where it lands
				content string
			}{
				{"new.txt", "new.txt", "hello\n"},
				{"a/b/c/nested.txt", "a/b/c/nested.txt", "nested"},
				{f.path("abs.txt"), "abs.txt", "absolute\r\nwith CRLF\r\n"},
				{"new.txt", "new.txt", "short"}, // a shorter overwrite shrinks the file
				{"empty.txt", "empty.txt", ""},
				{"utf8.txt", "utf8.txt", "héllo, 世界"},
			} {
				msg := wantOK(t, call(t, c, bridge.WriteTextFile, map[string]any{"path": tc.path, "content": tc.content}))
				want := fmt.Sprintf("wrote %d bytes to %s", len(tc.content), f.path(tc.rel))
				if msg != want {
					t.Errorf("write %s: %q, want %q", tc.path, msg, want)
				}
				b, err := os.ReadFile(f.path(tc.rel))
				if err != nil {
					t.Fatal(err)
				}
				if string(b) != tc.content {
					t.Errorf("after write %s: file has %q, want %q", tc.path, b, tc.content)
				}
				if got := wantOK(t, call(t, c, bridge.ReadTextFile, map[string]any{"path": tc.path})); got != tc.content {
					t.Errorf("read back %s: %q, want %q", tc.path, got, tc.content)
				}
			}
		})
	}
}

func TestToolErrors(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			f := newFixture(t, false, "root")
			f.writeFile(t, "root/lines.txt", "one\ntwo\n")
			f.writeFile(t, "root/binary.bin", "\x00\x01\x02\xff\xfe")
			f.writeFile(t, "root/big.txt", strings.Repeat("0123456789abcde\n", 2*testMaxFileSize/16))
			f.writeFile(t, "outside.txt", "secret\n")
			if err := os.Mkdir(f.path("root/dir"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(f.path("outside.txt"), f.path("root/link.txt")); err != nil {
				t.Fatal(err)
			}
			c := connect(t, f.srv, era.version)
			root := f.path("root")

			for _, tc := range []struct {
				name string
				tool string
				args map[string]any
				want []string // parts of the error text
			}{
				{"missing", bridge.ReadTextFile, map[string]any{"path": "nope.txt"},
					[]string{"read " + filepath.Join(root, "nope.txt") + ": ", "file does not exist"}},
				{"outside absolute", bridge.ReadTextFile, map[string]any{"path": f.path("outside.txt")},
					[]string{f.path("outside.txt"), "outside the allowed roots", root}},
				{"outside dotdot", bridge.ReadTextFile, map[string]any{"path": "../outside.txt"},
					[]string{f.path("outside.txt"), "outside the allowed roots"}},
				{"outside symlink", bridge.ReadTextFile, map[string]any{"path": "link.txt"},
					[]string{filepath.Join(root, "link.txt")}},
				{"past end", bridge.ReadTextFile, map[string]any{"path": "lines.txt", "line": 5},
					[]string{filepath.Join(root, "lines.txt"), "line 5", "past the end", "2 lines"}},
				{"too large", bridge.ReadTextFile, map[string]any{"path": "big.txt"},
					[]string{filepath.Join(root, "big.txt"), "too large", "line and limit"}},
				{"binary", bridge.ReadTextFile, map[string]any{"path": "binary.bin"},
					[]string{filepath.Join(root, "binary.bin"), "binary", "UTF-8"}},
				{"directory", bridge.ReadTextFile, map[string]any{"path": "dir"},
					[]string{filepath.Join(root, "dir"), "not a regular file"}},
				{"empty path", bridge.ReadTextFile, map[string]any{"path": ""},
					[]string{"read", "empty path"}},
				{"NUL in path", bridge.ReadTextFile, map[string]any{"path": "a\x00b"},
					[]string{"read", `"a\x00b"`, "NUL"}},
				{"write outside", bridge.WriteTextFile, map[string]any{"path": "../escape.txt", "content": "x"},
					[]string{"write " + f.path("escape.txt"), "outside the allowed roots"}},
				{"write too large", bridge.WriteTextFile, map[string]any{"path": "huge.txt", "content": strings.Repeat("x", testMaxFileSize+1)},
					[]string{"write " + filepath.Join(root, "huge.txt"), "too large"}},
				{"write directory", bridge.WriteTextFile, map[string]any{"path": "dir", "content": "x"},
					[]string{"write " + filepath.Join(root, "dir")}},

				// Bad arguments fail schema validation, as a result too.
				{"negative line", bridge.ReadTextFile, map[string]any{"path": "lines.txt", "line": -1},
					[]string{"read " + filepath.Join(root, "lines.txt") + ": invalid arguments for read_text_file: line must be at least 0, not -1"}},
				{"zero limit", bridge.ReadTextFile, map[string]any{"path": "lines.txt", "limit": 0},
					[]string{"read " + filepath.Join(root, "lines.txt") + ": invalid arguments for read_text_file: limit must be at least 1, not 0"}},
				{"fractional line", bridge.ReadTextFile, map[string]any{"path": "lines.txt", "line": 1.5},
					[]string{filepath.Join(root, "lines.txt"), "line must be an integer, not 1.5"}},
				{"line as a string", bridge.ReadTextFile, map[string]any{"path": "lines.txt", "line": "2"},
					[]string{"line must be an integer, not a string"}},
				{"missing path", bridge.ReadTextFile, map[string]any{},
					[]string{"path is required"}},
				{"path not a string", bridge.ReadTextFile, map[string]any{"path": 7},
					[]string{"path must be a string, not 7"}},
				{"unknown argument", bridge.ReadTextFile, map[string]any{"path": "lines.txt", "offset": 3},
					[]string{filepath.Join(root, "lines.txt"), `unknown argument "offset" (the arguments are limit, line, path)`}},
				{"write without content", bridge.WriteTextFile, map[string]any{"path": "x.txt"},
					[]string{"write " + filepath.Join(root, "x.txt") + ": invalid arguments for write_text_file: content is required"}},
				{"write null content", bridge.WriteTextFile, map[string]any{"path": "x.txt", "content": nil},
					[]string{"content must be a string, not null"}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					msg := wantError(t, call(t, c, tc.tool, tc.args), tc.want...)
					t.Log(msg)
				})
			}
			if _, err := os.Stat(f.path("escape.txt")); err == nil {
				t.Error("a write outside the roots created the file")
			}
			if _, err := os.Stat(f.path("root/x.txt")); err == nil {
				t.Error("a write without content created the file")
			}
		})
	}
}
