package wire

// A BodyScan is the envelope scan of an overlong line (see OverlongError)
// for a message that comes alone in a body of its own, such as an HTTP
// request's: written to in pieces, it keeps a few hundred bytes however
// long the message is. Make one with NewBodyScan.
type BodyScan struct {
	s envScan
	n int64
}

// NewBodyScan returns a scan at the start of a message.
func NewBodyScan() *BodyScan {
	b := &BodyScan{}
	b.s.reset()
	return b
}

// Write scans the next piece of the message. It never fails.
func (b *BodyScan) Write(p []byte) (int, error) {
	b.s.feed(p)
	b.n += int64(len(p))
	return len(p), nil
}

// NotToolCall reports whether what has been written already shows that
// the message is not one tools/call request: it is not a JSON object (a
// batch, say), its "method" is another, or its envelope is ambiguous.
func (b *BodyScan) NotToolCall() bool {
	s := &b.s
	return s.st == stBroken || s.dup ||
		s.seen[memMethod] && (!s.methodOK || s.method != "tools/call")
}

// Overlong returns what the scan found of the whole message, written to
// it, as the OverlongError of a message over max bytes from peer.
func (b *BodyScan) Overlong(peer string, max int) *OverlongError {
	kind, id, method := b.s.result()
	return &OverlongError{Peer: peer, Kind: kind, ID: id, Method: method, Tool: b.s.tool(), Inner: b.s.innerRequest(), Len: b.n, Max: max}
}
