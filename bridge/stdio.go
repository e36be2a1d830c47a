package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// DrainTimeout bounds how long [ServeStdio] waits, at the end of its input,
// for the responses to requests in flight.
const DrainTimeout = 30 * time.Second

// ServeStdio serves srv with mcp-go's stdio transport on in and out until in
// ends or ctx is done; the end of in is not an error. out carries nothing
// but protocol messages.
//
// mcp-go cancels the requests in flight when its input ends, so a client
// that writes its requests and closes its end at once would get
// "context canceled" for them. ServeStdio holds the end of in back until
// every request read has been answered on out (or cancelled by the client),
// for at most [DrainTimeout].
//
// mcp-go's stdio session is a process-wide singleton: serve one stdio
// connection per process at a time.
func ServeStdio(ctx context.Context, srv *server.MCPServer, in io.Reader, out io.Writer, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	d := &drain{pending: map[string]bool{}, changed: make(chan struct{})}
	stdio := server.NewStdioServer(srv)
	stdio.SetErrorLogger(slog.NewLogLogger(logger.Handler(), slog.LevelError))
	err := stdio.Listen(ctx,
		&drainReader{r: in, d: d, ctx: ctx, timeout: DrainTimeout, log: logger},
		&drainWriter{w: out, d: d})
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return nil // cancelled from outside: a normal way to stop
	}
	return err
}

// drain tracks the requests read from the client until their responses are
// written.
type drain struct {
	mu      sync.Mutex
	pending map[string]bool // JSON ids of requests in flight
	changed chan struct{}   // closed and replaced when pending shrinks
	in, out []byte          // partial lines
}

// envelope is what drain reads of a JSON-RPC message.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
}

// lines appends b to *buf and calls f with every complete line.
func lines(buf *[]byte, b []byte, f func(line []byte)) {
	*buf = append(*buf, b...)
	for {
		i := bytes.IndexByte(*buf, '\n')
		if i < 0 {
			break
		}
		f((*buf)[:i])
		*buf = (*buf)[i+1:]
	}
	if len(*buf) == 0 {
		*buf = nil // let a large message go
	}
}

// id returns the canonical text of a JSON-RPC id, "" for none.
func id(raw json.RawMessage) string {
	var b bytes.Buffer
	if len(raw) == 0 || json.Compact(&b, raw) != nil || b.String() == "null" {
		return ""
	}
	return b.String()
}

func (d *drain) read(b []byte) {
	d.mu.Lock()
	defer d.mu.Unlock()
	lines(&d.in, b, func(line []byte) {
		var m envelope
		if json.Unmarshal(line, &m) != nil {
			return
		}
		switch {
		case m.Method == string(mcp.MethodNotificationCancelled):
			d.doneLocked(id(m.Params.RequestID))
		case m.Method != "" && id(m.ID) != "":
			d.pending[id(m.ID)] = true
		}
	})
}

func (d *drain) wrote(b []byte) {
	d.mu.Lock()
	defer d.mu.Unlock()
	lines(&d.out, b, func(line []byte) {
		var m envelope
		if json.Unmarshal(line, &m) == nil && m.Method == "" {
			d.doneLocked(id(m.ID))
		}
	})
}

func (d *drain) doneLocked(id string) {
	if id == "" || !d.pending[id] {
		return
	}
	delete(d.pending, id)
	close(d.changed)
	d.changed = make(chan struct{})
}

// wait waits until no request is in flight, ctx is done, or timeout passes,
// and reports whether none is in flight.
func (d *drain) wait(ctx context.Context, timeout time.Duration) bool {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		d.mu.Lock()
		n, changed := len(d.pending), d.changed
		d.mu.Unlock()
		if n == 0 {
			return true
		}
		select {
		case <-changed:
		case <-t.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// drainReader is the input of the stdio transport: it notes the requests
// read, and holds the end of the input back until they are answered.
type drainReader struct {
	r       io.Reader
	d       *drain
	ctx     context.Context
	timeout time.Duration
	log     *slog.Logger
}

func (r *drainReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.d.read(p[:n])
	if err == io.EOF && !r.d.wait(r.ctx, r.timeout) && r.ctx.Err() == nil {
		r.log.Warn("the input ended; requests still in flight are cancelled", "timeout", r.timeout)
	}
	return n, err
}

// drainWriter is the output of the stdio transport: it notes the responses
// written. Writes are serialized, and each reaches w in one Write.
type drainWriter struct {
	mu sync.Mutex
	w  io.Writer
	d  *drain
}

func (w *drainWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.w.Write(p)
	w.d.wrote(p[:n])
	return n, err
}
