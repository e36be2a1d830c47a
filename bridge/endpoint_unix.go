//go:build unix

package bridge

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
)

// privateDir makes a new directory for the relay socket that only this
// user can enter: mode 0700.
func privateDir() (string, error) {
	dir, err := os.MkdirTemp("", "mcp-acpfs-")
	if err != nil {
		return "", err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// checkPeer refuses a relay connection from a process of another user, as
// the system tells it (peerUID).
func checkPeer(conn *net.UnixConn) error {
	uid, err := peerUID(conn)
	if err != nil {
		return fmt.Errorf("the peer's user is unknown: %w", err)
	}
	if uid != os.Getuid() {
		return errors.New("the peer is another user")
	}
	return nil
}

// noUnixSockets reports whether err says that the system has no unix
// sockets.
func noUnixSockets(err error) bool { return errors.Is(err, syscall.EAFNOSUPPORT) }
