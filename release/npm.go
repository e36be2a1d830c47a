package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/template"
)

// The templates of the npm packages, in the module's root.
const (
	launcherDir      = "npm/mcp-acpfs"
	platformTemplate = "npm/platform"
)

// npmInfo is what the templates of the npm packages are filled with.
type npmInfo struct {
	Version   string // semver, without a leading v
	License   string // the package.json "license" field
	Homepage  string
	MCPName   string        // the server's name in the MCP Registry
	Platforms []npmPlatform // for the launcher: every platform
	npmPlatform
}

// An npmPlatform is the package of one platform's binary.
type npmPlatform struct {
	Package, OS, CPU, Title string
}

func platformPackage(t target) npmPlatform {
	return npmPlatform{
		Package: "@mcp-acpfs/mcp-acpfs-" + t.npmOS + "-" + t.npmCPU,
		OS:      t.npmOS,
		CPU:     t.npmCPU,
		Title:   t.String(),
	}
}

// writeNPM writes into dir the launcher package, mcp-acpfs, and the package
// of each of picked, whose binaries are at binaries[t]; each gets the
// LICENSE file if files has it. The launcher depends on the packages of
// every target, as published.
func writeNPM(dir string, info npmInfo, files []string, picked []target, binaries map[target]string) error {
	for _, t := range targets {
		info.Platforms = append(info.Platforms, platformPackage(t))
	}
	var license []string
	if slices.Contains(files, "LICENSE") {
		license = []string{"LICENSE"}
	}

	launcher := filepath.Join(dir, "mcp-acpfs")
	if err := render(filepath.Join(launcherDir, "package.json.tmpl"), filepath.Join(launcher, "package.json"), info); err != nil {
		return err
	}
	// By destination: one source (LICENSE) goes into every package.
	copies := map[string]string{
		filepath.Join(launcher, "README.md"):           filepath.Join(launcherDir, "README.md"),
		filepath.Join(launcher, "bin", "mcp-acpfs.js"): filepath.Join(launcherDir, "bin", "mcp-acpfs.js"),
	}
	for _, f := range license {
		copies[filepath.Join(launcher, f)] = f
	}
	for _, t := range picked {
		p := info
		p.npmPlatform = platformPackage(t)
		pkg := filepath.Join(dir, "mcp-acpfs-"+t.npmOS+"-"+t.npmCPU)
		for _, f := range []string{"package.json", "README.md"} {
			if err := render(filepath.Join(platformTemplate, f+".tmpl"), filepath.Join(pkg, f), p); err != nil {
				return err
			}
		}
		copies[filepath.Join(pkg, "bin", t.exe())] = binaries[t]
		for _, f := range license {
			copies[filepath.Join(pkg, f)] = f
		}
	}
	for to, from := range copies {
		if err := copyFile(from, to); err != nil {
			return err
		}
	}
	return nil
}

// render fills the template file tmpl with data into the file out; a
// package.json must come out as valid JSON.
func render(tmpl, out string, data any) error {
	t, err := template.New(filepath.Base(tmpl)).Option("missingkey=error").ParseFiles(tmpl)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return err
	}
	if strings.HasSuffix(out, ".json") && !json.Valid(b.Bytes()) {
		return fmt.Errorf("%s: the template %s gave invalid JSON:\n%s", out, tmpl, b.Bytes())
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	return os.WriteFile(out, b.Bytes(), 0o644)
}

// copyFile copies from to the new file to, executable if from is or if it
// goes into a bin directory.
func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	st, err := os.Stat(from)
	if err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if st.Mode()&0o111 != 0 || filepath.Base(filepath.Dir(to)) == "bin" {
		mode = 0o755
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	return os.WriteFile(to, data, mode)
}

// semver is a version as semver.org defines it.
var semver = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
	`(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?` +
	`(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)

// npmVersion returns the npm version for the release version v: v without
// its leading "v" when that is semver (v1.2.3-rc.1), else a pre-release of
// 0.0.0 named after v (0.0.0-dev-51bcce9-dirty for a bare commit).
func npmVersion(v string) string {
	if s := strings.TrimPrefix(v, "v"); semver.MatchString(s) {
		return s
	}
	return "0.0.0-dev-" + regexp.MustCompile(`[^0-9A-Za-z-]`).ReplaceAllString(v, "-")
}

// license is the SPDX identifier of the license in the LICENSE file, for
// the packages' and manifests' "license" fields.
const license = "MIT"

// npmLicense is the "license" field of the packages: MIT when the module
// has its LICENSE file, else UNLICENSED, npm's word for no license granted.
func npmLicense(files []string) string {
	if slices.Contains(files, "LICENSE") {
		return license
	}
	return "UNLICENSED"
}
