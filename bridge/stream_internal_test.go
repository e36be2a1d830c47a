package bridge

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// blockingFS is an FS whose reads wait for their context to end, and
// report that they saw it end.
type blockingFS struct {
	nopFS
	started   chan struct{}
	cancelled chan error
}

func (f blockingFS) ReadTextFile(ctx context.Context, path string, _, _ int) (string, error) {
	f.started <- struct{}{}
	<-ctx.Done()
	f.cancelled <- ctx.Err()
	return "", ctx.Err()
}

// At the end of the input, a request still in flight after the drain
// timeout is cancelled, with a warning, and serveConn returns.
func TestServeConnCancelsAfterTheDrainTimeout(t *testing.T) {
	fsys := blockingFS{started: make(chan struct{}, 1), cancelled: make(chan error, 1)}
	srv, err := NewServer(Files{WorkDir: "/w", FS: fsys}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	in, toServer := io.Pipe()
	var logs syncBuf
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	var out syncBuf
	done := make(chan error, 1)
	go func() {
		done <- serveConn(context.Background(), srv, in, &out, connOptions{logger: logger, drain: 50 * time.Millisecond})
	}()
	io.WriteString(toServer, strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"a.txt"}}}`,
	}, "\n")+"\n")
	<-fsys.started
	toServer.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serveConn: %v", err)
		}
	case <-time.After(time.Minute): // a hang guard
		t.Fatal("serveConn did not return after the drain timeout")
	}
	if err := <-fsys.cancelled; !errors.Is(err, context.Canceled) {
		t.Errorf("the read in flight ended with %v, want it cancelled", err)
	}
	if !strings.Contains(logs.String(), "requests still in flight are cancelled") {
		t.Errorf("no warning logged:\n%s", logs.String())
	}
	if !strings.Contains(out.String(), `"id":1,"result"`) {
		t.Errorf("the initialize response is missing:\n%s", out.String())
	}
}

// syncBuf is a strings.Builder safe for concurrent use.
type syncBuf struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *syncBuf) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuf) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
