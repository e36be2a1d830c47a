package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
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

// A Signal wakes the goroutines that wait for a condition each time
// something it depends on changes: waiting on it replaces polling.
type Signal struct {
	mu sync.Mutex
	ch chan struct{} // closed by the next Raise
}

// Raise wakes every waiter, to check its condition again.
func (s *Signal) Raise() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch != nil {
		close(s.ch)
		s.ch = nil
	}
}

// next returns a channel that the next Raise closes.
func (s *Signal) next() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch == nil {
		s.ch = make(chan struct{})
	}
	return s.ch
}

// HangGuard bounds how long a broken test waits for an event.
const HangGuard = time.Minute

// Wait waits until cond holds, checking it once now and again each time s
// is raised, and reports whether it did within HangGuard.
func (s *Signal) Wait(cond func() bool) bool {
	guard := time.NewTimer(HangGuard)
	defer guard.Stop()
	for {
		raised := s.next()
		if cond() {
			return true
		}
		select {
		case <-raised:
		case <-guard.C:
			return false
		}
	}
}

// WaitFor is Wait on the test's goroutine, failing the test if cond never
// holds.
func (s *Signal) WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	if !s.Wait(cond) {
		t.Fatalf("timed out waiting until %s", what)
	}
}

// SyncBuffer is a bytes.Buffer safe for concurrent use, for logs.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Initialize starts c and initializes it at version, checking that the
// server agreed to it.
func Initialize(t testing.TB, c *client.Client, version string) {
	t.Helper()
	ctx := t.Context()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var req mcp.InitializeRequest
	req.Params.ProtocolVersion = version
	req.Params.ClientInfo = mcp.Implementation{Name: "mcp-acpfs-test", Version: "0"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize at %s: %v", version, err)
	}
	if got := c.ProtocolVersion(); got != version {
		t.Fatalf("negotiated protocol version %q, want %q", got, version)
	}
}

// WantSameJSON fails the test unless got and want are the same JSON value.
func WantSameJSON(t testing.TB, what string, got, want []byte) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%.150s: not JSON: %v\n%.300s", what, err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("%.150s: the reference is not JSON: %v\n%.300s", what, err, want)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("%.150s:\n got: %.400s\nwant: %.400s", what, got, want)
	}
}
