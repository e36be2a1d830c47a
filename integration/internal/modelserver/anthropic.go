package modelserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// anthropic speaks the Anthropic Messages API as the Claude Agent SDK uses
// it: POST /v1/messages (with ?beta=true), streamed as message_start,
// content_block_start, content_block_delta, content_block_stop,
// message_delta and message_stop.
type anthropic struct{}

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
}

func (anthropic) decode(r *http.Request, req *Request) error {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		return nil // count_tokens, probes: not a turn
	}
	var body struct {
		Model    string          `json:"model"`
		System   json.RawMessage `json:"system"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name string `json:"name"`
			Type string `json:"type"`
		} `json:"tools"`
		Stream bool `json:"stream"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		return fmt.Errorf("decoding the body: %w", err)
	}
	req.Turn, req.Model, req.Stream = true, body.Model, body.Stream
	for _, t := range body.Tools {
		name := t.Name
		if name == "" {
			name = t.Type
		}
		req.Tools = append(req.Tools, name)
	}
	req.System = contentText(body.System)
	for _, m := range body.Messages {
		if m.Role == "user" && req.Prompt == "" {
			req.Prompt = contentText(m.Content)
		}
		if m.Role == "user" {
			req.Images = append(req.Images, contentImages(m.Content)...)
		}
		var blocks []anthropicBlock
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue // a plain string
		}
		for _, b := range blocks {
			switch b.Type {
			case "tool_use":
				req.Calls = append(req.Calls, Call{ID: b.ID, Name: b.Name, Args: b.Input})
			case "tool_result":
				req.Results = append(req.Results, Result{CallID: b.ToolUseID, Text: contentText(b.Content),
					Images: contentImages(b.Content)})
			}
		}
	}
	return nil
}

func (anthropic) reply(w http.ResponseWriter, req Request, reply Reply, n int) {
	var block map[string]any
	stop := "end_turn"
	if c := reply.Call; c != nil {
		block = map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": args(c)}
		stop = "tool_use"
	} else {
		block = map[string]any{"type": "text", "text": reply.Text}
	}
	msg := map[string]any{
		"id": fmt.Sprintf("msg_%d", n), "type": "message", "role": "assistant", "model": req.Model,
		"content": []any{block}, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 5},
	}
	if !req.Stream {
		writeJSON(w, msg)
		return
	}
	e := newSSE(w)
	start := map[string]any{}
	for k, v := range msg {
		start[k] = v
	}
	start["content"], start["stop_reason"] = []any{}, nil
	e.event("message_start", map[string]any{"type": "message_start", "message": start})
	if c := reply.Call; c != nil {
		e.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": map[string]any{}}})
		e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(args(c))}})
	} else {
		e.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": reply.Text}})
	}
	e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	e.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	e.event("message_stop", map[string]any{"type": "message_stop"})
}

func (anthropic) other(w http.ResponseWriter, r *http.Request, req Request) {
	switch {
	case strings.HasSuffix(r.URL.Path, "/count_tokens"):
		writeJSON(w, map[string]any{"input_tokens": 10})
	case r.URL.Path == "/":
		w.WriteHeader(http.StatusOK)
	default:
		http.NotFound(w, r)
	}
}
