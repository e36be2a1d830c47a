package mcpfs_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fspath"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpfstest"
	"github.com/mcp-acpfs/mcp-acpfs/mcptransport"
)

// rpcAnswer is the error of a JSON-RPC response, if any.
type rpcAnswer struct {
	Error *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// modernMeta is the _meta of a stateless 2026-07-28 request.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`

// resourceRequest is a request of method about uri, in the stateless era
// if modern.
func resourceRequest(id int, method, uri string, modern bool) string {
	params := fmt.Sprintf(`"uri":%q`, uri)
	if modern {
		params += "," + modernMeta
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s}}`, id, method, params)
}

// checkResourceErrors sends resource requests that fail with send, which
// returns the response, and checks their JSON-RPC error codes and that
// the data names the URI: a missing file (or a URI no resource matches)
// is "resource not found", -32002 before 2026-07-28 and -32602 since; a
// file outside the roots, or a subscription to one, is invalid params.
func checkResourceErrors(t *testing.T, f *mcpfstest.Fixture, send func(body string, modern bool) []byte) {
	missing := fspath.FileURI(f.Path("root/missing.txt"))
	outside := fspath.FileURI(f.Path("outside.txt"))
	for i, tc := range []struct {
		name, method, uri string
		modern            bool
		code              int
	}{
		{"missing file", "resources/read", missing, false, -32002},
		{"missing file", "resources/read", missing, true, -32602},
		{"no resource matches", "resources/read", "test://nothing", false, -32002},
		{"no resource matches", "resources/read", "test://nothing", true, -32602},
		{"outside the roots", "resources/read", outside, false, -32602},
		{"outside the roots", "resources/read", outside, true, -32602},
		{"subscribe outside the roots", "resources/subscribe", outside, false, -32602},
		{"subscribe to another scheme", "resources/subscribe", "test://nothing", false, -32602},
	} {
		var a rpcAnswer
		raw := send(resourceRequest(10+i, tc.method, tc.uri, tc.modern), tc.modern)
		if err := json.Unmarshal(raw, &a); err != nil || a.Error == nil {
			t.Errorf("%s (modern %v): %v: %.300s, want an error", tc.name, tc.modern, err, raw)
			continue
		}
		var data struct {
			URI string `json:"uri"`
		}
		json.Unmarshal(a.Error.Data, &data)
		if a.Error.Code != tc.code || data.URI != tc.uri {
			t.Errorf("%s (modern %v): code %d, data %s (%s); want code %d, data.uri %s",
				tc.name, tc.modern, a.Error.Code, a.Error.Data, a.Error.Message, tc.code, tc.uri)
		}
	}
}

func newResourceErrorsFixture(t *testing.T) *mcpfstest.Fixture {
	f := mcpfstest.NewFixture(t, false, "root")
	f.WriteFile(t, "root/a.txt", "a\n")
	f.WriteFile(t, "outside.txt", "x\n")
	return f
}

func TestResourceErrorCodesStdio(t *testing.T) {
	f := newResourceErrorsFixture(t)
	toServer, r := mcpfstest.RawStdio(t, f.Srv, f.Transport(t))
	checkResourceErrors(t, f, func(body string, _ bool) []byte {
		io.WriteString(toServer, body+"\n")
		_, line := mcpfstest.ResponseID(t, r)
		return []byte(line)
	})
}

func TestResourceErrorCodesHTTP(t *testing.T) {
	f := newResourceErrorsFixture(t)
	ts := httptest.NewServer(mcptransport.NewHTTPHandler(f.Srv, "", f.Transport(t)))
	defer ts.Close()
	url := ts.URL + mcptransport.EndpointPath
	init := mcpfstest.Post(t, http.MethodPost, url, mcpfstest.InitializeBody, nil)
	checkResourceErrors(t, f, func(body string, modern bool) []byte {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if modern {
			var m struct {
				Method string `json:"method"`
				Params struct {
					URI string `json:"uri"`
				} `json:"params"`
			}
			json.Unmarshal([]byte(body), &m)
			req.Header.Set("MCP-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", m.Method)
			req.Header.Set("Mcp-Name", m.Params.URI)
		} else {
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
			req.Header.Set("Mcp-Session-Id", init.SID)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		s := string(b)
		if i := strings.Index(s, "data: "); i >= 0 {
			s = strings.SplitN(s[i+len("data: "):], "\n", 2)[0]
		}
		if modern && resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: HTTP status %d, want 400 for invalid params", body, resp.StatusCode)
		}
		return []byte(s)
	})
}

// Over HTTP, a client with roots is asked for them on the response stream
// of its resources/read, and the error then comes as an event of that
// stream: it still gets its code (checked by the mcp-go client's reading
// of it), and the narrowing applies.
func TestResourceErrorCodesHTTPStream(t *testing.T) {
	f := newRootsFixture(t, 0, ".")
	roots := &clientRoots{}
	roots.set(fspath.FileURI(f.Path("a")))
	c := connectHTTPWithRoots(t, f, mcp.LATEST_LEGACY_PROTOCOL_VERSION, roots)
	read := func(p string) error {
		var req mcp.ReadResourceRequest
		req.Params.URI = fspath.FileURI(p)
		_, err := c.ReadResource(t.Context(), req)
		return err
	}
	if err := read(f.Path("a/missing.txt")); !errors.Is(err, mcp.ErrResourceNotFound) {
		t.Errorf("a missing file: %v, want resource not found", err)
	}
	if err := read(f.Path("b/other.txt")); !errors.Is(err, mcp.ErrInvalidParams) {
		t.Errorf("a file outside the client's roots: %v, want invalid params", err)
	}
	if n := roots.callCount(); n != 1 {
		t.Errorf("roots asked %d times, want 1 (on the first read's stream)", n)
	}
}
