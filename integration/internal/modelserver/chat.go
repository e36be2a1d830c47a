package modelserver

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// openAIChat speaks the OpenAI Chat Completions API as opencode, Copilot
// CLI and Qwen Code use it: POST /v1/chat/completions, answered with
// chat.completion.chunk events ending in data: [DONE] when the request
// streams, else with one chat.completion.
type openAIChat struct{}

type chatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"` // a string, an array of parts, or null
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

func (openAIChat) decode(r *http.Request, req *Request) error {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		return nil // models, probes: not a turn
	}
	var body struct {
		Model    string        `json:"model"`
		Messages []chatMessage `json:"messages"`
		Tools    []struct {
			Type     string `json:"type"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
		Stream bool `json:"stream"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		return fmt.Errorf("decoding the body: %w", err)
	}
	req.Turn, req.Model, req.Stream = true, body.Model, body.Stream
	for _, t := range body.Tools {
		name := t.Function.Name
		if name == "" {
			name = t.Type
		}
		req.Tools = append(req.Tools, name)
	}
	var system []string
	for _, m := range body.Messages {
		text, images := chatContent(m.Content)
		switch m.Role {
		case "system", "developer":
			system = append(system, text)
		case "user":
			if req.Prompt == "" {
				req.Prompt = text
			}
			req.Images = append(req.Images, images...)
		case "assistant":
			for _, c := range m.ToolCalls {
				req.Calls = append(req.Calls, Call{ID: c.ID, Name: c.Function.Name, Args: json.RawMessage(c.Function.Arguments)})
			}
		case "tool":
			req.Results = append(req.Results, Result{CallID: m.ToolCallID, Text: text, Images: images})
		}
	}
	req.System = strings.Join(system, "\n")
	return nil
}

// chatContent returns the text of a message's content (a string as it is,
// the text parts of an array joined by newlines) and the images of its
// image_url parts that are data URLs.
func chatContent(raw json.RawMessage) (string, []Image) {
	return contentText(raw), contentImages(raw)
}

// dataURL decodes a data:MIME;base64,DATA URL.
func dataURL(u string) (Image, bool) {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return Image{}, false
	}
	meta, data, ok := strings.Cut(rest, ",")
	mime, isBase64 := strings.CutSuffix(meta, ";base64")
	if !ok || !isBase64 {
		return Image{}, false
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return Image{}, false
	}
	return Image{MIMEType: mime, Data: b}, true
}

func (openAIChat) reply(w http.ResponseWriter, req Request, reply Reply, n int) {
	id := fmt.Sprintf("chatcmpl-%d", n)
	msg := map[string]any{"role": "assistant", "content": reply.Text}
	finish := "stop"
	var call map[string]any
	if c := reply.Call; c != nil {
		call = map[string]any{"index": 0, "id": c.ID, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": string(args(c))}}
		msg["content"], msg["tool_calls"] = nil, []any{call}
		finish = "tool_calls"
	}
	usage := map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
	if !req.Stream {
		writeJSON(w, map[string]any{"id": id, "object": "chat.completion", "created": 0, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	e := newSSE(w)
	chunk := func(delta map[string]any, finish any) {
		e.event("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": 0, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
	}
	if call != nil {
		// The call's name first, then its arguments, as OpenAI streams
		// them.
		chunk(map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"index": 0, "id": call["id"], "type": "function",
			"function": map[string]any{"name": reply.Call.Name, "arguments": ""}}}}, nil)
		chunk(map[string]any{"tool_calls": []any{map[string]any{
			"index": 0, "function": map[string]any{"arguments": string(args(reply.Call))}}}}, nil)
	} else {
		chunk(map[string]any{"role": "assistant", "content": ""}, nil)
		chunk(map[string]any{"content": reply.Text}, nil)
	}
	chunk(map[string]any{}, finish)
	e.event("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": 0, "model": req.Model,
		"choices": []any{}, "usage": usage})
	e.raw("[DONE]")
}

func (openAIChat) other(w http.ResponseWriter, r *http.Request, req Request) {
	if strings.HasSuffix(r.URL.Path, "/models") {
		writeJSON(w, map[string]any{"object": "list", "data": []any{}})
		return
	}
	http.NotFound(w, r)
}
