package main

import (
	"bufio"
	"bytes"
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/template"
	"time"
)

// The templates of the package managers' files.
//
//go:embed templates
var templates embed.FS

// A release is what the package managers' files are rendered from.
type release struct {
	tag      string            // the release version, as in the file names and the Git tag: v1.2.3
	semver   string            // the version of packages and manifests: 1.2.3
	homepage string            // https://github.com/OWNER/NAME
	date     time.Time         // the commit's time
	sums     map[string]string // SHA256SUMS: file name → hex SHA-256
}

// downloadURL is where the release's file is published.
func (r release) downloadURL(file string) string {
	return r.homepage + "/releases/download/" + r.tag + "/" + file
}

// readSums reads a SHA256SUMS file.
func readSums(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sums := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(sum) != 64 {
			return nil, fmt.Errorf("%s: a line not of sha256sum's form: %q", path, sc.Text())
		}
		sums[name] = sum
	}
	return sums, nil
}

// An asset is the archive of one platform in a package manager's file.
type asset struct {
	URL, SHA256, Dir string
}

// SHA256Upper is the hash in capitals, as winget's tools write it.
func (a asset) SHA256Upper() string { return strings.ToUpper(a.SHA256) }

// packagingData is what the templates see.
type packagingData struct {
	r                                      release
	Tag, Semver, Homepage, License, Author string
	Description, WingetID, Date            string
	WingetArchs                            map[string]string // winget's architecture → GOOS/GOARCH
}

// Asset is the archive of the target "GOOS/GOARCH"; it is an error for it
// to be missing from SHA256SUMS.
func (d packagingData) Asset(t string) (asset, error) {
	goos, goarch, _ := strings.Cut(t, "/")
	dir := "mcp-acpfs_" + d.r.tag + "_" + goos + "_" + goarch
	file := dir + ".tar.gz"
	if goos == "windows" {
		file = dir + ".zip"
	}
	sum, ok := d.r.sums[file]
	if !ok {
		return asset{}, fmt.Errorf("SHA256SUMS has no %s", file)
	}
	return asset{URL: d.r.downloadURL(file), SHA256: sum, Dir: dir}, nil
}

// packagingFiles are the files rendered, by template and by their path in
// the release's directory.
func packagingFiles(semver string) map[string]string {
	winget := "winget/manifests/m/mcp-acpfs/mcp-acpfs/" + semver + "/mcp-acpfs.mcp-acpfs"
	return map[string]string{
		"mcp-acpfs.rb.tmpl":             "homebrew/Formula/mcp-acpfs.rb",
		"scoop.json.tmpl":               "scoop/bucket/mcp-acpfs.json",
		"winget.version.yaml.tmpl":      winget + ".yaml",
		"winget.locale.en-US.yaml.tmpl": winget + ".locale.en-US.yaml",
		"winget.installer.yaml.tmpl":    winget + ".installer.yaml",
	}
}

// writePackaging writes into dir the Homebrew formula (a tap's
// Formula/mcp-acpfs.rb), the Scoop manifest (a bucket's
// bucket/mcp-acpfs.json) and the three winget manifests, from r.
func writePackaging(dir string, r release) error {
	d := packagingData{
		r: r, Tag: r.tag, Semver: r.semver, Homepage: r.homepage, License: license, Author: author,
		Description: description, WingetID: "mcp-acpfs.mcp-acpfs", Date: r.date.UTC().Format(time.DateOnly),
		WingetArchs: map[string]string{"x64": "windows/amd64", "arm64": "windows/arm64"},
	}
	for tmpl, out := range packagingFiles(r.semver) {
		t, err := template.New(tmpl).Option("missingkey=error").ParseFS(templates, "templates/"+tmpl)
		if err != nil {
			return err
		}
		var b bytes.Buffer
		if err := t.Execute(&b, d); err != nil {
			return fmt.Errorf("%s: %w", tmpl, err)
		}
		path := filepath.Join(dir, filepath.FromSlash(out))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
