package bridge_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
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
	if os.Getenv(notRelayEnv) != "" {
		os.Exit(runNotRelay())
	}
	// This binary is the relay command of TestStartClient.
	if relayed, err := bridge.RelayFromEnv(context.Background()); relayed {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// notRelayEnv makes a run of this binary an ACP agent that does not relay:
// it answers the first request as ACP initialize.
const notRelayEnv = "MCP_ACPFS_TEST_NOT_RELAY"

func runNotRelay() int {
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		return 1
	}
	fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":1,"agentCapabilities":{}}}`+"\n", req.ID)
	io.Copy(io.Discard, os.Stdin)
	return 0
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
