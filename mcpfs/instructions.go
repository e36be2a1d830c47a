package mcpfs

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
)

// instructionFiles are the names of the files that hold an agent's
// instructions for a directory: Claude Code's, the AGENTS.md convention's
// (Codex and others) and gemini-cli's.
var instructionFiles = []string{"AGENTS.md", "CLAUDE.md", "GEMINI.md"}

// instructionNote returns the note that tells the session of ctx about
// the instruction files in dir that it has not read, the first time one of
// its results enters dir; "" otherwise. The files are looked for with
// fsys's Stat (the disk, within the roots). The working directory is left
// out, as agents load its instruction files themselves, and so is a call
// without a session.
func (b *binding) instructionNote(ctx context.Context, fsys fsruntime.FS, dir string) string {
	l := b.ledger(ctx)
	if l == nil || dir == b.sess.WorkDir {
		return ""
	}
	sfs, ok := fsys.(fsruntime.StatFS)
	if !ok || !l.firstVisit(dir) {
		return ""
	}
	var unread []string
	for _, name := range instructionFiles {
		p := filepath.Join(dir, name)
		if _, read := l.seen(p); read {
			continue
		}
		if info, err := sfs.Stat(ctx, p); err == nil && (info.Type == fsruntime.TypeFile || info.Type == fsruntime.TypeSymlink) {
			unread = append(unread, p)
		}
	}
	switch len(unread) {
	case 0:
		return ""
	case 1:
		return "Note: " + unread[0] + " holds instructions for this directory; read it before changing files here."
	}
	return "Note: " + strings.Join(unread[:len(unread)-1], ", ") + " and " + unread[len(unread)-1] +
		" hold instructions for this directory; read them before changing files here."
}

// withNote appends note, if any, to res as a text block of its own.
func withNote(res *mcp.CallToolResult, note string) *mcp.CallToolResult {
	if note != "" && res != nil {
		res.Content = append(res.Content, mcp.NewTextContent(note))
	}
	return res
}

// firstVisit reports whether dir is new to the session's notes, and marks
// it visited.
func (l *ledger) firstVisit(dir string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.dirs.get(dir); ok {
		return false
	}
	l.dirs.put(dir, struct{}{})
	return true
}
