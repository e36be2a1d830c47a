package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenRelease is a release with made-up sums, for the golden files.
func goldenRelease() release {
	sums := map[string]string{}
	for i, tg := range targets {
		dir := "mcp-acpfs_v1.2.3_" + tg.goos + "_" + tg.goarch
		file := dir + ".tar.gz"
		if tg.goos == "windows" {
			file = dir + ".zip"
		}
		sums[file] = strings.Repeat(fmt.Sprintf("%x", i+10), 64)
	}
	sums["mcp-acpfs_v1.2.3.mcpb"] = strings.Repeat("0f", 32)
	return release{tag: "v1.2.3", semver: "1.2.3", homepage: "https://github.com/mcp-acpfs/mcp-acpfs",
		date: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC), sums: sums}
}

// TestPackagingGolden renders the Homebrew formula, the Scoop manifest, the
// winget manifests and server.json of a made-up release and compares them
// with testdata/*.golden; go test -run Golden -update rewrites those.
func TestPackagingGolden(t *testing.T) {
	r := goldenRelease()
	out := t.TempDir()
	if err := writePackaging(out, r); err != nil {
		t.Fatal(err)
	}
	if err := writeServerJSON(out, r, "mcp-acpfs_v1.2.3.mcpb", r.sums["mcp-acpfs_v1.2.3.mcpb"]); err != nil {
		t.Fatal(err)
	}
	files := slices.Collect(mapsValues(packagingFiles(r.semver)))
	files = append(files, "server.json")
	for _, f := range files {
		got, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", path.Base(f)+".golden")
		if *update {
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (go test -run Golden -update writes it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s (go test -run Golden -update rewrites it):\n%s", f, golden, got)
		}
	}
	checkScoop(t, filepath.Join(out, "scoop", "bucket", "mcp-acpfs.json"), r)
}

func mapsValues(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for _, v := range m {
			if !yield(v) {
				return
			}
		}
	}
}

// checkScoop checks a Scoop manifest for the fields Scoop's documentation
// (the App Manifests page of its wiki) asks for and the rules its
// schema.json (draft-07) gives them: the known top-level, per-architecture
// and autoupdate fields (each object there takes no others), the
// architectures 32bit, 64bit and arm64, version, homepage and license
// required, a version of word characters, dots, dashes and pluses, and a
// download URL with no $ in it. The schema file itself lives in Scoop's
// repository, which no registry reachable offline serves.
func checkScoop(t *testing.T, file string, r release) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	known := []string{"$schema", "##", "architecture", "autoupdate", "bin", "checkver", "depends", "description", "env_add_path",
		"env_set", "extract_dir", "extract_to", "hash", "homepage", "installer", "license", "notes", "persist",
		"post_install", "pre_install", "shortcuts", "suggest", "uninstaller", "url", "version"}
	for k := range m {
		if !slices.Contains(known, k) {
			t.Errorf("scoop: unknown field %q", k)
		}
	}
	str := func(v any) string { s, _ := v.(string); return s }
	if v := str(m["version"]); !regexp.MustCompile(`^[\w\-.+_]+$`).MatchString(v) || v != r.semver {
		t.Errorf("scoop: version %q, want %q", v, r.semver)
	}
	for _, k := range []string{"description", "homepage", "license", "bin"} {
		if str(m[k]) == "" {
			t.Errorf("scoop: %s missing", k)
		}
	}
	if !strings.HasPrefix(str(m["homepage"]), "https://") {
		t.Errorf("scoop: homepage %q", m["homepage"])
	}
	arch, _ := m["architecture"].(map[string]any)
	only := func(where string, obj map[string]any, keys ...string) {
		t.Helper()
		for k := range obj {
			if !slices.Contains(keys, k) {
				t.Errorf("scoop: %s has %q, which the schema does not allow", where, k)
			}
		}
	}
	arches := []string{"32bit", "64bit", "arm64"}
	only("architecture", arch, arches...)
	for a, e := range arch {
		e, _ := e.(map[string]any)
		only("architecture."+a, e, "bin", "checkver", "extract_dir", "hash", "installer", "msi", "post_install",
			"pre_install", "shortcuts", "uninstaller", "url")
	}
	au, _ := m["autoupdate"].(map[string]any)
	only("autoupdate", au, "architecture", "extract_dir", "hash", "note", "notes", "url")
	aa, _ := au["architecture"].(map[string]any)
	only("autoupdate.architecture", aa, arches...)
	for a, e := range aa {
		e, _ := e.(map[string]any)
		only("autoupdate.architecture."+a, e, "extract_dir", "hash", "url")
	}
	if h, _ := au["hash"].(map[string]any); !regexp.MustCompile(`^\$(url|baseurl).[\w\d]+$`).MatchString(str(h["url"])) {
		t.Errorf("scoop: autoupdate.hash.url %q", h["url"])
	}
	for _, a := range []string{"64bit", "arm64"} {
		e, _ := arch[a].(map[string]any)
		url, hash, dir := str(e["url"]), str(e["hash"]), str(e["extract_dir"])
		if !strings.HasPrefix(url, "https://") || strings.Contains(url, "$") {
			t.Errorf("scoop: architecture.%s.url %q", a, url)
		}
		if !regexp.MustCompile(`^[a-f0-9]{64}$`).MatchString(hash) || hash != r.sums[path.Base(url)] {
			t.Errorf("scoop: architecture.%s.hash %q is not the SHA-256 of %s", a, hash, path.Base(url))
		}
		if dir == "" || !strings.HasPrefix(path.Base(url), dir+".") {
			t.Errorf("scoop: architecture.%s.extract_dir %q", a, dir)
		}
		ae, _ := aa[a].(map[string]any)
		if want := strings.ReplaceAll(url, r.semver, "$version"); str(ae["url"]) != want {
			t.Errorf("scoop: autoupdate.architecture.%s.url %q, want %q", a, ae["url"], want)
		}
	}
}
