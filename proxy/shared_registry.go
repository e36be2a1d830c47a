package proxy

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-acpfs/mcp-acpfs/bridge"
	"github.com/mcp-acpfs/mcp-acpfs/capabilities"
	"github.com/mcp-acpfs/mcp-acpfs/internal/loopback"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpserve"
	"github.com/mcp-acpfs/mcp-acpfs/mcptransport"
)

// Agents with a shared registry (DESIGN.md, "opencode's shared registry").
//
// opencode keeps one MCP server registry per working directory, keyed by
// the server's name: the entry of each session/new replaces the one
// before it in that directory, for every session there. Given each
// session's own http entry, two sessions in one directory would both call
// the second session's server. A server name per session does not help:
// every session of the directory then sees every session's server.
//
// So for such an agent, every session of one directory gets one entry: a
// server of the proxy's own for the directory, with a secret of its own,
// which gives each tool call to a session of the directory through that
// session's own MCP server, with its roots, its editor route and its read
// guard: to the one session that is prompting (the proxy sees
// session/prompt and its response), or, when several are, to the one that
// reported the call (session/update tool_call, with the tool and its
// arguments) if no other has reported the same call. A call that cannot
// be tied to exactly one session fails with a tool error that says why;
// it is never guessed.

// announceWait bounds how long a call waits for its session's report of
// it, when several sessions of its directory are prompting: the report
// comes on the agent's stdout, the call over HTTP, in no set order.
const announceWait = 2 * time.Second

// reportSettle is how long a call that only one of several prompting
// sessions has reported waits, from its arrival, before it is given to
// that session: a report of the same call by another session, on its way,
// then makes it ambiguous instead. opencode reports a call (pending, then
// in progress with its arguments) some 40 ms before it makes it.
const reportSettle = 100 * time.Millisecond

// sharedRegistryProfile returns the profile of the agent named agentName
// at initialize, or else run by argv, if it keeps one MCP server registry
// per directory (see profile.sharedRegistry); nil if not.
func sharedRegistryProfile(agentName string, argv []string) *profile {
	p := profileByName(agentName)
	if p == nil && agentName == "" {
		p = profileByCommand(argv)
	}
	if p == nil || !p.sharedRegistry {
		return nil
	}
	return p
}

// sharedServers are the per-directory servers of one connection, and the
// sessions that are prompting. The zero value is not usable: see
// newSharedServers.
type sharedServers struct {
	name      string   // the MCP server's name in the entries
	byArgv    *profile // the profile, with a shared registry, that the command line names or --agent-profile forces
	forced    bool     // --agent-profile named a profile: agentInfo changes nothing
	log       *slog.Logger
	timeout   time.Duration  // BridgeOptions.HandshakeTimeout, or its default
	maxBytes  int64          // the largest request body
	watchers  sync.WaitGroup // one per session, until it closes
	stdioOnce sync.Once      // the warning of warnStdio

	mu        sync.Mutex
	agent     *profile                         // the agent's, if it keeps one registry per directory; else nil
	prompting map[string]int                   // ACP session id → prompts in flight
	dirs      map[string]*sharedDir            // by cwd
	bySecret  map[[sha256.Size]byte]*sharedDir // by hash of secret
	srv       *http.Server                     // started on first use
	url       string                           // the endpoint's URL
	closed    bool
	// calls are the tool calls the agent reported and has not finished,
	// by ACP session id and toolCallId, while the session prompts.
	calls map[string]map[string]*reportedCall
	// changed is closed, and replaced, when calls changes.
	changed chan struct{}
}

// A reportedCall is a tool call as the agent's reports of it tell it.
type reportedCall struct {
	title   string
	args    any  // rawInput, decoded; nil until known
	claimed bool // a call to a directory's server was given to its session by it
}

// newSharedServers returns the directories' servers of a connection
// whose agent argv runs, with the proxy's options.
func newSharedServers(opts ProxyOptions, argv []string, log *slog.Logger) *sharedServers {
	name := opts.Bridge.Name
	if name == "" {
		name = "acpfs"
	}
	timeout := opts.Bridge.HandshakeTimeout
	if timeout <= 0 {
		timeout = bridge.DefaultHandshakeTimeout
	}
	p := sharedRegistryProfile("", argv)
	forced := false
	switch opts.AgentProfile {
	case "", "auto", "none":
		// none turns off steering; a shared registry is how the agent
		// works, whatever it is told.
	default:
		p, forced = profileNamed(opts.AgentProfile), true
		if p != nil && !p.sharedRegistry {
			p = nil
		}
	}
	return &sharedServers{
		name:      name,
		byArgv:    p,
		forced:    forced,
		log:       log,
		timeout:   timeout,
		maxBytes:  int64(mcpserve.MessageLimit(opts.Bridge.MaxFileSize)),
		agent:     p,
		prompting: map[string]int{},
		dirs:      map[string]*sharedDir{},
		bySecret:  map[[sha256.Size]byte]*sharedDir{},
		calls:     map[string]map[string]*reportedCall{},
		changed:   make(chan struct{}),
	}
}

// agentInitialized learns from the agent's initialize result whether it
// keeps one registry per directory.
func (ss *sharedServers) agentInitialized(result json.RawMessage) {
	if ss.forced {
		return
	}
	res, _ := capabilities.ParseInitializeResponse(result)
	p := sharedRegistryProfile(res.AgentInfo.Name, nil)
	if p == nil && res.AgentInfo.Name == "" {
		p = ss.byArgv
	}
	ss.mu.Lock()
	ss.agent = p
	ss.mu.Unlock()
	if p != nil {
		ss.log.Debug("the agent keeps one MCP server per directory: the sessions of a directory share one entry",
			"agentInfo", res.AgentInfo.Name)
	}
}

// applies reports whether the sessions get a directory's shared entry.
func (ss *sharedServers) applies() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.agent != nil
}

// warnStdio says, once, that the sessions' stdio entries are not shared:
// only http ones are.
func (ss *sharedServers) warnStdio() {
	ss.stdioOnce.Do(func() {
		ss.log.Warn("the agent keeps one MCP server per directory, and the sessions get stdio entries, " +
			"which are not shared: of two sessions in one directory, both reach the later one's files; " +
			"--mcp-transport http (or auto) gives each directory one entry that reaches the session that is prompting")
	})
}

// promptStarted and promptEnded count the session/prompt requests of the
// ACP session id in flight.
func (ss *sharedServers) promptStarted(id string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.prompting[id]++
}

func (ss *sharedServers) promptEnded(id string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.prompting[id]--; ss.prompting[id] <= 0 {
		delete(ss.prompting, id)
		delete(ss.calls, id)
	}
}

// report learns from a session/update of the agent's the tool calls that
// a session has in progress, for an agent with a shared registry.
func (ss *sharedServers) report(params json.RawMessage) {
	if !ss.applies() {
		return
	}
	var p struct {
		SessionID string `json:"sessionId"`
		Update    struct {
			SessionUpdate string          `json:"sessionUpdate"`
			ToolCallID    string          `json:"toolCallId"`
			Status        string          `json:"status"`
			Title         string          `json:"title"`
			RawInput      json.RawMessage `json:"rawInput"`
		} `json:"update"`
	}
	if json.Unmarshal(params, &p) != nil || p.Update.ToolCallID == "" ||
		p.Update.SessionUpdate != "tool_call" && p.Update.SessionUpdate != "tool_call_update" {
		return
	}
	u := p.Update
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.prompting[p.SessionID] == 0 {
		return
	}
	calls := ss.calls[p.SessionID]
	if u.Status == "completed" || u.Status == "failed" {
		delete(calls, u.ToolCallID)
	} else {
		if calls == nil {
			calls = map[string]*reportedCall{}
			ss.calls[p.SessionID] = calls
		}
		c := calls[u.ToolCallID]
		if c == nil {
			c = &reportedCall{}
			calls[u.ToolCallID] = c
		}
		if u.Title != "" {
			c.title = u.Title
		}
		var args map[string]any
		if json.Unmarshal(u.RawInput, &args) == nil && len(args) > 0 {
			c.args = args
		}
	}
	close(ss.changed)
	ss.changed = make(chan struct{})
}

// entry returns the http entry of s's directory, which s joins until it
// closes.
func (ss *sharedServers) entry(s *bridge.Session) (bridge.MCPServerEntry, error) {
	url, err := ss.endpoint()
	if err != nil {
		return bridge.MCPServerEntry{}, err
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.closed {
		return bridge.MCPServerEntry{}, errors.New("the proxy is closing")
	}
	d := ss.dirs[s.Cwd()]
	if d == nil {
		if d, err = ss.newDir(s); err != nil {
			return bridge.MCPServerEntry{}, err
		}
		ss.dirs[d.cwd] = d
		ss.bySecret[sha256.Sum256([]byte(d.secret))] = d
	}
	d.sessions = append(d.sessions, s)
	ss.watchers.Go(func() {
		<-s.Done()
		ss.leave(d, s)
	})
	return bridge.MCPServerEntry{
		Type:    "http",
		Name:    ss.name,
		URL:     url,
		Headers: []bridge.NameValue{{Name: "Authorization", Value: "Bearer " + d.secret}},
	}, nil
}

// leave takes s out of d; d goes with its last session, and its secret
// with it.
func (ss *sharedServers) leave(d *sharedDir, s *bridge.Session) {
	ss.mu.Lock()
	d.sessions = slices.DeleteFunc(d.sessions, func(x *bridge.Session) bool { return x == s })
	last := len(d.sessions) == 0 && ss.dirs[d.cwd] == d
	if last {
		delete(ss.dirs, d.cwd)
		delete(ss.bySecret, sha256.Sum256([]byte(d.secret)))
	}
	ss.mu.Unlock()
	if last {
		d.httpSrv.CloseSessions(context.Background())
	}
}

// endpoint starts the loopback listener of the directories' servers, once,
// and returns its URL.
func (ss *sharedServers) endpoint() (string, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.closed {
		return "", errors.New("the proxy is closing")
	}
	if ss.srv != nil {
		return ss.url, nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("listen on loopback for the directories' MCP servers: %w", err)
	}
	ss.srv = &http.Server{
		Handler: mcptransport.BodyTimeout(mcptransport.GuardHTTP(
			mcptransport.LimitBody(http.HandlerFunc(ss.serveHTTP), ss.maxBytes), ""), ss.timeout),
		ReadHeaderTimeout: ss.timeout,
	}
	ss.url = "http://" + ln.Addr().String() + mcptransport.EndpointPath
	go ss.srv.Serve(ln)
	ss.log.Debug("serving the directories' shared MCP endpoint", "url", ss.url)
	return ss.url, nil
}

// serveHTTP gives a request to the directory whose secret it carries.
func (ss *sharedServers) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != mcptransport.EndpointPath {
		http.NotFound(w, r)
		return
	}
	var d *sharedDir
	if secret, ok := loopback.BearerToken(r.Header.Values("Authorization")); ok {
		ss.mu.Lock()
		d = ss.bySecret[sha256.Sum256([]byte(secret))]
		ss.mu.Unlock()
	}
	if d == nil {
		w.Header().Set("WWW-Authenticate", "Bearer")
		http.Error(w, "unauthorized: this endpoint needs the bearer token of a directory with an open session", http.StatusUnauthorized)
		return
	}
	d.handler.ServeHTTP(w, r)
}

// close stops the endpoint and waits for the sessions' watchers, which
// end as the sessions close: the bridge must be closed first.
func (ss *sharedServers) close() {
	ss.mu.Lock()
	ss.closed = true
	srv := ss.srv
	ss.mu.Unlock()
	if srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		if srv.Shutdown(ctx) != nil {
			srv.Close()
		}
		cancel()
	}
	ss.watchers.Wait()
}

// A sharedDir is the server of one directory's sessions.
type sharedDir struct {
	ss       *sharedServers
	cwd      string
	secret   string
	sessions []*bridge.Session // open, in the order they joined; guarded by ss.mu

	mcp     *server.MCPServer
	httpSrv *server.StreamableHTTPServer
	handler http.Handler
}

// newDir makes the server of s's directory: the tools, server info and
// instructions of s's own server, each tool call given to one session of
// the directory (live). It offers no resources, which would need the
// same routing.
func (ss *sharedServers) newDir(s *bridge.Session) (*sharedDir, error) {
	d := &sharedDir{ss: ss, cwd: s.Cwd(), secret: loopback.NewToken()}
	own := s.MCPServer()
	init := own.HandleMessage(context.Background(), json.RawMessage(
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+mcp.LATEST_LEGACY_PROTOCOL_VERSION+
			`","capabilities":{},"clientInfo":{"name":"mcp-acpfs proxy","version":"0"}}}`))
	resp, ok := init.(mcp.JSONRPCResponse)
	if !ok {
		return nil, fmt.Errorf("the session's MCP server did not initialize: %v", init)
	}
	var info mcp.InitializeResult
	switch r := resp.Result.(type) {
	case mcp.InitializeResult:
		info = r
	case *mcp.InitializeResult:
		info = *r
	default:
		return nil, fmt.Errorf("the session's MCP server answered initialize with a %T", resp.Result)
	}
	d.mcp = server.NewMCPServer(info.ServerInfo.Name, info.ServerInfo.Version,
		server.WithToolCapabilities(false),
		server.WithLogging(),
		server.WithInstructions(info.Instructions),
		server.WithRecovery(),
		server.WithLogger(slog.New(mcpserve.LowerInfo(ss.log.Handler()))),
	)
	tools := own.ListTools()
	names := make([]string, 0, len(tools))
	for name := range tools {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		d.mcp.AddTool(tools[name].Tool, d.call)
	}
	d.httpSrv, d.handler = mcptransport.NewStreamableHTTP(d.mcp, slog.New(mcpserve.LowerInfo(ss.log.Handler())), nil)
	return d, nil
}

// call gives a tool call, whole, to the server of the session of the
// directory that it belongs to (live), as that server would take it from
// a client of its own; when it belongs to no one session, it fails with a
// tool error that says why.
func (d *sharedDir) call(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	s, err := d.live(ctx, req.Params.Name, req.GetArguments())
	if err != nil {
		d.ss.log.Warn("refused a call to a directory's shared MCP server", "cwd", d.cwd, "tool", req.Params.Name, "error", err)
		return mcp.NewToolResultError(err.Error()), nil
	}
	line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": req.Params})
	if err != nil {
		return nil, err
	}
	own := s.MCPServer()
	switch r := own.HandleMessage(own.WithContext(ctx, asCaller(ctx)), line).(type) {
	case mcp.JSONRPCResponse:
		switch res := r.Result.(type) {
		case *mcp.CallToolResult:
			return res, nil
		case mcp.CallToolResult:
			return &res, nil
		}
		return nil, fmt.Errorf("session %s answered %s with a %T", s.ID(), req.Params.Name, r.Result)
	case mcp.JSONRPCError:
		return nil, fmt.Errorf("session %s: %s", s.ID(), r.Error.Message)
	default:
		return nil, fmt.Errorf("session %s answered %s with a %T", s.ID(), req.Params.Name, r)
	}
}

// live returns the open session of the directory that the call of tool
// with args belongs to: the one that is prompting, or, when several are,
// the one whose report of the call has come, unless another of them has
// reported a call of the tool with the same arguments or with arguments
// not known yet, by reportSettle after the call came. It waits up to
// announceWait for the reports; if there is not one such session, it
// returns an error that says why.
func (d *sharedDir) live(ctx context.Context, tool string, args map[string]any) (*bridge.Session, error) {
	ss := d.ss
	ref := "%[2]s"
	ss.mu.Lock()
	if ss.agent != nil {
		ref = ss.agent.toolRef
	}
	ss.mu.Unlock()
	title := fmt.Sprintf(ref, ss.name, tool)
	var argsAny any = args
	if args == nil {
		argsAny = map[string]any{}
	}
	timer := time.NewTimer(announceWait)
	defer timer.Stop()
	settled := time.After(reportSettle)
	for {
		ss.mu.Lock()
		live, ids := d.prompting()
		if len(live) == 1 {
			if c := ss.match(ids[0], title, argsAny); c != nil {
				c.claimed = true
			}
			ss.mu.Unlock()
			return live[0], nil
		}
		if len(live) == 0 {
			ss.mu.Unlock()
			return nil, fmt.Errorf("no session in %s is prompting, so this call cannot be tied to one: "+
				"the agent keeps one %s server for all the sessions of a directory, and mcp-acpfs gives each call "+
				"to the session of that directory whose prompt is running", d.cwd, ss.name)
		}
		var mine []int  // the sessions that reported this very call
		var maybe []int // and those that reported a call of the tool whose arguments are not known yet
		for i, id := range ids {
			if ss.match(id, title, argsAny) != nil {
				mine = append(mine, i)
			} else if ss.unknownArgs(id, title) {
				maybe = append(maybe, i)
			}
		}
		unique := len(mine) == 1 && len(maybe) == 0
		if unique && settled == nil {
			ss.match(ids[mine[0]], title, argsAny).claimed = true
			ss.mu.Unlock()
			ss.log.Debug("gave a call to a directory's shared MCP server to the session that reported it",
				"cwd", d.cwd, "tool", tool, "session", ids[mine[0]], "prompting", len(live))
			return live[mine[0]], nil
		}
		changed := ss.changed
		ss.mu.Unlock()
		var why string
		switch {
		case len(mine) > 1:
			// No report to come can tell them apart.
			return nil, d.ambiguous(ids, "more than one of them reported a call of "+title+" with these arguments")
		case len(mine) == 0:
			why = "none of them reported a call of " + title + " with these arguments within " + announceWait.String()
		default:
			why = "another of them reported a call of " + title + " whose arguments were still unknown " +
				announceWait.String() + " later"
		}
		select {
		case <-changed:
			continue
		case <-settled:
			settled = nil
			continue
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-timer.C:
		}
		return nil, d.ambiguous(ids, why)
	}
}

// ambiguous is the error of a call that cannot be tied to one of the
// prompting sessions ids, for the reason why.
func (d *sharedDir) ambiguous(ids []string, why string) error {
	return fmt.Errorf("%d sessions in %s are prompting at once (%s), and this call cannot be tied to one of them: "+
		"%s. The agent keeps one %s server for all the sessions of a directory; "+
		"run one prompt at a time in a directory, or give each session a directory of its own",
		len(ids), d.cwd, strings.Join(ids, ", "), why, d.ss.name)
}

// prompting returns the open sessions of the directory whose prompts are
// running, and their ids: for an id that more than one session has (a
// session/load of a session that is open), the one that joined last,
// whose entry the agent was given last. ss.mu is held.
func (d *sharedDir) prompting() ([]*bridge.Session, []string) {
	var live []*bridge.Session
	var ids []string
	for i := len(d.sessions) - 1; i >= 0; i-- {
		s := d.sessions[i]
		if id := s.ID(); id != "" && d.ss.prompting[id] > 0 && !slices.Contains(ids, id) {
			live = append(live, s)
			ids = append(ids, id)
		}
	}
	slices.Reverse(live)
	slices.Reverse(ids)
	return live, ids
}

// match returns the call of session id, reported and not yet claimed,
// whose title is title and whose arguments are args, or nil. ss.mu is
// held.
func (ss *sharedServers) match(id, title string, args any) *reportedCall {
	for _, c := range ss.calls[id] {
		if !c.claimed && c.title == title && c.args != nil && reflect.DeepEqual(c.args, args) {
			return c
		}
	}
	return nil
}

// unknownArgs reports whether session id has reported a call titled
// title whose arguments are not known yet. ss.mu is held.
func (ss *sharedServers) unknownArgs(id, title string) bool {
	for _, c := range ss.calls[id] {
		if !c.claimed && c.title == title && c.args == nil {
			return true
		}
	}
	return false
}

// A caller is the client session of a call that a directory's server gives
// to a session's own server: the client's info and capabilities, which
// shape the results (a host's page size, in mcpfs), and no session id, so
// that the calls of a session share its server's sessionless read ledger,
// which lasts as long as the ACP session, whichever of the agent's
// connections to the directory's server carried them.
type caller struct {
	server.SessionWithClientInfo
}

// SessionID returns "": the call has no MCP session of its own there.
func (caller) SessionID() string { return "" }

// asCaller returns the client session of ctx as a caller, or nil if it
// has no client info.
func asCaller(ctx context.Context) server.ClientSession {
	if cs, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		return caller{cs}
	}
	return nil
}
