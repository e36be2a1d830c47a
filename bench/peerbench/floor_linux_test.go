package main

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
)

// With hold, the floor's replace leaves the old file open, nameless, for
// free to close, as mcp-acpfs does; without, the rename frees it and
// there is nothing to free.
func TestReplaceHeld(t *testing.T) {
	for _, hold := range []bool{true, false} {
		p := filepath.Join(t.TempDir(), "f.txt")
		if err := os.WriteFile(p, []byte("before\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var old unix.Stat_t
		if err := unix.Stat(p, &old); err != nil {
			t.Fatal(err)
		}
		free, err := replaceHeld(p, []byte("after\n"), floorOpts{sync: true, hold: hold})
		if err != nil {
			t.Fatalf("hold %v: %v", hold, err)
		}
		if held := ostest.Holds(t, old); held != hold || (free != nil) != hold {
			t.Errorf("hold %v: the old file held %v, free %v", hold, held, free != nil)
		}
		if free != nil {
			free()
		}
		if ostest.Holds(t, old) {
			t.Errorf("hold %v: the old file still held after free", hold)
		}
	}
}
