package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestServeDirs: serve takes folders as operands, each the same as a
// --root, in the order given among the --root ones, with flags before,
// between and after them.
func TestServeDirs(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		roots    []string
		readOnly bool
	}{
		{[]string{"a"}, []string{"a"}, false},
		{[]string{"a", "b"}, []string{"a", "b"}, false},
		{[]string{"--root", "a", "b"}, []string{"a", "b"}, false},
		{[]string{"b", "--root", "a"}, []string{"b", "a"}, false},
		{[]string{"a", "--read-only"}, []string{"a"}, true},
		{[]string{"a", "--read-only", "b", "--root", "c"}, []string{"a", "b", "c"}, true},
		{[]string{"a", "--read-only=true", "b"}, []string{"a", "b"}, true},
		{[]string{"--read-only=false", "a", "b"}, []string{"a", "b"}, false},
		{[]string{"a", "--", "--read-only", "-b"}, []string{"a", "--read-only", "-b"}, false},
		{[]string{"--", "a"}, []string{"a"}, false},
		{[]string{"--read-only", "--", "-"}, []string{"-"}, true},
		{nil, nil, false},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stderr bytes.Buffer
			cfg, code, ok := parseServe(serveCmd, tc.args, &env{stderr: &stderr, getenv: func(string) string { return "" }})
			if !ok {
				t.Fatalf("exit code %d: %s", code, stderr.String())
			}
			if !slices.Equal(cfg.roots, tc.roots) || cfg.readOnly != tc.readOnly {
				t.Errorf("roots %q, read-only %v; want %q, %v", cfg.roots, cfg.readOnly, tc.roots, tc.readOnly)
			}
		})
	}
}

// TestServeDirsProcess runs serve as a process with two folders as
// operands and a flag after them: relative paths resolve in the first,
// the second is reachable by its path, and the flag took effect.
func TestServeDirsProcess(t *testing.T) {
	dir1, dir2 := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(dir1, "a.txt"), []byte("one\n"), 0o644)
	os.WriteFile(filepath.Join(dir2, "b.txt"), []byte("two\n"), 0o644)
	cmd := mainCommand(t, "serve", dir1, dir2, "--read-only")
	var in strings.Builder
	send := func(id int, method string, params any) {
		p, _ := json.Marshal(params)
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, p)
	}
	send(1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "0"}})
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	send(2, "tools/call", map[string]any{"name": "read_text_file", "arguments": map[string]any{"path": "a.txt"}})
	send(3, "tools/call", map[string]any{"name": "read_text_file", "arguments": map[string]any{"path": filepath.Join(dir2, "b.txt")}})
	send(4, "tools/list", map[string]any{})
	cmd.Stdin = strings.NewReader(in.String())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("serve %s %s --read-only: %v\n%s", dir1, dir2, err, stderr.String())
	}
	answers := map[int]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var msg struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
			t.Fatalf("stdout holds a line that is not JSON-RPC: %q", sc.Text())
		}
		answers[msg.ID] = string(msg.Result)
	}
	if !strings.Contains(answers[2], `one\n`) || strings.Contains(answers[2], `"isError":true`) {
		t.Errorf("a.txt, relative to the first folder: %s", answers[2])
	}
	if !strings.Contains(answers[3], `two\n`) || strings.Contains(answers[3], `"isError":true`) {
		t.Errorf("b.txt in the second folder: %s", answers[3])
	}
	if !strings.Contains(answers[4], `"read_text_file"`) || strings.Contains(answers[4], `"write_text_file"`) {
		t.Errorf("--read-only after the folders: tools %s", answers[4])
	}
}
