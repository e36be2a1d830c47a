package bridge

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strings"
)

// RelayFromEnv runs [Relay] between os.Stdin and os.Stdout if this
// process was started as a stdio entry's relay command, that is if
// EnvRelaySocket or EnvRelaySecret is set in its environment, and reports
// whether it was. A Go agent whose binary is its own relay command (the
// default [BridgeOptions.RelayCommand]: this executable with the argument
// "relay") calls it first thing in main:
//
//	if relayed, err := bridge.RelayFromEnv(ctx); relayed {
//		if err != nil {
//			fmt.Fprintln(os.Stderr, err)
//			os.Exit(1)
//		}
//		return
//	}
func RelayFromEnv(ctx context.Context) (relayed bool, err error) {
	endpoint, secret := os.Getenv(EnvRelaySocket), os.Getenv(EnvRelaySecret)
	if endpoint == "" && secret == "" {
		return false, nil
	}
	return true, Relay(ctx, os.Stdin, os.Stdout, endpoint, secret)
}

// Relay is the stdio side of a stdio entry: it connects to the bridge's
// relay endpoint, presents the session's secret, and then copies MCP
// messages between stdin and stdout and the connection until either side
// ends. mcp-acpfs relay runs it with the endpoint and secret from the
// environment (EnvRelaySocket and EnvRelaySecret); a Go agent that embeds
// the bridge can run it from its own binary. The endpoint is a unix
// socket's path, or RelayTCPPrefix and a loopback host:port.
func Relay(ctx context.Context, stdin io.Reader, stdout io.Writer, endpoint, secret string) error {
	if endpoint == "" || secret == "" {
		return fmt.Errorf("relay: %s and %s must be set", EnvRelaySocket, EnvRelaySecret)
	}
	network, addr := "unix", endpoint
	if hostport, ok := strings.CutPrefix(endpoint, RelayTCPPrefix); ok {
		// The secret goes to this address: only to this machine.
		if ap, err := netip.ParseAddrPort(hostport); err != nil || !ap.Addr().IsLoopback() {
			return fmt.Errorf("relay: %s=%q: want %s and a loopback IP address and port, such as %s127.0.0.1:9000", EnvRelaySocket, endpoint, RelayTCPPrefix, RelayTCPPrefix)
		}
		network, addr = "tcp", hostport
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return fmt.Errorf("relay: connect to mcp-acpfs: %w", err)
	}
	conn := c.(interface {
		net.Conn
		CloseWrite() error
	})
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if _, err := io.WriteString(conn, secret+"\n"); err != nil {
		return fmt.Errorf("relay: %w", err)
	}
	br := bufio.NewReader(conn)
	ack, err := br.ReadString('\n')
	if err != nil {
		return fmt.Errorf("relay: mcp-acpfs closed the connection: %w", err)
	}
	if ack = strings.TrimSpace(ack); ack != "ok" {
		return fmt.Errorf("relay: mcp-acpfs refused the connection: %s", strings.TrimPrefix(ack, "error: "))
	}
	up := make(chan error, 1)
	go func() {
		_, err := io.Copy(conn, stdin)
		conn.CloseWrite() // the server answers what it has, then closes
		up <- err
	}()
	_, err = io.Copy(stdout, br)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("relay: %w", err)
	}
	select {
	case err := <-up:
		if err != nil && !errors.Is(err, net.ErrClosed) {
			return fmt.Errorf("relay: read stdin: %w", err)
		}
	default:
		// The server closed first; stdin may stay open, as on a terminal.
	}
	return nil
}
