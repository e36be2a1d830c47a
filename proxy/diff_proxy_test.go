//go:build unix

package proxy_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcp-acpfs/mcp-acpfs/proxy"
)

// Behind the proxy, claude's report of an edit reaches the editor with a
// diff of the editor's own text, read from it with fs/read_text_file
// first; the agent's messages after the report wait for it, and keep
// their order.
func TestProxyAddsTheDiffOfAnEdit(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), hangGuard)
	defer cancel()
	r := startSteerRig(t, proxy.ProxyOptions{}, nil, bothFS, claudeInfo, nil)
	<-r.sessions
	file := filepath.Join(r.dir, "a.txt")
	report := func(seq int) map[string]any {
		return map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": "sess-1", "update": map[string]any{
			"_meta": map[string]any{"claudeCode": map[string]any{"toolName": "mcp__acpfs__edit_text_file"}}, "toolCallId": "toolu_1",
			"sessionUpdate": "tool_call_update", "title": "mcp__acpfs__edit_text_file", "kind": "other", "content": []any{},
			"rawInput": map[string]any{"path": "a.txt", "edits": []any{map[string]any{"oldText": "unsaved", "newText": "edited"}}}}}}
	}
	chunk := func(text string) map[string]any {
		return map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": "sess-1", "update": map[string]any{
			"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": text}}}}
	}
	start := time.Now()
	r.agent.send(report(1))
	r.agent.send(chunk("after"))
	read := r.editor.nextRequest(ctx)
	var p struct {
		SessionID string `json:"sessionId"`
		Path      string `json:"path"`
	}
	json.Unmarshal(read.Params, &p)
	if read.Method != "fs/read_text_file" || p.Path != file || p.SessionID != "sess-1" {
		t.Fatalf("the editor got %s", read.Raw)
	}
	r.editor.reply(read.ID, map[string]any{"content": "an unsaved buffer\n"})
	m := r.editor.nextNote(ctx, "session/update")
	t.Logf("the report reached the editor %v after it was sent, a read of the editor included", time.Since(start))
	var u struct {
		Params struct {
			Update struct {
				Kind    string           `json:"kind"`
				Content []map[string]any `json:"content"`
			} `json:"update"`
		} `json:"params"`
	}
	json.Unmarshal(m.Raw, &u)
	want := map[string]any{"type": "diff", "path": file, "oldText": "an unsaved buffer\n", "newText": "an edited buffer\n"}
	if c := u.Params.Update.Content; u.Params.Update.Kind != "edit" || len(c) != 1 || mustJSON(t, c[0]) != mustJSON(t, want) {
		t.Errorf("the editor got %s; want the content %s", m.Raw, mustJSON(t, want))
	}
	if m := r.editor.nextNote(ctx, "session/update"); !json.Valid(m.Raw) || !containsText(m.Raw, "after") {
		t.Errorf("the next update is %s, want the chunk sent after the report", m.Raw)
	}
	// The next report of the same call reuses the diff: no second read.
	r.agent.send(report(2))
	m = r.editor.nextNote(ctx, "session/update")
	json.Unmarshal(m.Raw, &u)
	if len(u.Params.Update.Content) != 1 {
		t.Errorf("the second report reached the editor as %s", m.Raw)
	}
	select {
	case m := <-r.editor.requests:
		t.Errorf("the editor got %s", m.Raw)
	default:
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func containsText(raw []byte, text string) bool {
	var m struct {
		Params struct {
			Update struct {
				Content struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"update"`
		} `json:"params"`
	}
	return json.Unmarshal(raw, &m) == nil && m.Params.Update.Content.Text == text
}
