package bridge

import (
	"io"
	"log/slog"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
)

// NewObjectStream returns a jsonrpc2.ObjectStream for ACP's
// newline-delimited JSON-RPC on rwc, the codec of mcp-acpfs's own hops:
// unlike jsonrpc2.NewPlainObjectStream it skips a malformed line, logged
// to logger (nil: slog.Default()), instead of closing the connection, and
// carries request ids of any JSON type.
func NewObjectStream(rwc io.ReadWriteCloser, logger *slog.Logger) jsonrpc2.ObjectStream {
	return wire.NewObjectStream(rwc, wire.ReaderOptions{Logger: logger, Label: "peer"})
}
