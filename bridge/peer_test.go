package bridge_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// peerHelloEnv names the relay socket a run of this binary connects to, to
// present the secret in peerSecretEnv and print the bridge's answer.
const (
	peerHelloEnv  = "MCP_ACPFS_TEST_PEER_HELLO"
	peerSecretEnv = "MCP_ACPFS_TEST_PEER_SECRET"
)

func TestMain(m *testing.M) {
	if sock := os.Getenv(peerHelloEnv); sock != "" {
		os.Exit(runPeerHello(sock))
	}
	os.Exit(m.Run())
}

// runPeerHello is this binary run as another user's relay.
func runPeerHello(socket string) int {
	conn, err := net.Dial("unix", socket)
	if err != nil {
		fmt.Println("dial:", err)
		return 1
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(endpointHangGuard))
	io.WriteString(conn, os.Getenv(peerSecretEnv)+"\n")
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		fmt.Println("read:", err)
		return 1
	}
	fmt.Print(line)
	return 0
}
