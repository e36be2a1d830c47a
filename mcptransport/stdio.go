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
// JSON-RPC, until in ends or ctx is done (neither is an error); out carries
// nothing but protocol messages. At the end of in, the requests read are
// answered first, for at most [DrainTimeout]. Requests run concurrently,
// notifications in order, a notification queued by a request's handler
// goes before its response, and the server may ask the client's roots. A
// bad or overlong line is skipped, a request it held answered. Unlike
// mcp-go's stdio server, several may run at once.
func ServeStdio(ctx context.Context, srv *server.MCPServer, in io.Reader, out io.Writer, opts Options) error {
	err := serveConn(ctx, srv, in, out, connOptions{Options: opts, roots: true, drain: DrainTimeout})
	if ctx.Err() != nil {
		return nil // cancelled from outside: a normal way to stop
	}
	return err
}
