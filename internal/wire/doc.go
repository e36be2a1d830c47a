// Package wire is the newline-delimited JSON-RPC 2.0 codec of the ACP
// hops (editor ↔ mcp-acpfs ↔ agent) and the MCP stream transport.
//
// On the wire every message is one compact JSON object on one line,
// terminated by "\n"; ACP forbids newlines inside a message and has no
// Content-Length headers. A [Reader] splits the input into lines and parses
// each line's envelope (id, method, params, result, error) into a
// [Message] that keeps the original bytes, so a proxy can forward a message
// verbatim and decode only what it needs. A malformed line is logged and
// skipped, and the stream goes on: one bad line from a peer never ends a
// session. Lines over a size limit are discarded without being buffered,
// and reported with what a bounded scan found of them ([OverlongError]),
// so that a request can still be answered and a call still fail.
// Batches (JSON arrays) are not supported and are skipped likewise.
//
// [SetID] and [Message.WithID] rewrite a message's top-level id by splicing
// bytes, which is what a proxy needs to multiplex ids without re-encoding
// large results.
// [Writer] writes lines atomically with respect to other goroutines and
// refuses a line that would break the framing. [ErrorResponse] and the
// Code constants build JSON-RPC error replies for the ACP edge.
//
// [ObjectStream] adapts all this to github.com/sourcegraph/jsonrpc2: unlike
// jsonrpc2.NewPlainObjectStream, whose decoder closes the whole connection
// on one bad line, it skips malformed lines, and it carries ids that
// jsonrpc2.ID cannot represent (negative, fractional, null) through
// jsonrpc2 by aliasing them.
package wire
