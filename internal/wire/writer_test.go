package wire

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
)

func TestWriterRefusesEmbeddedNewline(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, line := range []string{"{\"method\":\n\"a\"}", `{"method":"a"}` + "\n", "\n"} {
		if err := w.Write([]byte(line)); !errors.Is(err, ErrNewline) {
			t.Errorf("Write(%q) error = %v, want ErrNewline", line, err)
		}
	}
	if buf.Len() != 0 {
		t.Errorf("refused lines wrote %q", buf.String())
	}
	if err := w.Write([]byte(`{"method":"a"}`)); err != nil {
		t.Fatalf("Write after a refused line: %v", err)
	}
	if buf.String() != `{"method":"a"}`+"\n" {
		t.Errorf("wrote %q, want the line and a newline", buf.String())
	}
}

func TestWriterKeepsConcurrentLinesWhole(t *testing.T) {
	pr, pw := io.Pipe()
	w := NewWriter(pw)
	const writers, perWriter = 8, 50
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range perWriter {
				// Alternate lines that are coalesced and lines written as
				// two buffers.
				size := 10
				if i%2 == 1 {
					size = coalesceMax + 1000*g
				}
				line := fmt.Sprintf(`{"method":"m","params":{"g":%d,"i":%d,"pad":"%s"}}`, g, i, strings.Repeat("p", size))
				if err := w.Write([]byte(line)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	go func() {
		wg.Wait()
		pw.Close()
	}()
	r := NewReader(pr, ReaderOptions{})
	next := make([]int, writers)
	n := 0
	for {
		m, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		var g, i int
		if _, err := fmt.Sscanf(string(m.Params), `{"g":%d,"i":%d`, &g, &i); err != nil {
			t.Fatalf("line %.80s: %v", m.Raw, err)
		}
		if i != next[g] {
			t.Fatalf("writer %d: got line %d, want %d", g, i, next[g])
		}
		next[g]++
		n++
	}
	if n != writers*perWriter {
		t.Errorf("read %d whole lines, want %d", n, writers*perWriter)
	}
}

// failingWriter accepts limit bytes, then fails.
type failingWriter struct {
	limit int
	buf   bytes.Buffer
}

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.buf.Len()+len(p) > f.limit {
		n := f.limit - f.buf.Len()
		f.buf.Write(p[:n])
		return n, io.ErrShortWrite
	}
	return f.buf.Write(p)
}

func TestWriterErrorIsSticky(t *testing.T) {
	fw := &failingWriter{limit: 20}
	w := NewWriter(fw)
	if err := w.Write([]byte(`{"method":"a"}`)); err != nil {
		t.Fatal(err)
	}
	err := w.Write([]byte(`{"method":"bbbbbbb"}`))
	if !errors.Is(err, io.ErrShortWrite) {
		t.Fatalf("Write error = %v, want io.ErrShortWrite", err)
	}
	fw.limit = 1 << 20
	if err2 := w.Write([]byte(`{"method":"c"}`)); !errors.Is(err2, io.ErrShortWrite) {
		t.Errorf("Write after a failed write = %v, want the first error again", err2)
	}
	if strings.Contains(fw.buf.String(), `"c"`) {
		t.Errorf("a line was written after a partial one: %q", fw.buf.String())
	}
}

func TestWriterWritesLargeLinesWhole(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	line := bigResponse(1 << 20)
	if err := w.Write(line); err != nil {
		t.Fatal(err)
	}
	got, err := bufio.NewReaderSize(&buf, 2<<20).ReadSlice('\n')
	if err != nil || !bytes.Equal(got[:len(got)-1], line) {
		t.Errorf("large line did not come back whole: %v", err)
	}
}
