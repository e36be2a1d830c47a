package mcpfs

import (
	"fmt"
	"path/filepath"
	"testing"
)

func TestLedgerBound(t *testing.T) {
	l := newLedger()
	path := func(i int) string { return filepath.FromSlash(fmt.Sprintf("/w/f%d.txt", i)) }
	for i := range maxLedgerPaths {
		l.record(path(i), fmt.Sprint(i))
	}
	l.seen(path(0)) // used: the least recently used is now f1
	l.record(path(maxLedgerPaths), "new")
	if _, ok := l.seen(path(1)); ok {
		t.Error("the least recently used path was kept past the bound")
	}
	for _, i := range []int{0, 2, maxLedgerPaths} {
		if _, ok := l.seen(path(i)); !ok {
			t.Errorf("f%d was forgotten", i)
		}
	}
	if n := len(l.files.m); n != maxLedgerPaths || l.files.order.Len() != n {
		t.Errorf("%d paths (%d in order), want %d", n, l.files.order.Len(), maxLedgerPaths)
	}
	l.record(path(2), "") // not hashed: nothing recorded
	if sum, _ := l.seen(path(2)); sum != "2" {
		t.Errorf("an unhashed read replaced the entry: %q", sum)
	}
}

func TestLedgerMove(t *testing.T) {
	p := filepath.FromSlash
	l := newLedger()
	for _, s := range []string{"/w/d/x", "/w/d/sub/y", "/w/dd/z", "/w/e/old", "/w/e"} {
		l.record(p(s), s)
	}
	l.move(p("/w/d"), p("/w/e"))
	want := map[string]string{"/w/e/x": "/w/d/x", "/w/e/sub/y": "/w/d/sub/y", "/w/dd/z": "/w/dd/z"}
	if len(l.files.m) != len(want) {
		t.Errorf("%d entries after the move, want %d", len(l.files.m), len(want))
	}
	for k, v := range want {
		if got, _ := l.seen(p(k)); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	l.forget(p("/w/e"))
	if len(l.files.m) != 1 {
		t.Errorf("%d entries after forgetting /w/e, want 1 (/w/dd/z)", len(l.files.m))
	}
}

func TestLedgersBound(t *testing.T) {
	ls := newLedgers()
	first := ls.of("s0")
	first.record("/a", "h")
	for i := 1; i <= maxLedgerSessions; i++ {
		ls.of(fmt.Sprint("s", i))
	}
	if _, ok := ls.of("s0").seen("/a"); ok {
		t.Error("the least recently used session's ledger was kept past the bound")
	}
	// An ended session's calls get an empty ledger, not kept.
	ls.of("s1").record("/a", "h")
	ls.end("s1")
	l := ls.of("s1")
	l.record("/b", "h")
	if _, ok := ls.of("s1").seen("/b"); ok {
		t.Error("an ended session got a ledger kept")
	}
	// A session that begins anew (the same id) starts afresh.
	ls.begin("s1")
	ls.of("s1").record("/c", "h")
	if _, ok := ls.of("s1").seen("/c"); !ok {
		t.Error("a session begun again has no ledger")
	}
}
