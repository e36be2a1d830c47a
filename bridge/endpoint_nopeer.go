//go:build unix && !linux && !darwin && !freebsd

package bridge

import (
	"errors"
	"fmt"
	"net"
)

// peerUID cannot tell the user of the process at the other end of conn on
// this system (OpenBSD, NetBSD, DragonFly, Solaris, illumos, AIX): the
// bridge reads it only through SO_PEERCRED (Linux) and LOCAL_PEERCRED
// (macOS, FreeBSD). So checkPeer refuses every relay connection here,
// and the relay cannot be used; the build is kept, not supported.
func peerUID(*net.UnixConn) (int, error) {
	return -1, fmt.Errorf("reading a socket peer's user is not implemented on this system: %w", errors.ErrUnsupported)
}
