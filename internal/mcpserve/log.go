package mcpserve

import (
	"context"
	"log/slog"
)

// LowerInfo returns a slog handler that logs h's info records at debug
// level: mcp-go logs every request at info, too chatty for an info log.
func LowerInfo(h slog.Handler) slog.Handler { return lowerInfo{h} }

// lowerInfo is a slog handler that logs info records at debug level: mcp-go
// logs every request at info, which is too chatty for an info log.
type lowerInfo struct{ slog.Handler }

func (h lowerInfo) Enabled(ctx context.Context, l slog.Level) bool {
	return h.Handler.Enabled(ctx, lower(l))
}

func (h lowerInfo) Handle(ctx context.Context, r slog.Record) error {
	r.Level = lower(r.Level)
	return h.Handler.Handle(ctx, r)
}

func (h lowerInfo) WithAttrs(as []slog.Attr) slog.Handler { return lowerInfo{h.Handler.WithAttrs(as)} }
func (h lowerInfo) WithGroup(name string) slog.Handler    { return lowerInfo{h.Handler.WithGroup(name)} }

func lower(l slog.Level) slog.Level {
	if l == slog.LevelInfo {
		return slog.LevelDebug
	}
	return l
}
