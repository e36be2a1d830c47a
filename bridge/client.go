package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// StartClient returns an mcp-go client of the MCP server that entry
// describes, started and initialized with init: for an http entry, a
// Streamable HTTP client that sends the entry's headers; for a stdio entry
// ("" or "stdio"), the entry's command run with its environment added to
// this process's. If init leaves the protocol version empty, it is
// mcp.LATEST_LEGACY_PROTOCOL_VERSION. An "acp" entry has no client here:
// it is served over the ACP connection. The caller closes the client,
// which ends a stdio entry's process.
//
// A stdio entry whose command does not answer as an MCP server (a relay
// command that does not run [RelayFromEnv]) fails with an error that
// says so.
func StartClient(ctx context.Context, entry MCPServerEntry, init mcp.InitializeRequest) (*client.Client, error) {
	var c *client.Client
	switch entry.Type {
	case "http":
		headers := make(map[string]string, len(entry.Headers))
		for _, h := range entry.Headers {
			headers[h.Name] = h.Value
		}
		t, err := transport.NewStreamableHTTP(entry.URL, transport.WithHTTPHeaders(headers))
		if err != nil {
			return nil, fmt.Errorf("MCP client of %s (http %s): %w", entry.Name, entry.URL, err)
		}
		c = client.NewClient(t)
		if err := c.Start(ctx); err != nil {
			return nil, fmt.Errorf("start the MCP client of %s (http %s): %w", entry.Name, entry.URL, err)
		}
	case "", "stdio":
		env := make([]string, len(entry.Env))
		for i, e := range entry.Env {
			env[i] = e.Name + "=" + e.Value
		}
		var err error
		c, err = client.NewStdioMCPClient(entry.Command, env, entry.Args...)
		if err != nil {
			return nil, fmt.Errorf("start the MCP server of %s (command %s): %w", entry.Name, entry.Command, err)
		}
	case "acp":
		return nil, fmt.Errorf("MCP client of %s: an acp entry is served over the ACP connection, not by an mcp-go client", entry.Name)
	default:
		return nil, fmt.Errorf("MCP client of %s: unknown entry type %q (want http, stdio or \"\")", entry.Name, entry.Type)
	}
	if init.Params.ProtocolVersion == "" {
		init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	}
	if _, err := c.Initialize(ctx, init); err != nil {
		c.Close()
		if entry.Type == "http" {
			return nil, fmt.Errorf("initialize the MCP server of %s (http %s): %w", entry.Name, entry.URL, err)
		}
		return nil, relayError(entry, err)
	}
	return c, nil
}

// relayError explains why a stdio entry's command failed MCP initialize.
func relayError(entry MCPServerEntry, err error) error {
	argv := strings.Join(append([]string{entry.Command}, entry.Args...), " ")
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	if errors.As(err, &typeErr) || errors.As(err, &syntaxErr) || strings.Contains(err.Error(), "cannot unmarshal") {
		// An answer came, but not an MCP one: the agent itself, say.
		return fmt.Errorf("the stdio entry %s runs `%s`, which does not speak the relay protocol: its answer to MCP initialize is not MCP "+
			"(does that program's main call bridge.RelayFromEnv first? is BridgeOptions.RelayCommand right?): %w", entry.Name, argv, err)
	}
	return fmt.Errorf("the stdio entry %s runs `%s`, which did not answer MCP initialize (a relay command must call bridge.RelayFromEnv first; its stderr may say more): %w", entry.Name, argv, err)
}
