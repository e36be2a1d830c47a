package loopback

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
)

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

// LoopbackOrigin reports whether an Origin header value is http or https on
// a loopback host.
func LoopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" {
		return false
	}
	if u.User != nil || u.Host == "" || u.Path != "" && u.Path != "/" || u.RawQuery != "" || u.Fragment != "" {
		return false
	}
	return IsLoopbackHost(u.Host)
}

// BearerMatches reports whether the Authorization header values are exactly
// one bearer credential equal to token.
func BearerMatches(values []string, token string) bool {
	cred, ok := BearerToken(values)
	return ok && subtle.ConstantTimeCompare([]byte(cred), []byte(token)) == 1
}

// BearerToken returns the credential of the Authorization header values
// when they are exactly one bearer credential (the scheme in any case).
func BearerToken(values []string) (string, bool) {
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
