package mcpserve

import (
	"context"
	"sync/atomic"
)

// rpcFix is the code and data that the error of a request must carry.
type rpcFix struct {
	code int
	data any
}

// An ErrorSlot holds the fix of one request's error.
type ErrorSlot struct{ fix atomic.Pointer[rpcFix] }

// Code returns the code reported into s, if one was.
func (s *ErrorSlot) Code() (int, bool) {
	if fix := s.fix.Load(); fix != nil {
		return fix.code, true
	}
	return 0, false
}

type ErrorSlotKey struct{}

// WithErrorSlot returns ctx with a new slot for the fix of its error.
func WithErrorSlot(ctx context.Context) (context.Context, *ErrorSlot) {
	s := &ErrorSlot{}
	return context.WithValue(ctx, ErrorSlotKey{}, s), s
}

// ReportError records, for the request of ctx, that its error err must
// carry code and data; it returns err.
func ReportError(ctx context.Context, code int, data any, err error) error {
	if s, ok := ctx.Value(ErrorSlotKey{}).(*ErrorSlot); ok {
		s.fix.Store(&rpcFix{code: code, data: data})
	}
	return err
}
