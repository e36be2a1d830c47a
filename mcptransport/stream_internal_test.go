package mcptransport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcp-acpfs/mcp-acpfs/internal/mcptest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

// blockingFS is an FS whose reads wait for their context to end, and
// report that they saw it end.
type blockingFS struct {
	mcptest.NopFS
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
// timeout is cancelled, with a warning, and serveConn returns. In a
// synctest bubble: the drain timeout passes once everything waits for it.
func TestServeConnCancelsAfterTheDrainTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fsys := blockingFS{started: make(chan struct{}, 1), cancelled: make(chan error, 1)}
		files := mcpfs.Files{WorkDir: ostest.HostPath("/w"), FS: fsys}
		srv, err := mcpfs.NewServer(files, mcpfs.Options{Tools: structuredTools})
		if err != nil {
			t.Fatal(err)
		}
		in, toServer := io.Pipe()
		var logs mcptest.SyncBuffer
		logger := slog.New(slog.NewTextHandler(&logs, nil))
		var out mcptest.SyncBuffer
		done := make(chan error, 1)
		const drain = time.Minute
		start := time.Now()
		go func() {
			done <- serveConn(t.Context(), srv, in, &out, connOptions{Options: mcpfs.TransportOptions(files, logger), drain: drain})
		}()
		io.WriteString(toServer, strings.Join([]string{
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"a.txt"}}}`,
		}, "\n")+"\n")
		<-fsys.started
		toServer.Close()
		if err := <-done; err != nil {
			t.Errorf("serveConn: %v", err)
		}
		if waited := time.Since(start); waited != drain {
			t.Errorf("serveConn returned after %v, want the drain timeout, %v", waited, drain)
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
	})
}

// memFS is an FS in memory.
type memFS struct {
	mu    sync.Mutex
	files map[string]string
}

func (f *memFS) ReadTextFile(_ context.Context, path string, _, _ int) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	text, ok := f.files[path]
	if !ok {
		return "", fs.ErrNotExist
	}
	return text, nil
}

func (f *memFS) WriteTextFile(_ context.Context, path, text string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files[path] = text
	return nil
}

// Many large reads and writes in flight at once on one connection each
// get their own text: a write's content is decoded over its own request's
// bytes, and a read's text is quoted into a buffer that is reused only
// after its response is written.
func TestServeConnLargeTextsInFlight(t *testing.T) {
	const n = 24
	work := ostest.HostPath("/w")
	fsys := &memFS{files: map[string]string{}}
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("text %d\n", i) + mcptest.HardText(40<<10+i*999)
		fsys.files[filepath.Join(work, fmt.Sprintf("r%d.txt", i))] = texts[i]
	}
	files := mcpfs.Files{WorkDir: work, FS: fsys}
	srv, err := mcpfs.NewServer(files, mcpfs.Options{Tools: structuredTools})
	if err != nil {
		t.Fatal(err)
	}
	in, toServer := io.Pipe()
	fromServer, out := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- serveConn(context.Background(), srv, in, out, connOptions{Options: mcpfs.TransportOptions(files, nil)})
		out.Close()
	}()
	go func() {
		io.WriteString(toServer, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`+"\n"+
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
		for i := range n {
			read, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1 + 2*i, "method": "tools/call",
				"params": map[string]any{"name": mcpfs.ReadTextFile, "arguments": map[string]any{"path": fmt.Sprintf("r%d.txt", i)}}})
			write := mcptest.CallLine(t, mcpfs.WriteTextFile, map[string]any{"path": fmt.Sprintf("w%d.txt", i), "content": texts[n-1-i]})
			write = bytes.Replace(write, []byte(`"id":7`), fmt.Appendf(nil, `"id":%d`, 2+2*i), 1)
			toServer.Write(append(append(read, '\n'), append(write, '\n')...))
		}
		toServer.Close()
	}()
	sc := bufio.NewScanner(fromServer)
	sc.Buffer(nil, 8<<20)
	seen := 0
	for sc.Scan() {
		var resp struct {
			ID     int `json:"id"`
			Result struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
				IsError bool `json:"isError"`
			} `json:"result"`
		}
		if err := json.Unmarshal(sc.Bytes(), &resp); err != nil {
			t.Fatalf("a response is not JSON: %v: %.200s", err, sc.Bytes())
		}
		if resp.ID == 0 {
			continue
		}
		seen++
		i := (resp.ID - 1) / 2
		switch {
		case resp.Result.IsError || len(resp.Result.Content) == 0:
			t.Errorf("call %d failed: %.200s", resp.ID, sc.Bytes())
		case resp.ID%2 == 1 && resp.Result.Content[0].Text != texts[i]:
			t.Errorf("read %d got %d bytes starting %.20q, want its own %d", i, len(resp.Result.Content[0].Text), resp.Result.Content[0].Text, len(texts[i]))
		}
	}
	if err := <-done; err != nil || seen != 2*n {
		t.Fatalf("serveConn: %v after %d of %d responses", err, seen, 2*n)
	}
	for i := range n {
		if got := fsys.files[filepath.Join(work, fmt.Sprintf("w%d.txt", i))]; got != texts[n-1-i] {
			t.Errorf("write %d stored %d bytes, want its own %d", i, len(got), len(texts[n-1-i]))
		}
	}
}
