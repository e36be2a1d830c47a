package bridge

import (
	"context"
	"io"

	"github.com/mcp-acpfs/mcp-acpfs/mcptransport"
)

// ServeStream serves the session's MCP server to one client over rwc, as
// a relay connection is served ([mcptransport.ServeStream], with the
// session's transport options), until the client closes its side, ctx
// ends or the session is closed.
func (s *Session) ServeStream(ctx context.Context, rwc io.ReadWriteCloser) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(s.ctx, cancel)
	defer stop()
	return mcptransport.ServeStream(ctx, s.mcp, rwc, s.transport)
}
