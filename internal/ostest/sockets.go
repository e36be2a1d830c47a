package ostest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
)

// errNoAFUnix is the error Windows gives for a socket of an address family
// it does not have: WSAEAFNOSUPPORT.
const errNoAFUnix = syscall.Errno(10047)

// ErrNoUnixSockets is wrapped by UnixSocketsErr's error where the system
// has no unix sockets (AF_UNIX): Windows before 10 1803, and Wine, answer
// WSAEAFNOSUPPORT.
var ErrNoUnixSockets = errors.New("this system has no unix sockets (AF_UNIX)")

// UnixSocketsErr reports why no unix socket can be listened on here, or
// nil if one can: found once, by listening on one in a new directory. Its
// error wraps ErrNoUnixSockets where the system has none; any other says
// that the probe failed.
func UnixSocketsErr() error { return unixSocketsErr() }

var unixSocketsErr = sync.OnceValue(func() error {
	dir, err := os.MkdirTemp("", "acpfs-probe-") // short: a socket path is at most 108 bytes
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ln, err := net.Listen("unix", filepath.Join(dir, "probe.sock"))
	if runtime.GOOS == "windows" && errors.Is(err, errNoAFUnix) {
		return fmt.Errorf("%w: %w", ErrNoUnixSockets, err)
	}
	if err != nil {
		return err
	}
	return ln.Close()
})

// NoUnixSockets returns UnixSocketsErr() where it says that the system
// has no unix sockets (ErrNoUnixSockets), or nil where it has them, for a
// test that goes on without them; any other error fails the test.
func NoUnixSockets(tb testing.TB) error {
	tb.Helper()
	err := UnixSocketsErr()
	if err != nil && !errors.Is(err, ErrNoUnixSockets) {
		tb.Fatalf("listen on a unix socket: %v", err)
	}
	return err
}

// NeedUnixSockets skips the test, saying why, where the system has no unix
// sockets, as NoUnixSockets.
func NeedUnixSockets(tb testing.TB) {
	tb.Helper()
	if err := NoUnixSockets(tb); err != nil {
		tb.Skipf("this needs unix sockets (Windows has them from 10 1803 on, and Wine has none): %v", err)
	}
}
