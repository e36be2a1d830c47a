// Package modelserver is a scripted model server on loopback, for running
// real ACP agents without a real model: it speaks one of three model APIs
// (OpenAI Responses, OpenAI Chat Completions, Anthropic Messages, Gemini
// generateContent), records
// every request it receives, and answers each with the reply a Script
// chooses, as a stream when the request asks for one.
//
// Requests are decoded into an API-neutral [Request]: the tool names the
// model is offered, the system instructions, and the calls and tool results
// the conversation holds so far, so that one script serves every agent.
package modelserver

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
)

// An API is a model API the server speaks.
type API string

const (
	OpenAIResponses   API = "openai-responses"   // POST /v1/responses, SSE
	OpenAIChat        API = "openai-chat"        // POST /v1/chat/completions, SSE or JSON
	AnthropicMessages API = "anthropic-messages" // POST /v1/messages, SSE
	Gemini            API = "gemini"             // :generateContent and :streamGenerateContent?alt=sse
)

// A Request is one request the server received.
type Request struct {
	Method, Path string // Path includes the query, if any
	Body         json.RawMessage
	// Model is the model the request names ("" if none).
	Model string
	// Stream is set when the request asked for a streamed answer.
	Stream bool
	// Tools are the names of the tools offered to the model, as it would
	// call them; a tool of an OpenAI namespace is "namespace.name".
	Tools []string
	// System is the text of the system (or developer) instructions.
	System string
	// Prompt is the text of the first user message, where some agents
	// put the context of the session.
	Prompt string
	// Calls are the tool calls the model made earlier in the
	// conversation, and Results the tool results sent back, in order.
	Calls   []Call
	Results []Result
	// Images are the images of the user messages (not of tool results),
	// where some APIs put the images of a tool result.
	Images []Image
	// Schema is the JSON schema the answer must follow, if the request
	// asks for JSON (gemini-cli's routing and next-speaker checks).
	Schema json.RawMessage
	// Turn is false for requests that are not a model turn: a probe, a
	// token count, or a request for JSON that follows a schema. They are
	// recorded and answered by the API handler without the script (the
	// last with the smallest instance of the schema).
	Turn bool
}

// A Call is a tool call of the model.
type Call struct {
	ID string
	// Name is the tool's name as in Request.Tools: "namespace.name" for
	// a tool of an OpenAI namespace.
	Name string
	Args json.RawMessage // a JSON object
}

// A Result is a tool result in a request.
type Result struct {
	CallID string // for Gemini, the function's name
	// Text is the result as the model sees it: its text parts joined, or
	// the JSON of a structured result.
	Text string
	// Images are the result's images, in order.
	Images []Image
}

// An Image is an image given to the model, decoded.
type Image struct {
	MIMEType string
	Data     []byte
}

// A Reply is the model's answer to a turn: a tool call, or else a text.
type Reply struct {
	Call *Call
	Text string
}

// A Script chooses the reply to a model turn. It is called one request at
// a time, with the server's lock held: it must not call the server.
type Script func(Request) Reply

// Server is a running model server on 127.0.0.1.
type Server struct {
	URL string // http://127.0.0.1:PORT, without a trailing slash
	api API
	srv *httptest.Server

	mu     sync.Mutex
	script Script
	reqs   []Request
	calls  int // numbers the call ids
}

// Start starts a server for api that answers model turns with script.
func Start(api API, script Script) *Server {
	s := &Server{api: api, script: script}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// Close stops the server and waits for its requests to finish.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

// Turns returns the model turns received so far, in order.
func (s *Server) Turns() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Turn {
			out = append(out, r)
		}
	}
	return out
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := Request{Method: r.Method, Path: r.URL.RequestURI(), Body: body}
	var h handler
	switch s.api {
	case OpenAIResponses:
		h = openAI{}
	case OpenAIChat:
		h = openAIChat{}
	case AnthropicMessages:
		h = anthropic{}
	case Gemini:
		h = gemini{}
	default:
		panic(fmt.Sprintf("modelserver: unknown API %q", s.api))
	}
	if err := h.decode(r, &req); err != nil {
		s.record(req)
		http.Error(w, fmt.Sprintf("modelserver: %s %s: %v", r.Method, req.Path, err), http.StatusBadRequest)
		return
	}
	if !req.Turn {
		s.record(req)
		h.other(w, r, req)
		return
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	reply := s.script(req)
	s.calls++
	n := s.calls
	s.mu.Unlock()
	if reply.Call != nil && reply.Call.ID == "" {
		c := *reply.Call
		c.ID = fmt.Sprintf("call_%d", n)
		reply.Call = &c
	}
	h.reply(w, req, reply, n)
}

func (s *Server) record(req Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, req)
}

// A handler is one API's side of the server.
type handler interface {
	// decode fills in the API-specific fields of req from r and
	// req.Body, and sets req.Turn for a model turn.
	decode(r *http.Request, req *Request) error
	// reply answers a model turn; n numbers the answer, for ids.
	reply(w http.ResponseWriter, req Request, reply Reply, n int)
	// other answers a request that is not a model turn.
	other(w http.ResponseWriter, r *http.Request, req Request)
}

// sse writes Server-Sent Events to w, flushing after each.
type sse struct{ w http.ResponseWriter }

func newSSE(w http.ResponseWriter) sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return sse{w}
}

// event writes one event; an empty name writes a data-only event.
func (e sse) event(name string, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		panic(err)
	}
	if name != "" {
		fmt.Fprintf(e.w, "event: %s\n", name)
	}
	fmt.Fprintf(e.w, "data: %s\n\n", b)
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}

// raw writes a data-only event whose data is s as it is.
func (e sse) raw(s string) {
	fmt.Fprintf(e.w, "data: %s\n\n", s)
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// args returns a call's arguments, never null.
func args(c *Call) json.RawMessage {
	if len(c.Args) == 0 {
		return json.RawMessage("{}")
	}
	return c.Args
}
