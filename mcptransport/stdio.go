package mcptransport

import (
	"context"
	"io"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// DrainTimeout bounds how long [ServeStdio] waits, at the end of its input,
// for the responses to requests in flight.
const DrainTimeout = 30 * time.Second

// ServeStdio serves srv to one MCP client on in and out, newline-delimited
// JSON-RPC, until in ends or ctx is done; neither is an error. out carries
// nothing but protocol messages.
//
// A client may write its requests and close its end at once: at the end
// of in, ServeStdio answers every request read (or cancelled by the
// client) before it returns, for at most [DrainTimeout]; then it cancels
// those still in flight.
//
// Requests are handled concurrently, notifications in order, and a
// notification queued while handling a request is written before that
// request's response. The server may ask the client for its roots. A
// malformed line is logged and skipped; a line over 64 MiB is skipped as it
// streams past, and a request it held is answered with an error. When ctx
// ends, ServeStdio returns without waiting for a read from in to finish.
//
// Unlike mcp-go's own stdio server, which keeps one process-wide session,
// several ServeStdio calls may run at once.
func ServeStdio(ctx context.Context, srv *server.MCPServer, in io.Reader, out io.Writer, opts Options) error {
	err := serveConn(ctx, srv, in, out, connOptions{Options: opts, roots: true, drain: DrainTimeout})
	if ctx.Err() != nil {
		return nil // cancelled from outside: a normal way to stop
	}
	return err
}
