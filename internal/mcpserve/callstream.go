package mcpserve

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
)

// A CallStream is the response stream of one request over Streamable
// HTTP, which the server may send a roots/list request on ahead of its
// response: how a handler reaches a client that keeps no standalone
// stream.
type CallStream interface {
	ListRoots(ctx context.Context, session string) (*mcp.ListRootsResult, error)
}

type callStreamKey struct{}

// WithCallStream returns ctx carrying s, for the handlers of its request.
func WithCallStream(ctx context.Context, s CallStream) context.Context {
	return context.WithValue(ctx, callStreamKey{}, s)
}

// CallStreamFrom returns the call stream of the request of ctx, or nil.
func CallStreamFrom(ctx context.Context) CallStream {
	s, _ := ctx.Value(callStreamKey{}).(CallStream)
	return s
}
