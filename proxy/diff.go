package proxy

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

// Diffs of the calls that write.
//
// An agent that reports a call of an MCP tool knows nothing of what it will
// change: claude-agent-acp and codex-acp send no content, where their own
// Edit and Write (or apply_patch) send a diff that the editor shows in the
// permission prompt and the thread. So to a report of a call of
// write_text_file or edit_text_file that carries no content (a tool_call or
// tool_call_update session/update, or the toolCall of
// session/request_permission), the follower adds
// [{"type": "diff", "path", "oldText", "newText"}]: oldText is the file's
// text as the session's tools read it (the editor's buffer, unsaved changes
// included, on the editor route; null for a file the call creates), and
// newText that text with the call applied as the tool applies it
// (mcpfs.DryRun). A call that would fail, or that changes nothing, gets
// none. A report of a call that has completed or failed gets none either:
// the file has changed by then. (codex-acp reports a call as it starts it,
// so its read may race the call's own write and find nothing to show; its
// permission request, which comes first, gets the diff.)
//
// The read is done in line, on the proxy's reader of the agent, so that no
// message of the agent's is held back or reordered: the report, and every
// message after it, waits for the read. That is one fs/read_text_file
// round trip to the editor (a read of a buffer in memory: about a
// millisecond, measured with the fake editor of the tests), or a disk
// read. It cannot deadlock: the editor's answer comes in on the proxy's
// other reader, which never waits for this one, and nothing the proxy
// writes blocks (its outboxes queue). An editor that does not answer holds
// the agent's messages up for diffTimeout at most; then the read is
// cancelled ($/cancel_request) and the report goes on without a diff. The
// diff of a call is made once, and reused for the later reports of the
// same call with the same arguments.

// diffTimeout bounds the read a diff needs.
var diffTimeout = 2 * time.Second

// maxDiffText bounds the oldText and newText of a diff together. Above
// it, the diff has only the lines that change, with diffContext lines
// around them (as claude-agent-acp's own diffs are of the replaced text
// only); if they are still above it, there is no diff.
const (
	maxDiffText = 256 << 10
	diffContext = 3
)

// A madeDiff is the diff content made for a call, and the arguments it was
// made from.
type madeDiff struct {
	args    string
	content json.RawMessage // nil: none could be made
}

// diff returns the content of a report of a call of tool with args in
// session: a diff of what it would change, or nil. key names the call.
func (f *follower) diff(key, session, tool string, args map[string]any) json.RawMessage {
	if (tool != mcpfs.WriteTextFile && tool != mcpfs.EditTextFile) || f.fsys == nil {
		return nil
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil
	}
	if d, ok := f.diffs[key]; ok && d.args == string(raw) {
		return d.content
	}
	fsys := f.fsys(session)
	cwd := ""
	if f.cwd != nil {
		cwd = f.cwd(session)
	}
	if fsys == nil || cwd == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), diffTimeout)
	defer cancel()
	start := time.Now()
	c, err := mcpfs.DryRun(ctx, fsys, cwd, tool, raw)
	var content json.RawMessage
	if err != nil {
		f.log.Debug("no diff for a call", "tool", tool, "session", session, "error", err, "took", time.Since(start))
	} else {
		content = diffContent(c)
		f.log.Debug("a diff for a call", "tool", tool, "session", session, "path", c.Path, "took", time.Since(start))
	}
	if len(f.diffs) >= maxSeen {
		clear(f.diffs)
	}
	f.diffs[key] = madeDiff{args: string(raw), content: content}
	return content
}

// diffContent returns the ACP tool call content that shows c, or nil when
// c changes nothing or is too large to show.
func diffContent(c mcpfs.Change) json.RawMessage {
	if c.Old == c.New && !c.Created {
		return nil
	}
	old, updated := c.Old, c.New
	if len(old)+len(updated) > maxDiffText {
		old, updated = changedLines(old, updated, diffContext)
		if len(old)+len(updated) > maxDiffText {
			return nil
		}
	}
	d := map[string]any{"type": "diff", "path": c.Path, "oldText": old, "newText": updated}
	if c.Created {
		d["oldText"] = nil
	}
	out, err := json.Marshal([]any{d})
	if err != nil {
		return nil
	}
	return out
}

// changedLines returns the lines of a and b that differ, with up to n
// lines around them that do not: a and b less the lines they start and
// end with in common.
func changedLines(a, b string, n int) (string, string) {
	// The common prefix, back to the start of a line, then n lines more.
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	p = strings.LastIndexByte(a[:p], '\n') + 1
	for range n {
		if p == 0 {
			break
		}
		p = strings.LastIndexByte(a[:p-1], '\n') + 1
	}
	a, b = a[p:], b[p:]
	// The common suffix, forward to the start of a line, then n lines
	// more.
	s := 0
	for s < len(a) && s < len(b) && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	start := len(a) - s
	nextLine := func() {
		if nl := strings.IndexByte(a[start:], '\n'); nl >= 0 {
			start += nl + 1
		} else {
			start = len(a)
		}
	}
	if start > 0 && a[start-1] != '\n' {
		nextLine()
	}
	for range n {
		nextLine()
	}
	cut := len(a) - start
	return a[:start], b[:len(b)-cut]
}
