package integration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/fakeeditor"
	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/testagent"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
)

// editorGarbage are lines that are not JSON-RPC messages, as an editor
// might send by mistake.
var editorGarbage = []string{
	"not JSON at all",
	`{"jsonrpc":"2.0","id":1,"method":`,
	`[{"jsonrpc":"2.0","id":1,"method":"initialize"}]`,
	`{"jsonrpc":"2.0","id":{"x":1},"method":"session/new"}`,
	`{"jsonrpc":"2.0","id":5,"method":7}`,
	`{"jsonrpc":"2.0","id":5,"result":1,"error":{}}`,
	"\x00\xff\xfe\xfd",
	`"a string"`,
	"",
	"   ",
}

// TestProxyMalformedLines: malformed lines from either peer are dropped,
// and the messages around them still go through.
func TestProxyMalformedLines(t *testing.T) {
	forEachMode(t, func(t *testing.T, mode agentMode) {
		dir := tempDir(t)
		putFiles(t, dir, diskFiles)
		r := startProxy(t, proxyOptions{mode: mode, agentFlags: []string{"-garbage"}, editor: fakeeditor.Options{ReadTextFile: true, WriteTextFile: true, Buffers: buffers(dir, bufferFiles)}})
		garbage := func() {
			for _, line := range editorGarbage {
				if err := r.ed.WriteLine([]byte(line)); err != nil {
					t.Fatal(err)
				}
			}
		}
		garbage()
		s := r.newSession(dir, nil)
		garbage()
		reps := r.mustPrompt(s, readStep("a.txt"), writeStep("w.txt", "w\n"), testagent.Step{CallFS: &testagent.Call{Params: mustJSON(map[string]any{"path": filepath.Join(dir, "w.txt")})}})
		wantText(t, reps[1], "buffer a\n")
		wantSuccess(t, reps[2])
		if !jsonEqual(t, reps[3].Result, mustJSON(map[string]string{"content": "w\n"})) {
			t.Errorf("the agent's fs call: %+v", reps[3])
		}
		garbage()
		reps = r.mustPrompt(s, readStep("lines.txt"))
		wantText(t, reps[1], "one\ntwo\nthree\nfour\n")
		for _, m := range r.ed.Messages() {
			if m.Malformed {
				t.Errorf("the editor received a malformed line: %s", m)
			}
		}
		r.p.checkStdoutJSONLines()
	})
}

// TestProxyPassThrough: what the proxy does not look into reaches the
// other peer JSON-equal, in both directions: unknown methods, extension
// notifications, _meta and unknown members at every level.
func TestProxyPassThrough(t *testing.T) {
	dir := tempDir(t)
	r := startProxy(t, proxyOptions{mode: agentModes[0], editor: fakeeditor.Options{ReadTextFile: true, WriteTextFile: true}})
	ctx := callContext(t)

	// session/new: the agent gets the editor's params, _meta and unknown
	// members included, plus one MCP server.
	extra := map[string]any{
		"_meta":      map[string]any{"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "x": []any{1.5, nil, "é<>&"}},
		"unknownTop": map[string]any{"nested": map[string]any{"_meta": true}},
		"mcpServers": []any{},
	}
	s := r.newSession(dir, extra)
	var got map[string]json.RawMessage
	if err := json.Unmarshal(s.report.Params, &got); err != nil {
		t.Fatal(err)
	}
	var servers []json.RawMessage
	json.Unmarshal(got["mcpServers"], &servers)
	if len(servers) != 1 {
		t.Errorf("the agent got mcpServers %s, want the one acpfs entry", got["mcpServers"])
	}
	delete(got, "mcpServers")
	want := map[string]any{"cwd": dir}
	for k, v := range extra {
		want[k] = v
	}
	delete(want, "mcpServers")
	if !jsonEqual(t, mustJSON(got), mustJSON(want)) {
		t.Errorf("session/new params reached the agent as %s, want %s (plus mcpServers)", mustJSON(got), mustJSON(want))
	}

	// The agent's session/update with extras reaches the editor whole.
	wantUpdate := fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":`+testagent.Extras+`}`, s.id)
	if _, err := r.ed.WaitFor(ctx, func(m fakeeditor.Message) bool {
		return m.Method == "session/update" && bytes.Contains(m.Raw, []byte("unknownTop")) && jsonEqual(t, m.Raw, []byte(wantUpdate))
	}); err != nil {
		t.Errorf("no session/update JSON-equal to %s reached the editor: %v", wantUpdate, err)
	}

	// An extension notification goes to the agent and comes back.
	echo := json.RawMessage(`{"a":[1,{"b":null}],"_meta":{"k":"v","n":1e3},"s":"line\nbreak \u2028 \"quoted\""}`)
	n := len(r.ed.Messages())
	if err := r.ed.Notify(ctx, testagent.MethodEcho, echo); err != nil {
		t.Fatal(err)
	}
	m, err := r.ed.WaitFor(ctx, func(m fakeeditor.Message) bool {
		n--
		return n < 0 && m.Kind() == wire.KindNotification && m.Method == testagent.MethodEcho
	})
	if err != nil {
		t.Fatalf("the echo notification did not come back: %v", err)
	}
	if w := fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":%s}`, testagent.MethodEcho, echo); !jsonEqual(t, m.Raw, []byte(w)) {
		t.Errorf("the echo came back as %s, want %s", m.Raw, w)
	}

	// An extension request: the agent sees the params JSON-equal.
	var res struct {
		Params json.RawMessage `json:"params"`
		ID     json.RawMessage `json:"id"`
	}
	if err := r.ed.Call(ctx, testagent.MethodEcho, echo, &res); err != nil {
		t.Fatalf("%s request: %v", testagent.MethodEcho, err)
	}
	if !jsonEqual(t, res.Params, echo) {
		t.Errorf("the agent got params %s, want %s", res.Params, echo)
	}

	// Unknown methods are answered by the peer, not the proxy.
	err = r.ed.Call(ctx, "_test/unknown", map[string]any{"_meta": map[string]any{}}, nil)
	if e := rpcError(t, err); e.Code != -32601 || e.Data == nil || string(*e.Data) != `"_test/unknown"` {
		t.Errorf("the unknown request failed with %d %s %v, want the agent's -32601", e.Code, e.Message, e.Data)
	}
	note := json.RawMessage(`{"sessionId":"` + s.id + `","update":{"sessionUpdate":"x_future_update","_meta":{"z":[]}},"extra":1}`)
	unknownParams := json.RawMessage(`{"q":[true,false],"_meta":{"deep":{"er":{}}}}`)
	reps := r.mustPrompt(s,
		testagent.Step{Call: &testagent.Call{Method: "_test/editor_unknown", Params: unknownParams}},
		testagent.Step{Notify: &testagent.Call{Method: "session/update", Params: note}},
		testagent.Step{Notify: &testagent.Call{Method: "_test/agent_ext", Params: unknownParams}},
	)
	if reps[1].Code != -32601 {
		t.Errorf("the editor's answer to an unknown request reached the agent as %+v, want -32601", reps[1])
	}
	if q := r.ed.Requests("_test/editor_unknown"); len(q) != 1 || !jsonEqual(t, q[0].Params, unknownParams) {
		t.Errorf("the agent's unknown request reached the editor as %v, want params %s", q, unknownParams)
	} else if !jsonEqual(t, withoutID(t, q[0].Raw), []byte(`{"jsonrpc":"2.0","method":"_test/editor_unknown","params":`+string(unknownParams)+`}`)) {
		t.Errorf("the agent's unknown request reached the editor as %s", q[0].Raw)
	}
	for method, params := range map[string]json.RawMessage{"session/update": note, "_test/agent_ext": unknownParams} {
		found := false
		for _, m := range r.ed.Notifications(method) {
			found = found || jsonEqual(t, m.Raw, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":%s}`, method, params)))
		}
		if !found {
			t.Errorf("no %s notification JSON-equal to the agent's params %s reached the editor", method, params)
		}
	}
}

// TestProxyRequestIDs: the editor's requests are answered with exactly the
// ids it used, whatever they are.
func TestProxyRequestIDs(t *testing.T) {
	r := startProxy(t, proxyOptions{mode: agentModes[0]})
	ctx := callContext(t)
	// (The editor's connection numbers its own requests from 0: initialize
	// was 0.)
	ids := []string{`-7`, `"abc"`, `1.5`, `123456789`, `-0`, `1e3`, `9007199254740993`, `""`, `"wire-alias:1"`, `"\u00e9\"\\"`, `null`, `18446744073709551616`}
	for i, id := range ids {
		method := testagent.MethodEcho
		if i%2 == 1 {
			method = "_test/unknown"
		}
		line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":{"i":%d}}`, id, method, i)
		if err := r.ed.WriteLine([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	for i, id := range ids {
		m, err := r.ed.WaitFor(ctx, func(m fakeeditor.Message) bool {
			return m.Kind() == wire.KindResponse && bytes.Equal(m.ID, []byte(id))
		})
		if err != nil {
			t.Errorf("no response with id %s came back: %v", id, err)
			continue
		}
		if i%2 == 1 {
			if e, err := m.DecodeError(); err != nil || e.Code != -32601 {
				t.Errorf("id %s: response %s, want -32601", id, m.Raw)
			}
			continue
		}
		var res struct {
			Params struct{ I int } `json:"params"`
		}
		if err := json.Unmarshal(m.Result, &res); err != nil || res.Params.I != i {
			t.Errorf("id %s: response %s, want the echo of request %d", id, m.Raw, i)
		}
	}
	// Nothing else came back for them: one response each.
	count := make(map[string]int)
	for _, m := range r.ed.Messages() {
		if m.Kind() == wire.KindResponse {
			count[string(m.ID)]++
		}
	}
	for _, id := range ids {
		if count[id] != 1 {
			t.Errorf("%d responses with id %s, want 1", count[id], id)
		}
	}
}

// TestProxyTrace: --trace writes every message of both hops as a JSON line
// with time, direction and message.
func TestProxyTrace(t *testing.T) {
	dir := tempDir(t)
	putFiles(t, dir, diskFiles)
	trace := filepath.Join(tempDir(t), "trace.jsonl")
	r := startProxy(t, proxyOptions{mode: agentModes[0], proxyFlags: []string{"--trace", trace}, editor: fakeeditor.Options{ReadTextFile: true, Buffers: buffers(dir, bufferFiles)}})
	s := r.newSession(dir, nil)
	wantText(t, r.mustPrompt(s, readStep("a.txt"))[1], "buffer a\n")
	r.ed.Close()
	if code := r.p.wait("the editor disconnected"); code != 0 {
		t.Errorf("the proxy exited with status %d", code)
	}
	f, err := os.Open(trace)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dirs := make(map[string]int)
	methods := make(map[string]bool)
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	lines := 0
	for sc.Scan() {
		lines++
		var l struct {
			Time string          `json:"time"`
			Dir  string          `json:"dir"`
			Msg  json.RawMessage `json:"msg"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Errorf("trace line %d is not JSON: %v: %q", lines, err, sc.Text())
			continue
		}
		if _, err := time.Parse(time.RFC3339Nano, l.Time); err != nil {
			t.Errorf("trace line %d: time %q: %v", lines, l.Time, err)
		}
		m, err := wire.Parse(l.Msg)
		if err != nil {
			t.Errorf("trace line %d: msg is not a JSON-RPC message: %v: %s", lines, err, l.Msg)
		}
		dirs[l.Dir]++
		methods[l.Dir+" "+m.Method] = true
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"from-editor", "to-agent", "from-agent", "to-editor"} {
		if dirs[d] == 0 {
			t.Errorf("no %s line in the trace: %v", d, dirs)
		}
	}
	if len(dirs) != 4 {
		t.Errorf("trace directions %v, want the four", dirs)
	}
	for _, want := range []string{"from-editor initialize", "to-agent session/new", "to-editor fs/read_text_file", "from-agent session/update"} {
		if !methods[want] {
			t.Errorf("the trace has no %q", want)
		}
	}
}
