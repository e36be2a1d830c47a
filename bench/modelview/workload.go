package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

// The fixtures, relative to the server's working directory.
const (
	fileSmall = "src/small.go" // 4 KiB
	fileLarge = "src/large.go" // 64 KiB
	fileEdit  = "src/edit.go"  // 4 KiB, rewritten before each host's edit
	dirList   = "list"         // 1,000 empty files
	dirGrep   = "grep"         // 10 files of 30 lines, 5 of them matching
	grepWord  = "TODO"

	listEntries = 1000
	grepFiles   = 10
)

// canonicalDir stands for the temporary directory in every result and
// definition, so that the figures do not depend on where it was made.
const canonicalDir = "/home/user/project"

// goSource returns size bytes of Go-like source, the same for the same
// seed: a header, then functions of a dozen lines each, padded at the end
// with a comment line.
func goSource(seed, size int) string {
	var b strings.Builder
	b.WriteString("// Code generated for the model-view benchmark. DO NOT EDIT.\n\npackage gen\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n")
	for i := seed * 1000; b.Len() < size; i++ {
		fmt.Fprintf(&b, "\n// f%04d joins the non-empty parts of record %d, at most limit of them.\n"+
			"func f%04d(parts []string, limit int) (string, error) {\n"+
			"\tvar out []string\n"+
			"\tfor i, p := range parts {\n"+
			"\t\tif i >= limit {\n"+
			"\t\t\treturn \"\", fmt.Errorf(\"record %d: more than %%d parts\", limit)\n"+
			"\t\t}\n"+
			"\t\tif p = strings.TrimSpace(p); p != \"\" {\n"+
			"\t\t\tout = append(out, p)\n"+
			"\t\t}\n"+
			"\t}\n"+
			"\treturn strings.Join(out, \", \"), nil\n"+
			"}\n", i, i, i, i)
	}
	s := b.String()[:size-4]
	s = s[:strings.LastIndexByte(s, '\n')+1]
	return s + "// " + strings.Repeat("=", size-len(s)-4) + "\n"
}

// editOld and editNew are the edit's one replacement in fileEdit.
const (
	editSeed = 7
	editOld  = "func f7003("
	editNew  = "func g7003("
)

// grepSource is the i'th file of dirGrep: 30 lines, 5 with grepWord.
func grepSource(i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package gen\n\nfunc g%02d() {\n", i)
	for j := 0; j < 27; j++ {
		if j%6 == 2 {
			fmt.Fprintf(&b, "\t// %s(bench): check the bounds of part %d of record %d.\n", grepWord, j, i)
		} else {
			fmt.Fprintf(&b, "\tx%02d := strings.Repeat(\"ab\", %d)\n", j, i*j)
		}
	}
	return b.String()
}

// makeFixtures writes the fixtures under dir.
func makeFixtures(dir string) error {
	files := map[string]string{
		fileSmall: goSource(1, 4<<10),
		fileLarge: goSource(2, 64<<10),
		fileEdit:  goSource(editSeed, 4<<10),
	}
	for i := 0; i < grepFiles; i++ {
		files[fmt.Sprintf("%s/g%02d.go", dirGrep, i)] = grepSource(i)
	}
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return makeEntries(filepath.Join(dir, dirList))
}

// makeEntries fills dir with listEntries empty files: hard links to the
// first where the file system has them, as creating a thousand files can
// take seconds.
func makeEntries(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	first := ""
	for i := 0; i < listEntries; i++ {
		p := filepath.Join(dir, fmt.Sprintf("entry%04d.go", i))
		if first != "" && os.Link(first, p) == nil {
			continue
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			return err
		}
		if first == "" {
			first = p
		}
	}
	return nil
}

// A session is one host's client of a server of its own on the fixtures.
type session struct {
	tr     *transport.InProcessTransport
	c      *client.Client
	id     int64
	dir    string // the fixtures' directory, as the server names it
	dirEsc []byte // dir as a JSON string's content
}

// dial starts a server on files with opts, and an in-process client that
// introduces itself as clientName.
func dial(ctx context.Context, files mcpfs.Files, opts mcpfs.ToolOptions, clientName string) (*session, error) {
	srv, err := mcpfs.NewServer(files, mcpfs.Options{Tools: opts})
	if err != nil {
		return nil, err
	}
	s := &session{tr: transport.NewInProcessTransport(srv), dir: files.WorkDir}
	esc, _ := json.Marshal(s.dir)
	s.dirEsc = esc[1 : len(esc)-1]
	s.c = client.NewClient(s.tr)
	if err := s.c.Start(ctx); err != nil {
		return nil, err
	}
	var req mcp.InitializeRequest
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: clientName, Version: "1.0.0"}
	if _, err := s.c.Initialize(ctx, req); err != nil {
		s.c.Close()
		return nil, fmt.Errorf("initialize as %s: %w", clientName, err)
	}
	return s, nil
}

func (s *session) Close() error { return s.c.Close() }

// request sends a request and returns its result as sent, with the
// fixtures' directory written as canonicalDir.
func (s *session) request(ctx context.Context, method string, params any) ([]byte, error) {
	s.id++
	resp, err := s.tr.SendRequest(ctx, transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(s.id), Method: method, Params: params,
	})
	if err != nil {
		return nil, err
	}
	if resp.Error != nil {
		return nil, fmt.Errorf("%s: %s", method, resp.Error.Message)
	}
	esc, _ := json.Marshal(canonicalDir)
	out := bytes.ReplaceAll(resp.Result, s.dirEsc, esc[1:len(esc)-1])
	return bytes.ReplaceAll(out, []byte(filepath.ToSlash(s.dir)), []byte(canonicalDir)), nil
}

// call calls a tool, which must succeed, and returns its result.
func (s *session) call(ctx context.Context, tool string, args map[string]any) ([]byte, error) {
	res, err := s.request(ctx, string(mcp.MethodToolsCall), map[string]any{"name": tool, "arguments": args})
	if err != nil {
		return nil, err
	}
	var r struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", tool, err)
	}
	if r.IsError {
		msg := ""
		if len(r.Content) > 0 {
			msg = r.Content[0].Text
		}
		return nil, fmt.Errorf("%s %v failed: %s", tool, args, msg)
	}
	return res, nil
}

// A definition is one tool as tools/list gives it.
type definition struct {
	Name string
	// Model is what the hosts give the model of it: the bytes of its
	// name, its description and its input schema (as compact JSON).
	Model int
	// Wire is the tool's object in tools/list, as sent: title, output
	// schema and annotations included.
	Wire int
}

// definitions returns the tools s's server lists, by name.
func (s *session) definitions(ctx context.Context) (map[string]definition, error) {
	res, err := s.request(ctx, string(mcp.MethodToolsList), map[string]any{})
	if err != nil {
		return nil, err
	}
	var list struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(res, &list); err != nil {
		return nil, err
	}
	defs := make(map[string]definition, len(list.Tools))
	for _, raw := range list.Tools {
		var t struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, err
		}
		schema, err := compactJS(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("the input schema of %s: %w", t.Name, err)
		}
		defs[t.Name] = definition{Name: t.Name, Model: len(t.Name) + len(t.Description) + len(schema), Wire: len(raw)}
	}
	return defs, nil
}

// A workload is one tool call, run the same for each host.
type workload struct {
	ID   string
	Name string
	Tool string
	Args map[string]any
	// Before, if not nil, runs first on the host's session (the edit's
	// read, which the read guard asks for).
	Before func(ctx context.Context, s *session) error
	// Text, if not empty, is the file the call reads whole, for the
	// hosts' own reads.
	Text string
}

func workloads(dir string) []workload {
	editText := goSource(editSeed, 4<<10)
	return []workload{
		{ID: "read-4k", Name: "read 4 KiB", Tool: mcpfs.ReadTextFile,
			Args: map[string]any{"path": fileSmall}, Text: goSource(1, 4<<10)},
		{ID: "read-64k", Name: "read 64 KiB", Tool: mcpfs.ReadTextFile,
			Args: map[string]any{"path": fileLarge}, Text: goSource(2, 64<<10)},
		{ID: "list-1000", Name: "list 1,000 entries", Tool: mcpfs.ListDirectory,
			Args: map[string]any{"path": dirList}},
		{ID: "grep-50", Name: "grep, 50 matches", Tool: mcpfs.Grep,
			Args: map[string]any{"pattern": grepWord, "path": dirGrep}},
		{ID: "edit-4k", Name: "edit 4 KiB, 1 replacement", Tool: mcpfs.EditTextFile,
			Args: map[string]any{"path": fileEdit, "edits": []any{map[string]any{"oldText": editOld, "newText": editNew}}},
			Before: func(ctx context.Context, s *session) error {
				p := filepath.Join(dir, filepath.FromSlash(fileEdit))
				if err := os.WriteFile(p, []byte(editText), 0o644); err != nil {
					return err
				}
				_, err := s.call(ctx, mcpfs.ReadTextFile, map[string]any{"path": fileEdit})
				return err
			}},
	}
}

// openFixtures makes the fixtures in a new temporary directory and opens
// it as the servers' files. close removes it.
func openFixtures() (files mcpfs.Files, dir string, close func(), err error) {
	tmp, err := os.MkdirTemp("", "modelview")
	if err != nil {
		return mcpfs.Files{}, "", nil, err
	}
	rm := func() { os.RemoveAll(tmp) }
	// The path the server reports is the real one (macOS's /var is a
	// link), and it is that path that canonicalDir replaces.
	if dir, err = filepath.EvalSymlinks(tmp); err == nil {
		err = makeFixtures(dir)
	}
	var disk *fsruntime.Disk
	if err == nil {
		// Durability changes no byte of a result; syncs only cost time.
		disk, err = fsruntime.OpenDisk([]string{dir}, fsruntime.DiskOptions{NoSync: true})
	}
	if err != nil {
		rm()
		return mcpfs.Files{}, "", nil, err
	}
	return mcpfs.DiskFiles(disk, false), dir, func() { disk.Close(); rm() }, nil
}
