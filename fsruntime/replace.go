package fsruntime

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// Errors of a write that the platform's rename refuses. Each matches
// fs.ErrPermission.
var (
	// ErrInUse: another process holds the file open or locked, and the
	// write could not replace it (Windows) even after retrying briefly.
	ErrInUse = &sentinel{"the file is in use by another process", fs.ErrPermission}
	// ErrReadOnly: the file's read-only attribute is set (Windows), which
	// a rename over it would not honour.
	ErrReadOnly = &sentinel{"the file is read-only", fs.ErrPermission}
)

// replaceRules is what a platform's rename over a file can keep, and how
// it fails. hostRules gives the running platform's; a Disk holds a copy,
// so a test can run another platform's rules here.
type replaceRules struct {
	keepMode       bool // the new file gets the replaced file's permission bits
	syncDir        bool // the directory can be synced after the rename
	refuseReadOnly bool // a file without write permission is refused, not replaced
	// inUse reports whether a failed rename was refused because another
	// process holds the target, and so is worth retrying; nil: never.
	inUse func(error) bool
	// rename renames from to to in root; nil: root.Rename.
	rename func(root *os.Root, from, to string) error
}

// writable refuses to replace the file old, as the rules require.
func (r replaceRules) writable(old node) error {
	if r.refuseReadOnly && old.mode.IsRegular() && old.mode.Perm()&0o200 == 0 {
		return fmt.Errorf("%w: its read-only attribute is set; clear it to let the file be written", ErrReadOnly)
	}
	return nil
}

// place renames the temporary file tmp in root over name, retrying while
// the rules say that another process holds name (see retryInUse).
func (r replaceRules) place(ctx context.Context, root *os.Root, tmp, name string) error {
	rename := func() error { return root.Rename(tmp, name) }
	if r.rename != nil {
		rename = func() error { return r.rename(root, tmp, name) }
	}
	if r.inUse == nil {
		return rename()
	}
	return retryInUse(ctx, rename, r.inUse, sleepCtx)
}

// inUseDelay is how long to wait after the try'th (from 0) failed attempt
// on a file in use before the next, and false once there is no next:
// 10 tries over 475 ms in all, the waits doubling from 5 ms to 80 ms.
func inUseDelay(try int) (time.Duration, bool) {
	const tries = 10
	if try >= tries-1 {
		return 0, false
	}
	return min(5*time.Millisecond<<try, 80*time.Millisecond), true
}

// retryInUse calls op until it succeeds, fails for another reason than
// inUse's, or has been tried as often as inUseDelay allows, waiting with
// wait in between. Giving up, it returns an error wrapping ErrInUse, or
// only fs.ErrPermission if every refusal was an access denial, which an
// ACL that denies replacing the file gives too: only another refusal (a
// sharing or lock violation) shows that another process holds it. A done
// ctx ends the waits with its error.
func retryInUse(ctx context.Context, op func() error, inUse func(error) bool, wait func(context.Context, time.Duration) error) error {
	var waited time.Duration
	held := false
	for try := 0; ; try++ {
		err := op()
		if err == nil || !inUse(err) {
			return err
		}
		held = held || !errors.Is(err, errorAccessDenied)
		d, ok := inUseDelay(try)
		if !ok {
			return &inUseError{tries: try + 1, waited: waited, held: held, err: err}
		}
		if werr := wait(ctx, d); werr != nil {
			return werr
		}
		waited += d
	}
}

// sleepCtx waits for d, or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// inUseError is retryInUse's error once it gives up.
type inUseError struct {
	tries  int
	waited time.Duration
	held   bool  // a refusal showed another process holding the file
	err    error // the last attempt's
}

func (e *inUseError) Error() string {
	cause := e.err
	var errno syscall.Errno
	if errors.As(cause, &errno) {
		cause = errno
	}
	if !e.held {
		return fmt.Sprintf("%v (replacing the file was refused %d times over %v: %v); its permissions may not allow replacing it, or it is pending deletion or mapped into memory", fs.ErrPermission, e.tries, e.waited, cause)
	}
	return fmt.Sprintf("%v (replacing it failed %d times over %v: %v); close it there and try again", ErrInUse, e.tries, e.waited, cause)
}

func (e *inUseError) Unwrap() error {
	if !e.held {
		return fs.ErrPermission
	}
	return ErrInUse
}

// Windows's codes (winerror.h) for a file that another process holds: open
// without sharing its deletion, or locked.
const (
	errorAccessDenied     syscall.Errno = 5
	errorSharingViolation syscall.Errno = 32
	errorLockViolation    syscall.Errno = 33
)

// windowsInUse reports whether err is Windows's refusal of a rename over a
// file that another process holds. Access denied is among them: it is what
// a file pending deletion or mapped into memory gives; the read-only
// attribute, which gives it too, is refused before (writable). So does an
// ACL that denies replacing the file: if access denied was all a rename met,
// retryInUse reports a permission error rather than a file in use.
func windowsInUse(err error) bool {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return false
	}
	switch errno {
	case errorAccessDenied, errorSharingViolation, errorLockViolation:
		return true
	}
	return false
}
