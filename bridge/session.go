package bridge

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-acpfs/mcp-acpfs/capabilities"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/internal/loopback"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
	"github.com/mcp-acpfs/mcp-acpfs/mcptransport"
)

// BridgeOptions configure a [Bridge].
type BridgeOptions struct {
	// Name is the name of the MCP server entry given to the agent, and
	// so the prefix under which its model sees the tools. Default "acpfs".
	Name string
	// Roots are directories every session may use besides its own cwd
	// and additionalDirectories.
	Roots []string
	// Policy forces a route, or leaves it to the editor's capabilities.
	Policy capabilities.Policy
	// MaxFileSize limits reads and writes; zero means the runtime default.
	MaxFileSize int64
	// EditorTimeout bounds how long a tool call waits for the editor to
	// answer one fs/read_text_file or fs/write_text_file. When it passes,
	// the call fails with an error that names the method, the path and
	// the timeout, and the editor is sent $/cancel_request (see
	// [Bridge.Attach]). It also bounds the wait for a session's id
	// ([Session.Bind]) and for the connection ([Bridge.Attach]). Zero
	// means DefaultEditorTimeout; a negative value means no limit.
	EditorTimeout time.Duration
	// AllowHardLinks lets the tools read and write a file that has other
	// hard links, which are refused by default (see
	// [fsruntime.DiskOptions.AllowHardLinks]).
	AllowHardLinks bool
	// NoSync makes the tools' writes to the local disk skip fsync: they
	// stay atomic, but a power loss or a system crash may lose the
	// latest of them (see [fsruntime.DiskOptions.NoSync]). Writes through
	// the editor are the editor's.
	NoSync bool
	// ReadOnly leaves the writing tools out.
	ReadOnly bool
	// HandshakeTimeout bounds how long a connection to the sessions'
	// endpoints may take to send a whole HTTP request (headers and body)
	// or, on the relay endpoint, its secret; one that stalls longer is
	// dropped. Zero means DefaultHandshakeTimeout.
	HandshakeTimeout time.Duration
	// RelayCommand is the command line that an agent runs for a stdio
	// entry; the relay's socket and secret are passed in its environment.
	// The default is this executable with the argument "relay", which is
	// right for the mcp-acpfs binary, and for a Go agent whose main calls
	// [RelayFromEnv] first; otherwise set it to a command that does. A
	// command that does not relay fails the MCP client's initialize
	// ([StartClient] says so), and a bridge made in it logs why.
	RelayCommand []string
	// RelayNetwork is where stdio relays connect: "unix" for a unix
	// socket in a directory only this user can enter, "tcp" for a
	// loopback TCP port, or "" for a unix socket where the system has
	// them and loopback TCP where it has none (Windows before 10 1803).
	// On either, a relay must present its session's secret.
	RelayNetwork string
	// Tools shape every session's tools and their results; see
	// [mcpfs.ToolOptions].
	Tools mcpfs.ToolOptions
	// Version is reported to MCP clients.
	Version string
	// Logger receives the bridge's log lines; nil means slog.Default().
	Logger *slog.Logger
}

// DefaultEditorTimeout is the EditorTimeout used when BridgeOptions leaves
// it zero. An editor answers an fs call in milliseconds; one that takes
// this long is stuck, or has lost the request.
const DefaultEditorTimeout = 30 * time.Second

// A Bridge gives the ACP sessions of one editor connection the file tools,
// through the editor's fs methods where it advertised them and to disk
// otherwise, within each session's roots. An agent makes a Bridge before
// its connection to the editor (NewBridge(nil, opts)), so that the
// connection's handler can use it from the first message, and then
// [Bridge.Attach]es the connection. At initialize it passes the editor's
// params to [Bridge.Initialize] and its own result to
// [Bridge.InitializeAgent]; at session/new (load, resume, fork) it opens
// a [Session] with the session's id, and gives its model
// [Session.MCPServer] in process or [Session.ServerEntry]. The proxy does
// the same for an agent it does not control.
type Bridge struct {
	editor editorConn // the connection given to NewBridge or Attach
	opts   BridgeOptions
	log    *slog.Logger

	mu         sync.Mutex
	client     capabilities.Client
	agent      capabilities.Agent
	agentKnown bool                           // InitializeAgent was called
	sessions   map[[sha256.Size]byte]*Session // by hash of secret
	http       *httpEndpoint                  // started on first use
	relay      *relayEndpoint                 // started on first use
	closed     bool
}

// NewBridge returns a Bridge whose editor route calls editor, the agent's
// connection to the ACP client (a *jsonrpc2.Conn, say). editor may be
// nil, to be given later with [Bridge.Attach]: an agent whose connection
// handler uses the Bridge makes the Bridge first. Until Initialize is
// called, the editor is taken to advertise nothing, so every operation
// goes to disk.
//
// A process that was started as a stdio entry's relay (EnvRelaySecret is
// set in its environment) and makes a Bridge instead of relaying has a
// main that does not call [RelayFromEnv]: NewBridge logs an error that
// says so.
func NewBridge(editor fsruntime.Caller, opts BridgeOptions) *Bridge {
	if opts.Name == "" {
		opts.Name = "acpfs"
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	b := &Bridge{opts: opts, log: log, sessions: make(map[[sha256.Size]byte]*Session)}
	b.editor.attached = make(chan struct{})
	if editor != nil {
		b.Attach(editor)
	}
	if os.Getenv(EnvRelaySecret) != "" {
		log.Error("this process was started as a stdio relay (" + EnvRelaySecret + " is set) but makes a bridge instead: " +
			"its main must call bridge.RelayFromEnv first, or BridgeOptions.RelayCommand must name a command that does")
	}
	return b
}

// Initialize records what the editor advertised, from the params of its
// initialize request to the agent. Malformed fs capabilities count as
// not advertised, so every operation goes to disk; that is logged.
// Sessions take what the editor advertised when they are opened: call
// Initialize before the first [Bridge.OpenSession].
func (b *Bridge) Initialize(params json.RawMessage) {
	req, err := capabilities.ParseInitializeRequest(params)
	if err == nil {
		err = checkClientCapabilities(params)
	}
	if err != nil {
		b.log.Warn("the editor's initialize params are malformed: the tools use the disk, not the editor", "error", err)
	}
	b.mu.Lock()
	b.client = req.Client
	b.mu.Unlock()
}

// InitializeAgent records the result of the agent's answer to
// initialize: what the agent advertised to the editor. Its
// agentCapabilities.mcpCapabilities decide which kind of MCP server entry
// [Session.ServerEntry] gives (http if it advertised http, else stdio).
// An agent that embeds the bridge passes the result it is about to send;
// the proxy passes the one of the agent it runs.
func (b *Bridge) InitializeAgent(result json.RawMessage) {
	res, _ := capabilities.ParseInitializeResponse(result)
	b.mu.Lock()
	b.agent = res.Agent
	b.agentKnown = true
	b.mu.Unlock()
}

// SessionParams are what a Session needs of the params of session/new,
// session/load, session/resume or session/fork.
type SessionParams struct {
	// SessionID is known up front for load and resume; for new and fork
	// it comes with the response (see [Session.Bind]).
	SessionID             string   `json:"sessionId,omitempty"`
	Cwd                   string   `json:"cwd"`
	AdditionalDirectories []string `json:"additionalDirectories,omitempty"`
	// Tools, if not nil, are the tools this session offers, by name: it
	// takes the place of the bridge's Tools.Only for this session (the
	// proxy offers each agent the tools it lacks). It is not in the ACP
	// params.
	Tools []string `json:"-"`
}

// ParseSessionParams decodes the session params of an ACP request. A new,
// load or fork without an absolute cwd is an error; so is an additional
// directory that is not absolute.
func ParseSessionParams(params json.RawMessage) (SessionParams, error) {
	var p struct {
		SessionID             json.RawMessage `json:"sessionId"`
		Cwd                   json.RawMessage `json:"cwd"`
		AdditionalDirectories json.RawMessage `json:"additionalDirectories"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return SessionParams{}, fmt.Errorf("session params: %w", err)
	}
	var sp SessionParams
	json.Unmarshal(p.SessionID, &sp.SessionID) // lenient: a bad id is no id
	if err := json.Unmarshal(p.Cwd, &sp.Cwd); err != nil || !filepath.IsAbs(sp.Cwd) {
		return SessionParams{}, fmt.Errorf("session params: cwd %s is not an absolute path", p.Cwd)
	}
	if len(p.AdditionalDirectories) > 0 && string(p.AdditionalDirectories) != "null" {
		if err := json.Unmarshal(p.AdditionalDirectories, &sp.AdditionalDirectories); err != nil {
			return SessionParams{}, fmt.Errorf("session params: additionalDirectories: %w", err)
		}
	}
	for _, d := range sp.AdditionalDirectories {
		if !filepath.IsAbs(d) {
			return SessionParams{}, fmt.Errorf("session params: additional directory %q is not an absolute path", d)
		}
	}
	return sp, nil
}

// A Session is the file tools of one ACP session: a Router confined to the
// session's roots, an MCP server, and a secret that is the only way to
// reach them from outside the process.
type Session struct {
	bridge *Bridge
	secret string
	key    [sha256.Size]byte
	cwd    string
	disk   *fsruntime.Disk
	router *fsruntime.Router
	tools  mcpfs.ToolOptions // the MCP server's
	mcp    *server.MCPServer
	// transport serves mcp on the session's streams.
	transport mcptransport.Options

	bindOnce  sync.Once
	bound     chan struct{} // closed by Bind
	id        string        // set before bound is closed
	idTimeout time.Duration // how long a tool call waits for Bind; <0: no limit
	done      chan struct{} // closed by Close
	closing   sync.Once

	httpOnce sync.Once
	httpH    http.Handler
	httpSrv  *server.StreamableHTTPServer

	ctx    context.Context // the session's lifetime, for its streams
	cancel context.CancelFunc
}

// OpenSession opens the tools of a session whose params are p. Its roots
// are its cwd, its additional directories and the bridge's Roots; those
// that do not exist on this machine are left out, but the cwd must exist.
//
// The session keeps what the editor advertised at [Bridge.Initialize] as
// it was when OpenSession was called; a later Initialize changes only the
// sessions opened after it.
//
// If p names the session id, the session is bound to it at once. An agent
// mints its session ids itself, so it sets p.SessionID (to the id it will
// answer session/new with) and never needs [Session.Bind]. Without an id,
// a tool call that needs the editor waits for Bind, at most
// EditorTimeout, and then fails with an error that says so.
func (b *Bridge) OpenSession(p SessionParams) (*Session, error) {
	b.mu.Lock()
	client, closed := b.client, b.closed
	b.mu.Unlock()
	if closed {
		return nil, errors.New("bridge is closed")
	}
	roots := []string{p.Cwd}
	for _, d := range slices.Concat(p.AdditionalDirectories, b.opts.Roots) {
		if info, err := os.Stat(d); err != nil || !info.IsDir() {
			b.log.Warn("leaving out a session root that is not a directory here", "dir", d, "error", err)
			continue
		}
		roots = append(roots, d)
	}
	disk, err := fsruntime.OpenDisk(roots, fsruntime.DiskOptions{MaxFileSize: b.opts.MaxFileSize, AllowHardLinks: b.opts.AllowHardLinks, NoSync: b.opts.NoSync})
	if err != nil {
		return nil, fmt.Errorf("open the session's roots: %w", err)
	}
	s := &Session{
		bridge: b,
		secret: loopback.NewToken(),
		cwd:    filepath.Clean(p.Cwd),
		disk:   disk,
		bound:  make(chan struct{}),
		done:   make(chan struct{}),
	}
	s.key = sha256.Sum256([]byte(s.secret))
	s.ctx, s.cancel = context.WithCancel(context.Background())
	log := b.log.With("cwd", s.cwd)
	timeout := b.opts.EditorTimeout
	if timeout == 0 {
		timeout = DefaultEditorTimeout
	}
	s.idTimeout = timeout
	editor := fsruntime.NewEditor(&b.editor, fsruntime.EditorOptions{SessionID: s.waitID, MaxFileSize: b.opts.MaxFileSize, Timeout: timeout})
	s.router = fsruntime.NewRouter(fsruntime.RouterOptions{Disk: disk, Editor: editor, Client: client, Policy: b.opts.Policy, Log: log})
	files := mcpfs.Files{WorkDir: s.cwd, FS: s.router, ReadOnly: b.opts.ReadOnly, MaxFileSize: disk.MaxFileSize()}
	tools := b.opts.Tools
	if p.Tools != nil {
		tools.Only = p.Tools
	}
	s.tools = tools
	s.mcp, err = mcpfs.NewServer(files, mcpfs.Options{Version: b.opts.Version, Logger: log, Tools: tools})
	s.transport = mcpfs.TransportOptions(files, b.log)
	if err != nil {
		disk.Close()
		return nil, err
	}
	b.mu.Lock()
	b.sessions[s.key] = s
	b.mu.Unlock()
	if p.SessionID != "" {
		s.Bind(p.SessionID)
	}
	return s, nil
}

// Bind ties the session to its ACP session id, which every fs request to
// the editor carries, when OpenSession was not given it (the proxy learns
// the id from the agent's answer to session/new). Tool calls that need
// the editor wait for it, at most EditorTimeout. Only the first Bind
// counts.
func (s *Session) Bind(id string) {
	s.bindOnce.Do(func() {
		s.id = id
		close(s.bound)
	})
}

// ID returns the ACP session id, or "" before Bind.
func (s *Session) ID() string {
	select {
	case <-s.bound:
		return s.id
	default:
		return ""
	}
}

var errSessionClosed = errors.New("the session is closed")

// waitID is the Editor's source of the session id. It waits for Bind and
// for a connection to the editor (Attach), each at most the session's
// EditorTimeout.
func (s *Session) waitID(ctx context.Context) (string, error) {
	select {
	case <-s.bound:
		select {
		case <-s.bridge.editor.attached:
			return s.id, nil // the usual case: no timer
		default:
		}
	default:
	}
	var expired <-chan time.Time
	if s.idTimeout > 0 {
		t := time.NewTimer(s.idTimeout)
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-s.bound:
	case <-s.done:
		return "", errSessionClosed
	case <-ctx.Done():
		return "", ctx.Err()
	case <-expired:
		err := fmt.Errorf("the session has no ACP session id after %v: the agent must give it to OpenSession (SessionParams.SessionID) or call Session.Bind", s.idTimeout)
		s.bridge.log.Error("a tool call cannot reach the editor", "cwd", s.cwd, "error", err)
		return "", err
	}
	select {
	case <-s.bridge.editor.attached:
	case <-s.done:
		return "", errSessionClosed
	case <-ctx.Done():
		return "", ctx.Err()
	case <-expired:
		err := fmt.Errorf("the bridge has no connection to the editor after %v: the agent must pass it to NewBridge or call Bridge.Attach", s.idTimeout)
		s.bridge.log.Error("a tool call cannot reach the editor", "cwd", s.cwd, "error", err)
		return "", err
	}
	return s.id, nil
}

// Done returns a channel that is closed when the session is closed.
func (s *Session) Done() <-chan struct{} { return s.done }

// Cwd returns the session's working directory.
func (s *Session) Cwd() string { return s.cwd }

// Router returns the session's FS.
func (s *Session) Router() *fsruntime.Router { return s.router }

// Tools returns the options of the session's tools: the bridge's, with
// the session's own list of tools in Only if it has one.
func (s *Session) Tools() mcpfs.ToolOptions { return s.tools }

// MCPServer returns the session's MCP server, for an agent that serves
// the tools in-process (with mcp-go's in-process client, say).
func (s *Session) MCPServer() *server.MCPServer { return s.mcp }

// Close releases the session: its endpoints stop accepting its secret,
// its streams end, and its roots are closed. Tool calls waiting for the
// session id fail.
func (s *Session) Close() error {
	var err error
	s.closing.Do(func() {
		b := s.bridge
		b.mu.Lock()
		delete(b.sessions, s.key)
		b.mu.Unlock()
		close(s.done)
		s.cancel()
		if s.httpSrv != nil {
			s.httpSrv.CloseSessions(context.Background())
		}
		err = s.disk.Close()
	})
	return err
}

// lookup finds the open session a secret belongs to.
func (b *Bridge) lookup(secret string) *Session {
	key := sha256.Sum256([]byte(secret))
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sessions[key]
}

// Sessions returns the open sessions bound to ACP session id id. There
// can be more than one: each session/load or session/resume of an id
// opens a Session of its own, and the proxy cannot tell whether the
// agent still serves the earlier one. An agent that keeps one Session per
// id (closing the old one when it loads the id again) gets at most one.
func (b *Bridge) Sessions(id string) []*Session {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []*Session
	for _, s := range b.sessions {
		if s.ID() == id {
			out = append(out, s)
		}
	}
	return out
}

// Close closes every session and stops the endpoints.
func (b *Bridge) Close() error {
	b.mu.Lock()
	b.closed = true
	sessions := make([]*Session, 0, len(b.sessions))
	for _, s := range b.sessions {
		sessions = append(sessions, s)
	}
	httpEP, relayEP := b.http, b.relay
	b.mu.Unlock()
	var errs []error
	for _, s := range sessions {
		errs = append(errs, s.Close())
	}
	if httpEP != nil {
		errs = append(errs, httpEP.close())
	}
	if relayEP != nil {
		errs = append(errs, relayEP.close())
	}
	return errors.Join(errs...)
}
