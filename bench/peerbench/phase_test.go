package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// fakeServerEnv, when set, makes the test binary a fake MCP server on its
// stdin and stdout, for the client's tests: "ok" answers every request
// with a text result, "toolerror" with an error result, and "silent"
// answers none.
const fakeServerEnv = "PEERBENCH_FAKE_SERVER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeServerEnv); mode != "" {
		fakeServer(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func fakeServer(mode string) {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		env, err := scanEnvelope(in.Bytes())
		if err != nil || env.ID == nil || mode == "silent" {
			continue
		}
		result := `{"content":[{"type":"text","text":"ok"}]}`
		if mode == "toolerror" {
			result = `{"content":[{"type":"text","text":"no such file"}],"isError":true}`
		}
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", env.ID, result)
		out.Flush()
	}
}

// fakeClient starts a client of the test binary as a fake server.
func fakeClient(t *testing.T, mode string) *client {
	t.Helper()
	t.Setenv(fakeServerEnv, mode)
	c, err := startClient([]string{os.Args[0]})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.stdin.Close()
		c.cmd.Wait()
	})
	return c
}

var fakeOp = &op{Params: func(w, i int) []byte { return fmt.Appendf(nil, `{"name":"t","arguments":{"w":%d,"i":%d}}`, w, i) }}

// A phase's chains make at least their calls, each counted once.
func TestTimedPhase(t *testing.T) {
	c := fakeClient(t, "ok")
	iters := make([]int, 4)
	p, err := timedPhase(t.Context(), c, fakeOp, row{Timeout: time.Minute}, 4, time.Millisecond, 400, iters)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, n := range iters {
		sum += n
		if n < 100 {
			t.Errorf("a worker made %d calls, want at least 100", n)
		}
	}
	if p.Calls != sum || len(p.Latency) != sum {
		t.Errorf("%d calls and %d latencies for %d iterations", p.Calls, len(p.Latency), sum)
	}
}

// A tool's error result fails the phase, with the tool's text.
func TestTimedPhaseToolError(t *testing.T) {
	c := fakeClient(t, "toolerror")
	_, err := timedPhase(t.Context(), c, fakeOp, row{Timeout: time.Minute}, 4, time.Millisecond, 40, make([]int, 4))
	if err == nil || !strings.Contains(err.Error(), "the tool failed: no such file") {
		t.Fatalf("error %v, want the tool's failure", err)
	}
}

// A server that never answers fails the phase once a call has waited for
// the row's timeout, and a cancelled context ends it.
func TestTimedPhaseNoResponse(t *testing.T) {
	c := fakeClient(t, "silent")
	p, err := timedPhase(t.Context(), c, fakeOp, row{Timeout: 50 * time.Millisecond}, 2, time.Millisecond, 2, make([]int, 2))
	if err == nil || !strings.Contains(err.Error(), "no response in 50ms") || p == nil {
		t.Fatalf("phase %v, error %v; want no response", p, err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if p, err := timedPhase(ctx, c, fakeOp, row{Timeout: time.Hour}, 2, time.Millisecond, 2, make([]int, 2)); err == nil || p == nil {
		t.Fatalf("phase %v, error %v; want the context's error", p, err)
	}
}
