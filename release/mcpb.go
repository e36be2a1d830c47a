package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

// An mcpbManifest is the manifest.json of an MCP Bundle (.mcpb), version
// 0.3, in the field order written.
type mcpbManifest struct {
	ManifestVersion string                    `json:"manifest_version"`
	Name            string                    `json:"name"`
	DisplayName     string                    `json:"display_name"`
	Version         string                    `json:"version"`
	Description     string                    `json:"description"`
	LongDescription string                    `json:"long_description"`
	Author          mcpbAuthor                `json:"author"`
	Repository      mcpbRepository            `json:"repository"`
	Homepage        string                    `json:"homepage"`
	Documentation   string                    `json:"documentation"`
	License         string                    `json:"license"`
	Keywords        []string                  `json:"keywords"`
	Server          mcpbServer                `json:"server"`
	Tools           []mcpbTool                `json:"tools"`
	UserConfig      map[string]mcpbUserConfig `json:"user_config"`
	Compatibility   *mcpbCompatibility        `json:"compatibility,omitempty"`
}

type mcpbAuthor struct {
	Name string `json:"name"`
}

type mcpbRepository struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

type mcpbServer struct {
	Type       string        `json:"type"`
	EntryPoint string        `json:"entry_point"`
	MCPConfig  mcpbMCPConfig `json:"mcp_config"`
}

type mcpbMCPConfig struct {
	Command           string                   `json:"command"`
	Args              []string                 `json:"args,omitempty"`
	PlatformOverrides map[string]mcpbMCPConfig `json:"platform_overrides,omitempty"`
}

type mcpbTool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

type mcpbUserConfig struct {
	Type        string `json:"type"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Required    bool   `json:"required"`
	Multiple    bool   `json:"multiple,omitempty"`
	Default     any    `json:"default,omitempty"`
}

type mcpbCompatibility struct {
	Platforms []string `json:"platforms"`
}

// The user_config keys of the bundles: the folders the tools may use, and
// whether they may change files.
const (
	configDirs     = "directories"
	configReadOnly = "read_only"
)

// bundleArgs are the arguments the host runs the server with. The chosen
// folders expand into one argument each (an item that is exactly
// ${user_config.directories}, with multiple: true), after "--" so that a
// folder whose name starts with "-" is a folder; the boolean goes inside a
// string, where only scalars are substituted, as --read-only=true|false.
var bundleArgs = []string{"serve", "--read-only=${user_config." + configReadOnly + "}", "--", "${user_config." + configDirs + "}"}

// bundleUserConfig is what the host asks the user for. The folders are
// required and have no default: a server that can write files gets the
// folders the user picks, not the whole home directory.
var bundleUserConfig = map[string]mcpbUserConfig{
	configDirs: {
		Type:  "directory",
		Title: "Folders",
		Description: "The folders whose files the tools may read and change. The first is the working directory: " +
			"relative paths resolve against it.",
		Required: true,
		Multiple: true,
	},
	configReadOnly: {
		Type:  "boolean",
		Title: "Read-only",
		Description: "Leave out the tools that change files (write_text_file, edit_text_file, create_directory, " +
			"move_file, delete_file).",
		Default: false,
	},
}

// A bundle is one .mcpb file: its name, the operating systems it declares
// (none for the universal bundle, which has a binary for each), and its
// binaries, by their name in the bundle.
type bundle struct {
	file      string
	platforms []string
	binaries  map[string]string // name in the bundle → path on disk
	manifest  mcpbManifest
}

// bundleMeta is what every bundle's manifest shares.
type bundleMeta struct {
	version  string // the manifest's version
	homepage string
	tools    []mcpbTool
}

func (m bundleMeta) manifest(server mcpbServer, platforms []string) mcpbManifest {
	mf := mcpbManifest{
		ManifestVersion: "0.3",
		Name:            "mcp-acpfs",
		DisplayName:     "mcp-acpfs",
		Version:         m.version,
		Description:     description,
		LongDescription: "File tools for the folders you choose: read text in pages, edit with exact replacements, " +
			"write atomically, list, glob and grep. Writes refuse a file that changed since it was read. " +
			"Turn on read-only to leave out every tool that changes files.",
		Author:        mcpbAuthor{Name: author},
		Repository:    mcpbRepository{Type: "git", URL: m.homepage + ".git"},
		Homepage:      m.homepage,
		Documentation: m.homepage + "/blob/main/docs/install.md",
		License:       license,
		Keywords:      []string{"files", "filesystem", "editor", "acp"},
		Server:        server,
		Tools:         m.tools,
		UserConfig:    bundleUserConfig,
	}
	if platforms != nil {
		mf.Compatibility = &mcpbCompatibility{Platforms: platforms}
	}
	return mf
}

// The words every package and manifest shares.
const (
	author      = "the mcp-acpfs authors"
	description = "MCP file tools for coding agents: read, edit, write and search files in the folders you choose"
)

// mcpbOS is the process.platform of a Go GOOS.
var mcpbOS = map[string]string{"darwin": "darwin", "linux": "linux", "windows": "win32"}

// bundles returns the bundles that the binaries of picked make: for each
// operating system that a host of bundles runs on, one per target (one
// universal binary for macOS), and the universal bundle when every
// binary it needs was built. fat is the path of the darwin universal
// binary, or "" when the darwin targets were not both built.
//
// The universal bundle holds the macOS universal binary, Windows x64
// (Windows on ARM runs it) and Linux x64. platform_overrides has no CPU
// key, so one bundle can hold one Linux binary only, short of a launcher
// script; Claude Desktop, the host of bundles, ships for macOS and Windows
// only, and the Linux hosts that take bundles mostly run on x64. So Linux
// gets x64, and the per-platform bundles serve arm64 Linux (and native
// arm64 Windows).
func bundles(meta bundleMeta, version string, picked []target, binaries map[target]string, fat string) []bundle {
	var out []bundle
	single := func(name, goos string, bin string) {
		exe := "mcp-acpfs"
		if goos == "windows" {
			exe += ".exe"
		}
		cmd := "${__dirname}/server/" + exe
		cfg := mcpbMCPConfig{Command: cmd, Args: bundleArgs}
		if goos == "windows" {
			cfg.PlatformOverrides = map[string]mcpbMCPConfig{"win32": {Command: cmd}}
		}
		out = append(out, bundle{
			file:      "mcp-acpfs_" + version + "_" + name + ".mcpb",
			platforms: []string{mcpbOS[goos]},
			binaries:  map[string]string{"server/" + exe: bin},
			manifest:  meta.manifest(mcpbServer{Type: "binary", EntryPoint: "server/" + exe, MCPConfig: cfg}, []string{mcpbOS[goos]}),
		})
	}
	if fat != "" {
		single("darwin_universal", "darwin", fat)
	}
	for _, t := range picked {
		if t.goos == "linux" || t.goos == "windows" {
			single(t.goos+"_"+t.goarch, t.goos, binaries[t])
		}
	}
	win, linux := binaries[target{"windows", "amd64", "win32", "x64"}], binaries[target{"linux", "amd64", "linux", "x64"}]
	if fat != "" && win != "" && linux != "" {
		out = append(out, bundle{
			file: "mcp-acpfs_" + version + ".mcpb",
			binaries: map[string]string{
				"server/darwin/mcp-acpfs":    fat,
				"server/win32/mcp-acpfs.exe": win,
				"server/linux/mcp-acpfs":     linux,
			},
			manifest: meta.manifest(mcpbServer{
				Type:       "binary",
				EntryPoint: "server/darwin/mcp-acpfs",
				MCPConfig: mcpbMCPConfig{
					Command: "${__dirname}/server/darwin/mcp-acpfs",
					Args:    bundleArgs,
					PlatformOverrides: map[string]mcpbMCPConfig{
						"win32": {Command: "${__dirname}/server/win32/mcp-acpfs.exe"},
						"linux": {Command: "${__dirname}/server/linux/mcp-acpfs"},
					},
				},
			}, nil),
		})
	}
	return out
}

// universalBundle returns the name of the universal bundle among bs, or "".
func universalBundle(bs []bundle) string {
	for _, b := range bs {
		if b.platforms == nil {
			return b.file
		}
	}
	return ""
}

// write writes the bundle into dir: a zip with manifest.json at its root,
// the binaries (executable) and LICENSE, sorted by name, each with
// the archiver's time.
func (b bundle) write(a archiver, dir string) error {
	manifest, err := json.MarshalIndent(b.manifest, "", "  ")
	if err != nil {
		return err
	}
	type file struct {
		data []byte
		mode os.FileMode
	}
	files := map[string]file{"manifest.json": {append(manifest, '\n'), 0o644}}
	for name, path := range b.binaries {
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files[name] = file{data, 0o755}
	}
	for _, f := range a.files {
		if f != "LICENSE" { // the README is the repository's, for another audience
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		files[f] = file{data, 0o644}
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		hdr := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: a.mtime}
		hdr.SetMode(files[name].mode)
		w, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		if _, err := w.Write(files[name].data); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, b.file), buf.Bytes(), 0o644)
}

// toolList returns the tools that serve offers without --read-only, as
// tools/list gives them, in the order of their names: from the server
// itself, built in this process on an empty folder.
func toolList() ([]mcpbTool, error) {
	dir, err := os.MkdirTemp("", "mcp-acpfs-tools-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	disk, err := fsruntime.OpenDisk([]string{dir}, fsruntime.DiskOptions{})
	if err != nil {
		return nil, err
	}
	defer disk.Close()
	srv, err := mcpfs.NewServer(mcpfs.DiskFiles(disk, false), mcpfs.Options{})
	if err != nil {
		return nil, err
	}
	// A description that names the working directory names the first
	// folder the user chose, in the bundle.
	workDirs := append(slices.Clone(disk.Roots()), dir)
	var tools []mcpbTool
	for name, t := range srv.ListTools() {
		desc := t.Tool.Description
		for _, w := range workDirs {
			desc = strings.ReplaceAll(desc, w, "the first folder")
		}
		if strings.Contains(desc, filepath.Base(dir)) {
			return nil, fmt.Errorf("the description of %s names the folder served, so it is not the same for every release", name)
		}
		tools = append(tools, mcpbTool{Name: name, Description: desc})
	}
	if len(tools) == 0 {
		return nil, fmt.Errorf("the server lists no tools")
	}
	slices.SortFunc(tools, func(a, b mcpbTool) int { return strings.Compare(a.Name, b.Name) })
	return tools, nil
}
