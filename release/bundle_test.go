package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestBundleWriteReproducible writes the bundles of stand-in binaries twice:
// the same bytes, and the bundles expected of a whole release.
func TestBundleWriteReproducible(t *testing.T) {
	t.Chdir(t.TempDir()) // LICENSE is named from the current directory
	os.WriteFile("LICENSE", []byte("MIT\n"), 0o644)
	bins := t.TempDir()
	binaries := map[target]string{}
	for _, tg := range targets {
		p := filepath.Join(bins, tg.goos+"_"+tg.goarch)
		os.WriteFile(p, []byte("stand-in for "+tg.String()), 0o755)
		binaries[tg] = p
	}
	a := archiver{mtime: time.Unix(1_700_000_000, 0).UTC(), files: []string{"LICENSE"}}
	meta := bundleMeta{version: "1.2.3", homepage: "https://github.com/mcp-acpfs/mcp-acpfs",
		tools: []mcpbTool{{Name: "read_text_file", Description: "Read."}}}
	bs := bundles(meta, "v1.2.3", targets, binaries, binaries[targets[0]])
	var names []string
	for _, b := range bs {
		names = append(names, b.file)
	}
	want := []string{"mcp-acpfs_v1.2.3_darwin_universal.mcpb", "mcp-acpfs_v1.2.3_linux_amd64.mcpb",
		"mcp-acpfs_v1.2.3_linux_arm64.mcpb", "mcp-acpfs_v1.2.3_windows_amd64.mcpb",
		"mcp-acpfs_v1.2.3_windows_arm64.mcpb", "mcp-acpfs_v1.2.3.mcpb"}
	if len(names) != len(want) {
		t.Fatalf("bundles %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Errorf("bundle %d: %s, want %s", i, names[i], want[i])
		}
	}
	if universalBundle(bs) != "mcp-acpfs_v1.2.3.mcpb" {
		t.Errorf("universal bundle %q", universalBundle(bs))
	}
	one, two := t.TempDir(), t.TempDir()
	for _, b := range bs {
		if err := b.write(a, one); err != nil {
			t.Fatal(err)
		}
		if err := b.write(a, two); err != nil {
			t.Fatal(err)
		}
		x, _ := os.ReadFile(filepath.Join(one, b.file))
		y, _ := os.ReadFile(filepath.Join(two, b.file))
		if len(x) == 0 || !bytes.Equal(x, y) {
			t.Errorf("%s: two writes gave different bytes", b.file)
		}
	}
	if bs := bundles(meta, "v1.2.3", targets[2:3], binaries, ""); len(bs) != 1 || universalBundle(bs) != "" {
		t.Errorf("linux/amd64 alone: %d bundles, universal %q", len(bs), universalBundle(bs))
	}
}
