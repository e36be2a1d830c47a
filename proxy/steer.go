package proxy

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/mcp-acpfs/mcp-acpfs/capabilities"
)

// A steer makes the agent's model use the file tools on one connection:
// for each session whose files go through the editor it applies the
// agent's profile to the session request, merged with what the editor
// sent. The agent is known from its agentInfo at initialize, or else from
// its command line.
type steer struct {
	mode      AgentTools
	server    string // the MCP server's name, as the model sees it
	policy    capabilities.Policy
	readOnly  bool
	byCommand *profile // recognised from the command line, or forced; nil if not
	forced    bool     // --agent-profile chose the profile (or none): agentInfo changes nothing
	log       *slog.Logger

	mu       sync.Mutex
	client   capabilities.Client // what the editor advertised
	agent    *profile            // nil until known, or for an unknown agent
	standard bool                // the agent advertised sessionCapabilities.systemPrompt
	launched bool                // the instruction went on the agent's command line
}

func newSteer(opts ProxyOptions, argv []string) *steer {
	name := opts.Bridge.Name
	if name == "" {
		name = "acpfs"
	}
	p := profileByCommand(argv)
	forced := false
	switch opts.AgentProfile {
	case "", "auto":
	case "none":
		p, forced = nil, true
	default:
		p, forced = profileNamed(opts.AgentProfile), true
	}
	log := opts.Bridge.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &steer{
		mode:      opts.AgentTools,
		server:    name,
		policy:    opts.Bridge.Policy,
		readOnly:  opts.Bridge.ReadOnly,
		byCommand: p,
		forced:    forced,
		agent:     p,
		log:       log,
	}
}

// editorInitialized records what the editor advertised, from the params of
// its initialize request.
func (s *steer) editorInitialized(params json.RawMessage) {
	req, _ := capabilities.ParseInitializeRequest(params)
	s.mu.Lock()
	s.client = req.Client
	s.mu.Unlock()
}

// agentInitialized learns which agent it is, and whether it takes the
// standard systemPrompt, from the result of its initialize response.
func (s *steer) agentInitialized(result json.RawMessage) {
	res, _ := capabilities.ParseInitializeResponse(result)
	var caps struct {
		Session struct {
			SystemPrompt json.RawMessage `json:"systemPrompt"`
		} `json:"sessionCapabilities"`
	}
	json.Unmarshal(res.Agent.Raw, &caps)
	sp := strings.TrimSpace(string(caps.Session.SystemPrompt))
	s.mu.Lock()
	defer s.mu.Unlock()
	s.standard = strings.HasPrefix(sp, "{")
	named := profileByName(res.AgentInfo.Name)
	switch {
	case s.forced:
		// --agent-profile said which.
	case named != nil:
		s.agent = named
		if named.launch != launchNone && s.byCommand != named && s.mode == AgentToolsAuto &&
			coverageOf(s.client, s.policy, s.readOnly)&(coverReads|coverWrites) != 0 {
			// Its command line did not say so (a wrapper script, say),
			// and it has already started without those settings.
			s.log.Warn("the agent names itself "+res.AgentInfo.Name+", whose profile puts settings on its command line, "+
				"but its command line was not recognised, so they were not applied; "+
				"run the proxy with --agent-profile "+named.name+" to apply them",
				"agentInfo", res.AgentInfo.Name, "profile", named.name)
		}
	case res.AgentInfo.Name != "":
		s.agent = nil // it said who it is, and it is none of ours
	}
	agent := "unknown"
	if s.agent != nil {
		agent = s.agent.name
	}
	s.log.Debug("the agent's profile", "agentInfo", res.AgentInfo.Name, "profile", agent, "systemPrompt", s.standard)
}

// coverage returns what the file tools take over on this connection; none
// in keep mode.
func (s *steer) coverage() coverage {
	if s.mode != AgentToolsAuto {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return coverageOf(s.client, s.policy, s.readOnly)
}

// profile returns the profile that applies to the sessions of this
// connection, and the coverage it applies under; nil when none does: in
// keep mode, on the disk route, and for an unknown agent.
func (s *steer) profile() (*profile, coverage) {
	cov := s.coverage()
	if cov&(coverReads|coverWrites) == 0 {
		return nil, 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.agent, cov
}

// tools returns the file tools a session opened now is offered: the
// profile's, or nil for all of them (in keep mode, on the disk route, for
// an unknown agent).
func (s *steer) tools() []string {
	p, cov := s.profile()
	if p == nil {
		return nil
	}
	return p.offered(cov)
}

// editsFollowMode reports whether the proxy answers the agent's permission
// requests for the writing file tools in its modes that accept edits.
func (s *steer) editsFollowMode() bool {
	p, _ := s.profile()
	return p != nil && p.editsFollowMode
}

// session returns msg, a session/new, load, resume or fork request, with
// the agent's profile applied: its tools that the file tools replace
// turned off, and the instruction added. It returns msg unchanged in keep
// mode, on the disk route, and for an unknown agent that does not take
// the standard systemPrompt. A part the editor sent in a shape the proxy
// cannot merge with is left as the editor sent it, with a warning.
func (s *steer) session(msg []byte) []byte {
	cov := s.coverage()
	if cov&(coverReads|coverWrites) == 0 {
		return msg
	}
	s.mu.Lock()
	p, standard, launched := s.agent, s.standard, s.launched
	s.mu.Unlock()
	if p == nil {
		p = unknownAgent
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(msg, &top); err != nil {
		return msg
	}
	params := top["params"]
	var did []string
	apply := func(path []string, edit func(json.RawMessage) (json.RawMessage, error)) {
		out, err := editJSON(params, path, func(old json.RawMessage) (json.RawMessage, error) {
			v, err := edit(old)
			if err != nil {
				return nil, fmt.Errorf("%s %w", jsonPathName(path), err)
			}
			return v, nil
		})
		if err != nil {
			s.log.Warn("leaving the editor's setting as it is", "agent", p.name, "error", err)
			return
		}
		if out != nil {
			params = out
			did = append(did, jsonPathName(path))
		}
	}
	if tools := p.removed(cov); len(tools) > 0 && p.disallow != nil {
		apply(p.disallow, func(old json.RawMessage) (json.RawMessage, error) { return addToList(old, tools) })
	}
	if p.allow != nil {
		tools := p.allowed(s.server, cov)
		apply(p.allow, func(old json.RawMessage) (json.RawMessage, error) { return addToList(old, tools) })
	}
	if text := p.instruction(s.server, cov); text != "" && !launched {
		switch {
		case standard:
			apply([]string{"systemPrompt"}, func(old json.RawMessage) (json.RawMessage, error) { return appendSystemPrompt(old, text) })
		case p.metaPrompt != nil:
			apply(p.metaPrompt, func(old json.RawMessage) (json.RawMessage, error) { return appendPrompt(old, text) })
		}
	}
	if len(did) == 0 {
		return msg
	}
	top["params"] = params
	out, err := json.Marshal(top)
	if err != nil {
		return msg
	}
	s.log.Info("steering the agent's model to the file tools", "agent", p.name, "changed", did)
	return out
}
