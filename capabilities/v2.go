package capabilities

import (
	"fmt"
	"strings"
)

// Protocol versions of ACP that this package knows. Version 2 is the draft
// that drops fs/* and puts an agent's MCP transports under
// capabilities.session.mcp.
const (
	ProtocolV1 = 1
	ProtocolV2 = 2
	// LatestProtocol is the newest version understood here.
	LatestProtocol = ProtocolV2
)

// A Transport is how an agent reaches an MCP server given to a session.
// The zero value is TransportAuto, which stands for the best one the agent
// advertised (see [Transports.Choose]).
type Transport int

const (
	// TransportAuto picks acp, then http, then stdio.
	TransportAuto Transport = iota
	// TransportStdio: the agent runs a command.
	TransportStdio
	// TransportHTTP: the agent connects to a Streamable HTTP URL.
	TransportHTTP
	// TransportACP: MCP over the ACP connection itself (mcp/message).
	TransportACP
)

var transportNames = [...]string{TransportAuto: "auto", TransportStdio: "stdio", TransportHTTP: "http", TransportACP: "acp"}

// ParseTransport returns the transport named s: auto, acp, http or stdio.
func ParseTransport(s string) (Transport, error) {
	for t, name := range transportNames {
		if s == name {
			return Transport(t), nil
		}
	}
	return 0, fmt.Errorf("invalid MCP transport %q: want auto, acp, http or stdio", s)
}

// String returns the transport's name as ParseTransport accepts it.
func (t Transport) String() string {
	if t >= 0 && int(t) < len(transportNames) {
		return transportNames[t]
	}
	return fmt.Sprintf("Transport(%d)", int(t))
}

// MarshalText returns the name, so a Transport works with flag.TextVar.
func (t Transport) MarshalText() ([]byte, error) {
	if t < 0 || int(t) >= len(transportNames) {
		return nil, fmt.Errorf("invalid MCP transport %d", int(t))
	}
	return []byte(t.String()), nil
}

// UnmarshalText sets t as ParseTransport does.
func (t *Transport) UnmarshalText(b []byte) error {
	u, err := ParseTransport(string(b))
	if err != nil {
		return err
	}
	*t = u
	return nil
}

// Transports are the MCP transports an agent takes servers on.
type Transports struct {
	Stdio, HTTP, ACP bool
}

// Has reports whether t is among them; TransportAuto is when any is.
func (ts Transports) Has(t Transport) bool {
	switch t {
	case TransportAuto:
		return ts.Stdio || ts.HTTP || ts.ACP
	case TransportStdio:
		return ts.Stdio
	case TransportHTTP:
		return ts.HTTP
	case TransportACP:
		return ts.ACP
	}
	return false
}

// Choose returns want if the agent takes it, or for TransportAuto the
// first of acp, http and stdio that it takes. It fails, naming what the
// agent advertised, when there is none.
func (ts Transports) Choose(want Transport) (Transport, error) {
	if want != TransportAuto {
		if !ts.Has(want) {
			return 0, fmt.Errorf("the agent did not advertise the MCP transport %s (it advertised: %s)", want, ts)
		}
		return want, nil
	}
	for _, t := range []Transport{TransportACP, TransportHTTP, TransportStdio} {
		if ts.Has(t) {
			return t, nil
		}
	}
	return 0, fmt.Errorf("the agent advertised no MCP transport")
}

// String lists the transports, "stdio, http, acp", or "none".
func (ts Transports) String() string {
	var names []string
	for _, t := range []Transport{TransportStdio, TransportHTTP, TransportACP} {
		if ts.Has(t) {
			names = append(names, t.String())
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// Transports returns the MCP transports the agent advertised, read as the
// negotiated ProtocolVersion has them: in version 1 (or earlier, or none),
// stdio always (every agent must take it) and http and acp from
// mcpCapabilities; in version 2, each member of capabilities.session.mcp
// that is an object ({}). A newer version advertises none.
func (r InitializeResponse) Transports() Transports {
	switch {
	case r.ProtocolVersion <= ProtocolV1:
		return Transports{Stdio: true, HTTP: r.Agent.MCP.HTTP, ACP: r.Agent.MCP.ACP}
	case r.ProtocolVersion == ProtocolV2:
		mcp := parseObject(parseObject(parseObject(r.Raw)["capabilities"])["session"]).object("mcp")
		return Transports{Stdio: mcp.present("stdio"), HTTP: mcp.present("http"), ACP: mcp.present("acp")}
	}
	return Transports{}
}

// object returns member name as an object, nil if it is not one.
func (o object) object(name string) object { return parseObject(o[name]) }

// Negotiate returns the protocol version to ask the agent for, given the
// version the editor asked for: the editor's own when this package knows
// it, else the newest one it knows that is older. Zero (the editor asked
// for none) stays zero, for the agent to refuse.
func Negotiate(requested int) int {
	if requested > LatestProtocol {
		return LatestProtocol
	}
	return requested
}

// either returns member name, or member alt if there is no name: version 2
// renamed clientInfo and agentInfo to info.
func (o object) either(name, alt string) []byte {
	if v, ok := o[name]; ok {
		return v
	}
	return o[alt]
}
