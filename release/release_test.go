package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestNPMVersion(t *testing.T) {
	for v, want := range map[string]string{
		"v1.2.3":                  "1.2.3",
		"1.2.3":                   "1.2.3",
		"v0.1.0-rc.1":             "0.1.0-rc.1",
		"v0.1.0-3-g51bcce9":       "0.1.0-3-g51bcce9",
		"v0.1.0-3-g51bcce9-dirty": "0.1.0-3-g51bcce9-dirty",
		"51bcce9":                 "0.0.0-dev-51bcce9",
		"51bcce9-dirty":           "0.0.0-dev-51bcce9-dirty",
		"v1.2":                    "0.0.0-dev-v1-2",
		"v01.2.3":                 "0.0.0-dev-v01-2-3",
		"v1.2.3+build.5":          "1.2.3+build.5",
		"devel_branch.x":          "0.0.0-dev-devel-branch-x",
	} {
		if got := npmVersion(v); got != want {
			t.Errorf("npmVersion(%q) = %q, want %q", v, got, want)
		}
	}
}

func TestPickTargets(t *testing.T) {
	all, err := pickTargets(nil)
	if err != nil || len(all) != 7 {
		t.Errorf("pickTargets(nil) = %v, %v; want the 7 targets", all, err)
	}
	if _, err := pickTargets([]string{"linux/amd64", "plan9/386"}); err == nil || !strings.Contains(err.Error(), `unknown target "plan9/386"`) {
		t.Errorf("an unknown target: %v", err)
	}
}

// TestArchives archives a stand-in binary as for Linux and for Windows, and
// reads the archives back; the same inputs give the same bytes.
func TestArchives(t *testing.T) {
	t.Chdir(t.TempDir()) // the extra files are named from the current directory
	bin := filepath.Join(t.TempDir(), "binary")
	if err := os.WriteFile(bin, []byte("\x7fELF stand-in"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{
		"README.md":      "# read me\n",
		"docs/guide.md":  "# guide\n", // the README's links land in the archive
		"docs/notes.txt": "not a page\n",
	} {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a := archiver{mtime: time.Unix(1_700_000_000, 0).UTC(), files: extraFiles()}
	if want := []string{"README.md", "docs/guide.md"}; !slices.Equal(a.files, want) {
		t.Fatalf("extraFiles() = %q, want %q", a.files, want)
	}

	linux, windows := targets[2], targets[4]
	if linux.String() != "linux/amd64" || windows.String() != "windows/amd64" {
		t.Fatalf("targets changed order: %v %v", linux, windows)
	}
	type file struct {
		mode int64
		data string
	}
	check := func(name string, got map[string]file, want map[string]file) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s holds %v, want %v", name, got, want)
		}
		for n, w := range want {
			if got[n] != w {
				t.Errorf("%s: %s is %+v, want %+v", name, n, got[n], w)
			}
		}
	}

	out := t.TempDir()
	name, err := a.archive(out, "mcp-acpfs_v1_linux_amd64", linux, bin)
	if err != nil || name != "mcp-acpfs_v1_linux_amd64.tar.gz" {
		t.Fatalf("archive for linux: %q, %v", name, err)
	}
	data, _ := os.ReadFile(filepath.Join(out, name))
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]file{}
	for tr := tar.NewReader(gz); ; {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		got[hdr.Name] = file{hdr.Mode, string(b)}
		if !hdr.ModTime.Equal(a.mtime) {
			t.Errorf("%s: mtime %v, want %v", hdr.Name, hdr.ModTime, a.mtime)
		}
	}
	check(name, got, map[string]file{
		"mcp-acpfs_v1_linux_amd64/mcp-acpfs":     {0o755, "\x7fELF stand-in"},
		"mcp-acpfs_v1_linux_amd64/README.md":     {0o644, "# read me\n"},
		"mcp-acpfs_v1_linux_amd64/docs/guide.md": {0o644, "# guide\n"},
	})

	name, err = a.archive(out, "mcp-acpfs_v1_windows_amd64", windows, bin)
	if err != nil || name != "mcp-acpfs_v1_windows_amd64.zip" {
		t.Fatalf("archive for windows: %q, %v", name, err)
	}
	zr, err := zip.OpenReader(filepath.Join(out, name))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	got = map[string]file{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		got[f.Name] = file{int64(f.Mode().Perm()), string(b)}
	}
	check(name, got, map[string]file{
		"mcp-acpfs_v1_windows_amd64/mcp-acpfs.exe": {0o755, "\x7fELF stand-in"},
		"mcp-acpfs_v1_windows_amd64/README.md":     {0o644, "# read me\n"},
		"mcp-acpfs_v1_windows_amd64/docs/guide.md": {0o644, "# guide\n"},
	})

	again := t.TempDir()
	if _, err := a.archive(again, "mcp-acpfs_v1_linux_amd64", linux, bin); err != nil {
		t.Fatal(err)
	}
	if data2, _ := os.ReadFile(filepath.Join(again, "mcp-acpfs_v1_linux_amd64.tar.gz")); !bytes.Equal(data, data2) {
		t.Error("archiving the same files twice gave different bytes")
	}

	if err := writeSums(out, []string{"mcp-acpfs_v1_windows_amd64.zip", "mcp-acpfs_v1_linux_amd64.tar.gz"}); err != nil {
		t.Fatal(err)
	}
	sums, _ := os.ReadFile(filepath.Join(out, "SHA256SUMS"))
	lines := strings.Split(strings.TrimSuffix(string(sums), "\n"), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[0], "  mcp-acpfs_v1_linux_amd64.tar.gz") || len(strings.Fields(lines[0])[0]) != 64 ||
		!strings.HasSuffix(lines[1], "  mcp-acpfs_v1_windows_amd64.zip") {
		t.Errorf("SHA256SUMS:\n%s", sums)
	}
}
