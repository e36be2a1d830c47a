package mcpfs

import (
	"log/slog"

	"github.com/mcp-acpfs/mcp-acpfs/internal/lift"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpserve"
)

// liftedArguments are the string arguments a transport may lift out of a
// call, by tool; their handlers put them back with lift.Unlift.
var liftedArguments = lift.Arguments{
	WriteTextFile: {{"content"}},
	EditTextFile:  {{"edits", "[]", "oldText"}, {"edits", "[]", "newText"}},
}

// TransportOptions returns the options that serve a server of NewServer's
// for sess: the message limit of its file size limit, and lifting and
// plain calls on (the server's handlers put lifted arguments back, and
// its hooks and middleware do nothing for a plain call). A caller may
// turn either off; the answers stay the same.
func TransportOptions(sess Files, logger *slog.Logger) mcpserve.Options {
	return mcpserve.Options{
		Logger:     logger,
		MaxMessage: mcpserve.MessageLimit(sess.MaxFileSize),
		Lift:       liftedArguments,
		PlainCalls: true,
	}
}
