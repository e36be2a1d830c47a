package bridge

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-acpfs/mcp-acpfs/bridge/wire"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
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
func NewHTTPHandler(srv *server.MCPServer, token string, logger *slog.Logger) http.Handler {
	return newHTTPHandler(srv, token, logger, int64(messageLimitOf(srv)), overlongScan)
}

// newHTTPHandler is NewHTTPHandler with limit on a request body, read on
// up to scan bytes past it (see limitBodyScan).
func newHTTPHandler(srv *server.MCPServer, token string, logger *slog.Logger, limit, scan int64) http.Handler {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	mux := http.NewServeMux()
	_, h := newStreamableHTTP(srv, slog.New(lowerInfo{logger.Handler()}), RequestScopedRoots)
	mux.Handle(EndpointPath, h)
	return bodyTimeout(GuardHTTP(limitBodyScan(mux, limit, scan), token), DefaultHandshakeTimeout)
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
		if !IsLoopbackHost(r.Host) {
			http.Error(w, "forbidden: the Host header must name a loopback host", http.StatusForbidden)
			return
		}
		if origin, ok := r.Header["Origin"]; ok && (len(origin) != 1 || !loopbackOrigin(origin[0])) {
			http.Error(w, "forbidden: cross-origin requests are not allowed", http.StatusForbidden)
			return
		}
		if creds := r.Header.Values("Authorization"); token != "" && !bearerMatches(creds, token) {
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

// IsLoopbackHost reports whether hostport, a host with or without a port as
// in an HTTP Host header, names a loopback host: "localhost" (in any case),
// an address in 127.0.0.0/8, or ::1 (in brackets when a port follows).
// Nothing is resolved.
func IsLoopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	} else if strings.HasPrefix(hostport, "[") && strings.HasSuffix(hostport, "]") {
		host = hostport[1 : len(hostport)-1]
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Zone() == "" && ip.Unmap().IsLoopback()
}

// loopbackOrigin reports whether an Origin header value is http or https on
// a loopback host.
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" {
		return false
	}
	if u.User != nil || u.Host == "" || u.Path != "" && u.Path != "/" || u.RawQuery != "" || u.Fragment != "" {
		return false
	}
	return IsLoopbackHost(u.Host)
}

// bearerMatches reports whether the Authorization header values are exactly
// one bearer credential equal to token.
func bearerMatches(values []string, token string) bool {
	cred, ok := bearerToken(values)
	return ok && subtle.ConstantTimeCompare([]byte(cred), []byte(token)) == 1
}

// bearerToken returns the credential of the Authorization header values
// when they are exactly one bearer credential (the scheme in any case).
func bearerToken(values []string) (string, bool) {
	if len(values) != 1 {
		return "", false
	}
	scheme, cred, ok := strings.Cut(strings.TrimSpace(values[0]), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(cred), true
}

// NewToken returns a random bearer token: 32 bytes, hex encoded.
func NewToken() string {
	var b [32]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// CheckLoopbackAddr checks that addr, a host:port to listen on, names a
// loopback host as [IsLoopbackHost] defines it. An empty host, which would
// listen on every interface, is refused. Nothing is resolved.
func CheckLoopbackAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if host == "" {
		return fmt.Errorf("address %q has no host, and would listen on every interface; use 127.0.0.1 or localhost", addr)
	}
	if !IsLoopbackHost(host) {
		return fmt.Errorf("address %q is not a loopback address; use 127.0.0.1, [::1] or localhost", addr)
	}
	return nil
}

// MaxRequestBody bounds the body of an MCP request over HTTP, as
// wire.DefaultMaxLineSize bounds one message on a stream, for a server
// whose file size limit does not ask for more (see [MessageLimit]).
const MaxRequestBody = wire.DefaultMaxLineSize

// MessageLimit is the longest MCP or ACP message, in bytes, that the
// transports of a session with the file size limit maxFileSize accept
// (zero or less means fsruntime.DefaultMaxFileSize): six times the limit
// and 1 MiB, so that a write or a read of a file at the limit fits however
// much of it JSON escapes (a control character becomes \u00XX, six bytes
// for one), and never less than wire.DefaultMaxLineSize.
func MessageLimit(maxFileSize int64) int {
	if maxFileSize <= 0 {
		maxFileSize = fsruntime.DefaultMaxFileSize
	}
	const most = math.MaxInt / 8
	if maxFileSize > most {
		maxFileSize = most
	}
	return max(wire.DefaultMaxLineSize, int(maxEscape*maxFileSize)+1<<20)
}

// maxEscape is the most bytes JSON can take for a byte of text: \u00XX.
const maxEscape = 6

// messageLimitOf is the MessageLimit of srv's file size limit if srv was
// made by NewServer, and wire.DefaultMaxLineSize otherwise.
func messageLimitOf(srv *server.MCPServer) int {
	if calls := toolCallsOf(srv); calls != nil {
		return calls.maxMessage
	}
	return wire.DefaultMaxLineSize
}

// overlongScan is how far past the limit an over-long request body is
// read on, without being kept, for the envelope scan to tell whether it is
// one tools/call request, which then gets a tool error (see limitBody).
// The scan holds a few hundred bytes; this bounds the time it takes (the
// body timeout bounds it too) and the bytes a client can make it read.
const overlongScan = 1 << 30

// limitBody bounds a request body to limit bytes before next reads it
// whole, as limitBodyScan does with overlongScan.
func limitBody(next http.Handler, limit int64) http.Handler {
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
