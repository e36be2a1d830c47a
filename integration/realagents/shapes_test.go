//go:build linux

package realagents

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// update rewrites testdata/*.toolcalls.jsonl from the steered runs.
var update = flag.Bool("update", false, "rewrite testdata/*.toolcalls.jsonl with the tool call reports the agents send")

// testdata/AGENT.toolcalls.jsonl holds the reports of tool calls (the
// tool_call and tool_call_update session/updates and the
// session/request_permission requests) that the agent sent in the steered
// run, as the proxy received them, with what varies from run to run
// replaced by placeholders. The proxy recognises its tools' calls by these
// shapes; checkRecordedShapes tells when a new version of an agent sends
// others.

// checkRecordedShapes checks that the agent reported its tool calls in the
// shapes recorded in testdata: the same messages with the same members,
// titles and kinds, whatever the ids, paths and texts.
func checkRecordedShapes(t *testing.T, a agent, r *run) {
	t.Helper()
	file := filepath.Join("testdata", a.name+".toolcalls.jsonl")
	var lines [][]byte
	for _, m := range agentToolCallMessages(t, r.trace) {
		lines = append(lines, normalize(m, r.ws))
	}
	if *update {
		if err := os.WriteFile(file, append(bytes.Join(lines, []byte("\n")), '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		want = append(want, shape(t, l))
	}
	for _, l := range lines {
		got = append(got, shape(t, l))
	}
	// Sorted: the order of an agent's updates and its permission request
	// is not the point.
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("%s reports its tool calls in shapes other than recorded in %s (run with -update after checking "+
			"that the proxy still recognises them):\n got %s\nwant %s", a.name, file,
			strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
}

// Values that vary from run to run.
var (
	idPattern     = regexp.MustCompile(`"(sessionId|turn_id|id)":"[^"]*"`)
	millisPattern = regexp.MustCompile(`\d{13}`)
)

// normalize replaces what varies in a recorded message: the workspace's
// path, ids, timestamps.
func normalize(msg []byte, ws string) []byte {
	var v any
	json.Unmarshal(msg, &v)
	b, _ := json.Marshal(v) // compact, members sorted
	b = bytes.ReplaceAll(b, []byte(ws), []byte("<CWD>"))
	b = idPattern.ReplaceAll(b, []byte(`"$1":"<ID>"`))
	return millisPattern.ReplaceAll(b, []byte("<MILLIS>"))
}

// shape describes what the proxy's matching relies on in a report: the
// method, the update's kind and status, the call's members, its title and
// kind, and the members of its rawInput (and of rawInput.arguments).
func shape(t *testing.T, line []byte) string {
	t.Helper()
	_, call, ok := toolCallMessage(line)
	if !ok {
		t.Fatalf("not a tool call report: %s", line)
	}
	var m struct {
		Method string `json:"method"`
	}
	json.Unmarshal(line, &m)
	raw, _ := call["rawInput"].(map[string]any)
	args, _ := raw["arguments"].(map[string]any)
	return fmt.Sprintf("%s %v %v members=%v title=%v kind=%v rawInput=%v arguments=%v",
		m.Method, call["sessionUpdate"], call["status"], keys(call), call["title"], call["kind"], keys(raw), keys(args))
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
