package bridge

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
)

// Relay is the stdio side of a stdio entry: it connects to the bridge's
// relay socket, presents the session's secret, and then copies MCP
// messages between stdin and stdout and the socket until either side ends.
// mcp-acpfs relay runs it with the socket and secret from the environment
// (EnvRelaySocket and EnvRelaySecret); a Go agent that embeds the bridge
// can run it from its own binary.
func Relay(ctx context.Context, stdin io.Reader, stdout io.Writer, socket, secret string) error {
	if socket == "" || secret == "" {
		return fmt.Errorf("relay: %s and %s must be set", EnvRelaySocket, EnvRelaySecret)
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return fmt.Errorf("relay: connect to mcp-acpfs: %w", err)
	}
	conn := c.(*net.UnixConn)
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
