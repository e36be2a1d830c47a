package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestScanEnvelope(t *testing.T) {
	big := strings.Repeat(`line \"quoted\" \\ back\\slash \n`, 1000)
	for _, tc := range []struct {
		line string
		want envelope
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + big + `"}],"structuredContent":{"isError":true}}}`,
			envelope{ID: []byte("7"), Result: true}},
		{`{"result":{"isError":true,"content":[]},"jsonrpc":"2.0","id":"a\"b"}`,
			envelope{ID: []byte(`"a\"b"`), Result: true, IsError: true}},
		{` {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad [ { \" "}} `,
			envelope{ID: []byte("null"), Error: []byte(`{"code":-32600,"message":"bad [ { \" "}`)}},
		{`{"jsonrpc":"2.0","id":3,"method":"roots/list"}`, envelope{ID: []byte("3"), Method: "roots/list"}},
		{`{"jsonrpc":"2.0","method":"notifications/m\u0065ssage","params":{"x":[1,{"y":"}"}]}}`, envelope{Method: "notifications/message"}},
		{`{"id":1,"result":{"isError":false}}`, envelope{ID: []byte("1"), Result: true}},
		// isError matched as encoding/json matches it: case folded, escapes decoded.
		{`{"id":1,"result":{"ISERROR":true}}`, envelope{ID: []byte("1"), Result: true, IsError: true}},
		{`{"id":1,"result":{"is\u0045rror":true,"x":1}}`, envelope{ID: []byte("1"), Result: true, IsError: true}},
		{`{"id":1,"result":{"isError":true,"isErrors":false}}`, envelope{ID: []byte("1"), Result: true, IsError: true}},
	} {
		got, err := scanEnvelope([]byte(tc.line))
		if err != nil {
			t.Errorf("%.80s: %v", tc.line, err)
			continue
		}
		if string(got.ID) != string(tc.want.ID) || got.Method != tc.want.Method || string(got.Error) != string(tc.want.Error) ||
			got.Result != tc.want.Result || got.IsError != tc.want.IsError {
			t.Errorf("%.80s:\n got %+v\nwant %+v", tc.line, got, tc.want)
		}
	}
}

func TestScanEnvelopeRefusesMalformed(t *testing.T) {
	for _, line := range []string{
		``, `[]`, `{`, `{"id":1`, `{"id":1,}`, `{"id":1}x`, `{"id":"unterminated}`, `{"result":{"a":[1,2}}`,
		`{"id" 1}`, `{"id":}`, `{"id":1 "x":2}`, `{"result":{"isError":true,}}`, `{"method":7}`,
	} {
		if env, err := scanEnvelope([]byte(line)); err == nil {
			t.Errorf("%q: no error, got %+v", line, env)
		}
	}
}

// Every well-formed message encoding/json can produce scans to the same
// id, method and error as encoding/json decodes.
func FuzzScanEnvelope(f *testing.F) {
	f.Add("7", "", `{"content":[]}`, true)
	f.Add(`"x\"y"`, "ping", `{"isError":true}`, false)
	f.Add("null", "a\\b", `"\u0000"`, true)
	f.Fuzz(func(t *testing.T, id, method, result string, isResponse bool) {
		var rawID, rawResult json.RawMessage
		if json.Unmarshal([]byte(id), &rawID) != nil || json.Unmarshal([]byte(result), &rawResult) != nil {
			return
		}
		msg := map[string]any{"jsonrpc": "2.0", "id": rawID}
		if isResponse {
			msg["result"] = rawResult
		} else {
			msg["method"] = method
			msg["params"] = rawResult
		}
		line, err := json.Marshal(msg)
		if err != nil {
			return
		}
		env, err := scanEnvelope(line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		var want struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result struct {
				IsError any `json:"isError"`
			} `json:"result"`
		}
		json.Unmarshal(line, &want)
		if string(env.ID) != string(want.ID) || env.Method != want.Method {
			t.Errorf("%s: id %s method %q, want %s %q", line, env.ID, env.Method, want.ID, want.Method)
		}
		if isResponse && env.IsError != (want.Result.IsError == true) {
			t.Errorf("%s: isError %v", line, env.IsError)
		}
	})
}

func TestParseStatus(t *testing.T) {
	status := "Name:\tnode\nVmPeak:\t  900 kB\nVmHWM:\t  204800 kB\nVmRSS:\t   10240 kB\nThreads:\t7\n"
	s, err := parseStatus([]byte(status))
	if err != nil || s.Peak != 200<<20 || s.RSS != 10<<20 {
		t.Errorf("parseStatus = %+v, %v", s, err)
	}
	if _, err := parseStatus([]byte("Name:\tzombie\nState:\tZ\n")); err == nil {
		t.Error("no figures: no error")
	}
	if _, err := parseStatus([]byte("VmRSS:\t12 MB\nVmHWM:\t1 kB\n")); err == nil {
		t.Error("a unit other than kB: no error")
	}
}

func TestParseStatCPU(t *testing.T) {
	// The command name may hold spaces and parentheses.
	stat := "42 (node (x) y) S 1 42 42 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 7 0 12345 0 0"
	d, err := parseStatCPU([]byte(stat))
	if err != nil || d != 3*time.Second {
		t.Errorf("parseStatCPU = %v, %v; want 3s (300 ticks)", d, err)
	}
	if _, err := parseStatCPU([]byte("42 (x) S 1")); err == nil {
		t.Error("a short line: no error")
	}
}

func TestPercentile(t *testing.T) {
	var lat []time.Duration
	for i := 1; i <= 200; i++ {
		lat = append(lat, time.Duration(i)*time.Millisecond)
	}
	if p := percentile(lat, 50); p != 100*time.Millisecond {
		t.Errorf("p50 = %v", p)
	}
	if p := percentile(lat, 99); p != 198*time.Millisecond {
		t.Errorf("p99 = %v", p)
	}
	if p := percentile(lat[:1], 99); p != time.Millisecond {
		t.Errorf("p99 of one = %v", p)
	}
	if p := percentile(nil, 50); p != 0 {
		t.Errorf("p50 of none = %v", p)
	}
}

func TestStall(t *testing.T) {
	steady := &phase{Calls: 240, Elapsed: 3 * time.Second}
	for range 240 {
		steady.Latency = append(steady.Latency, 500*time.Microsecond)
	}
	if s := steady.stall(); s != "" {
		t.Errorf("steady phase: %q", s)
	}
	stalled := &phase{Calls: 241, Elapsed: 3 * time.Second, Latency: append(slices.Clone(steady.Latency), 2900*time.Millisecond)}
	if s := stalled.stall(); !strings.Contains(s, "slowest of the 241 calls") || !strings.Contains(s, "took 2.90 s") || !strings.Contains(s, "97 %") {
		t.Errorf("stalled phase: %q", s)
	}
	// Slow calls that are all slow, as in the 1 GiB rows, are no stall.
	slow := &phase{Calls: 3, Elapsed: time.Second, Latency: []time.Duration{190 * time.Millisecond, 200 * time.Millisecond, 230 * time.Millisecond}}
	if s := slow.stall(); s != "" {
		t.Errorf("uniformly slow phase: %q", s)
	}
	if s := (&phase{}).stall(); s != "" {
		t.Errorf("empty phase: %q", s)
	}
}

func TestParseServer(t *testing.T) {
	s, err := parseServer("ours:acpfs:/bin/mcp-acpfs serve --root {root}")
	if err != nil || s.Label != "ours" || s.Profile != "acpfs" || strings.Join(s.Argv, "|") != "/bin/mcp-acpfs|serve|--root|{root}" {
		t.Errorf("parseServer = %+v, %v", s, err)
	}
	s, err = parseServer(`peer:reference:["/a b/node","/c d/index.js","{root}"]`)
	if err != nil || len(s.Argv) != 3 || s.Argv[0] != "/a b/node" {
		t.Errorf("parseServer with a JSON command = %+v, %v", s, err)
	}
	for _, bad := range []string{"ours", "ours:acpfs", "ours:nope:cmd", ":acpfs:cmd", "ours:acpfs:", `x:acpfs:["a"`} {
		if _, err := parseServer(bad); err == nil {
			t.Errorf("parseServer(%q): no error", bad)
		}
	}
}

// Two servers cannot share a label, even one that differs only where a
// file name cannot: their files in the scratch directory would be the same.
func TestServerLabelsDiffer(t *testing.T) {
	var f serverFlags
	if err := f.Set("a/b:floor:sync"); err != nil {
		t.Fatal(err)
	}
	for _, dup := range []string{"a/b:floor:nosync", "a_b:acpfs:/bin/mcp-acpfs serve"} {
		if err := f.Set(dup); err == nil || !strings.Contains(err.Error(), "is taken by") {
			t.Errorf("Set(%q): %v, want the label refused", dup, err)
		}
	}
	if err := f.Set("c:floor:sync"); err != nil || len(f) != 2 {
		t.Errorf("Set(c): %v, %d servers", err, len(f))
	}
}

func TestDisplayArgvHidesMachinePaths(t *testing.T) {
	r := &report{Root: "/u/cache/root"}
	got := r.displayArgv([]string{"/u/bin/mcp-acpfs", "serve", "--root", "/u/cache/root",
		"/u/repo/bench/node_modules/x/dist/index.js", "{root}"})
	if want := "mcp-acpfs serve --root ROOT node_modules/x/dist/index.js ROOT"; got != want {
		t.Errorf("displayArgv = %q, want %q", got, want)
	}
	if got := r.clip("read /u/cache/root/a.txt:\n  no"); got != "read ROOT/a.txt: no" {
		t.Errorf("clip = %q", got)
	}
}

func TestVerdict(t *testing.T) {
	ph := func(calls int) *phase { return &phase{Calls: calls, Elapsed: time.Second} }
	mk := func(seq, conc int, peak int64) *cell { return &cell{Seq: ph(seq), Conc: ph(conc), Peak: peak} }
	for _, tc := range []struct {
		a, o *cell
		want string
	}{
		{mk(300, 900, 10), mk(100, 300, 30), "✓"},
		{mk(299, 900, 10), mk(100, 300, 30), "✗ throughput"},
		{mk(300, 899, 10), mk(100, 300, 30), "✗ throughput"},
		{mk(300, 900, 11), mk(100, 300, 30), "✗ memory"},
		{mk(100, 100, 30), mk(100, 100, 30), "✗ throughput, memory"},
		{&cell{Err: errSyntax}, mk(1, 1, 1), "✗ fails"},
		{mk(1, 1, 1), &cell{Err: errSyntax}, "✓ (the peer fails)"},
	} {
		if got := verdict(tc.a, tc.o, row{Goal: true}); got != tc.want {
			t.Errorf("verdict(%v/%v, %v/%v) = %q, want %q", tc.a.Seq.Calls, tc.a.Peak, tc.o.Seq.Calls, tc.o.Peak, got, tc.want)
		}
	}
	if got := verdict(mk(1, 1, 1), mk(9, 9, 1), row{}); got != "(not a goal row)" {
		t.Errorf("a row outside the goal: %q", got)
	}
	if got := verdict(mk(1, 1, 1), mk(9, 9, 1), row{Floor: true}); got != "(against the floor, below)" {
		t.Errorf("a row judged against the floor: %q", got)
	}
}

// The fixtures' texts are what the checks expect.
func TestFixtureTexts(t *testing.T) {
	if s := textOfSize(smallSize, "x"); len(s) != smallSize || !strings.HasSuffix(s, "\n") {
		t.Errorf("textOfSize: %d bytes", len(s))
	}
	if l := bigLine(deepLine); len(l) != bigLineLen || !strings.HasPrefix(l, "line 10000000 ") {
		t.Errorf("bigLine = %q", l)
	}
	check := linesFrom(5, 2)
	ok := &toolResult{}
	ok.Content = append(ok.Content, struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}{"text", bigLine(5) + bigLine(6) + bigLine(7)})
	if err := check(ok); err != nil {
		t.Error(err)
	}
	ok.Content[0].Text = strings.TrimSuffix(bigLine(5)+bigLine(6), "\n") // the reference server drops the last newline
	if err := check(ok); err != nil {
		t.Error(err)
	}
	ok.Content[0].Text = bigLine(6)
	if err := check(ok); err == nil {
		t.Error("the wrong lines passed the check")
	}
	if e := editText(); strings.Count(e, markA) != 1 || strings.Contains(e, markB) {
		t.Error("the edited file must hold markA once and no markB")
	}
}
