// Package mcpclient connects the mcp-go clients of the integration tests
// and of the test agent to an MCP server, by an ACP session's McpServer
// entry or as a client made elsewhere, and initializes them.
package mcpclient

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Entry is an ACP McpServer: of Type "http" (URL and Headers) or, if Type
// is "", a stdio server (Command, Args and Env).
type Entry struct {
	Type    string      `json:"type"`
	Name    string      `json:"name"`
	URL     string      `json:"url"`
	Headers []NameValue `json:"headers"`
	Command string      `json:"command"`
	Args    []string    `json:"args"`
	Env     []NameValue `json:"env"`
}

// NameValue is a header or an environment variable of an Entry.
type NameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Header returns the value of e's header name, "" if it has none.
func (e Entry) Header(name string) string { return value(e.Headers, name) }

// EnvValue returns the value of e's environment variable name, "" if it
// has none.
func (e Entry) EnvValue(name string) string { return value(e.Env, name) }

func value(list []NameValue, name string) string {
	for _, nv := range list {
		if nv.Name == name {
			return nv.Value
		}
	}
	return ""
}

// Hello is how a client introduces itself in initialize.
type Hello struct {
	// Name is the client's name ("mcp-acpfs-tests" if "").
	Name string
	// Version is the protocol version proposed; "" proposes mcp-go's
	// latest.
	Version string
	// Timeout bounds the wait for the answer; 0 means 20 seconds.
	Timeout time.Duration
}

// Start starts c for as long as ctx lasts and initializes it as h says.
func Start(ctx context.Context, c *client.Client, h Hello) (*mcp.InitializeResult, error) {
	if err := c.Start(ctx); err != nil {
		return nil, fmt.Errorf("start the client: %w", err)
	}
	var req mcp.InitializeRequest
	req.Params.ProtocolVersion = h.Version
	req.Params.ClientInfo = mcp.Implementation{Name: h.Name, Version: "1"}
	if req.Params.ClientInfo.Name == "" {
		req.Params.ClientInfo.Name = "mcp-acpfs-tests"
	}
	timeout := h.Timeout
	if timeout == 0 {
		timeout = 20 * time.Second
	}
	ictx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := c.Initialize(ictx, req)
	if err != nil {
		return nil, fmt.Errorf("initialize (protocol %q): %w", h.Version, err)
	}
	return res, nil
}

// Options configure [Connect].
type Options struct {
	Hello
	// Command makes the process of a stdio server from the entry's
	// command, args and env (as NAME=value); nil runs it with env added
	// to this process's environment.
	Command func(name string, args, env []string) *exec.Cmd
}

// Connect connects a client to the server e describes, starts it for as
// long as ctx lasts and initializes it. On an error, the client is closed.
func Connect(ctx context.Context, e Entry, opts Options) (*client.Client, error) {
	var c *client.Client
	var err error
	switch e.Type {
	case "http":
		headers := make(map[string]string)
		for _, h := range e.Headers {
			headers[h.Name] = h.Value
		}
		c, err = client.NewStreamableHttpClient(e.URL, transport.WithHTTPHeaders(headers))
	case "":
		var env []string
		for _, nv := range e.Env {
			env = append(env, nv.Name+"="+nv.Value)
		}
		command := opts.Command
		if command == nil {
			command = func(name string, args, env []string) *exec.Cmd {
				cmd := exec.Command(name, args...)
				cmd.Env = append(os.Environ(), env...)
				return cmd
			}
		}
		c, err = client.NewStdioMCPClientWithOptions(e.Command, env, e.Args,
			transport.WithCommandFunc(func(_ context.Context, name string, env, args []string) (*exec.Cmd, error) {
				return command(name, args, env), nil
			}))
	default:
		return nil, fmt.Errorf("MCP server %q has type %q", e.Name, e.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("connect to MCP server %q: %w", e.Name, err)
	}
	if _, err := Start(ctx, c, opts.Hello); err != nil {
		c.Close()
		return nil, fmt.Errorf("MCP server %q: %w", e.Name, err)
	}
	return c, nil
}
