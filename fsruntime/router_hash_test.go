package fsruntime_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/capabilities"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
)

func TestRouterReadTextFileHashCostsOneEditorRequest(t *testing.T) {
	f := newRouterFixture(t)
	buffer := "package main // unsaved buffer\n"
	r := f.router(t, true, true, capabilities.PolicyAuto)
	text, sum, err := r.ReadTextFileHash(t.Context(), filepath.Join(f.dir, "main.go"), 1, 1)
	want := sha256.Sum256([]byte(buffer))
	if err != nil || text != buffer || sum != hex.EncodeToString(want[:]) {
		t.Fatalf("ReadTextFileHash = %q, %s, %v", text, sum, err)
	}
	if reqs := f.ed.Requests(); len(reqs) != 1 {
		t.Errorf("the editor got %d requests, want 1: %v", len(reqs), reqs)
	}
	if _, _, err := r.ReadTextFileHash(t.Context(), filepath.Join(f.dir, "main.go"), 3, 1); err == nil {
		t.Error("a range past the end of the buffer succeeded")
	}
}

func TestRouterReadTextFileHashOnDisk(t *testing.T) {
	f := newRouterFixture(t)
	disk := "package main // on disk\n"
	r := f.router(t, false, false, capabilities.PolicyAuto)
	text, sum, err := r.ReadTextFileHash(t.Context(), filepath.Join(f.dir, "main.go"), 1, 1)
	want := sha256.Sum256([]byte(disk))
	if err != nil || text != disk || sum != hex.EncodeToString(want[:]) {
		t.Fatalf("ReadTextFileHash = %q, %s, %v", text, sum, err)
	}
	if reqs := f.ed.Requests(); len(reqs) != 0 {
		t.Errorf("the editor got %v", reqs)
	}
}

func TestRouterReadTextFileHashSkipsFilesOverTheLimit(t *testing.T) {
	dir := realTempDir(t)
	writeFile(t, filepath.Join(dir, "big.txt"), strings.Repeat("0123456789\n", 100)) // 1,100 bytes
	r := fsruntime.NewRouter(fsruntime.RouterOptions{Disk: openDisk(t, fsruntime.DiskOptions{MaxFileSize: 1000}, dir)})
	text, sum, err := r.ReadTextFileHash(t.Context(), filepath.Join(dir, "big.txt"), 50, 1)
	if err != nil || text != "0123456789\n" || sum != "" {
		t.Errorf("ReadTextFileHash = %q, %q, %v; want the line and no hash", text, sum, err)
	}
}

func TestRouterReadTextFileHashKeepsTheEditorOnlyPolicy(t *testing.T) {
	f := newRouterFixture(t)
	r := f.router(t, false, false, capabilities.PolicyEditor)
	if _, _, err := r.ReadTextFileHash(t.Context(), filepath.Join(f.dir, "main.go"), 1, 1); !errors.Is(err, fsruntime.ErrNotAdvertised) {
		t.Errorf("err = %v, want ErrNotAdvertised", err)
	}
}
