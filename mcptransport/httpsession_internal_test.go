package mcptransport

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/server"
)

// The live sessions of an endpoint are bounded: past the bound, the least
// recently used one ends (404 from then on), and what mcp-go kept of it is
// dropped as on DELETE (its session is unregistered).
func TestHTTPSessionsBounded(t *testing.T) {
	var mu sync.Mutex
	var unregistered []string
	hooks := &server.Hooks{}
	hooks.AddOnUnregisterSession(func(_ context.Context, s server.ClientSession) {
		mu.Lock()
		unregistered = append(unregistered, s.SessionID())
		mu.Unlock()
	})
	srv := server.NewMCPServer("t", "1", server.WithHooks(hooks))
	_, h := newBoundedHTTP(srv, slog.New(slog.DiscardHandler), nil, 2)
	ts := httptest.NewServer(h)
	defer ts.Close()

	do := func(body, sid string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+EndpointPath, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("Mcp-Session-Id")
	}
	const init = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	const ping = `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	var ids []string
	for range 2 {
		_, id := do(init, "")
		ids = append(ids, id)
	}
	if st, _ := do(ping, ids[0]); st != http.StatusOK { // the first is now the most recently used
		t.Fatalf("ping in session 0: %d", st)
	}
	_, id := do(init, "")
	ids = append(ids, id)
	for i, want := range []int{http.StatusOK, http.StatusNotFound, http.StatusOK} {
		if st, _ := do(ping, ids[i]); st != want {
			t.Errorf("ping in session %d: status %d, want %d", i, st, want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(unregistered) != 1 || unregistered[0] != ids[1] {
		t.Errorf("unregistered %q, want only the session that ended, %q", unregistered, ids[1])
	}
}
