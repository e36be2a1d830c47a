package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Row ids.
const (
	rowReadSmall  = "read-4k"
	rowReadLarge  = "read-1m"
	rowWriteSmall = "write-4k"
	rowWriteLarge = "write-1m"
	rowEdit       = "edit"
	rowList       = "list"
	rowListSizes  = "list-sizes"
	rowGlob       = "glob"
	rowGrep       = "grep"
	rowDeep       = "deep"
	rowDeepHead   = "deep-head"
	rowTail       = "tail"
)

// row is one workload of the table: the same operation asked of every
// server, each through its own tool (see [profile]).
type row struct {
	ID   string
	Name string // as the table shows it
	// Goal rows count towards the goal against the peer; the others are
	// shown for information.
	Goal bool
	// Floor rows (the writes and the edit) are judged against the floor
	// instead: the same replace done in process (see floorProfile).
	Floor bool
	// Concurrent rows also run with several calls in flight.
	Concurrent bool
	// MinCalls is the fewest timed calls of each phase; Warmups the
	// fewest untimed calls after the checked one, which go on for the
	// warm-up time (-warmup) when there are any.
	MinCalls, Warmups int
	// Timeout bounds one call.
	Timeout time.Duration
	// Fresh rows run last, each in a server process of its own, so that
	// one that takes the server down or leaves it busy spoils nothing else.
	Fresh bool
}

// rows is the workload, in the order it runs.
var rows = []row{
	{ID: rowReadSmall, Name: "read a 4 KiB file", Goal: true, Concurrent: true, MinCalls: 20, Warmups: 20, Timeout: time.Minute},
	{ID: rowReadLarge, Name: "read a 1 MiB file", Goal: true, Concurrent: true, MinCalls: 10, Warmups: 5, Timeout: time.Minute},
	{ID: rowWriteSmall, Name: "write 4 KiB (replace a file)", Floor: true, Concurrent: true, MinCalls: 20, Warmups: 10, Timeout: time.Minute},
	{ID: rowWriteLarge, Name: "write 1 MiB (replace a file)", Floor: true, Concurrent: true, MinCalls: 10, Warmups: 3, Timeout: time.Minute},
	{ID: rowEdit, Name: "edit: one replacement in a 64 KiB file", Floor: true, Concurrent: true, MinCalls: 20, Warmups: 10, Timeout: time.Minute},
	{ID: rowList, Name: "list a directory of 1,000 files", Goal: true, Concurrent: true, MinCalls: 10, Warmups: 5, Timeout: time.Minute},
	{ID: rowListSizes, Name: "list 1,000 files with sizes (ours: details; peer: list_directory_with_sizes)", Concurrent: true, MinCalls: 10, Warmups: 5, Timeout: time.Minute},
	{ID: rowGlob, Name: "search by name: `**/*.go` in 1,000 files", Goal: true, Concurrent: true, MinCalls: 10, Warmups: 3, Timeout: time.Minute},
	{ID: rowGrep, Name: "search: ours by content (grep), the peer by name", Goal: true, Concurrent: true, MinCalls: 10, Warmups: 3, Timeout: time.Minute},
	{ID: rowDeep, Name: "deep range: 100 lines at line 10,000,000 of 1 GiB (peer: tail)", Goal: true, MinCalls: 3, Timeout: 5 * time.Minute},
	{ID: rowTail, Name: "last 100 lines of 1 GiB (peer: tail; ours: a range)", MinCalls: 3, Timeout: 5 * time.Minute},
	{ID: rowDeepHead, Name: "deep range, the peer by head (lines 1–10,000,099)", Goal: true, Fresh: true, MinCalls: 1, Timeout: 5 * time.Minute},
}

// toolResult is what a check reads of a tool call's result.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

// text returns the result's text content.
func (r *toolResult) text() string {
	var b strings.Builder
	for _, c := range r.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// op is how one server does one row.
type op struct {
	// Call describes the call for the table.
	Call string
	// Params returns the params of tools/call for the iter-th call of a
	// worker. The calls for one worker never overlap (they may come from
	// different goroutines, one after the other).
	Params func(worker, iter int) []byte
	// Check checks the result of the first call, given the worker's
	// files.
	Check func(r *toolResult) error
	// Do, when set, is the operation done in this process instead of a
	// call (the floor, see floorProfile); Params is then unused.
	Do func(worker, iter int) error

	paths []string // the files a write or an edit changes, by worker
	size  int      // the size of a write's content
}

// runState is what one server's run of a row needs: the scratch
// directory, the prefix of the files it may make there, and the number of
// workers.
type runState struct {
	fx      *fixtures
	scratch string // shared by the servers and the floor (see the package doc)
	prefix  string // this server's, for its files in scratch
	workers int
}

// profile maps the rows to one server's tools. It returns nil for a row
// the server cannot do, and sets up any files the row changes.
type profile func(rowID string, st runState) (*op, error)

// profiles are the tool mappings the bench knows, by name.
var profiles = map[string]profile{
	"acpfs":     acpfsProfile,
	"reference": referenceProfile,
}

// toolCall returns the params of a tools/call.
func toolCall(name string, args any) []byte {
	b, err := json.Marshal(map[string]any{"name": name, "arguments": args})
	if err != nil {
		panic(err) // plain maps of strings and numbers
	}
	return b
}

// fixed returns Params that sends the same call every time.
func fixed(params []byte) func(int, int) []byte {
	return func(int, int) []byte { return params }
}

// perWorker returns Params that gives each worker its own call.
func perWorker(workers int, f func(w int) []byte) func(int, int) []byte {
	calls := make([][]byte, workers)
	for w := range calls {
		calls[w] = f(w)
	}
	return func(w, _ int) []byte { return calls[w] }
}

// acpfsProfile is mcp-acpfs serve.
func acpfsProfile(id string, st runState) (*op, error) {
	fx := st.fx
	switch id {
	case rowReadSmall, rowReadLarge:
		return readWhole(fx, id, "read_text_file"), nil
	case rowWriteSmall, rowWriteLarge:
		return writeOp(st, id, "write_text_file")
	case rowEdit:
		return editOp(st, "edit_text_file")
	case rowList:
		return listOp(fx, "list_directory", nil, "name and type of each entry"), nil
	case rowListSizes:
		return listOp(fx, "list_directory", map[string]any{"details": true}, "name, type, size and modification time of each entry (a stat each)"), nil
	case rowGlob:
		return &op{
			Call:   "`glob {pattern: \"**/*.go\", path: tree}`: walks the tree, matches names",
			Params: fixed(toolCall("glob", map[string]any{"pattern": "**/*.go", "path": fx.Tree})),
			Check:  structuredCount("matches", treeDirs*treeFiles/treeEvery),
		}, nil
	case rowGrep:
		return &op{
			Call:   "`grep {pattern: needle, path: tree}`: walks the tree, reads every file, matches lines (RE2)",
			Params: fixed(toolCall("grep", map[string]any{"pattern": needle, "path": fx.Tree})),
			Check:  structuredCount("matches", treeDirs*treeFiles/treeEvery),
		}, nil
	case rowDeep, rowDeepHead:
		return &op{
			Call:   fmt.Sprintf("`read_text_file {line: %d, limit: %d}`: counts newlines up to the line, returns 100 lines", deepLine, rangeLines),
			Params: fixed(toolCall("read_text_file", map[string]any{"path": fx.Big, "line": deepLine, "limit": rangeLines})),
			Check:  linesFrom(deepLine, rangeLines),
		}, nil
	case rowTail:
		first := bigLines - rangeLines + 1
		return &op{
			Call:   fmt.Sprintf("`read_text_file {line: %d, limit: %d}`: counts newlines through the file", first, rangeLines),
			Params: fixed(toolCall("read_text_file", map[string]any{"path": fx.Big, "line": first, "limit": rangeLines})),
			Check:  linesFrom(first, rangeLines),
		}, nil
	}
	return nil, nil
}

// referenceProfile is @modelcontextprotocol/server-filesystem.
func referenceProfile(id string, st runState) (*op, error) {
	fx := st.fx
	switch id {
	case rowReadSmall, rowReadLarge:
		return readWhole(fx, id, "read_text_file"), nil
	case rowWriteSmall, rowWriteLarge:
		return writeOp(st, id, "write_file")
	case rowEdit:
		return editOp(st, "edit_file")
	case rowList:
		return listOp(fx, "list_directory", nil, "name and type of each entry"), nil
	case rowListSizes:
		return listOp(fx, "list_directory_with_sizes", nil, "name, type and size of each entry (a stat each)"), nil
	case rowGlob, rowGrep:
		return &op{
			Call:   "`search_files {pattern: \"**/*.go\", path: tree}`: walks the tree, realpaths and matches every name (minimatch)",
			Params: fixed(toolCall("search_files", map[string]any{"pattern": "**/*.go", "path": fx.Tree})),
			Check:  textLinesWithSuffix(".go", treeDirs*treeFiles/treeEvery),
		}, nil
	case rowDeep:
		// tail=N returns N-1 lines when the file ends with a newline: it
		// splits on "\n" and keeps the last N pieces, the last one empty.
		n := bigLines - deepLine + 2
		return &op{
			Call:   fmt.Sprintf("`read_text_file {tail: %d}`: reads back from the end in 1 KiB chunks to line %d; the client keeps the first 100 of the %d lines", n, deepLine, n-1),
			Params: fixed(toolCall("read_text_file", map[string]any{"path": fx.Big, "tail": n})),
			Check:  linesFrom(deepLine, rangeLines),
		}, nil
	case rowDeepHead:
		n := deepLine + rangeLines - 1
		return &op{
			Call:   fmt.Sprintf("`read_text_file {head: %d}`: reads from the start in 1 KiB chunks, returns the first %d lines", n, n),
			Params: fixed(toolCall("read_text_file", map[string]any{"path": fx.Big, "head": n})),
			Check:  linesFrom(1, rangeLines),
		}, nil
	case rowTail:
		return &op{
			Call:   fmt.Sprintf("`read_text_file {tail: %d}`: reads back from the end in 1 KiB chunks", rangeLines+1),
			Params: fixed(toolCall("read_text_file", map[string]any{"path": fx.Big, "tail": rangeLines + 1})),
			Check:  linesFrom(bigLines-rangeLines+1, rangeLines),
		}, nil
	}
	return nil, nil
}

// readWhole reads the small or the large file whole with tool.
func readWhole(fx *fixtures, id, tool string) *op {
	p := fx.Small
	if id == rowReadLarge {
		p = fx.Large
	}
	return &op{
		Call:   fmt.Sprintf("`%s {path}`", tool),
		Params: fixed(toolCall(tool, map[string]any{"path": p})),
		Check: func(r *toolResult) error {
			want, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if got := r.text(); got != string(want) {
				return fmt.Errorf("read %d bytes of text, want the file's %d", len(got), len(want))
			}
			return nil
		},
	}
}

// writeOp replaces a file of each worker with the small or the large text.
func writeOp(st runState, id, tool string) (*op, error) {
	size := smallSize
	if id == rowWriteLarge {
		size = largeSize
	}
	content := textOfSize(size, "written")
	paths := make([]string, st.workers)
	for w := range paths {
		paths[w] = filepath.Join(st.scratch, fmt.Sprintf("%s-%s-%d.txt", st.prefix, id, w))
		if err := os.WriteFile(paths[w], []byte("before\n"), 0o644); err != nil {
			return nil, err
		}
	}
	return &op{
		paths: paths,
		size:  size,
		Call:  fmt.Sprintf("`%s {path, content}`: %d bytes over an existing file", tool, size),
		Params: perWorker(st.workers, func(w int) []byte {
			return toolCall(tool, map[string]any{"path": paths[w], "content": content})
		}),
		Check: func(*toolResult) error {
			got, err := os.ReadFile(paths[0])
			if err != nil {
				return err
			}
			if string(got) != content {
				return fmt.Errorf("the file has %d bytes after the write, want %d", len(got), len(content))
			}
			return nil
		},
	}, nil
}

// editOp makes one replacement in a file of each worker, swapping markA
// and markB in turn.
func editOp(st runState, tool string) (*op, error) {
	paths := make([]string, st.workers)
	for w := range paths {
		paths[w] = filepath.Join(st.scratch, fmt.Sprintf("%s-edit-%d.txt", st.prefix, w))
		if err := os.WriteFile(paths[w], []byte(editText()), 0o644); err != nil {
			return nil, err
		}
	}
	edit := func(p, from, to string) []byte {
		return toolCall(tool, map[string]any{"path": p, "edits": []map[string]string{{"oldText": from, "newText": to}}})
	}
	forth, back := make([][]byte, st.workers), make([][]byte, st.workers)
	for w, p := range paths {
		forth[w], back[w] = edit(p, markA, markB), edit(p, markB, markA)
	}
	return &op{
		paths: paths,
		Call:  fmt.Sprintf("`%s {path, edits: [{oldText, newText}]}`: one line in %d KiB, written", tool, editSize>>10),
		Params: func(w, iter int) []byte {
			if iter%2 == 0 {
				return forth[w]
			}
			return back[w]
		},
		Check: func(*toolResult) error {
			got, err := os.ReadFile(paths[0])
			if err != nil {
				return err
			}
			if !strings.Contains(string(got), markB) || strings.Contains(string(got), markA) {
				return fmt.Errorf("%s: the edit did not replace %q with %q", paths[0], markA, markB)
			}
			return nil
		},
	}, nil
}

// listOp lists the directory of 1,000 files, file-0000.txt and on. Both
// servers' text has a line per file, which names it.
func listOp(fx *fixtures, tool string, extra map[string]any, what string) *op {
	args := map[string]any{"path": fx.ListDir}
	call := "{path}"
	for k, v := range extra {
		args[k] = v
		call = fmt.Sprintf("{path, %s: %v}", k, v)
	}
	return &op{
		Call:   fmt.Sprintf("`%s %s`: %s", tool, call, what),
		Params: fixed(toolCall(tool, args)),
		Check: func(r *toolResult) error {
			if n := strings.Count(r.text(), ".txt\n") + strings.Count(r.text(), ".txt  ("); n < listSize-1 {
				return fmt.Errorf("listed %d files, want %d", n, listSize)
			}
			return nil
		},
	}
}

// structuredCount checks that the structured result's array field has n
// elements.
func structuredCount(field string, n int) func(*toolResult) error {
	return func(r *toolResult) error {
		var s map[string]json.RawMessage
		if err := json.Unmarshal(r.StructuredContent, &s); err != nil {
			return fmt.Errorf("structured content: %w", err)
		}
		var items []json.RawMessage
		if err := json.Unmarshal(s[field], &items); err != nil {
			return fmt.Errorf("structured content: %s: %w", field, err)
		}
		if len(items) != n {
			return fmt.Errorf("%d %s, want %d", len(items), field, n)
		}
		return nil
	}
}

// textLinesWithSuffix checks that the text has n lines, each ending with
// suffix.
func textLinesWithSuffix(suffix string, n int) func(*toolResult) error {
	return func(r *toolResult) error {
		lines := strings.Split(strings.TrimSpace(r.text()), "\n")
		if len(lines) != n {
			return fmt.Errorf("%d lines, want %d", len(lines), n)
		}
		for _, l := range lines {
			if !strings.HasSuffix(l, suffix) {
				return fmt.Errorf("line %q does not end with %q", l, suffix)
			}
		}
		return nil
	}
}

// linesFrom checks that the text starts with n lines of the 1 GiB file
// from line first. The reference server drops the final newline of what
// it returns, so the last line may lack one.
func linesFrom(first, n int) func(*toolResult) error {
	return func(r *toolResult) error {
		var want bytes.Buffer
		for i := first; i < first+n; i++ {
			want.WriteString(bigLine(i))
		}
		got := r.text()
		w := want.String()
		if !strings.HasPrefix(got, w) && got != strings.TrimSuffix(w, "\n") {
			return fmt.Errorf("the text does not start with lines %d–%d; it starts with %.120q", first, first+n-1, got)
		}
		return nil
	}
}
