package modelserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// gemini speaks the Gemini API as gemini-cli uses it: POST
// /v1beta/models/MODEL:generateContent, answered with one JSON
// GenerateContentResponse, and :streamGenerateContent?alt=sse, answered
// with one such response as a data-only server-sent event.
type gemini struct{}

type geminiPart struct {
	Text         string      `json:"text"`
	InlineData   *geminiBlob `json:"inlineData"`
	FunctionCall *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
		Parts    []geminiPart    `json:"parts"` // multimodal function responses
	} `json:"functionResponse"`
}

type geminiBlob struct {
	MIMEType string `json:"mimeType"`
	Data     []byte `json:"data"` // base64 in JSON
}

// inlineImages returns the images of parts' inlineData.
func inlineImages(parts []geminiPart) []Image {
	var out []Image
	for _, p := range parts {
		if b := p.InlineData; b != nil {
			out = append(out, Image{MIMEType: b.MIMEType, Data: b.Data})
		}
	}
	return out
}

type geminiContent struct {
	Role  string       `json:"role"`
	Parts []geminiPart `json:"parts"`
}

func (gemini) decode(r *http.Request, req *Request) error {
	model, method, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/v1beta/models/"), ":")
	if r.Method != http.MethodPost || !ok || (method != "generateContent" && method != "streamGenerateContent") {
		return nil // countTokens, probes: not a turn
	}
	var body struct {
		Contents          []geminiContent `json:"contents"`
		SystemInstruction *geminiContent  `json:"systemInstruction"`
		GenerationConfig  struct {
			ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
			ResponseSchema     json.RawMessage `json:"responseSchema"`
		} `json:"generationConfig"`
		Tools []struct {
			FunctionDeclarations []struct {
				Name string `json:"name"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		return fmt.Errorf("decoding the body: %w", err)
	}
	req.Model, req.Stream = model, method == "streamGenerateContent"
	req.Schema = body.GenerationConfig.ResponseJSONSchema
	if req.Schema == nil {
		req.Schema = body.GenerationConfig.ResponseSchema
	}
	req.Turn = req.Schema == nil
	for _, t := range body.Tools {
		for _, f := range t.FunctionDeclarations {
			req.Tools = append(req.Tools, f.Name)
		}
	}
	if si := body.SystemInstruction; si != nil {
		var texts []string
		for _, p := range si.Parts {
			texts = append(texts, p.Text)
		}
		req.System = strings.Join(texts, "\n")
	}
	for _, c := range body.Contents {
		if c.Role == "user" && req.Prompt == "" {
			var texts []string
			for _, p := range c.Parts {
				texts = append(texts, p.Text)
			}
			req.Prompt = strings.Join(texts, "\n")
		}
		for _, p := range c.Parts {
			if f := p.FunctionCall; f != nil {
				req.Calls = append(req.Calls, Call{ID: f.ID, Name: f.Name, Args: f.Args})
			}
			if f := p.FunctionResponse; f != nil {
				id := f.ID
				if id == "" {
					id = f.Name
				}
				req.Results = append(req.Results, Result{CallID: id, Text: strings.Join(stringsIn(f.Response), "\n"),
					Images: inlineImages(f.Parts)})
			}
		}
		if c.Role == "user" {
			req.Images = append(req.Images, inlineImages(c.Parts)...)
		}
	}
	return nil
}

// stringsIn returns every string in a JSON value, in document order (keys
// of an object sorted).
func stringsIn(raw json.RawMessage) []string {
	var v any
	json.Unmarshal(raw, &v)
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				walk(v[k])
			}
		}
	}
	walk(v)
	return out
}

func (gemini) reply(w http.ResponseWriter, req Request, reply Reply, n int) {
	var part map[string]any
	if c := reply.Call; c != nil {
		// No id: the Gemini API gives none, and gemini-cli makes one up.
		part = map[string]any{"functionCall": map[string]any{"name": c.Name, "args": args(c)}}
	} else {
		part = map[string]any{"text": reply.Text}
	}
	resp := map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{part}},
			"finishReason": "STOP",
			"index":        0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
		"modelVersion":  req.Model,
		"responseId":    fmt.Sprintf("resp_%d", n),
	}
	if !req.Stream {
		writeJSON(w, resp)
		return
	}
	newSSE(w).event("", resp)
}

func (g gemini) other(w http.ResponseWriter, r *http.Request, req Request) {
	if req.Schema != nil {
		text, err := json.Marshal(instance(req.Schema))
		if err != nil {
			panic(err)
		}
		g.reply(w, req, Reply{Text: string(text)}, 0)
		return
	}
	if strings.HasSuffix(r.URL.Path, ":countTokens") {
		writeJSON(w, map[string]any{"totalTokens": 10})
		return
	}
	http.NotFound(w, r)
}

// instance returns the smallest value that a (Gemini or JSON) schema
// accepts: an object with its required properties, the first of an enum,
// the minimum of a number, "ok" for a string.
func instance(raw json.RawMessage) any {
	var sch struct {
		Type       any                        `json:"type"` // a name, or a list of names
		Enum       []any                      `json:"enum"`
		Minimum    *float64                   `json:"minimum"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	json.Unmarshal(raw, &sch)
	if len(sch.Enum) > 0 {
		return sch.Enum[0]
	}
	typ, _ := sch.Type.(string)
	if list, ok := sch.Type.([]any); ok && len(list) > 0 {
		typ, _ = list[0].(string)
	}
	switch strings.ToLower(typ) {
	case "object":
		obj := map[string]any{}
		for _, name := range sch.Required {
			obj[name] = instance(sch.Properties[name])
		}
		return obj
	case "array":
		return []any{}
	case "integer", "number":
		if sch.Minimum != nil {
			return *sch.Minimum
		}
		return 1
	case "boolean":
		return false
	case "null":
		return nil
	}
	return "ok"
}
