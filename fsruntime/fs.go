package fsruntime

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// An FS reads and writes text files for an MCP tool call.
//
// Paths are absolute and clean (ACP requires absolute paths). line is
// 1-based, and 0 means 1; limit is a number of lines, and limit <= 0 means to
// the end of the file. Errors are *fs.PathError values; see the package
// documentation for what they wrap.
type FS interface {
	ReadTextFile(ctx context.Context, path string, line, limit int) (string, error)
	WriteTextFile(ctx context.Context, path, content string) error
}

// Sentinel errors of the runtime. Each wraps the io/fs sentinel closest to
// it, so errors.Is(err, fs.ErrPermission) also holds for ErrOutsideRoots.
var (
	// ErrOutsideRoots: the path does not fall inside any of the session's
	// roots, or a symlink on the way leads out of them.
	ErrOutsideRoots = &sentinel{"outside the allowed roots", fs.ErrPermission}
	// ErrBinary: the content is not UTF-8 text.
	ErrBinary = &sentinel{"binary or not UTF-8 text", fs.ErrInvalid}
	// ErrTooLarge: the content is over the configured size limit.
	ErrTooLarge = &sentinel{"too large", fs.ErrInvalid}
	// ErrPastEnd: the start line is past the end of the file.
	ErrPastEnd = &sentinel{"line is past the end of the file", fs.ErrInvalid}
	// ErrNotRegular: the path names a directory, FIFO, socket or device.
	ErrNotRegular = &sentinel{"not a regular file", fs.ErrInvalid}
)

// sentinel is an error that also matches a more general one.
type sentinel struct {
	msg  string
	base error
}

func (e *sentinel) Error() string { return e.msg }
func (e *sentinel) Unwrap() error { return e.base }

// OutsideRootsError reports a path outside every root. It matches
// [ErrOutsideRoots] and fs.ErrPermission.
type OutsideRootsError struct {
	Roots []string // the roots in force, for the message
}

func (e *OutsideRootsError) Error() string {
	if len(e.Roots) == 0 {
		return "outside the allowed roots (none are configured)"
	}
	return "outside the allowed roots (" + strings.Join(e.Roots, ", ") + ")"
}

func (e *OutsideRootsError) Unwrap() error { return ErrOutsideRoots }

// PastEndError reports a start line past the end of the file. It matches
// [ErrPastEnd] and fs.ErrInvalid.
type PastEndError struct {
	Line  int // the requested start line
	Lines int // how many lines the file has
}

func (e *PastEndError) Error() string {
	return fmt.Sprintf("line %d is past the end of the file (%d lines)", e.Line, e.Lines)
}

func (e *PastEndError) Unwrap() error { return ErrPastEnd }

// TooLargeError reports content over the size limit. It matches
// [ErrTooLarge] and fs.ErrInvalid.
type TooLargeError struct {
	Size  int64 // the size seen so far, or the whole size when known
	Limit int64
	Read  bool // true for a read, where a line range can still help
}

func (e *TooLargeError) Error() string {
	msg := fmt.Sprintf("content is too large (%s, the limit is %s)", FormatSize(e.Size), FormatSize(e.Limit))
	if e.Read {
		msg += "; read a range of it with line and limit"
	}
	return msg
}

func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// FormatSize renders a byte count for an error message.
func FormatSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// pathError wraps err for op and path, unless it already is a *fs.PathError
// for the same path.
func pathError(op, path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path {
		return err
	}
	return &fs.PathError{Op: op, Path: path, Err: err}
}
