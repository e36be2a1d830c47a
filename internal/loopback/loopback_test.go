package loopback

import (
	"regexp"
	"testing"
)

func TestCheckLoopbackAddr(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:0":       true,
		"127.0.0.1:8080":    true,
		"127.255.0.1:1":     true,
		"localhost:0":       true,
		"[::1]:0":           true,
		":8080":             false,
		"0.0.0.0:8080":      false,
		"[::]:8080":         false,
		"192.168.0.1:80":    false,
		"example.com:80":    false,
		"localhost.com:80":  false,
		"127.0.0.1":         false, // no port
		"[::ffff:7f00:1]:1": true,  // IPv4-mapped 127.0.0.1
	} {
		if err := CheckLoopbackAddr(addr); (err == nil) != ok {
			t.Errorf("CheckLoopbackAddr(%q) = %v, want ok=%v", addr, err, ok)
		}
	}
}

func TestNewToken(t *testing.T) {
	a, b := NewToken(), NewToken()
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(a) || a == b {
		t.Errorf("tokens %q and %q, want two different 32-byte hex strings", a, b)
	}
}
