// Command agent is a whole small ACP agent that gives each of its sessions
// the mcp-acpfs file tools, embedding package bridge: the example of
// docs/embedding.md. Its "model" is a script: the text of each prompt is a
// JSON list of tool calls, which the agent makes in order and answers with
// their results as one agent_message_chunk.
//
//	agent [-mcp in-process|http|stdio] [-editor-timeout 30s]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/sourcegraph/jsonrpc2"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
)

func main() {
	ctx := context.Background()
	// A stdio MCP server entry runs this binary again as its relay.
	if relayed, err := bridge.RelayFromEnv(ctx); relayed {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	mode := flag.String("mcp", "in-process", "how the model reaches the tools: in-process, http or stdio")
	timeout := flag.Duration("editor-timeout", 0, "how long a tool call waits for the editor (0: the bridge's default)")
	flag.Parse()
	run(ctx, stdio{os.Stdin, os.Stdout}, *mode, *timeout)
}

// stdio is the agent's connection to the editor.
type stdio struct {
	io.Reader
	io.WriteCloser
}

// run serves one editor connection until the editor closes it.
func run(ctx context.Context, conn io.ReadWriteCloser, mode string, timeout time.Duration) {
	// The bridge first, then the connection whose handler uses it: a
	// request that arrives at once finds everything in place.
	b := bridge.NewBridge(nil, bridge.BridgeOptions{EditorTimeout: timeout})
	a := &agent{bridge: b, mode: mode, sessions: map[string]*session{}}
	c := jsonrpc2.NewConn(ctx, bridge.NewObjectStream(conn, nil), jsonrpc2.AsyncHandler(jsonrpc2.HandlerWithError(a.handle)))
	b.Attach(c)
	<-c.DisconnectNotify()
	// ACP v1 ends every session with the connection.
	a.mu.Lock()
	for id, s := range a.sessions {
		s.close()
		delete(a.sessions, id)
	}
	a.mu.Unlock()
	b.Close()
}

type agent struct {
	bridge *bridge.Bridge
	mode   string // in-process, http or stdio

	mu       sync.Mutex
	next     int
	sessions map[string]*session
}

// session is one ACP session: its tools and the model's MCP client.
type session struct {
	tools  *bridge.Session
	mcp    *client.Client
	mu     sync.Mutex
	cancel context.CancelFunc // ends the prompt turn under way
}

func (s *session) close() {
	s.stopTurn()
	s.mcp.Close()
	s.tools.Close()
}

func (s *session) stopTurn() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
}

func (a *agent) handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	var params json.RawMessage
	if req.Params != nil {
		params = *req.Params
	}
	switch req.Method {
	case "initialize":
		a.bridge.Initialize(params) // what the editor advertised: fs
		result := map[string]any{
			"protocolVersion": 1,
			"agentCapabilities": map[string]any{
				"mcpCapabilities":     map[string]any{"http": a.mode == "http"},
				"sessionCapabilities": map[string]any{"close": map[string]any{}},
			},
			"agentInfo": map[string]any{"name": "example-agent", "version": "1.0.0"},
		}
		raw, _ := json.Marshal(result)
		a.bridge.InitializeAgent(raw) // what we advertise: mcpCapabilities
		return result, nil
	case "session/new":
		return a.newSession(ctx, params)
	case "session/prompt":
		return a.prompt(ctx, conn, params)
	case "session/cancel":
		if s := a.session(params); s != nil {
			s.stopTurn()
		}
		return nil, nil
	case "session/close":
		s := a.session(params)
		if s == nil {
			return nil, &jsonrpc2.Error{Code: -32002, Message: "no such session"}
		}
		a.mu.Lock()
		delete(a.sessions, s.tools.ID())
		a.mu.Unlock()
		s.close()
		return map[string]any{}, nil
	}
	if req.Notif {
		return nil, nil
	}
	return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "method not found: " + req.Method}
}

func (a *agent) newSession(ctx context.Context, params json.RawMessage) (any, error) {
	p, err := bridge.ParseSessionParams(params)
	if err != nil {
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: err.Error()}
	}
	a.mu.Lock()
	a.next++
	p.SessionID = "sess_" + strconv.Itoa(a.next) // we mint the id: no Bind
	a.mu.Unlock()
	tools, err := a.bridge.OpenSession(p)
	if err != nil {
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: err.Error()}
	}
	var init mcp.InitializeRequest
	init.Params.ClientInfo = mcp.Implementation{Name: "example-agent", Version: "1.0.0"}
	var c *client.Client
	if a.mode == "in-process" {
		c, err = client.NewInProcessClient(tools.MCPServer())
		if err == nil {
			err = c.Start(ctx)
		}
		if err == nil {
			init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
			_, err = c.Initialize(ctx, init)
		}
	} else {
		var entry bridge.MCPServerEntry
		if entry, err = tools.ServerEntry(); err == nil {
			c, err = bridge.StartClient(ctx, entry, init)
		}
	}
	if err != nil {
		if c != nil {
			c.Close()
		}
		tools.Close()
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: "the session's MCP client: " + err.Error()}
	}
	a.mu.Lock()
	a.sessions[p.SessionID] = &session{tools: tools, mcp: c}
	a.mu.Unlock()
	return map[string]any{"sessionId": p.SessionID}, nil
}

func (a *agent) session(params json.RawMessage) *session {
	var p struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(params, &p)
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[p.SessionID]
}

// toolResult is what the agent reports of one tool call.
type toolResult struct {
	Text    string `json:"text"`
	IsError bool   `json:"isError"`
}

func (a *agent) prompt(ctx context.Context, conn *jsonrpc2.Conn, params json.RawMessage) (any, error) {
	var p struct {
		SessionID string `json:"sessionId"`
		Prompt    []struct {
			Text string `json:"text"`
		} `json:"prompt"`
	}
	s := a.session(params)
	if json.Unmarshal(params, &p) != nil || s == nil || len(p.Prompt) == 0 {
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: "want the prompt of an open session"}
	}
	var calls []mcp.CallToolParams // the "model": a script of tool calls
	if err := json.Unmarshal([]byte(p.Prompt[0].Text), &calls); err != nil {
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: "the prompt is not a JSON list of tool calls: " + err.Error()}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	s.cancel = cancel // session/cancel ends the turn, and the tool call under way
	s.mu.Unlock()
	var results []toolResult
	for _, call := range calls {
		res, err := s.mcp.CallTool(ctx, mcp.CallToolRequest{Params: call})
		switch {
		case ctx.Err() != nil:
			return map[string]any{"stopReason": "cancelled"}, nil
		case err != nil:
			results = append(results, toolResult{Text: err.Error(), IsError: true})
		default:
			text := ""
			for _, c := range res.Content {
				if t, ok := c.(mcp.TextContent); ok {
					text += t.Text
				}
			}
			results = append(results, toolResult{Text: text, IsError: res.IsError})
		}
	}
	report, _ := json.Marshal(results)
	conn.Notify(ctx, "session/update", map[string]any{
		"sessionId": p.SessionID,
		"update": map[string]any{
			"sessionUpdate": "agent_message_chunk",
			"content":       map[string]any{"type": "text", "text": string(report)},
		},
	})
	return map[string]any{"stopReason": "end_turn"}, nil
}
