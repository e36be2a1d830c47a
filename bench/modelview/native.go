package main

import (
	"fmt"
	"strings"
)

// The hosts' own tools, to compare with. Figures not computed here are
// /work/shared/reference/model-view.md's, measured 2026-11-28.

// The sizes of Claude Code 2.1.83's own tool definitions as it sends them
// to the model (model-view.md, "What the tool definitions cost").
const (
	claudeReadDef         = 2569
	claudeWriteDef        = 1051
	claudeEditDef         = 1753
	claudeNotebookEditDef = 1555
	claudeGlobDef         = 1149
	claudeGrepDef         = 3401

	// claudeReplacedDefs are the definitions of the tools that
	// mcp-acpfs proxy turns off in claude-agent-acp when the editor serves
	// reads and writes (docs/proxy.md, "What the model sees": Read, Write,
	// Edit, MultiEdit and NotebookEdit; 2.1.83 has no MultiEdit).
	claudeReplacedDefs = claudeReadDef + claudeWriteDef + claudeEditDef + claudeNotebookEditDef
)

// claudeRead is the text of Claude Code's Read of a file holding text:
// each line numbered cat -n style, the number right-aligned in 6 columns,
// then "→", then the line, the lines joined by "\n" (model-view.md, "Line
// numbers"). The reference measured 520 bytes for a 134-byte file, more
// than the numbering accounts for (9 bytes a line would need about 43
// lines): Read adds something per call that the reference does not
// describe, so this undercounts Read.
func claudeRead(text string) string {
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%6d→%s", i+1, strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r"))
	}
	return b.String()
}

// geminiReadFile is the text of gemini-cli's read_file of a whole file
// under its 2,000-line page: the text without its final newline (133 bytes
// for the reference's 134-byte file).
func geminiReadFile(text string) string { return strings.TrimSuffix(text, "\n") }
