package bridge

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-acpfs/mcp-acpfs/bridge/wire"
)

// ServeStream serves srv to one MCP client over rwc, newline-delimited
// JSON-RPC as on stdio, until the client closes its side or ctx ends. Any
// number of streams may be served at once, each as its own MCP session
// (mcp-go's own stdio server keeps a single global session, which is why
// this exists). Requests are handled concurrently; notifications, such as
// notifications/cancelled, in order. A notification the server queues
// while handling a request is written before that request's response.
// A malformed line is logged and skipped.
func ServeStream(ctx context.Context, srv *server.MCPServer, rwc io.ReadWriteCloser, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	sess := newStreamSession()
	if err := srv.RegisterSession(ctx, sess); err != nil {
		return err
	}
	defer srv.UnregisterSession(context.WithoutCancel(ctx), sess.id)
	ctx, cancel := context.WithCancel(srv.WithContext(ctx, sess))
	defer cancel()
	stop := context.AfterFunc(ctx, func() { rwc.Close() }) // unblocks the reader
	defer stop()

	responses := make(chan []byte)
	writeErr := make(chan error, 1)
	go func() { writeErr <- writeStream(ctx, wire.NewWriter(rwc), sess.notifications, responses) }()

	var handlers sync.WaitGroup
	r := wire.NewReader(rwc, wire.ReaderOptions{Logger: logger, Label: "mcp client"})
	var readErr error
	for {
		m, err := r.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				readErr = err
			}
			break
		}
		switch m.Kind() {
		case wire.KindRequest:
			handlers.Go(func() {
				resp := srv.HandleMessage(ctx, json.RawMessage(m.Raw))
				if resp == nil {
					return
				}
				line, err := json.Marshal(resp)
				if err != nil {
					logger.Error("encode MCP response", "error", err)
					return
				}
				select {
				case responses <- line:
				case <-ctx.Done():
				}
			})
		case wire.KindNotification:
			srv.HandleMessage(ctx, json.RawMessage(m.Raw))
		default:
			// A response: this server sends the client no requests.
			logger.Debug("dropping an MCP response to no request", "id", string(m.ID))
		}
	}
	// The client has finished sending; let what it asked for be answered.
	handlers.Wait()
	cancel()
	if err := <-writeErr; err != nil && !errors.Is(err, context.Canceled) && readErr == nil {
		readErr = err
	}
	rwc.Close()
	return readErr
}

// writeStream writes notifications and responses in order, draining the
// queued notifications before each response, until ctx ends.
func writeStream(ctx context.Context, w *wire.Writer, notes <-chan mcp.JSONRPCNotification, responses <-chan []byte) error {
	writeNote := func(n mcp.JSONRPCNotification) error {
		line, err := json.Marshal(n)
		if err != nil {
			return nil // nothing to send
		}
		return w.Write(line)
	}
	for {
		select {
		case n := <-notes:
			if err := writeNote(n); err != nil {
				return err
			}
		case line := <-responses:
			for drained := false; !drained; {
				select {
				case n := <-notes:
					if err := writeNote(n); err != nil {
						return err
					}
				default:
					drained = true
				}
			}
			if err := w.Write(line); err != nil {
				return err
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// streamSession is the mcp-go session of one stream.
type streamSession struct {
	id            string
	notifications chan mcp.JSONRPCNotification
	initialized   atomic.Bool
	logLevel      atomic.Value // mcp.LoggingLevel

	mu         sync.Mutex
	clientInfo mcp.Implementation
	clientCaps mcp.ClientCapabilities
}

var (
	_ server.SessionWithLogging    = (*streamSession)(nil)
	_ server.SessionWithClientInfo = (*streamSession)(nil)
)

func newStreamSession() *streamSession {
	var b [12]byte
	rand.Read(b[:])
	return &streamSession{id: "stream-" + hex.EncodeToString(b[:]), notifications: make(chan mcp.JSONRPCNotification, 100)}
}

func (s *streamSession) SessionID() string { return s.id }
func (s *streamSession) NotificationChannel() chan<- mcp.JSONRPCNotification {
	return s.notifications
}
func (s *streamSession) Initialize()       { s.initialized.Store(true) }
func (s *streamSession) Initialized() bool { return s.initialized.Load() }
func (s *streamSession) SetLogLevel(l mcp.LoggingLevel) {
	s.logLevel.Store(l)
}
func (s *streamSession) GetLogLevel() mcp.LoggingLevel {
	if l, ok := s.logLevel.Load().(mcp.LoggingLevel); ok {
		return l
	}
	return mcp.LoggingLevelError
}
func (s *streamSession) GetClientInfo() mcp.Implementation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clientInfo
}
func (s *streamSession) SetClientInfo(i mcp.Implementation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clientInfo = i
}
func (s *streamSession) GetClientCapabilities() mcp.ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clientCaps
}
func (s *streamSession) SetClientCapabilities(c mcp.ClientCapabilities) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clientCaps = c
}
