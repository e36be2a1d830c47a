package fsruntimetest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
)

// A tester collects the problems found in an FS, as fstest's fsTester does.
type tester struct {
	ctx  context.Context
	fsys fsruntime.FS
	dir  string

	mu   sync.Mutex
	errs []error
}

func newTester(ctx context.Context, fsys fsruntime.FS, dir string) (*tester, error) {
	if err := checkArg("dir", dir); err != nil {
		return nil, err
	}
	return &tester{ctx: ctx, fsys: fsys, dir: dir}, nil
}

// checkArg checks that an argument of the kit is an absolute, clean path.
func checkArg(name, path string) error {
	if checkPath(path) != nil {
		return fmt.Errorf("runtimetest: %s %q must be an absolute, clean path", name, path)
	}
	return nil
}

// err returns the problems found, joined, or nil.
func (t *tester) err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return errors.Join(t.errs...)
}

// errorf records a problem found by check. It is safe for concurrent use.
func (t *tester) errorf(check, format string, args ...any) {
	err := errors.New(check + ": " + fmt.Sprintf(format, args...))
	t.mu.Lock()
	t.errs = append(t.errs, err)
	t.mu.Unlock()
}

// path joins elem to the test directory.
func (t *tester) path(elem ...string) string {
	return filepath.Join(append([]string{t.dir}, elem...)...)
}

// raw appends a slash-separated rel to the test directory without cleaning.
func (t *tester) raw(rel string) string {
	return t.dir + string(filepath.Separator) + filepath.FromSlash(rel)
}

func readCall(path string, line, limit int) string {
	return fmt.Sprintf("ReadTextFile(%q, line=%d, limit=%d)", path, line, limit)
}

func writeCall(path, content string) string {
	return fmt.Sprintf("WriteTextFile(%q, %s)", path, abbrev(content))
}

// write writes content to path and reports whether it succeeded.
func (t *tester) write(check, path, content string) bool {
	if err := t.fsys.WriteTextFile(t.ctx, path, content); err != nil {
		t.errorf(check, "%s: %v", writeCall(path, content), err)
		return false
	}
	return true
}

// read reads a range of path and compares it to want.
func (t *tester) read(check, path string, line, limit int, want string) {
	t.readCtx(t.ctx, check, path, line, limit, want)
}

func (t *tester) readCtx(ctx context.Context, check, path string, line, limit int, want string) {
	got, err := t.fsys.ReadTextFile(ctx, path, line, limit)
	call := readCall(path, line, limit)
	switch {
	case err != nil:
		t.errorf(check, "%s: %v; want %s", call, err, abbrev(want))
	case got != want:
		t.errorf(check, "%s = %s, want %s%s", call, abbrev(got), abbrev(want), diffAt(got, want))
	}
}

// An expect describes the errors a call may return.
type expect struct {
	desc  string
	match func(error) bool
}

// is expects an error matching every one of targets.
func is(targets ...error) expect {
	names := make([]string, len(targets))
	for i, target := range targets {
		names[i] = "errors.Is(err, " + errName(target) + ")"
	}
	return expect{
		desc: "an error with " + strings.Join(names, " and "),
		match: func(err error) bool {
			for _, target := range targets {
				if !errors.Is(err, target) {
					return false
				}
			}
			return true
		},
	}
}

// isAny expects an error matching at least one of targets.
func isAny(targets ...error) expect {
	names := make([]string, len(targets))
	for i, target := range targets {
		names[i] = "errors.Is(err, " + errName(target) + ")"
	}
	return expect{
		desc: "an error with " + strings.Join(names, " or "),
		match: func(err error) bool {
			for _, target := range targets {
				if errors.Is(err, target) {
					return true
				}
			}
			return false
		},
	}
}

// anyError expects an error of any kind.
var anyError = expect{desc: "an error", match: func(error) bool { return true }}

func errName(err error) string {
	switch err {
	case fs.ErrNotExist:
		return "fs.ErrNotExist"
	case fs.ErrPermission:
		return "fs.ErrPermission"
	case fs.ErrInvalid:
		return "fs.ErrInvalid"
	case fs.ErrExist:
		return "fs.ErrExist"
	case errors.ErrUnsupported:
		return "errors.ErrUnsupported"
	case context.Canceled:
		return "context.Canceled"
	case context.DeadlineExceeded:
		return "context.DeadlineExceeded"
	case fsruntime.ErrOutsideRoots:
		return "fsruntime.ErrOutsideRoots"
	case fsruntime.ErrBinary:
		return "fsruntime.ErrBinary"
	case fsruntime.ErrTooLarge:
		return "fsruntime.ErrTooLarge"
	case fsruntime.ErrPastEnd:
		return "fsruntime.ErrPastEnd"
	case fsruntime.ErrNotRegular:
		return "fsruntime.ErrNotRegular"
	}
	return strconv.Quote(err.Error())
}

// readErr expects a read of path to fail as e says, and returns the error.
func (t *tester) readErr(check, path string, line, limit int, e expect) error {
	return t.readErrCtx(t.ctx, check, path, line, limit, e)
}

func (t *tester) readErrCtx(ctx context.Context, check, path string, line, limit int, e expect) error {
	got, err := t.fsys.ReadTextFile(ctx, path, line, limit)
	call := readCall(path, line, limit)
	if err == nil {
		t.errorf(check, "%s = %s, want %s", call, abbrev(got), e.desc)
		return nil
	}
	t.checkErr(check, call, path, err, e)
	return err
}

// writeErr expects a write of content to path to fail as e says, and
// returns the error.
func (t *tester) writeErr(check, path, content string, e expect) error {
	return t.writeErrCtx(t.ctx, check, path, content, e)
}

func (t *tester) writeErrCtx(ctx context.Context, check, path, content string, e expect) error {
	err := t.fsys.WriteTextFile(ctx, path, content)
	call := writeCall(path, content)
	if err == nil {
		t.errorf(check, "%s succeeded, want %s", call, e.desc)
		return nil
	}
	t.checkErr(check, call, path, err, e)
	return err
}

// checkErr checks that err, returned by call, matches e and is a
// *fs.PathError naming path.
func (t *tester) checkErr(check, call, path string, err error, e expect) {
	if !e.match(err) {
		t.errorf(check, "%s: got error %q, want %s", call, err, e.desc)
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		t.errorf(check, "%s: error %q is a %T, want a *fs.PathError", call, err, err)
	} else if pe.Path != path {
		t.errorf(check, "%s: error %q is a *fs.PathError that names path %q, want %q", call, err, pe.Path, path)
	}
}

// readPastEnd expects a read starting past the end of a file of lines
// lines to fail with fsruntime.ErrPastEnd.
func (t *tester) readPastEnd(check, path string, line, limit, lines int) {
	err := t.readErr(check, path, line, limit, is(fsruntime.ErrPastEnd, fs.ErrInvalid))
	var pe *fsruntime.PastEndError
	if err == nil || !errors.As(err, &pe) {
		return // a bare ErrPastEnd is enough
	}
	if pe.Line != line || pe.Lines != lines {
		t.errorf(check, "%s: got *fsruntime.PastEndError{Line: %d, Lines: %d}, want {Line: %d, Lines: %d}",
			readCall(path, line, limit), pe.Line, pe.Lines, line, lines)
	}
}

// abbrev quotes s, shortened if it is long.
func abbrev(s string) string {
	const max = 48
	if len(s) <= max {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%q... (%d bytes)", s[:max], len(s))
}

// diffAt locates the first difference between two long strings.
func diffAt(got, want string) string {
	if len(got) <= 48 && len(want) <= 48 {
		return ""
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	return fmt.Sprintf(" (they differ from byte %d; got %d bytes, want %d)", i, len(got), len(want))
}
