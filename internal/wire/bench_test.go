package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"strings"
	"testing"

	"github.com/sourcegraph/jsonrpc2"
)

// sessionUpdate is a typical agent_message_chunk notification, about 300
// bytes.
const sessionUpdate = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_abc123def456",` +
	`"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"I'll read main.go ` +
	`to understand the project layout before changing anything. Then I will run the tests."}},` +
	`"_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}}`

// cycleReader repeats data forever.
type cycleReader struct {
	data []byte
	off  int
}

func (c *cycleReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		k := copy(p[n:], c.data[c.off:])
		n += k
		c.off = (c.off + k) % len(c.data)
	}
	return n, nil
}

func BenchmarkReaderNotifications(b *testing.B) {
	line := []byte(sessionUpdate + "\n")
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	r := NewReader(&cycleReader{data: bytes.Repeat(line, 256)}, ReaderOptions{Logger: discardLogger})
	for b.Loop() {
		m, err := r.Next()
		if err != nil || m.Method != "session/update" {
			b.Fatal(m, err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

func BenchmarkReaderLargeResponse(b *testing.B) {
	line := append(bigResponse(10<<20), '\n')
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	r := NewReader(&cycleReader{data: line}, ReaderOptions{Logger: discardLogger})
	for b.Loop() {
		if m, err := r.Next(); err != nil || m.Kind() != KindResponse {
			b.Fatal(err)
		}
	}
}

// BenchmarkReaderLargeRequest reads a tools/call request that writes 1 MiB
// of text like a source file's: a newline, which JSON escapes, every 60
// bytes or so.
func BenchmarkReaderLargeRequest(b *testing.B) {
	var text strings.Builder
	for i := 1; text.Len() < 1<<20; i++ {
		fmt.Fprintf(&text, "line %6d: the quick brown fox jumps over the lazy dog\n", i)
	}
	content, _ := json.Marshal(text.String())
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_text_file",` +
		`"arguments":{"path":"/home/u/project/big.txt","content":` + string(content) + `}}}` + "\n")
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	r := NewReader(&cycleReader{data: line}, ReaderOptions{Logger: discardLogger})
	for b.Loop() {
		if m, err := r.Next(); err != nil || m.Method != "tools/call" {
			b.Fatal(err)
		}
	}
}

func BenchmarkSetID(b *testing.B) {
	for _, bc := range []struct {
		name string
		msg  []byte
	}{
		{"300B", []byte(`{"jsonrpc":"2.0","id":12,"method":"fs/read_text_file","params":{"sessionId":"sess_abc123def456","path":"/home/u/project/cmd/main.go","line":1,"limit":200}}`)},
		{"10MiB", bigResponse(10 << 20)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			id := json.RawMessage(`-5`)
			b.SetBytes(int64(len(bc.msg)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := SetID(bc.msg, id); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkMessageWithID10MiB(b *testing.B) {
	m, err := Parse(bigResponse(10 << 20))
	if err != nil {
		b.Fatal(err)
	}
	id := json.RawMessage(`-5`)
	b.SetBytes(int64(len(m.Raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.WithID(id); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSetIDByRemarshal is what SetID avoids: decoding the message and
// encoding it again.
func BenchmarkSetIDByRemarshal(b *testing.B) {
	msg := bigResponse(10 << 20)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(msg, &m); err != nil {
			b.Fatal(err)
		}
		m["id"] = json.RawMessage(`-5`)
		if _, err := json.Marshal(m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStreamRequests measures a request and its reply through a
// jsonrpc2.Conn on an ObjectStream, for comparison with NewPlainObjectStream.
func BenchmarkStreamRequests(b *testing.B) {
	for _, bc := range []struct {
		name   string
		stream func(io.ReadWriteCloser) jsonrpc2.ObjectStream
	}{
		{"ObjectStream", func(c io.ReadWriteCloser) jsonrpc2.ObjectStream {
			return NewObjectStream(c, ReaderOptions{Logger: discardLogger})
		}},
		{"PlainObjectStream", jsonrpc2.NewPlainObjectStream},
	} {
		b.Run(bc.name, func(b *testing.B) {
			a, c := net.Pipe()
			ctx := context.Background()
			quiet := jsonrpc2.SetLogger(log.New(io.Discard, "", 0))
			server := jsonrpc2.NewConn(ctx, bc.stream(a), jsonrpc2.HandlerWithError(
				func(_ context.Context, _ *jsonrpc2.Conn, r *jsonrpc2.Request) (any, error) {
					return r.Params, nil
				}), quiet)
			client := jsonrpc2.NewConn(ctx, jsonrpc2.NewPlainObjectStream(c), echo, quiet)
			defer server.Close()
			defer client.Close()
			params := json.RawMessage(`{"sessionId":"sess_abc123def456","path":"/home/u/project/cmd/main.go","line":1,"limit":200}`)
			b.ReportAllocs()
			for b.Loop() {
				var out json.RawMessage
				if err := client.Call(ctx, "fs/read_text_file", params, &out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
