package bridge

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

func TestDrainTracksRequests(t *testing.T) {
	d := &drain{pending: map[string]bool{}, changed: make(chan struct{})}
	// Lines may arrive in pieces, several at once, or not be JSON at all.
	d.read([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}` + "\n" + `{"id":"1","meth`))
	d.read([]byte(`od":"tools/list"}` + "\nnot json\n" + `{"method":"notifications/initialized"}` + "\n"))
	d.read([]byte(`{"id":7,"result":{}}` + "\n")) // a client's answer to a server request
	d.read([]byte(`{"id":null,"method":"x"}` + "\n"))
	d.read([]byte(`{"id":9,"method":"tools/call"}` + "\n"))
	if got := len(d.pending); got != 3 {
		t.Fatalf("pending %v, want 1, \"1\" and 9", d.pending)
	}
	d.wrote([]byte(`{"jsonrpc":"2.0","id":"1","result":{}}` + "\n" + `{"id":1,"method":"roots/list"}` + "\n"))
	d.read([]byte(`{"method":"notifications/cancelled","params":{"requestId":9}}` + "\n"))
	if !d.pending["1"] || len(d.pending) != 1 {
		t.Fatalf("pending %v, want only 1", d.pending)
	}
	d.wrote([]byte(`{"jsonrpc":"2.0","id":1,`))
	d.wrote([]byte(`"error":{"code":-1,"message":"x"}}` + "\n"))
	d.read([]byte(`{"id":10,"method":"a line never ended is never served"`))
	if !d.wait(context.Background(), 0) {
		t.Errorf("pending %v, want none", d.pending)
	}
}

func TestDrainWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := &drain{pending: map[string]bool{}, changed: make(chan struct{})}
		d.read([]byte(`{"id":1,"method":"a"}` + "\n" + `{"id":2,"method":"b"}` + "\n"))
		go func() {
			time.Sleep(time.Second)
			d.wrote([]byte(`{"id":1,"result":{}}` + "\n"))
			time.Sleep(time.Second)
			d.wrote([]byte(`{"id":2,"result":{}}` + "\n"))
		}()
		start := time.Now()
		if !d.wait(t.Context(), time.Minute) || time.Since(start) != 2*time.Second {
			t.Errorf("wait returned after %v, want 2s with nothing in flight", time.Since(start))
		}

		d.read([]byte(`{"id":3,"method":"c"}` + "\n"))
		start = time.Now()
		if d.wait(t.Context(), time.Minute) || time.Since(start) != time.Minute {
			t.Errorf("wait for a request never answered returned after %v, want a minute and false", time.Since(start))
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		if d.wait(ctx, time.Minute) {
			t.Error("wait with a cancelled context: true")
		}
	})
}
