// Package mcptest has the helpers that the tests of the MCP packages
// share: fake file systems, test texts, and raw tool call lines.
package mcptest

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
)

// NopFS is an FS that fails every call.
type NopFS struct{}

func (NopFS) ReadTextFile(context.Context, string, int, int) (string, error) {
	return "", errors.New("NopFS: not implemented")
}

func (NopFS) WriteTextFile(context.Context, string, string) error {
	return errors.New("NopFS: not implemented")
}

// HardText is text of n bytes or more with everything JSON must escape or
// may get wrong: quotes, backslashes (also before a quote), control
// characters, U+2028, non-ASCII and a placeholder-like prefix.
func HardText(n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString("line \"quoted\" \\\" back\\slash\\\\ tab\t nul\x00 bell\x07 \u2028 é 😀 mcp-acpfs-lifted- <&>\n")
	}
	return b.String()
}

// CallLine returns a tools/call request line, id 7, calling tool with args
// (and a progress token, so that it is no plain call).
func CallLine(t testing.TB, tool string, args map[string]any) []byte {
	t.Helper()
	line, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": 7, "method": "tools/call",
		"params": map[string]any{"_meta": map[string]any{"progressToken": "p"}, "arguments": args, "name": tool},
	})
	if err != nil {
		t.Fatal(err)
	}
	return line
}

// LongRun reports whether MCP_ACPFS_LONG asks for the full-size runs of
// the slow suites.
func LongRun() bool {
	long, _ := strconv.ParseBool(os.Getenv("MCP_ACPFS_LONG"))
	return long
}
