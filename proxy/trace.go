package proxy

import (
	"bufio"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// A tracer writes every message of both hops as JSON lines:
//
//	{"time":"2026-11-22T10:00:00.000000001Z","dir":"from-editor","msg":{…}}
//
// dir is from-editor, to-agent, from-agent or to-editor, so a rewritten
// message shows up twice, as received and as sent. A nil tracer records
// nothing.
type tracer struct {
	mu  sync.Mutex
	w   *bufio.Writer
	err error
}

func newTracer(w io.Writer) *tracer {
	if w == nil {
		return nil
	}
	return &tracer{w: bufio.NewWriter(w)}
}

type traceLine struct {
	Time string          `json:"time"`
	Dir  string          `json:"dir"`
	Msg  json.RawMessage `json:"msg"`
}

// record writes one message; msg must be one JSON value.
func (t *tracer) record(dir string, msg []byte) {
	if t == nil {
		return
	}
	line, err := json.Marshal(traceLine{Time: time.Now().UTC().Format(time.RFC3339Nano), Dir: dir, Msg: msg})
	if err != nil {
		// Not one JSON value: keep it as a string so that nothing is lost.
		line, _ = json.Marshal(struct {
			traceLine
			Msg string `json:"msg"`
		}{traceLine{Time: time.Now().UTC().Format(time.RFC3339Nano), Dir: dir}, string(msg)})
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return
	}
	t.w.Write(line)
	t.w.WriteByte('\n')
	// Flushed at once: a trace matters most when the proxy dies next.
	t.err = t.w.Flush()
}
