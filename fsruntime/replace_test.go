package fsruntime

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInUseDelays: a file in use is tried 10 times, the waits doubling
// from 5 ms and capped, all of them within half a second.
func TestInUseDelays(t *testing.T) {
	var waits []time.Duration
	var total time.Duration
	for try := 0; ; try++ {
		d, ok := inUseDelay(try)
		if !ok {
			break
		}
		if try > 100 {
			t.Fatal("inUseDelay never gives up")
		}
		waits = append(waits, d)
		total += d
	}
	want := "[5ms 10ms 20ms 40ms 80ms 80ms 80ms 80ms 80ms]"
	if got := fmt.Sprint(waits); got != want || total > 500*time.Millisecond {
		t.Errorf("waits %s (%v in all), want %s, within 500ms", waits, total, want)
	}
}

// TestRetryInUse: a rename refused because the file is in use is retried
// with inUseDelay's waits until it succeeds or the tries run out, then
// refused with ErrInUse; any other error ends it at once, and so does a
// done context.
func TestRetryInUse(t *testing.T) {
	inUse := &os.LinkError{Op: "rename", Old: "a.tmp", New: "a.txt", Err: errorSharingViolation}
	run := func(ctx context.Context, errs ...error) (calls int, waits []time.Duration, err error) {
		op := func() error {
			calls++
			if calls <= len(errs) {
				return errs[calls-1]
			}
			return errs[len(errs)-1]
		}
		wait := func(ctx context.Context, d time.Duration) error {
			waits = append(waits, d)
			return ctx.Err()
		}
		err = retryInUse(ctx, op, windowsInUse, wait)
		return
	}

	calls, waits, err := run(t.Context(), inUse, inUse, inUse, nil)
	if err != nil || calls != 4 || fmt.Sprint(waits) != "[5ms 10ms 20ms]" {
		t.Errorf("in use 3 times, then free: %d calls, waits %v, %v; want 4 calls, waits [5ms 10ms 20ms], success", calls, waits, err)
	}

	calls, waits, err = run(t.Context(), inUse)
	if !errors.Is(err, ErrInUse) || !errors.Is(err, fs.ErrPermission) || calls != 10 || len(waits) != 9 {
		t.Errorf("always in use: %d calls, %d waits, %v; want 10 calls, 9 waits, ErrInUse", calls, len(waits), err)
	}
	if msg := fmt.Sprint(err); !strings.Contains(msg, "in use by another process") || !strings.Contains(msg, "10 times over 475ms") {
		t.Errorf("always in use: the message %q does not say what happened", msg)
	}

	denied := &os.LinkError{Op: "rename", Old: "a.tmp", New: "a.txt", Err: errorAccessDenied}
	calls, _, err = run(t.Context(), denied)
	if errors.Is(err, ErrInUse) || !errors.Is(err, fs.ErrPermission) || calls != 10 {
		t.Errorf("always access denied: %d calls, %v; want 10 calls, a permission error that does not say in use", calls, err)
	}
	if msg := fmt.Sprint(err); strings.Contains(msg, "in use") || !strings.Contains(msg, "permission denied") {
		t.Errorf("always access denied: the message %q does not say a permission error", msg)
	}
	calls, _, err = run(t.Context(), denied, inUse, denied)
	if !errors.Is(err, ErrInUse) || calls != 10 {
		t.Errorf("access denied after a sharing violation: %d calls, %v; want 10 calls, ErrInUse", calls, err)
	}

	other := &os.LinkError{Op: "rename", Old: "a.tmp", New: "a.txt", Err: syscall.Errno(2)}
	if calls, waits, err = run(t.Context(), other); !errors.Is(err, syscall.Errno(2)) || calls != 1 || len(waits) != 0 {
		t.Errorf("another error: %d calls, %d waits, %v; want it returned at once", calls, len(waits), err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if calls, _, err = run(ctx, inUse); !errors.Is(err, context.Canceled) || calls != 1 {
		t.Errorf("done context: %d calls, %v; want 1 call and context.Canceled", calls, err)
	}
}

// TestWindowsInUse: sharing and lock violations and access denied, as
// Windows reports them from a rename, are a file in use; nothing else is.
func TestWindowsInUse(t *testing.T) {
	wrap := func(err error) error { return &os.LinkError{Op: "rename", Old: "a", New: "b", Err: err} }
	for _, c := range []struct {
		err  error
		want bool
	}{
		{wrap(syscall.Errno(32)), true}, // ERROR_SHARING_VIOLATION
		{wrap(syscall.Errno(33)), true}, // ERROR_LOCK_VIOLATION
		{wrap(syscall.Errno(5)), true},  // ERROR_ACCESS_DENIED
		{fmt.Errorf("during a write: %w", syscall.Errno(32)), true},
		{wrap(syscall.Errno(2)), false},  // ERROR_FILE_NOT_FOUND
		{wrap(syscall.Errno(80)), false}, // ERROR_FILE_EXISTS
		{errors.New("sharing violation"), false},
		{nil, false},
	} {
		if got := windowsInUse(c.err); got != c.want {
			t.Errorf("windowsInUse(%v) = %t, want %t", c.err, got, c.want)
		}
	}
}

// TestReplaceRulesWritable: where the rules refuse read-only files (as
// Windows's do), a regular file without write permission is refused with
// ErrReadOnly; other rules, and writable files, pass.
func TestReplaceRulesWritable(t *testing.T) {
	windows := replaceRules{refuseReadOnly: true}
	if err := windows.writable(node{exists: true, mode: 0o444}); !errors.Is(err, ErrReadOnly) || !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), "read-only attribute") {
		t.Errorf("read-only file under refusing rules: %v, want ErrReadOnly naming the attribute", err)
	}
	for _, c := range []struct {
		rules replaceRules
		mode  fs.FileMode
	}{
		{windows, 0o666},
		{windows, 0o200},
		{replaceRules{keepMode: true, syncDir: true}, 0o444},
	} {
		if err := c.rules.writable(node{exists: true, mode: c.mode}); err != nil {
			t.Errorf("%+v, mode %v: %v, want none", c.rules, c.mode, err)
		}
	}
}

// statNoLinks is a FileInfo whose stat carries no link count, as on
// Windows.
type statNoLinks struct{ fs.FileInfo }

func (statNoLinks) Sys() any { return nil }

// TestLinkCountFromOpenFile: where a stat carries no link count, a file's
// names are counted on the open file (as Windows must), both for a file
// already open and for one known by its stat alone.
func TestLinkCountFromOpenFile(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"one.txt", "two.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(dir, "two.txt"), filepath.Join(dir, "two-b.txt")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	d := &Disk{rules: hostRules()}
	for name, want := range map[string]error{"one.txt": nil, "two.txt": ErrHardLinked} {
		f, err := root.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		info, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := linkCount(statNoLinks{info}); ok {
			t.Fatal("linkCount counted without a stat")
		}
		if err := d.content(f, statNoLinks{info}); !errors.Is(err, want) {
			t.Errorf("%s open: %v, want %v", name, err, want)
		}
		if err := d.contentAt(root, name, statNoLinks{info}); !errors.Is(err, want) {
			t.Errorf("%s by its stat: %v, want %v", name, err, want)
		}
	}
	allowed := &Disk{hardLinks: true}
	if err := allowed.contentAt(root, "missing.txt", statNoLinks{mustStat(t, filepath.Join(dir, "two.txt"))}); err != nil {
		t.Errorf("hard links allowed: %v; nothing should be opened", err)
	}
}

func mustStat(t *testing.T, p string) fs.FileInfo {
	t.Helper()
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return info
}
