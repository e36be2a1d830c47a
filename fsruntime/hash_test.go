package fsruntime_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
)

// TestHashTextPair checks that HashTextPair, which hashes a shared start
// once, returns what HashText returns for each text, wherever the two
// texts first differ: before, at and after the edges of the chunks it
// compares, in the first byte, the last, or nowhere.
func TestHashTextPair(t *testing.T) {
	base := strings.Repeat("0123456789abcdef", 1<<10) // 16 KiB
	texts := []struct{ name, a, b string }{
		{"both empty", "", ""},
		{"one empty", "", base},
		{"equal", base, base},
		{"a prefix of b", base[:9000], base},
		{"b prefix of a", base, base[:4096]},
		{"differ at the first byte", base, "X" + base[1:]},
		{"differ at the last byte", base, base[:len(base)-1] + "X"},
		{"differ in one byte, longer", base, base[:5000] + "X" + base[5001:] + "tail"},
	}
	for _, at := range []int{4095, 4096, 4097, 8191, 8192} {
		texts = append(texts, struct{ name, a, b string }{
			fmt.Sprint("differ at ", at), base, base[:at] + "X" + base[at+1:]})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		at := rng.IntN(len(base))
		texts = append(texts, struct{ name, a, b string }{"random", base, base[:at] + "edited" + base[at:]})
	}
	for _, tt := range texts {
		ha, hb := fsruntime.HashTextPair(tt.a, tt.b)
		if ha != fsruntime.HashText(tt.a) || hb != fsruntime.HashText(tt.b) {
			t.Errorf("%s: HashTextPair = %s, %s; want %s, %s", tt.name, ha, hb, fsruntime.HashText(tt.a), fsruntime.HashText(tt.b))
		}
	}
}

func BenchmarkHashTextPair(b *testing.B) {
	before := strings.Repeat("line of text in a file of 64 KiB\n", 2000)
	after := before[:len(before)/2] + "an edited line\n" + before[len(before)/2:]
	b.Run("pair", func(b *testing.B) {
		for b.Loop() {
			fsruntime.HashTextPair(before, after)
		}
	})
	b.Run("separately", func(b *testing.B) {
		for b.Loop() {
			fsruntime.HashText(before)
			fsruntime.HashText(after)
		}
	})
}
