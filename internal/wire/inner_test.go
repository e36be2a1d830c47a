package wire

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// TestEnvScanFindsTheInnerRequest checks that the scan reports the MCP
// request an mcp/message request carries (its server and request ids, its
// method, the tool of a tools/call), wherever the members stand, however
// the pieces cut the line, and only for such a request.
func TestEnvScanFindsTheInnerRequest(t *testing.T) {
	for _, tt := range []struct {
		line string
		want *InnerRequest
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"mcp/message","params":{"serverId":"s","requestId":"r","method":"tools/call","params":{"name":"write_text_file","arguments":{"content":"x\"}"}}}}`,
			&InnerRequest{ServerID: "s", RequestID: "r", Method: "tools/call", Tool: "write_text_file"}},
		{`{"params":{"params":{"arguments":{"name":"no"},"name":"w\u0072ite","_meta":{}},"method":"tools/call","requestId":"r\"1","serverId":"acpfs-1"},"method":"mcp/message","id":"a"}`,
			&InnerRequest{ServerID: "acpfs-1", RequestID: `r"1`, Method: "tools/call", Tool: "write"}},
		{`{"id":1,"method":"mcp/message","params":{"serverId":"s","requestId":"r","method":"resources/read","params":{"name":"x"}}}`,
			&InnerRequest{ServerID: "s", RequestID: "r", Method: "resources/read"}},
		{`{"id":1,"method":"mcp/message","params":{"serverId":"s","requestId":"r","method":"tools/call"}}`,
			&InnerRequest{ServerID: "s", RequestID: "r", Method: "tools/call"}},
		// Not reported.
		{`{"id":1,"method":"tools/call","params":{"serverId":"s","requestId":"r","method":"m"}}`, nil},
		{`{"method":"mcp/message","params":{"serverId":"s","requestId":"r","method":"m"}}`, nil},
		{`{"id":1,"method":"mcp/message","params":{"serverId":"s","requestId":7,"method":"m"}}`, nil},
		{`{"id":1,"method":"mcp/message","params":{"serverId":"s","method":"m"}}`, nil},
		{`{"id":1,"method":"mcp/message","params":{"serverId":"s","serverId":"t","requestId":"r","method":"m"}}`, nil},
		{`{"id":1,"method":"mcp/message","params":{"serverId":"s","requestId":"r","method":"m"}`, nil},
	} {
		line := []byte(tt.line)
		for i := range len(line) + 1 {
			for j := i; j <= len(line); j++ {
				var s envScan
				s.reset()
				s.feed(line[:i])
				s.feed(line[i:j])
				s.feed(line[j:])
				got := s.innerRequest()
				if (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want {
					t.Fatalf("%s in pieces at %d, %d: %+v, want %+v", tt.line, i, j, got, tt.want)
				}
			}
		}
	}
}

// An overlong mcp/message that a Reader discards says what it carried.
func TestReaderReportsTheInnerRequestOfAnOverlongLine(t *testing.T) {
	line := `{"jsonrpc":"2.0","id":9,"method":"mcp/message","params":{"serverId":"s","requestId":"r","method":"tools/call","params":{"name":"write_text_file","arguments":{"content":"` +
		strings.Repeat("x", 4096) + `"}}}}` + "\n"
	r := NewReader(bytes.NewReader([]byte(line)), ReaderOptions{MaxLineSize: 1024, Logger: slog.New(slog.DiscardHandler)})
	_, err := r.Next()
	over, ok := err.(*OverlongError)
	if !ok {
		t.Fatalf("Next: %v", err)
	}
	if over.Inner == nil || *over.Inner != (InnerRequest{ServerID: "s", RequestID: "r", Method: "tools/call", Tool: "write_text_file"}) || over.Tool != "" {
		t.Errorf("Inner %+v, Tool %q", over.Inner, over.Tool)
	}
}
