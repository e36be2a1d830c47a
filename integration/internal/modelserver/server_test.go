package modelserver

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// Each API's request, in the shapes the agents send, decodes into the same
// Request, and the scripted call comes back in that API's stream.
func TestServer(t *testing.T) {
	tests := []struct {
		api  API
		path string
		body string
		// wantTools and wantResult: what the request decodes to.
		wantTools  []string
		wantResult string
		// wantEvent is a substring of the streamed answer that carries
		// the call.
		wantEvent string
	}{
		{
			api:  OpenAIResponses,
			path: "/v1/responses",
			body: `{"model":"m","instructions":"base","stream":true,
				"tools":[{"type":"function","name":"exec_command"},{"type":"namespace","name":"mcp__acpfs","tools":[{"type":"function","name":"read_text_file"}]},{"type":"web_search"}],
				"input":[{"type":"message","role":"developer","content":[{"type":"input_text","text":"dev"}]},
					{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]},
					{"type":"function_call","name":"read_text_file","namespace":"mcp__acpfs","arguments":"{\"path\":\"a\"}","call_id":"c1"},
					{"type":"function_call_output","call_id":"c1","output":"buffer text"}]}`,
			wantTools:  []string{"exec_command", "mcp__acpfs.read_text_file", "web_search"},
			wantResult: "buffer text",
			wantEvent:  `"namespace":"mcp__acpfs"`,
		},
		{
			api:  OpenAIChat,
			path: "/v1/chat/completions",
			body: `{"model":"m","stream":true,"stream_options":{"include_usage":true},
				"tools":[{"type":"function","function":{"name":"glob","parameters":{}}},{"type":"function","function":{"name":"acpfs_read_text_file"}}],
				"messages":[{"role":"system","content":"base"},{"role":"system","content":[{"type":"text","text":"dev"}]},
					{"role":"user","content":[{"type":"text","text":"hi"}]},
					{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"acpfs_read_text_file","arguments":"{\"path\":\"a\"}"}}]},
					{"role":"tool","tool_call_id":"c1","content":"buffer text"}]}`,
			wantTools:  []string{"glob", "acpfs_read_text_file"},
			wantResult: "buffer text",
			wantEvent:  `"function":{"arguments":"{\"path\":\"b\"}"}`,
		},
		{
			api:  AnthropicMessages,
			path: "/v1/messages?beta=true",
			body: `{"model":"m","stream":true,"system":[{"type":"text","text":"base"},{"type":"text","text":"dev"}],
				"tools":[{"name":"Bash"},{"name":"mcp__acpfs__read_text_file"}],
				"messages":[{"role":"user","content":"hi"},
					{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"mcp__acpfs__read_text_file","input":{"path":"a"}}]},
					{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":[{"type":"text","text":"buffer text"}]}]}]}`,
			wantTools:  []string{"Bash", "mcp__acpfs__read_text_file"},
			wantResult: "buffer text",
			wantEvent:  `"partial_json":"{\"path\":\"b\"}"`,
		},
		{
			api:  Gemini,
			path: "/v1beta/models/m:streamGenerateContent?alt=sse",
			body: `{"systemInstruction":{"parts":[{"text":"base"},{"text":"dev"}]},
				"tools":[{"functionDeclarations":[{"name":"glob"},{"name":"mcp_acpfs_read_text_file"}]}],
				"contents":[{"role":"user","parts":[{"text":"hi"}]},
					{"role":"model","parts":[{"functionCall":{"name":"mcp_acpfs_read_text_file","args":{"path":"a"}}}]},
					{"role":"user","parts":[{"functionResponse":{"name":"mcp_acpfs_read_text_file","response":{"output":"buffer text"}}}]}]}`,
			wantTools:  []string{"glob", "mcp_acpfs_read_text_file"},
			wantResult: "buffer text",
			wantEvent:  `"functionCall":{"args":{"path":"b"}`,
		},
	}
	for _, tt := range tests {
		t.Run(string(tt.api), func(t *testing.T) {
			var tool string
			s := Start(tt.api, func(r Request) Reply {
				tool = r.Tools[len(r.Tools)-1]
				if tt.api == OpenAIResponses {
					tool = r.Tools[1]
				}
				return Reply{Call: &Call{Name: tool, Args: json.RawMessage(`{"path":"b"}`)}}
			})
			defer s.Close()
			answer := post(t, s.URL+tt.path, tt.body)
			turns := s.Turns()
			if len(turns) != 1 {
				t.Fatalf("%d turns recorded, want 1", len(turns))
			}
			r := turns[0]
			if !slices.Equal(r.Tools, tt.wantTools) {
				t.Errorf("Tools = %v, want %v", r.Tools, tt.wantTools)
			}
			if !strings.Contains(r.System, "base") || !strings.Contains(r.System, "dev") || r.Prompt != "hi" {
				t.Errorf("System = %q, Prompt = %q; want both instructions, and hi", r.System, r.Prompt)
			}
			if len(r.Calls) != 1 || r.Calls[0].Name != tool || !strings.Contains(string(r.Calls[0].Args), `"a"`) {
				t.Errorf("Calls = %+v, want one of %s on a", r.Calls, tool)
			}
			if len(r.Results) != 1 || r.Results[0].Text != tt.wantResult {
				t.Errorf("Results = %+v, want one with %q", r.Results, tt.wantResult)
			}
			if !r.Stream || !strings.Contains(answer, tt.wantEvent) {
				t.Errorf("the streamed answer lacks %s:\n%s", tt.wantEvent, answer)
			}
		})
	}
}

// The images of tool results and of user messages decode, in each API's
// shapes, into Result.Images and Request.Images.
func TestImages(t *testing.T) {
	const png = "iVBORw0KGgo=" // the PNG signature
	tests := []struct {
		api        API
		path, body string
		inResult   bool
	}{
		{OpenAIResponses, "/v1/responses", `{"input":[{"type":"function_call_output","call_id":"c1",
			"output":[{"type":"input_text","text":"t"},{"type":"input_image","image_url":"data:image/png;base64,` + png + `"}]}]}`, true},
		{OpenAIChat, "/v1/chat/completions", `{"messages":[{"role":"tool","tool_call_id":"c1","content":"t"},
			{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,` + png + `"}}]}]}`, false},
		{OpenAIChat, "/v1/chat/completions", `{"messages":[{"role":"tool","tool_call_id":"c1","content":[{"type":"text","text":"t"},
			{"type":"image_url","image_url":{"url":"data:image/png;base64,` + png + `"}}]}]}`, true},
		{AnthropicMessages, "/v1/messages", `{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1",
			"content":[{"type":"text","text":"t"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + png + `"}}]}]}]}`, true},
		{Gemini, "/v1beta/models/m:generateContent", `{"contents":[{"role":"user","parts":[{"functionResponse":{"name":"f",
			"response":{"output":"t"},"parts":[{"inlineData":{"mimeType":"image/png","data":"` + png + `"}}]}}]}]}`, true},
		{Gemini, "/v1beta/models/m:generateContent", `{"contents":[{"role":"user","parts":[{"functionResponse":{"name":"f",
			"response":{"output":"t"}}},{"inlineData":{"mimeType":"image/png","data":"` + png + `"}}]}]}`, false},
	}
	for _, tt := range tests {
		t.Run(string(tt.api), func(t *testing.T) {
			s := Start(tt.api, func(Request) Reply { return Reply{Text: "done"} })
			defer s.Close()
			post(t, s.URL+tt.path, tt.body)
			r := s.Turns()[0]
			if len(r.Results) != 1 || r.Results[0].Text != "t" {
				t.Fatalf("Results = %+v, want one with the text t", r.Results)
			}
			images := r.Images
			if tt.inResult {
				images = r.Results[0].Images
			}
			if len(images) != 1 || images[0].MIMEType != "image/png" || string(images[0].Data) != "\x89PNG\r\n\x1a\n" {
				t.Errorf("images %+v (result's %+v); want the PNG signature", r.Images, r.Results[0].Images)
			}
		})
	}
}

// A Chat Completions request that does not stream gets one
// chat.completion with the call.
func TestChatNotStreamed(t *testing.T) {
	s := Start(OpenAIChat, func(Request) Reply {
		return Reply{Call: &Call{Name: "classify", Args: json.RawMessage(`{"ok":true}`)}}
	})
	defer s.Close()
	var resp struct {
		Choices []struct {
			Message struct {
				ToolCalls []struct {
					ID       string
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			}
			FinishReason string `json:"finish_reason"`
		}
	}
	answer := post(t, s.URL+"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}],"tool_choice":"required"}`)
	if err := json.Unmarshal([]byte(answer), &resp); err != nil || len(resp.Choices) != 1 {
		t.Fatalf("answer %s: %v", answer, err)
	}
	c := resp.Choices[0]
	if len(c.Message.ToolCalls) != 1 || c.Message.ToolCalls[0].Function.Name != "classify" ||
		c.Message.ToolCalls[0].Function.Arguments != `{"ok":true}` || c.FinishReason != "tool_calls" {
		t.Errorf("answer %s; want one call of classify", answer)
	}
}

// A Gemini request for JSON that follows a schema (gemini-cli's routing)
// is answered, without the script, with JSON that the schema accepts.
func TestGeminiSchema(t *testing.T) {
	s := Start(Gemini, func(Request) Reply {
		t.Error("the script was asked about a request for JSON")
		return Reply{}
	})
	defer s.Close()
	answer := post(t, s.URL+"/v1beta/models/m:generateContent", `{"contents":[],"generationConfig":{
		"responseMimeType":"application/json","responseJsonSchema":{"type":"OBJECT",
		"properties":{"reasoning":{"type":"STRING"},"score":{"type":"INTEGER","minimum":1},"next":{"type":"string","enum":["user","model"]}},
		"required":["reasoning","score","next"]}}}`)
	var resp struct {
		Candidates []struct {
			Content struct {
				Parts []struct{ Text string }
			}
		}
	}
	if err := json.Unmarshal([]byte(answer), &resp); err != nil || len(resp.Candidates) != 1 {
		t.Fatalf("answer %s: %v", answer, err)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(resp.Candidates[0].Content.Parts[0].Text), &got); err != nil {
		t.Fatalf("the answer's text is not JSON: %v", err)
	}
	if got["reasoning"] != "ok" || got["score"] != 1.0 || got["next"] != "user" {
		t.Errorf("answer %v; want reasoning ok, score 1, next user", got)
	}
	if reqs := s.Requests(); len(reqs) != 1 || reqs[0].Turn || reqs[0].Schema == nil {
		t.Errorf("recorded %+v; want one request with its schema, not a turn", reqs)
	}
}

func post(t *testing.T, url, body string) string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("POST %s: %s: %s", url, resp.Status, b)
	}
	var b strings.Builder
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		b.WriteString(sc.Text() + "\n")
	}
	return b.String()
}
