package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// options are what a release is made of.
type options struct {
	out     string   // the directory written; absent or empty
	version string   // "" for git describe's
	targets []string // GOOS/GOARCH; nil for allTargets
}

// A target is a platform the release has a binary for.
type target struct {
	goos, goarch  string
	npmOS, npmCPU string // process.platform and process.arch in Node
}

// targets are the platforms of a release, in the order they are built.
var targets = []target{
	{"darwin", "arm64", "darwin", "arm64"},
	{"darwin", "amd64", "darwin", "x64"},
	{"linux", "amd64", "linux", "x64"},
	{"linux", "arm64", "linux", "arm64"},
	{"windows", "amd64", "win32", "x64"},
	{"windows", "arm64", "win32", "arm64"},
	{"freebsd", "amd64", "freebsd", "x64"},
}

func (t target) String() string { return t.goos + "/" + t.goarch }

// exe is the file name of the binary on t.
func (t target) exe() string {
	if t.goos == "windows" {
		return "mcp-acpfs.exe"
	}
	return "mcp-acpfs"
}

func allTargets() []string {
	var s []string
	for _, t := range targets {
		s = append(s, t.String())
	}
	return s
}

// pickTargets returns the targets named by names (all for none).
func pickTargets(names []string) ([]target, error) {
	if len(names) == 0 {
		return targets, nil
	}
	var picked []target
	for _, name := range names {
		i := slices.IndexFunc(targets, func(t target) bool { return t.String() == name })
		if i < 0 {
			return nil, fmt.Errorf("unknown target %q: the targets are %s", name, strings.Join(allTargets(), ", "))
		}
		picked = append(picked, targets[i])
	}
	return picked, nil
}

// validVersion is what may be linked in and used in file names.
var validVersion = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z.+_-]*$`)

// run makes the release that opts describe, from the module in the current
// directory.
func run(ctx context.Context, opts options) error {
	module, err := modulePath("go.mod")
	if err != nil {
		return err
	}
	picked, err := pickTargets(opts.targets)
	if err != nil {
		return err
	}
	version := opts.version
	if version == "" {
		if version, err = gitOutput(ctx, "describe", "--tags", "--always", "--dirty"); err != nil {
			return fmt.Errorf("no VERSION given, and git describe failed: %w", err)
		}
	}
	if !validVersion.MatchString(version) {
		return fmt.Errorf("version %q: use letters, digits and . + _ - only, starting with a letter or digit", version)
	}
	if err := emptyDir(opts.out); err != nil {
		return err
	}
	build, err := os.MkdirTemp("", "mcp-acpfs-release-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(build)

	a := archiver{mtime: sourceTime(ctx), files: extraFiles()}
	var archives []string
	binaries := map[target]string{}
	for _, t := range picked {
		bin := filepath.Join(build, t.goos+"_"+t.goarch, t.exe())
		slog.Info("building", "target", t, "version", version)
		if err := buildBinary(ctx, t, version, bin); err != nil {
			return err
		}
		binaries[t] = bin
		name, err := a.archive(opts.out, "mcp-acpfs_"+version+"_"+t.goos+"_"+t.goarch, t, bin)
		if err != nil {
			return err
		}
		archives = append(archives, name)
	}
	homepage := "https://" + module
	semver := npmVersion(version)

	// The MCP Bundles: a macOS universal binary, made here, in each that
	// has macOS.
	fat := ""
	darwinARM, darwinAMD := binaries[target{"darwin", "arm64", "darwin", "arm64"}], binaries[target{"darwin", "amd64", "darwin", "x64"}]
	if darwinARM != "" && darwinAMD != "" {
		fat = filepath.Join(build, "darwin_universal", "mcp-acpfs")
		if err := os.MkdirAll(filepath.Dir(fat), 0o755); err != nil {
			return err
		}
		if err := writeFat(fat, darwinAMD, darwinARM); err != nil {
			return err
		}
	}
	tools, err := toolList()
	if err != nil {
		return fmt.Errorf("listing the tools for the bundles: %w", err)
	}
	bs := bundles(bundleMeta{version: semver, homepage: homepage, tools: tools}, version, picked, binaries, fat)
	for _, b := range bs {
		slog.Info("writing bundle", "file", b.file)
		if err := b.write(a, opts.out); err != nil {
			return fmt.Errorf("writing %s: %w", b.file, err)
		}
		archives = append(archives, b.file)
	}

	if err := writeSums(opts.out, archives); err != nil {
		return err
	}
	sums, err := readSums(filepath.Join(opts.out, "SHA256SUMS"))
	if err != nil {
		return err
	}
	rel := release{tag: version, semver: semver, homepage: homepage, date: a.mtime, sums: sums}
	universal := universalBundle(bs)
	if err := writeServerJSON(opts.out, rel, universal, sums[universal]); err != nil {
		return err
	}
	if len(picked) == len(targets) {
		if err := writePackaging(opts.out, rel); err != nil {
			return err
		}
	} else {
		slog.Info("not every target built: no Homebrew, Scoop or winget files")
	}
	if err := writeNPM(filepath.Join(opts.out, "npm"), npmInfo{
		Version:  semver,
		License:  npmLicense(a.files),
		Homepage: homepage,
		MCPName:  mcpName,
	}, a.files, picked, binaries); err != nil {
		return err
	}
	slog.Info("release written", "dir", opts.out, "version", version, "targets", len(picked))
	return nil
}

// buildBinary builds the command for t into bin with version linked in.
func buildBinary(ctx context.Context, t target, version, bin string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath",
		"-ldflags", "-s -w -X main.stampedVersion="+version,
		"-o", bin, "./cmd/mcp-acpfs")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+t.goos, "GOARCH="+t.goarch)
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building for %s: %w", t, err)
	}
	return nil
}

// modulePath returns the module path that the go.mod file at path declares.
func modulePath(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("run this from the root of the module: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	return "", fmt.Errorf("%s: no module line", path)
}

// emptyDir makes dir, which must be absent or empty.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return os.MkdirAll(dir, 0o755)
	case err != nil:
		return err
	case len(entries) > 0:
		return fmt.Errorf("output directory %s is not empty: remove it, or give another with -o", dir)
	}
	return nil
}

// extraFiles are the files of the module's root shipped beside the binary:
// README.md and LICENSE, and the pages of docs/ that the README links to.
func extraFiles() []string {
	var files []string
	for _, name := range []string{"README.md", "LICENSE"} {
		if _, err := os.Stat(name); err == nil {
			files = append(files, name)
		}
	}
	docs, _ := filepath.Glob(filepath.Join("docs", "*.md")) // sorted
	for _, name := range docs {
		files = append(files, filepath.ToSlash(name))
	}
	return files
}

// sourceTime is the modification time of the files in the archives:
// SOURCE_DATE_EPOCH, else the time of the last commit, else now. The same
// commit thus gives the same archives.
func sourceTime(ctx context.Context) time.Time {
	for _, s := range []string{os.Getenv("SOURCE_DATE_EPOCH"), gitOutputOrEmpty(ctx, "log", "-1", "--format=%ct")} {
		if sec, err := strconv.ParseInt(s, 10, 64); err == nil {
			return time.Unix(sec, 0).UTC()
		}
	}
	return time.Now().UTC().Truncate(time.Second)
}

func gitOutput(ctx context.Context, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, "git", args...).Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, bytes.TrimSpace(exit.Stderr))
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

func gitOutputOrEmpty(ctx context.Context, args ...string) string {
	out, _ := gitOutput(ctx, args...)
	return out
}
