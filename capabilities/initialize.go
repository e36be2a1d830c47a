package capabilities

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Client is what an ACP client (the editor) advertises in the
// clientCapabilities of its initialize request.
type Client struct {
	FS       FS   // fs
	Terminal bool // terminal: every terminal/* method

	// Raw is clientCapabilities as received: nil if absent, and kept as is
	// even when malformed. It includes the members not modelled here (auth,
	// session, elicitation, _meta, …).
	Raw json.RawMessage
}

// FS is the fs member of the client's capabilities.
type FS struct {
	ReadTextFile  bool // fs/read_text_file
	WriteTextFile bool // fs/write_text_file

	// Raw is fs as received: nil if absent, kept as is even when malformed.
	Raw json.RawMessage
}

// Advertises reports whether the client advertised the fs method that
// carries out op. It is false for an unknown op.
func (c Client) Advertises(op Operation) bool {
	switch op {
	case OpRead:
		return c.FS.ReadTextFile
	case OpWrite:
		return c.FS.WriteTextFile
	}
	return false
}

// Agent is what an ACP agent advertises in the agentCapabilities of its
// initialize response.
type Agent struct {
	LoadSession bool    // loadSession: session/load
	MCP         MCP     // mcpCapabilities
	Session     Session // sessionCapabilities

	// Raw is agentCapabilities as received: nil if absent, kept as is even
	// when malformed. It includes the members not modelled here
	// (promptCapabilities, auth, _meta, …).
	Raw json.RawMessage
}

// MCP is the mcpCapabilities member of the agent's capabilities: the MCP
// server transports, besides stdio, that the agent accepts in session/new.
type MCP struct {
	HTTP bool // http
	SSE  bool // sse
	ACP  bool // acp, MCP over ACP (unstable)

	// Raw is mcpCapabilities as received: nil if absent, kept as is even
	// when malformed.
	Raw json.RawMessage
}

// Session is the sessionCapabilities member of the agent's capabilities.
// Each method is supported when the agent sent an object for it.
type Session struct {
	List                  bool // list: session/list
	Delete                bool // delete: session/delete
	AdditionalDirectories bool // additionalDirectories on session requests
	Resume                bool // resume: session/resume
	Close                 bool // close: session/close
	Fork                  bool // fork: session/fork (unstable)

	// Raw is sessionCapabilities as received: nil if absent, kept as is
	// even when malformed.
	Raw json.RawMessage
}

// MCPTransport returns the transport on which to offer the agent an MCP
// server in session/new: "http" if the agent advertised mcpCapabilities.http,
// else "stdio", which every agent must support. It never returns "sse"
// (deprecated by MCP) or "acp" (unstable).
func (a Agent) MCPTransport() string {
	if a.MCP.HTTP {
		return "http"
	}
	return "stdio"
}

// Implementation names a peer, as clientInfo and agentInfo do.
type Implementation struct {
	Name    string
	Title   string // optional display name
	Version string

	// Raw is the member as received: nil if absent, kept as is even when
	// malformed.
	Raw json.RawMessage
}

// InitializeRequest is the decoded params of an ACP initialize request.
type InitializeRequest struct {
	// ProtocolVersion is the latest version the client supports, or 0 if it
	// is missing or not an integer from 0 to 65535.
	ProtocolVersion int
	Client          Client         // clientCapabilities
	ClientInfo      Implementation // clientInfo (info in version 2); zero if absent or malformed

	// Raw is the params as received.
	Raw json.RawMessage
}

// InitializeResponse is the decoded result of an ACP initialize request.
type InitializeResponse struct {
	// ProtocolVersion is the version the agent chose, or 0 if it is missing
	// or not an integer from 0 to 65535.
	ProtocolVersion int
	Agent           Agent          // agentCapabilities
	AgentInfo       Implementation // agentInfo (info in version 2); zero if absent or malformed

	// Raw is the result as received.
	Raw json.RawMessage
}

// ParseInitializeRequest decodes the params of an initialize request. It
// fails only if raw is not a JSON object; even then it returns a request that
// advertises nothing, with Raw set, so a caller may ignore the error.
func ParseInitializeRequest(raw json.RawMessage) (InitializeRequest, error) {
	raw = bytes.Clone(raw)
	o := parseObject(raw)
	if o == nil {
		return InitializeRequest{Raw: raw}, notObject("initialize params", raw)
	}
	return InitializeRequest{
		ProtocolVersion: o.version("protocolVersion"),
		Client:          parseClient(o["clientCapabilities"]),
		ClientInfo:      parseImplementation(o.either("clientInfo", "info")),
		Raw:             raw,
	}, nil
}

// ParseInitializeResponse decodes the result of an initialize request. It
// fails only if raw is not a JSON object; even then it returns a response
// that advertises nothing, with Raw set, so a caller may ignore the error.
func ParseInitializeResponse(raw json.RawMessage) (InitializeResponse, error) {
	raw = bytes.Clone(raw)
	o := parseObject(raw)
	if o == nil {
		return InitializeResponse{Raw: raw}, notObject("initialize result", raw)
	}
	return InitializeResponse{
		ProtocolVersion: o.version("protocolVersion"),
		Agent:           parseAgent(o["agentCapabilities"]),
		AgentInfo:       parseImplementation(o.either("agentInfo", "info")),
		Raw:             raw,
	}, nil
}

func notObject(what string, raw []byte) error {
	if !json.Valid(raw) {
		return fmt.Errorf("capabilities: %s: invalid JSON", what)
	}
	return fmt.Errorf("capabilities: %s: not a JSON object", what)
}

// The parse functions below own b, which they keep as Raw.

func parseClient(b json.RawMessage) Client {
	o := parseObject(b)
	return Client{FS: parseFS(o["fs"]), Terminal: o.flag("terminal"), Raw: b}
}

func parseFS(b json.RawMessage) FS {
	o := parseObject(b)
	return FS{
		ReadTextFile:  o.flag("readTextFile"),
		WriteTextFile: o.flag("writeTextFile"),
		Raw:           b,
	}
}

func parseAgent(b json.RawMessage) Agent {
	o := parseObject(b)
	return Agent{
		LoadSession: o.flag("loadSession"),
		MCP:         parseMCP(o["mcpCapabilities"]),
		Session:     parseSession(o["sessionCapabilities"]),
		Raw:         b,
	}
}

func parseMCP(b json.RawMessage) MCP {
	o := parseObject(b)
	return MCP{HTTP: o.flag("http"), SSE: o.flag("sse"), ACP: o.flag("acp"), Raw: b}
}

func parseSession(b json.RawMessage) Session {
	o := parseObject(b)
	return Session{
		List:                  o.present("list"),
		Delete:                o.present("delete"),
		AdditionalDirectories: o.present("additionalDirectories"),
		Resume:                o.present("resume"),
		Close:                 o.present("close"),
		Fork:                  o.present("fork"),
		Raw:                   b,
	}
}

func parseImplementation(b json.RawMessage) Implementation {
	o := parseObject(b)
	return Implementation{Name: o.str("name"), Title: o.str("title"), Version: o.str("version"), Raw: b}
}

// The UnmarshalJSON methods let the types sit in a caller's own message
// structs. Those of the capability types never fail.

// UnmarshalJSON decodes b leniently. It never fails.
func (c *Client) UnmarshalJSON(b []byte) error { *c = parseClient(bytes.Clone(b)); return nil }

// UnmarshalJSON decodes b leniently. It never fails.
func (f *FS) UnmarshalJSON(b []byte) error { *f = parseFS(bytes.Clone(b)); return nil }

// UnmarshalJSON decodes b leniently. It never fails.
func (a *Agent) UnmarshalJSON(b []byte) error { *a = parseAgent(bytes.Clone(b)); return nil }

// UnmarshalJSON decodes b leniently. It never fails.
func (m *MCP) UnmarshalJSON(b []byte) error { *m = parseMCP(bytes.Clone(b)); return nil }

// UnmarshalJSON decodes b leniently. It never fails.
func (s *Session) UnmarshalJSON(b []byte) error { *s = parseSession(bytes.Clone(b)); return nil }

// UnmarshalJSON decodes b leniently. It never fails.
func (i *Implementation) UnmarshalJSON(b []byte) error {
	*i = parseImplementation(bytes.Clone(b))
	return nil
}

// UnmarshalJSON decodes b as [ParseInitializeRequest] does.
func (r *InitializeRequest) UnmarshalJSON(b []byte) error {
	var err error
	*r, err = ParseInitializeRequest(b)
	return err
}

// UnmarshalJSON decodes b as [ParseInitializeResponse] does.
func (r *InitializeResponse) UnmarshalJSON(b []byte) error {
	var err error
	*r, err = ParseInitializeResponse(b)
	return err
}
