package mcptransport

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/internal/loopback"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpserve"
	"github.com/mcp-acpfs/mcp-acpfs/internal/wire"
)

// EndpointPath is where [NewHTTPHandler] serves MCP.
const EndpointPath = "/mcp"

// NewHTTPHandler returns an http.Handler that serves srv over MCP
// Streamable HTTP at [EndpointPath], behind [GuardHTTP] with token. A
// request whose body does not arrive within [DefaultHandshakeTimeout] has
// its connection dropped; one whose body is over [MaxRequestBody] (for a
// server of NewServer's, the [MessageLimit] of its file size limit) is
// refused, unless it is one tools/call request: that gets a tool error
// that names the tool and the sizes, as over stdio.
func NewHTTPHandler(srv *server.MCPServer, token string, opts Options) http.Handler {
	return newHTTPHandler(srv, token, opts, int64(maxMessageOf(opts)), overlongScan)
}

// newHTTPHandler is NewHTTPHandler with limit on a request body, read on
// up to scan bytes past it (see limitBodyScan).
func newHTTPHandler(srv *server.MCPServer, token string, opts Options, limit, scan int64) http.Handler {
	mux := http.NewServeMux()
	_, h := NewStreamableHTTP(srv, slog.New(mcpserve.LowerInfo(loggerOf(opts).Handler())), RequestScopedRoots)
	mux.Handle(EndpointPath, h)
	return BodyTimeout(GuardHTTP(limitBodyScan(mux, limit, scan), token), DefaultHandshakeTimeout)
}

// GuardHTTP protects next, an HTTP endpoint meant to be reached on a
// loopback address by local processes only:
//
//   - A request whose Host header is not a loopback host (localhost,
//     127.0.0.0/8 or [::1], with any port) is refused with 403 Forbidden, so
//     that a web page cannot reach the endpoint through DNS rebinding.
//   - A request with an Origin header that is not http or https on such a
//     host (an "Origin: null" included) is refused with 403 Forbidden, so
//     that a web page of another origin cannot use it.
//   - Unless token is empty, a request must carry "Authorization: Bearer
//     <token>" (the scheme in any case); otherwise it is refused with 401
//     Unauthorized and "WWW-Authenticate: Bearer", with error="invalid_token"
//     and a text of its own when some other credential came (RFC 6750). The
//     token is compared in constant time.
func GuardHTTP(next http.Handler, token string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopback.IsLoopbackHost(r.Host) {
			http.Error(w, "forbidden: the Host header must name a loopback host", http.StatusForbidden)
			return
		}
		if origin, ok := r.Header["Origin"]; ok && (len(origin) != 1 || !loopback.LoopbackOrigin(origin[0])) {
			http.Error(w, "forbidden: cross-origin requests are not allowed", http.StatusForbidden)
			return
		}
		if creds := r.Header.Values("Authorization"); token != "" && !loopback.BearerMatches(creds, token) {
			if len(creds) == 0 {
				w.Header().Set("WWW-Authenticate", "Bearer")
				http.Error(w, "unauthorized: a bearer token is required", http.StatusUnauthorized)
				return
			}
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			http.Error(w, "unauthorized: the bearer token is wrong", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// MaxRequestBody bounds the body of an MCP request over HTTP, as
// wire.DefaultMaxLineSize bounds one message on a stream, for a server
// whose file size limit does not ask for more (see [MessageLimit]).
const MaxRequestBody = wire.DefaultMaxLineSize

// overlongScan is how far past the limit an over-long request body is
// read on, without being kept, for the envelope scan to tell whether it is
// one tools/call request, which then gets a tool error (see limitBody).
// The scan holds a few hundred bytes; this bounds the time it takes (the
// body timeout bounds it too) and the bytes a client can make it read.
const overlongScan = 1 << 30

// LimitBody bounds a request body to limit bytes before next reads it
// whole, as limitBodyScan does with overlongScan.
func LimitBody(next http.Handler, limit int64) http.Handler {
	return limitBodyScan(next, limit, overlongScan)
}

// limitBodyScan bounds a request body to limit bytes before next reads it
// whole. Past the limit, the rest goes only through the envelope scan
// (wire.BodyScan), and the read fails: with an *overlongCall if the body
// is one tools/call request (the session gate answers it with a tool
// error), else with an error that names the limit (mcp-go answers with
// it). The rest is not read once the scan tells it is no such call, nor
// past limit+scan (the connection then closes); a Content-Length past
// that gets 413 and such an error at once.
func limitBodyScan(next http.Handler, limit, scan int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > limit+scan {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Connection", "close")
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			w.Write(wire.ErrorResponse(nil, wire.CodeInvalidRequest, bodyTooLarge(r.ContentLength, limit).Error(), nil))
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = &limitedBody{ReadCloser: r.Body, w: w, limit: limit, scan: scan, length: r.ContentLength, env: wire.NewBodyScan()}
		}
		next.ServeHTTP(w, r)
	})
}

// limitedBody passes on a body up to its limit, scanning it as it goes,
// and what is past the limit only to the scan (see limitBodyScan).
type limitedBody struct {
	io.ReadCloser
	w      http.ResponseWriter
	limit  int64
	scan   int64
	length int64          // the Content-Length, -1 if unknown
	env    *wire.BodyScan // has seen the n bytes read so far
	n      int64
	err    error // once past the limit, what every read returns
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	// One byte past the limit tells that the body is over it.
	if rest := b.limit + 1 - b.n; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	b.env.Write(p[:n])
	if b.n <= b.limit {
		return n, err
	}
	b.err = b.overLimit(err)
	return n - 1, b.err
}

// overLimit reads on the body past its limit into the scan, and returns
// the error that fails its reads; err is that of the last read.
func (b *limitedBody) overLimit(err error) error {
	var buf []byte
	for empty := 0; ; {
		switch {
		case err == io.EOF:
			if over := b.env.Overlong("mcp client", int(b.limit)); over.Kind == wire.KindRequest && over.Tool != "" {
				return &overlongCall{over}
			}
			return bodyTooLarge(b.n, b.limit)
		case err != nil:
			return err // a stalled body, say: the connection is dropped
		case empty >= 100:
			return io.ErrNoProgress
		case b.n > b.limit+b.scan || b.env.NotToolCall():
			b.stop()
			return bodyTooLarge(b.length, b.limit)
		}
		if buf == nil {
			buf = make([]byte, 64<<10)
		}
		var n int
		n, err = b.ReadCloser.Read(buf[:min(int64(len(buf)), b.limit+b.scan+1-b.n)])
		b.n += int64(n)
		b.env.Write(buf[:n])
		if empty++; n > 0 {
			empty = 0
		}
	}
}

// stop has the server close the connection once it has answered, after a
// pause for the client to read the answer before the rest of the body it
// sends is refused: what it does for a read past the limit of an
// http.MaxBytesReader, which a read of one byte past a limit of 0 is.
func (b *limitedBody) stop() {
	http.MaxBytesReader(b.w, b.ReadCloser, 0).Read(make([]byte, 1))
}

// bodyTooLarge says that a request body of size bytes (-1: unknown) is
// over limit.
func bodyTooLarge(size, limit int64) error {
	if size < 0 {
		return fmt.Errorf("the request body exceeds the %s limit on one message", fsruntime.FormatSize(limit))
	}
	return fmt.Errorf("the request body of %s exceeds the %s limit on one message", fsruntime.FormatSize(size), fsruntime.FormatSize(limit))
}
