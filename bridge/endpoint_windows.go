package bridge

import (
	"errors"
	"fmt"
	"net"
	"os"

	"golang.org/x/sys/windows"
)

// On Windows the relay socket is an AF_UNIX socket too (Windows 10 1803
// and later; before, relays connect over loopback TCP), not a named pipe:
// the relay and the bridge then share one code path on every system, with
// the standard library's net package, where a named pipe would need a
// library or hand-written overlapped I/O. A process
// may connect to such a socket only with write access to its file, so the
// boundary is the file's access list, inherited from privateDir, and the
// session's secret. Windows has no peer user id to check.

// privateDir makes a new directory for the relay socket, in the user's
// temporary directory, and gives it a protected access list that grants
// this user, and no one else, full access to it and to what it holds: the
// socket's file inherits it.
func privateDir() (string, error) {
	dir, err := os.MkdirTemp("", "mcp-acpfs-")
	if err != nil {
		return "", err
	}
	if err := ownerOnly(dir); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("restrict %s to this user: %w", dir, err)
	}
	return dir, nil
}

// ownerOnly replaces dir's access list with one entry, inherited by
// files and directories (OICI), that grants the current user full access
// (FA); P protects it from the parent's entries.
func ownerOnly(dir string) error {
	user, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return err
	}
	sd, err := windows.SecurityDescriptorFromString("D:P(A;OICI;FA;;;" + user.User.Sid.String() + ")")
	if err != nil {
		return err
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return err
	}
	return windows.SetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, dacl, nil)
}

// checkPeer accepts every peer: Windows does not give an AF_UNIX socket's
// peer user. Only this user can reach the socket (privateDir), and the
// peer must still present a session's secret.
func checkPeer(*net.UnixConn) error { return nil }

// noUnixSockets reports whether err says that the system has no unix
// sockets: WSAEAFNOSUPPORT, as Windows before 10 1803, and Wine, answer.
func noUnixSockets(err error) bool { return errors.Is(err, windows.WSAEAFNOSUPPORT) }
