package proxy

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
	"github.com/mcp-acpfs/mcp-acpfs/capabilities"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
)

// protocol is what the proxy learned of the connection's version and the
// agent's MCP transports, and the transport it gives the sessions.
type protocol struct {
	want capabilities.Transport // --mcp-transport
	log  *slog.Logger

	mu         sync.Mutex
	version    int                     // the agent's protocolVersion; 0 until it answered
	transports capabilities.Transports // what the agent advertised
	err        error                   // a forced transport the agent does not take
}

func newProtocol(want capabilities.Transport, log *slog.Logger) *protocol {
	// Until the agent answers initialize, it is taken to speak version 1
	// and to take stdio only, as every version 1 agent does.
	return &protocol{want: want, log: log, transports: capabilities.Transports{Stdio: true}}
}

// editorInitialize returns the editor's initialize request with a
// protocolVersion newer than any known here lowered to the newest known,
// or nil to forward it unchanged.
func (pr *protocol) editorInitialize(m wire.Message) []byte {
	req, err := capabilities.ParseInitializeRequest(m.Params)
	if err != nil {
		return nil
	}
	v := capabilities.Negotiate(req.ProtocolVersion)
	if v == req.ProtocolVersion {
		return nil
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(m.Params, &params) != nil {
		return nil
	}
	params["protocolVersion"] = json.RawMessage(fmt.Sprint(v))
	line, err := replaceParams(m.Raw, params)
	if err != nil {
		return nil
	}
	pr.log.Info("the editor asked for a newer ACP version than this proxy speaks; asking the agent for the newest it speaks",
		"requested", req.ProtocolVersion, "asked", v)
	return line
}

// agentInitialized learns the connection's version and the agent's
// transports from the agent's initialize result, and checks the
// transport that --mcp-transport forces. A failure is returned, and
// kept for the session requests.
func (pr *protocol) agentInitialized(result json.RawMessage) error {
	res, _ := capabilities.ParseInitializeResponse(result)
	ts := res.Transports()
	pr.mu.Lock()
	defer pr.mu.Unlock()
	pr.version, pr.transports, pr.err = res.ProtocolVersion, ts, nil
	switch {
	case pr.version > capabilities.LatestProtocol:
		pr.log.Warn("the agent answered with an ACP version this proxy does not speak; the sessions get no file tools",
			"protocolVersion", pr.version)
		return nil
	case pr.want == capabilities.TransportAuto:
		if _, err := ts.Choose(capabilities.TransportAuto); err != nil {
			pr.log.Warn("the sessions get no file tools", "error", err)
		}
		return nil
	}
	if _, err := ts.Choose(pr.want); err != nil {
		pr.err = fmt.Errorf("--mcp-transport %s: %w", pr.want, err)
	}
	return pr.err
}

// failure is why session requests fail: a forced transport the agent
// does not take; nil if they do not.
func (pr *protocol) failure() error {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return pr.err
}

// v1 reports whether the connection speaks version 1 (or an earlier one,
// or the agent has not said yet): steering and tool call fill-in apply.
func (pr *protocol) v1() bool {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return pr.version < capabilities.ProtocolV2
}

// injects reports whether a session request of method gets the file
// tools' entry: in version 1, and in version 2 for the methods that carry
// mcpServers there.
func (pr *protocol) injects(method string) bool {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	switch {
	case pr.version < capabilities.ProtocolV2:
		return true
	case pr.version == capabilities.ProtocolV2:
		return method != methodSessionLoad
	}
	return false
}

// choice returns the transport to give a session, and the version.
func (pr *protocol) choice() (capabilities.Transport, int, error) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	t, err := pr.transports.Choose(pr.want)
	return t, pr.version, err
}

// agentInitialized learns the version from the agent's initialize result.
// From version 2 on the editor serves no fs: whatever its initialize said,
// every operation goes to disk, and no fs/* request is ever sent.
func (p *proxy) agentInitialized(result json.RawMessage) error {
	err := p.proto.agentInitialized(result)
	if !p.proto.v1() {
		none := json.RawMessage(`{}`)
		p.bridge.Initialize(none)
		p.steer.editorInitialized(none)
	}
	return err
}

// serverEntry returns the entry of session s, on the transport chosen.
func (p *proxy) serverEntry(s *bridge.Session) (bridge.MCPServerEntry, error) {
	t, version, err := p.proto.choice()
	if err != nil {
		return bridge.MCPServerEntry{}, err
	}
	switch t {
	case capabilities.TransportACP:
		return p.acp.add(s), nil
	case capabilities.TransportHTTP:
		if p.shared.applies() {
			return p.shared.entry(s) // shared_registry.go
		}
		return s.HTTPEntry()
	}
	if p.shared.applies() {
		p.shared.warnStdio()
	}
	e, err := s.StdioEntry()
	if version == capabilities.ProtocolV2 {
		e.Type = "stdio"
	}
	return e, err
}
