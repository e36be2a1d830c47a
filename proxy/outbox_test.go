package proxy

import (
	"bufio"
	"fmt"
	"io"
	"sync"
	"testing"
)

// TestOutboxKeepsOrderAcrossSenders queues lines from several goroutines:
// every line arrives whole, once, and in each sender's order.
func TestOutboxKeepsOrderAcrossSenders(t *testing.T) {
	r, w := io.Pipe()
	o := newOutbox("peer", w, nil)
	ran := make(chan error, 1)
	go func() { ran <- o.run() }()

	const senders, lines = 8, 500
	var wg sync.WaitGroup
	for s := range senders {
		wg.Go(func() {
			for i := range lines {
				o.send([]byte(fmt.Sprintf(`{"s":%d,"i":%d}`, s, i)))
			}
		})
	}
	got := make(chan map[int]int, 1)
	go func() {
		next := map[int]int{}
		sc := bufio.NewScanner(r)
		for n := 0; n < senders*lines && sc.Scan(); n++ {
			var s, i int
			if _, err := fmt.Sscanf(sc.Text(), `{"s":%d,"i":%d}`, &s, &i); err != nil {
				t.Errorf("mangled line %q", sc.Text())
				continue
			}
			if i != next[s] {
				t.Errorf("sender %d: line %d arrived where %d was due", s, i, next[s])
			}
			next[s] = i + 1
		}
		got <- next
	}()
	wg.Wait()
	next := <-got
	for s := range senders {
		if next[s] != lines {
			t.Errorf("sender %d: %d lines arrived, want %d", s, next[s], lines)
		}
	}
	o.close()
	if err := <-ran; err != nil {
		t.Errorf("run: %v", err)
	}
}
