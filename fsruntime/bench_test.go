package fsruntime_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
)

// bigFileLines and bigLineLen give a generated file of just over 1 GiB.
const (
	bigFileLines = 10_800_000
	bigLineLen   = 100 // bytes per line, terminator included
)

// bigFile returns the path of a generated 1 GiB text file, made once per
// machine in the temporary directory and reused: it is never committed.
func bigFile(b *testing.B) string {
	b.Helper()
	p := filepath.Join(os.TempDir(), "mcp-acpfs-bench-1gib.txt")
	if info, err := os.Stat(p); err == nil && info.Size() == bigFileLines*bigLineLen {
		return p
	}
	tmp := p + ".partial"
	f, err := os.Create(tmp)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	pad := strings.Repeat("x", bigLineLen-len("line 00000000 \n"))
	for i := 1; i <= bigFileLines; i++ {
		fmt.Fprintf(w, "line %08d %s\n", i, pad)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		b.Fatal(err)
	}
	return p
}

func reportMaxRSS(b *testing.B) {
	if mib, ok := ostest.MaxRSS(); ok {
		b.ReportMetric(mib, "maxrss-MiB")
	}
}

func benchRead(b *testing.B, path string, line, limit int, want int) {
	d, err := fsruntime.OpenDisk([]string{filepath.Dir(path)}, fsruntime.DiskOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	b.ReportAllocs()
	for b.Loop() {
		got, err := d.ReadTextFile(b.Context(), path, line, limit)
		if err != nil {
			b.Fatal(err)
		}
		if len(got) != want {
			b.Fatalf("read %d bytes, want %d", len(got), want)
		}
	}
	reportMaxRSS(b)
}

func BenchmarkReadSmall(b *testing.B) {
	p := filepath.Join(b.TempDir(), "small.txt")
	content := strings.Repeat("a small line of text\n", 200) // 4.2 KB
	os.WriteFile(p, []byte(content), 0o644)
	b.SetBytes(int64(len(content)))
	benchRead(b, p, 0, 0, len(content))
}

func BenchmarkReadWhole1MiB(b *testing.B) {
	p := filepath.Join(b.TempDir(), "1mib.txt")
	content := strings.Repeat(strings.Repeat("y", 63)+"\n", 16384) // 1 MiB
	os.WriteFile(p, []byte(content), 0o644)
	b.SetBytes(int64(len(content)))
	benchRead(b, p, 0, 0, len(content))
}

// BenchmarkReadDeepRange1GiB reads 100 lines at line 10,000,000 of a 1 GiB
// file. SetBytes counts what is scanned, so MB/s is the scan speed.
func BenchmarkReadDeepRange1GiB(b *testing.B) {
	p := bigFile(b)
	b.SetBytes(10_000_100 * bigLineLen)
	benchRead(b, p, 10_000_000, 100, 100*bigLineLen)
}

// BenchmarkWriteSmall replaces a 4 KiB file, again and again, with the
// default durable writes and with NoSync. cpu-ns/op (this process's user
// and system time) is steadier than ns/op on a shared machine; ns/op
// includes the waits for the disk.
func BenchmarkWriteSmall(b *testing.B) {
	benchWrite(b, strings.Repeat("a small line of text\n", 200))
}

// BenchmarkWrite1MiB is BenchmarkWriteSmall with 1 MiB.
func BenchmarkWrite1MiB(b *testing.B) {
	benchWrite(b, strings.Repeat(strings.Repeat("y", 63)+"\n", 16384))
}

func benchWrite(b *testing.B, content string) {
	for _, c := range []struct {
		name string
		opts fsruntime.DiskOptions
	}{
		{"synced", fsruntime.DiskOptions{}},
		{"nosync", fsruntime.DiskOptions{NoSync: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			d, err := fsruntime.OpenDisk([]string{dir}, c.opts)
			if err != nil {
				b.Fatal(err)
			}
			defer d.Close()
			path := filepath.Join(dir, "w.txt")
			b.SetBytes(int64(len(content)))
			b.ReportAllocs()
			cpu0 := ostest.CPUTime(b)
			for b.Loop() {
				if err := d.WriteTextFile(b.Context(), path, content); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(ostest.CPUTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkMoveOver1MiB moves a 1 MiB file over another, again and again,
// as an agent does that writes a new file and renames it into place. The
// write is not timed; freeing the file replaced is, where the move does it.
func BenchmarkMoveOver1MiB(b *testing.B) {
	dir := b.TempDir()
	d, err := fsruntime.OpenDisk([]string{dir}, fsruntime.DiskOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	content := strings.Repeat(strings.Repeat("y", 63)+"\n", 16384)
	src, dst := filepath.Join(dir, "new.txt"), filepath.Join(dir, "f.txt")
	write := func(p string) {
		if err := d.WriteTextFile(b.Context(), p, content); err != nil {
			b.Fatal(err)
		}
	}
	write(dst)
	for b.Loop() {
		b.StopTimer()
		write(src)
		b.StartTimer()
		if err := d.Move(b.Context(), src, dst, true); err != nil {
			b.Fatal(err)
		}
	}
}
