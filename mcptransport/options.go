package mcptransport

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpserve"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
)

// Options configure how a transport serves an MCP server: see the fields.
type Options = mcpserve.Options

// loggerOf returns opts's logger, or one that discards.
func loggerOf(opts Options) *slog.Logger {
	if opts.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return opts.Logger
}

// maxMessageOf returns opts's message limit or its default.
func maxMessageOf(opts Options) int {
	if opts.MaxMessage <= 0 {
		return wire.DefaultMaxLineSize
	}
	return opts.MaxMessage
}

// DefaultHandshakeTimeout bounds how long [NewHTTPHandler] waits for a
// request's body.
const DefaultHandshakeTimeout = 10 * time.Second

// BodyTimeout gives a request d from when its handling starts to send its
// whole body, by setting the connection's read deadline: a body that stalls
// fails its reads, and the server drops the connection. net/http clears
// the deadline once the body has been read to its end (it then watches the
// connection for a close), so a response streamed after it, such as
// text/event-stream, is not cut.
func BodyTimeout(next http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			// A ResponseWriter that cannot set it (a test's recorder)
			// has no connection to stall.
			_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(d))
		}
		next.ServeHTTP(w, r)
	})
}
