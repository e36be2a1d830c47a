package mcptransport_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpfstest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
	"github.com/mcp-acpfs/mcp-acpfs/mcptransport"
)

// BenchmarkServeStdio runs tool calls through ServeStdio, as
// `mcp-acpfs serve` runs them, one at a time over pipes: it is the
// server's side of the peer benchmark's rows (bench/peerbench), for
// profiling. Each call's response is read whole and checked for an error.
func BenchmarkServeStdio(b *testing.B) {
	dir := b.TempDir()
	text := func(size int) string {
		var s strings.Builder
		for i := 1; s.Len() < size; i++ {
			fmt.Fprintf(&s, "line %6d: the quick brown fox jumps over the lazy dog\n", i)
		}
		return s.String()[:size-1] + "\n"
	}
	mustWrite := func(name, content string) string {
		p := filepath.Join(dir, name)
		ostest.WriteFile(b, p, content)
		return p
	}
	small := mustWrite("small.txt", text(4<<10))
	large := mustWrite("large.txt", text(1<<20))
	half := text(32 << 10)
	edited := filepath.Join(dir, "edit.txt") // written afresh by each run
	for i := range 1000 {
		mustWrite(fmt.Sprintf("list/entry-%04d.txt", i), "listed\n")
	}
	for d := range 10 {
		for f := range 100 {
			name, content := fmt.Sprintf("tree/dir-%02d/file-%03d.txt", d, f), text(1<<10)
			if f%10 == 0 {
				name, content = strings.TrimSuffix(name, ".txt")+".go", "needle\n"+content
			}
			mustWrite(name, content)
		}
	}

	call := func(tool string, args map[string]any) func(int) map[string]any {
		return func(int) map[string]any { return map[string]any{"name": tool, "arguments": args} }
	}
	cases := []struct {
		name string
		call func(i int) map[string]any
	}{
		{"read-4k", call(mcpfs.ReadTextFile, map[string]any{"path": small})},
		{"read-1m", call(mcpfs.ReadTextFile, map[string]any{"path": large})},
		{"read-range", call(mcpfs.ReadTextFile, map[string]any{"path": large, "line": 10000, "limit": 100})},
		{"write-4k", call(mcpfs.WriteTextFile, map[string]any{"path": filepath.Join(dir, "w.txt"), "content": text(4 << 10)})},
		{"write-1m", call(mcpfs.WriteTextFile, map[string]any{"path": filepath.Join(dir, "w.txt"), "content": text(1 << 20)})},
		{"edit", func(i int) map[string]any {
			from, to := "// alpha\n", "// beta\n"
			if i%2 == 1 {
				from, to = to, from
			}
			return map[string]any{"name": mcpfs.EditTextFile, "arguments": map[string]any{
				"path": edited, "edits": []map[string]any{{"oldText": from, "newText": to}}}}
		}},
		{"list", call(mcpfs.ListDirectory, map[string]any{"path": filepath.Join(dir, "list")})},
		{"glob", call(mcpfs.Glob, map[string]any{"path": filepath.Join(dir, "tree"), "pattern": "**/*.go"})},
		{"grep", call(mcpfs.Grep, map[string]any{"path": filepath.Join(dir, "tree"), "pattern": "needle"})},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			d, err := fsruntime.OpenDisk([]string{dir}, fsruntime.DiskOptions{})
			if err != nil {
				b.Fatal(err)
			}
			defer d.Close()
			files := mcpfs.DiskFiles(d, false)
			srv, err := mcpfs.NewServer(files, mcpfs.Options{Tools: mcpfstest.Structured})
			if err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(edited, []byte(half+"// alpha\n"+half), 0o644); err != nil {
				b.Fatal(err)
			}
			inR, toServer := io.Pipe()
			fromServer, outW := io.Pipe()
			served := make(chan error, 1)
			go func() {
				err := mcptransport.ServeStdio(b.Context(), srv, inR, outW, mcpfs.TransportOptions(files, nil))
				outW.Close()
				served <- err
			}()
			r := bufio.NewReaderSize(fromServer, 1<<20)
			id := 0
			var head, want []byte
			// send writes a request whose params are already encoded, in
			// pieces (the params are not copied), and reads the response.
			// The client's CPU counts in cpu-ns/op, so it does little: it
			// reads the response a buffer at a time without keeping it,
			// and checks that it starts as a result of the request's id
			// and does not end as an error result ("isError" comes last,
			// and cannot occur unescaped inside a string).
			send := func(method string, params []byte) {
				id++
				head = strconv.AppendInt(append(head[:0], `{"jsonrpc":"2.0","id":`...), int64(id), 10)
				head = append(append(append(head, `,"method":"`...), method...), `","params":`...)
				bufs := net.Buffers{head, params, []byte("}\n")}
				if _, err := bufs.WriteTo(toServer); err != nil {
					b.Fatal(err)
				}
				var start, last []byte
				for {
					frag, err := r.ReadSlice('\n')
					if start == nil {
						start = append([]byte(nil), frag[:min(len(frag), 300)]...)
					}
					last = frag[max(len(frag)-100, 0):]
					if err == nil {
						break
					}
					if err != bufio.ErrBufferFull {
						b.Fatal(err)
					}
				}
				want = append(strconv.AppendInt(append(want[:0], `{"jsonrpc":"2.0","id":`...), int64(id), 10), `,"result":`...)
				if !bytes.HasPrefix(start, want) || bytes.Contains(last, []byte(`"isError":true`)) {
					b.Fatalf("%s: %.300s", method, start)
				}
			}
			send("initialize", []byte(`{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}`))
			toServer.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
			// The requests are encoded before the clock starts.
			reqs := [2][]byte{}
			for i := range reqs {
				if reqs[i], err = json.Marshal(c.call(i)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			cpu0 := ostest.CPUTime(b)
			i := 0
			for b.Loop() {
				send("tools/call", reqs[i%2])
				i++
			}
			b.StopTimer()
			// CPU time is steadier than wall time on a shared machine. It
			// counts this process: the server and the benchmark's client.
			b.ReportMetric(float64(ostest.CPUTime(b)-cpu0)/float64(i), "cpu-ns/op")
			toServer.Close()
			io.Copy(io.Discard, fromServer)
			if err := <-served; err != nil {
				b.Fatal(err)
			}
		})
	}
}
