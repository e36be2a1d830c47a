package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The TestDist tests check a whole release, every platform built, as
// .ci/run's "release artefacts" step runs them. Where a checker (Node and
// the pinned MCP Bundle CLI, Ruby, the Go module proxy) is missing, they
// skip its check, unless MCP_ACPFS_REQUIRE_DIST=1.

const distVersion = "v1.2.3-test.5"

var dist struct {
	once  sync.Once
	dir   string // the release's directory
	mtime time.Time
	err   error
}

// fullRelease makes the release of every target once per test binary and
// returns its directory, absolute.
func fullRelease(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: not building every platform")
	}
	t.Chdir("..") // the root of the module
	dist.once.Do(func() {
		tmp, err := os.MkdirTemp("", "mcp-acpfs-dist-test-")
		if err != nil {
			dist.err = err
			return
		}
		dist.dir = filepath.Join(tmp, "dist")
		dist.mtime = sourceTime(context.Background())
		start := time.Now()
		dist.err = run(context.Background(), options{out: dist.dir, version: distVersion})
		t.Logf("go run ./release took %v", time.Since(start).Round(time.Second))
	})
	if dist.err != nil {
		t.Fatalf("the release failed: %v", dist.err)
	}
	return dist.dir
}

// TestMain removes the release the tests made.
func TestMain(m *testing.M) {
	code := m.Run()
	if dist.dir != "" {
		os.RemoveAll(filepath.Dir(dist.dir))
	}
	os.Exit(code)
}

// need returns the path of a checker program, skipping the test when it is
// missing, unless MCP_ACPFS_REQUIRE_DIST=1.
func need(t *testing.T, path string, err error) string {
	t.Helper()
	if err != nil {
		if os.Getenv("MCP_ACPFS_REQUIRE_DIST") == "1" {
			t.Fatalf("MCP_ACPFS_REQUIRE_DIST=1, but: %v", err)
		}
		t.Skipf("skipped: %v", err)
	}
	return path
}

// A bundleFile is a file read from a bundle.
type bundleFile struct {
	mode os.FileMode
	data []byte
}

func readBundle(t *testing.T, path string) (map[string]bundleFile, mcpbManifest) {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	files := map[string]bundleFile{}
	var names []string
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		files[f.Name] = bundleFile{f.Mode(), data}
		names = append(names, f.Name)
		if !f.Modified.Equal(dist.mtime) {
			t.Errorf("%s: %s has time %v, want the commit's %v", filepath.Base(path), f.Name, f.Modified, dist.mtime)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("%s: entries not sorted: %v", filepath.Base(path), names)
	}
	var m mcpbManifest
	dec := json.NewDecoder(bytes.NewReader(files["manifest.json"].data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("%s: manifest.json: %v", filepath.Base(path), err)
	}
	return files, m
}

// binaryArches returns the GOOS and the GOARCHes of an executable.
func binaryArches(data []byte) (goos string, arches []string) {
	r := bytes.NewReader(data)
	if ff, err := macho.NewFatFile(r); err == nil {
		for _, a := range ff.Arches {
			arches = append(arches, map[macho.Cpu]string{macho.CpuAmd64: "amd64", macho.CpuArm64: "arm64"}[a.Cpu])
		}
		return "darwin-universal", arches
	}
	if f, err := macho.NewFile(r); err == nil {
		return "darwin", []string{map[macho.Cpu]string{macho.CpuAmd64: "amd64", macho.CpuArm64: "arm64"}[f.Cpu]}
	}
	if f, err := elf.NewFile(r); err == nil {
		return "linux", []string{map[elf.Machine]string{elf.EM_X86_64: "amd64", elf.EM_AARCH64: "arm64"}[f.Machine]}
	}
	if f, err := pe.NewFile(r); err == nil {
		return "windows", []string{map[uint16]string{pe.IMAGE_FILE_MACHINE_AMD64: "amd64", pe.IMAGE_FILE_MACHINE_ARM64: "arm64"}[f.Machine]}
	}
	return "", nil
}

// TestDistBundles opens every bundle: manifest.json at the root, the
// entries sorted and of the commit's time, each platform's binary where
// the manifest runs it, executable, for the right OS and CPUs: the macOS
// one universal, with arm64 and amd64.
func TestDistBundles(t *testing.T) {
	dir := fullRelease(t)
	want := map[string]struct {
		platforms []string
		binaries  map[string]string // name → "goos arch,arch"
	}{
		"mcp-acpfs_" + distVersion + ".mcpb": {nil, map[string]string{
			"server/darwin/mcp-acpfs":    "darwin-universal amd64,arm64",
			"server/linux/mcp-acpfs":     "linux amd64",
			"server/win32/mcp-acpfs.exe": "windows amd64",
		}},
		"mcp-acpfs_" + distVersion + "_darwin_universal.mcpb": {[]string{"darwin"}, map[string]string{"server/mcp-acpfs": "darwin-universal amd64,arm64"}},
		"mcp-acpfs_" + distVersion + "_linux_amd64.mcpb":      {[]string{"linux"}, map[string]string{"server/mcp-acpfs": "linux amd64"}},
		"mcp-acpfs_" + distVersion + "_linux_arm64.mcpb":      {[]string{"linux"}, map[string]string{"server/mcp-acpfs": "linux arm64"}},
		"mcp-acpfs_" + distVersion + "_windows_amd64.mcpb":    {[]string{"win32"}, map[string]string{"server/mcp-acpfs.exe": "windows amd64"}},
		"mcp-acpfs_" + distVersion + "_windows_arm64.mcpb":    {[]string{"win32"}, map[string]string{"server/mcp-acpfs.exe": "windows arm64"}},
	}
	got, _ := filepath.Glob(filepath.Join(dir, "*.mcpb"))
	if len(got) != len(want) {
		t.Errorf("bundles %v, want %d", got, len(want))
	}
	for name, w := range want {
		files, m := readBundle(t, filepath.Join(dir, name))
		var platforms []string
		if m.Compatibility != nil {
			platforms = m.Compatibility.Platforms
		}
		if !slices.Equal(platforms, w.platforms) {
			t.Errorf("%s: compatibility.platforms %v, want %v", name, platforms, w.platforms)
		}
		if m.License != "MIT" || m.Author.Name != author || m.ManifestVersion != "0.3" {
			t.Errorf("%s: license %q, author %q, manifest_version %q", name, m.License, m.Author.Name, m.ManifestVersion)
		}
		if _, ok := files["LICENSE"]; !ok {
			t.Errorf("%s: no LICENSE", name)
		}
		commands := []string{m.Server.MCPConfig.Command, "${__dirname}/" + m.Server.EntryPoint}
		for _, o := range m.Server.MCPConfig.PlatformOverrides {
			commands = append(commands, o.Command)
		}
		for _, c := range commands {
			if _, ok := w.binaries[strings.TrimPrefix(c, "${__dirname}/")]; !ok {
				t.Errorf("%s: the manifest runs %s, which is not one of its binaries", name, c)
			}
		}
		if len(w.binaries) == 3 {
			if o := m.Server.MCPConfig.PlatformOverrides; o["win32"].Command != "${__dirname}/server/win32/mcp-acpfs.exe" ||
				o["linux"].Command != "${__dirname}/server/linux/mcp-acpfs" || m.Server.MCPConfig.Command != "${__dirname}/server/darwin/mcp-acpfs" {
				t.Errorf("%s: commands %+v", name, m.Server.MCPConfig)
			}
		}
		for bin, kind := range w.binaries {
			f, ok := files[bin]
			if !ok {
				t.Errorf("%s: no %s", name, bin)
				continue
			}
			if f.mode.Perm() != 0o755 {
				t.Errorf("%s: %s has mode %v, want executable", name, bin, f.mode)
			}
			goos, arches := binaryArches(f.data)
			if got := goos + " " + strings.Join(arches, ","); got != kind {
				t.Errorf("%s: %s is %q, want %q", name, bin, got, kind)
			}
		}
		if len(files) != len(w.binaries)+2 {
			t.Errorf("%s holds %d files, want the binaries, manifest.json and LICENSE", name, len(files))
		}
		if !slices.Equal(m.Server.MCPConfig.Args, bundleArgs) {
			t.Errorf("%s: args %q", name, m.Server.MCPConfig.Args)
		}
		if d := m.UserConfig[configDirs]; d.Type != "directory" || !d.Multiple || !d.Required {
			t.Errorf("%s: user_config.%s %+v", name, configDirs, d)
		}
		if r := m.UserConfig[configReadOnly]; r.Type != "boolean" || r.Default != false {
			t.Errorf("%s: user_config.%s %+v", name, configReadOnly, r)
		}
	}
}

// TestDistVersions: every artefact carries the release's version: the
// archives' and bundles' names, the binary, the bundles' manifests,
// server.json, the npm packages, the Homebrew formula, the Scoop manifest
// and the winget manifests.
func TestDistVersions(t *testing.T) {
	dir := fullRelease(t)
	semver := npmVersion(distVersion)
	check := func(what, got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("%s: version %q, want %q", what, got, want)
		}
	}
	sums, err := readSums(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	if len(sums) != len(targets)+6 {
		t.Errorf("SHA256SUMS lists %d files, want %d archives and 6 bundles", len(sums), len(targets))
	}
	for name := range sums {
		if !strings.HasPrefix(name, "mcp-acpfs_"+distVersion+"_") && name != "mcp-acpfs_"+distVersion+".mcpb" {
			t.Errorf("SHA256SUMS: %s is not named with the version", name)
		}
		if _, m, ok := strings.Cut(name, ".mcpb"); ok && m == "" {
			_, mf := readBundle(t, filepath.Join(dir, name))
			check(name, mf.Version, semver)
		}
	}
	var s serverJSON
	readJSON(t, filepath.Join(dir, "server.json"), &s)
	check("server.json", s.Version, semver)
	for _, p := range s.Packages {
		check("server.json package "+p.RegistryType, p.Version, semver)
	}
	npms, _ := filepath.Glob(filepath.Join(dir, "npm", "*", "package.json"))
	if len(npms) != len(targets)+1 {
		t.Errorf("npm packages: %v", npms)
	}
	for _, f := range npms {
		var p struct {
			Version, License, MCPName string
			Optional                  map[string]string `json:"optionalDependencies"`
		}
		readJSON(t, f, &p)
		check(f, p.Version, semver)
		for dep, v := range p.Optional {
			check(f+": "+dep, v, semver)
		}
		if p.License != "MIT" {
			t.Errorf("%s: license %q", f, p.License)
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(f), "LICENSE")); err != nil {
			t.Errorf("npm package %s has no LICENSE: %v", filepath.Base(filepath.Dir(f)), err)
		}
	}
	var launcher struct{ MCPName string }
	readJSON(t, filepath.Join(dir, "npm", "mcp-acpfs", "package.json"), &launcher)
	if launcher.MCPName != s.Name || s.Name != mcpName {
		t.Errorf("the launcher's mcpName %q, server.json's name %q", launcher.MCPName, s.Name)
	}
	formula, _ := os.ReadFile(filepath.Join(dir, "homebrew", "Formula", "mcp-acpfs.rb"))
	m := regexp.MustCompile(`(?m)^  version "([^"]*)"$`).FindSubmatch(formula)
	if m == nil {
		t.Errorf("the formula has no version:\n%s", formula)
	} else {
		check("Formula/mcp-acpfs.rb", string(m[1]), semver)
	}
	if n := strings.Count(string(formula), "/releases/download/"+distVersion+"/mcp-acpfs_"+distVersion+"_"); n != 4 {
		t.Errorf("the formula has %d URLs of this release, want 4", n)
	}
	var scoop struct{ Version string }
	readJSON(t, filepath.Join(dir, "scoop", "bucket", "mcp-acpfs.json"), &scoop)
	check("scoop", scoop.Version, semver)
	winget, _ := filepath.Glob(filepath.Join(dir, "winget", "manifests", "m", "mcp-acpfs", "mcp-acpfs", semver, "*.yaml"))
	if len(winget) != 3 {
		t.Errorf("winget manifests: %v", winget)
	}
	for _, f := range winget {
		data, _ := os.ReadFile(f)
		m := regexp.MustCompile(`(?m)^PackageVersion: (.*)$`).FindSubmatch(data)
		if m == nil {
			t.Errorf("%s: no PackageVersion", f)
			continue
		}
		check(f, string(m[1]), semver)
	}
	// The binary of this machine says the tag.
	host := hostBinary(t, dir)
	out, err := exec.Command(host, "version").Output()
	if err != nil || string(out) != "mcp-acpfs "+distVersion+"\n" {
		t.Errorf("mcp-acpfs version: %q, %v", out, err)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// hostBinary returns the binary of this machine's platform from its npm
// package, skipping when the release has none.
func hostBinary(t *testing.T, dir string) string {
	t.Helper()
	i := slices.IndexFunc(targets, func(tg target) bool { return tg.goos == runtime.GOOS && tg.goarch == runtime.GOARCH })
	if i < 0 {
		t.Skipf("no release target for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	tg := targets[i]
	return filepath.Join(dir, "npm", "mcp-acpfs-"+tg.npmOS+"-"+tg.npmCPU, "bin", tg.exe())
}

// TestDistMCPBCLI checks the bundles with the pinned MCP Bundle CLI
// (release/mcpb, installed by npm ci): mcpb validate of every manifest;
// mcpb info and mcpb unpack of the universal bundle, after which each file
// is there, the binaries executable.
func TestDistMCPBCLI(t *testing.T) {
	dir := fullRelease(t)
	mcpb, err := filepath.Abs(filepath.Join("release", "mcpb", "node_modules", ".bin", "mcpb"))
	if err == nil {
		_, err = os.Stat(mcpb)
	}
	if err != nil {
		err = fmt.Errorf("the MCP Bundle CLI is not installed (cd release/mcpb && npm ci): %w", err)
	}
	need(t, mcpb, err)
	bundles, _ := filepath.Glob(filepath.Join(dir, "*.mcpb"))
	universal := filepath.Join(dir, "mcp-acpfs_"+distVersion+".mcpb")
	for _, b := range bundles {
		files, _ := readBundle(t, b)
		manifest := filepath.Join(t.TempDir(), "manifest.json")
		if err := os.WriteFile(manifest, files["manifest.json"].data, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.CommandContext(t.Context(), mcpb, "validate", manifest).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "Manifest schema validation passes") {
			t.Errorf("mcpb validate %s's manifest: %v\n%s", filepath.Base(b), err, out)
		}
		if b != universal {
			continue // Go checked its files; the CLI unpacks the universal one, which has them all
		}
		unpacked := filepath.Join(t.TempDir(), "unpacked")
		for _, args := range [][]string{{"info", b}, {"unpack", b, unpacked}} {
			out, err := exec.CommandContext(t.Context(), mcpb, args...).CombinedOutput()
			if err != nil {
				t.Errorf("mcpb %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		}
		for name, f := range files {
			p := filepath.Join(unpacked, filepath.FromSlash(name))
			data, err := os.ReadFile(p)
			if err != nil || !bytes.Equal(data, f.data) {
				t.Errorf("mcpb unpack %s: %s: %v", filepath.Base(b), name, err)
			}
			if st, err := os.Stat(p); err == nil && f.mode&0o111 != 0 && st.Mode()&0o111 == 0 && runtime.GOOS != "windows" {
				t.Errorf("mcpb unpack %s: %s is not executable (%v)", filepath.Base(b), name, st.Mode())
			}
		}
	}
}

// TestDistRoundTrip runs the Linux binary of the universal bundle as a host
// would, with the manifest's arguments, two chosen folders and read_only
// false, then true: it answers tools/list with the manifest's tools (less
// those that change files, when read-only).
func TestDistRoundTrip(t *testing.T) {
	dir := fullRelease(t)
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the universal bundle's Linux binary is for linux/amd64")
	}
	files, m := readBundle(t, filepath.Join(dir, "mcp-acpfs_"+distVersion+".mcpb"))
	bundleDir := t.TempDir()
	for name, f := range files {
		p := filepath.Join(bundleDir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, f.data, f.mode.Perm()); err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	for _, tool := range m.Tools {
		names = append(names, tool.Name)
	}
	changers := []string{"create_directory", "delete_file", "edit_text_file", "move_file", "write_text_file"}
	folders := []string{t.TempDir(), t.TempDir()}
	os.WriteFile(filepath.Join(folders[1], "b.txt"), []byte("two\n"), 0o644)
	for _, readOnly := range []string{"false", "true"} {
		t.Run("read_only="+readOnly, func(t *testing.T) {
			cfg := m.Server.MCPConfig
			if o, ok := cfg.PlatformOverrides["linux"]; ok && o.Command != "" {
				cfg.Command = o.Command
			}
			command := strings.ReplaceAll(cfg.Command, "${__dirname}", bundleDir)
			var args []string
			for _, a := range cfg.Args {
				if a == "${user_config."+configDirs+"}" {
					args = append(args, folders...)
					continue
				}
				args = append(args, strings.ReplaceAll(a, "${user_config."+configReadOnly+"}", readOnly))
			}
			cmd := exec.CommandContext(t.Context(), command, args...)
			cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}` + "\n" +
				`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
				`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n" +
				`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":` + strconvQuote(filepath.Join(folders[1], "b.txt")) + `}}}` + "\n")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s %q: %v\n%s", command, args, err, stderr.String())
			}
			var listed []string
			var read string
			sc := bufio.NewScanner(bytes.NewReader(out))
			sc.Buffer(nil, 4<<20)
			for sc.Scan() {
				var msg struct {
					ID     int `json:"id"`
					Result struct {
						Tools []struct{ Name string }
					} `json:"result"`
				}
				if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
					t.Fatalf("stdout: not JSON-RPC: %q", sc.Text())
				}
				switch msg.ID {
				case 2:
					for _, tool := range msg.Result.Tools {
						listed = append(listed, tool.Name)
					}
				case 3:
					read = sc.Text()
				}
			}
			slices.Sort(listed)
			want := names
			if readOnly == "true" {
				want = slices.DeleteFunc(slices.Clone(names), func(n string) bool { return slices.Contains(changers, n) })
			}
			if !slices.Equal(listed, want) {
				t.Errorf("tools/list %v, want %v", listed, want)
			}
			if !strings.Contains(read, `two\n`) {
				t.Errorf("reading in the second folder: %s", read)
			}
		})
	}
	for _, c := range changers {
		if !slices.Contains(names, c) {
			t.Errorf("the manifest's tools %v lack %s", names, c)
		}
	}
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestDistServerJSON validates server.json against the MCP Registry's
// schema, from the registry's Go module (go mod download; it is not a
// dependency of this module), and by the registry's rules that the schema
// does not carry: an mcpb package has the SHA-256 of the file, and its URL
// is an https GitHub release download holding "mcp".
func TestDistServerJSON(t *testing.T) {
	dir := fullRelease(t)
	cmd := exec.CommandContext(t.Context(), "go", "mod", "download", "-json", "github.com/modelcontextprotocol/registry@v1.8.9")
	cmd.Dir = t.TempDir() // outside this module, so that go.mod is not touched
	out, err := cmd.Output()
	var mod struct{ Dir, Error string }
	if err == nil {
		err = json.Unmarshal(out, &mod)
	}
	if err == nil && mod.Error != "" {
		err = fmt.Errorf("%s", mod.Error)
	}
	need(t, "", err)
	schemaFile := filepath.Join(mod.Dir, "internal", "validators", "schemas", "2025-12-11.json")
	c := jsonschema.NewCompiler()
	sch, err := c.Compile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "server.json"))
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("server.json against the registry's schema: %v", err)
	}
	var s serverJSON
	readJSON(t, filepath.Join(dir, "server.json"), &s)
	if s.Schema != serverSchema || len(s.Description) > 100 {
		t.Errorf("$schema %q, description of %d characters", s.Schema, len(s.Description))
	}
	var types []string
	for _, p := range s.Packages {
		types = append(types, p.RegistryType)
		if p.Transport.Type != "stdio" {
			t.Errorf("%s: transport %q", p.RegistryType, p.Transport.Type)
		}
		switch p.RegistryType {
		case "npm":
			if p.Identifier != "mcp-acpfs" || len(p.PackageArguments) != 2 || !p.PackageArguments[1].IsRepeated {
				t.Errorf("npm package: %+v", p)
			}
		case "mcpb":
			name := "mcp-acpfs_" + distVersion + ".mcpb"
			if p.Identifier != "https://github.com/mcp-acpfs/mcp-acpfs/releases/download/"+distVersion+"/"+name ||
				!strings.Contains(p.Identifier, "mcp") {
				t.Errorf("mcpb identifier %q", p.Identifier)
			}
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(data)
			if p.FileSha256 != hex.EncodeToString(sum[:]) {
				t.Errorf("mcpb fileSha256 %q is not the SHA-256 of %s", p.FileSha256, name)
			}
		}
	}
	if !slices.Equal(types, []string{"npm", "mcpb"}) {
		t.Errorf("packages %v, want npm and mcpb", types)
	}
}

// TestDistPackageManagers checks the Homebrew formula with ruby -c, and the
// Scoop manifest by its documented fields.
func TestDistPackageManagers(t *testing.T) {
	dir := fullRelease(t)
	sums, err := readSums(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	checkScoop(t, filepath.Join(dir, "scoop", "bucket", "mcp-acpfs.json"),
		release{tag: distVersion, semver: npmVersion(distVersion), sums: sums})
	formula := filepath.Join(dir, "homebrew", "Formula", "mcp-acpfs.rb")
	data, _ := os.ReadFile(formula)
	for _, tg := range []string{"darwin_arm64", "darwin_amd64", "linux_arm64", "linux_amd64"} {
		file := "mcp-acpfs_" + distVersion + "_" + tg + ".tar.gz"
		if !strings.Contains(string(data), `sha256 "`+sums[file]+`"`) {
			t.Errorf("the formula lacks the SHA-256 of %s", file)
		}
	}
	if os.Getenv("MCP_ACPFS_NO_RUBY") == "1" {
		t.Skip("MCP_ACPFS_NO_RUBY=1: the formula's syntax is not checked")
	}
	ruby, err := exec.LookPath("ruby")
	ruby = need(t, ruby, err)
	out, err := exec.CommandContext(t.Context(), ruby, "-c", formula).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Syntax OK") {
		t.Errorf("ruby -c Formula/mcp-acpfs.rb: %v\n%s", err, out)
	}
}
