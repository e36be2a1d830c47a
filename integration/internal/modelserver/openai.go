package modelserver

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// openAI speaks the OpenAI Responses API as codex uses it: POST
// /v1/responses with stream true, answered with response.created, one
// response.output_item.done per output item, and response.completed.
type openAI struct{}

type openAITool struct {
	Type  string       `json:"type"`
	Name  string       `json:"name"`
	Tools []openAITool `json:"tools"` // of a namespace
}

type openAIItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	Arguments string          `json:"arguments"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
}

func (openAI) decode(r *http.Request, req *Request) error {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
		return nil // not a turn
	}
	var body struct {
		Model        string       `json:"model"`
		Instructions string       `json:"instructions"`
		Input        []openAIItem `json:"input"`
		Tools        []openAITool `json:"tools"`
		Stream       bool         `json:"stream"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		return fmt.Errorf("decoding the body: %w", err)
	}
	req.Turn, req.Model, req.Stream = true, body.Model, body.Stream
	for _, t := range body.Tools {
		if t.Type == "namespace" {
			for _, sub := range t.Tools {
				req.Tools = append(req.Tools, t.Name+"."+sub.Name)
			}
			continue
		}
		name := t.Name
		if name == "" {
			name = t.Type // web_search, local_shell, ...
		}
		req.Tools = append(req.Tools, name)
	}
	system := []string{body.Instructions}
	for _, it := range body.Input {
		switch it.Type {
		case "message":
			switch {
			case it.Role == "developer" || it.Role == "system":
				system = append(system, contentText(it.Content))
			case it.Role == "user":
				if req.Prompt == "" {
					req.Prompt = contentText(it.Content)
				}
				req.Images = append(req.Images, contentImages(it.Content)...)
			}
		case "function_call":
			name := it.Name
			if it.Namespace != "" {
				name = it.Namespace + "." + it.Name
			}
			req.Calls = append(req.Calls, Call{ID: it.CallID, Name: name, Args: json.RawMessage(it.Arguments)})
		case "function_call_output", "custom_tool_call_output":
			req.Results = append(req.Results, Result{CallID: it.CallID, Text: contentText(it.Output), Images: contentImages(it.Output)})
		}
	}
	req.System = strings.Join(system, "\n")
	return nil
}

// contentText returns a string as it is, or the text parts of a content
// array joined by newlines.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	json.Unmarshal(raw, &parts)
	var texts []string
	for _, p := range parts {
		if p.Text != nil { // not an image
			texts = append(texts, *p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// contentImages returns the images of a content array, in the shapes of
// the APIs: an Anthropic image block with a base64 source, an OpenAI
// Responses input_image and a Chat Completions image_url part, each with a
// data URL.
func contentImages(raw json.RawMessage) []Image {
	var parts []struct {
		Type   string `json:"type"`
		Source struct {
			Type      string `json:"type"`
			MediaType string `json:"media_type"`
			Data      string `json:"data"`
		} `json:"source"`
		ImageURL json.RawMessage `json:"image_url"` // a string, or {url}
	}
	if json.Unmarshal(raw, &parts) != nil {
		return nil
	}
	var out []Image
	for _, p := range parts {
		switch p.Type {
		case "image":
			if b, err := base64.StdEncoding.DecodeString(p.Source.Data); err == nil && p.Source.Type == "base64" {
				out = append(out, Image{MIMEType: p.Source.MediaType, Data: b})
			}
		case "input_image", "image_url":
			var u string
			if json.Unmarshal(p.ImageURL, &u) != nil {
				var obj struct {
					URL string `json:"url"`
				}
				json.Unmarshal(p.ImageURL, &obj)
				u = obj.URL
			}
			if img, ok := dataURL(u); ok {
				out = append(out, img)
			}
		}
	}
	return out
}

func (openAI) reply(w http.ResponseWriter, req Request, reply Reply, n int) {
	respID := fmt.Sprintf("resp_%d", n)
	var item map[string]any
	if c := reply.Call; c != nil {
		name, namespace := c.Name, ""
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			namespace, name = name[:i], name[i+1:]
		}
		item = map[string]any{
			"type": "function_call", "id": fmt.Sprintf("fc_%d", n), "status": "completed",
			"call_id": c.ID, "name": name, "arguments": string(args(c)),
		}
		if namespace != "" {
			item["namespace"] = namespace
		}
	} else {
		item = map[string]any{
			"type": "message", "id": fmt.Sprintf("msg_%d", n), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": reply.Text, "annotations": []any{}}},
		}
	}
	usage := map[string]any{
		"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": 5, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
		"total_tokens": 15,
	}
	if !req.Stream {
		writeJSON(w, map[string]any{"id": respID, "object": "response", "status": "completed",
			"model": req.Model, "output": []any{item}, "usage": usage})
		return
	}
	e := newSSE(w)
	e.event("response.created", map[string]any{"type": "response.created",
		"response": map[string]any{"id": respID, "object": "response", "status": "in_progress", "model": req.Model}})
	e.event("response.output_item.added", map[string]any{"type": "response.output_item.added",
		"output_index": 0, "item": item})
	if reply.Call == nil {
		e.event("response.output_text.delta", map[string]any{"type": "response.output_text.delta",
			"item_id": item["id"], "output_index": 0, "content_index": 0, "delta": reply.Text})
	}
	e.event("response.output_item.done", map[string]any{"type": "response.output_item.done",
		"output_index": 0, "item": item})
	e.event("response.completed", map[string]any{"type": "response.completed",
		"response": map[string]any{"id": respID, "object": "response", "status": "completed",
			"model": req.Model, "output": []any{item}, "usage": usage}})
}

func (openAI) other(w http.ResponseWriter, r *http.Request, req Request) {
	if strings.HasSuffix(r.URL.Path, "/models") {
		writeJSON(w, map[string]any{"object": "list", "data": []any{}, "models": []any{}})
		return
	}
	http.NotFound(w, r)
}
