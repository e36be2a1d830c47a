package testagent

import "encoding/json"

// Methods the test agent knows besides ACP's.
const (
	// MethodEcho: a notification is sent back to the editor unchanged
	// (same method, same params); a request is answered with
	// {"params": <params as received>, "id": <id as received>}.
	MethodEcho = "_test/echo"
	// MethodCancelRequest is ACP's generic cancellation notification.
	MethodCancelRequest = "$/cancel_request"
)

// A Step is one step of a prompt's script. The text block of a
// session/prompt is a JSON array of Steps; exactly one member of a Step is
// set.
type Step struct {
	// Server, Tool and Args call a tool of an MCP server injected into the
	// session (by its entry's name), connecting to it on first use.
	Server string         `json:"server,omitempty"`
	Tool   string         `json:"tool,omitempty"`
	Args   map[string]any `json:"args,omitempty"`

	// SleepMS waits that long (or until the prompt is cancelled).
	SleepMS int `json:"sleep_ms,omitempty"`

	// Crash makes the agent exit with status 3 at once.
	Crash bool `json:"crash,omitempty"`

	// CallFS sends the editor an fs request itself (through the proxy);
	// Method defaults to fs/read_text_file and params.sessionId to the
	// prompt's session.
	CallFS *Call `json:"call_fs,omitempty"`

	// Call sends the editor any request, params as given.
	Call *Call `json:"call,omitempty"`

	// Notify sends the editor any notification, params as given.
	Notify *Call `json:"notify,omitempty"`

	// Spawn starts a child process that sleeps until killed, in the
	// agent's process group, and reports its pid. With HoldStdout it
	// shares the agent's stdout, as a relaunched agent would.
	Spawn *Spawn `json:"spawn,omitempty"`

	// Burst writes that many small "flood" reports in one write; a crash
	// right after it leaves the last of them in the pipe, unread, when
	// the agent exits.
	Burst int `json:"burst,omitempty"`

	// WaitCancel blocks until the prompt is cancelled.
	WaitCancel bool `json:"wait_cancel,omitempty"`
}

// A Call is a request or notification a Step sends the editor.
type Call struct {
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	// Cancel sends a $/cancel_request for the request right after it,
	// which has the string id CancelID.
	Cancel bool `json:"cancel,omitempty"`
}

// CancelID is the id of a request the agent cancels (Call.Cancel).
const CancelID = "agent-cancels-this"

// Spawn configures a Step's child process.
type Spawn struct {
	HoldStdout bool `json:"hold_stdout,omitempty"`
}

// A Report is what the agent tells the editor about itself, as the text of
// an agent_message_chunk session/update (JSON) whose _meta.testagent is
// the report's Kind.
type Report struct {
	// Kind is "session" (a session was opened: Method, Cwd, MCPServers,
	// PID), "prompt" (a prompt started: RequestID), "step" (a step is
	// done: Step and its outcome), "flood" (one of a Burst: N) or
	// "cancelled" (the prompt was cancelled: Cause, and RequestID for a
	// $/cancel_request).
	Kind      string `json:"kind"`
	SessionID string `json:"sessionId,omitempty"`

	// session
	Method     string            `json:"method,omitempty"`
	Cwd        string            `json:"cwd,omitempty"`
	MCPServers []json.RawMessage `json:"mcpServers,omitempty"`
	PID        int               `json:"pid,omitempty"`
	// Params are the session request's params as the agent received them.
	Params json.RawMessage `json:"params,omitempty"`
	// Tools are the tools of every MCP server of the session, as
	// "server/tool", for an agent that connects before it answers.
	Tools []string `json:"tools,omitempty"`

	// prompt: the session/prompt's id as the agent received it.
	RequestID json.RawMessage `json:"requestId,omitempty"`

	// step
	Step int `json:"step,omitempty"` // 1-based
	// Result is a tool's CallToolResult, or an editor call's result.
	Result json.RawMessage `json:"result,omitempty"`
	// Error is a failure to reach the MCP server or a protocol error.
	Error string `json:"error,omitempty"`
	// Code, Message and Data are an editor call's JSON-RPC error.
	Code    int64           `json:"code,omitempty"`
	Message string          `json:"message,omitempty"`
	Data    json.RawMessage `json:"data,omitempty"`
	// ChildPIDs are the processes the agent started for the step: stdio
	// MCP servers and spawned children.
	ChildPIDs []int `json:"childPids,omitempty"`

	// cancelled
	Cause string `json:"cause,omitempty"`
	// N numbers the reports of a Burst.
	N int `json:"n,omitempty"`
}

// Extras is the session/update the agent sends after every session/new
// and session/load, before it answers, with the session id spliced in:
// _meta and members the ACP schema does not know, at every level, so that
// a test can check that they reach the editor JSON-equal.
const Extras = `{"sessionId":%q,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"extras","_meta":{"c":[1,2.5,"x",null]}},"_meta":{"u":{"deep":true}},"x-unknown":{"k":"v"}},"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"},"unknownTop":[{},[]]}`
