package main

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// The MCP Registry's server.json: its schema, and the server's name there,
// which the GitHub owner of the repository proves (io.github.OWNER/NAME).
const (
	serverSchema = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
	mcpName      = "io.github.mcp-acpfs/mcp-acpfs"
)

type serverJSON struct {
	Schema      string             `json:"$schema"`
	Name        string             `json:"name"`
	Title       string             `json:"title"`
	Description string             `json:"description"`
	Version     string             `json:"version"`
	Repository  registryRepository `json:"repository"`
	WebsiteURL  string             `json:"websiteUrl"`
	Packages    []registryPackage  `json:"packages"`
}

type registryRepository struct {
	URL    string `json:"url"`
	Source string `json:"source"`
}

type registryPackage struct {
	RegistryType     string             `json:"registryType"`
	Identifier       string             `json:"identifier"`
	Version          string             `json:"version"`
	FileSha256       string             `json:"fileSha256,omitempty"`
	Transport        registryTransport  `json:"transport"`
	PackageArguments []registryArgument `json:"packageArguments,omitempty"`
}

type registryTransport struct {
	Type string `json:"type"`
}

type registryArgument struct {
	Type        string `json:"type"`
	Value       string `json:"value,omitempty"`
	ValueHint   string `json:"valueHint,omitempty"`
	Description string `json:"description,omitempty"`
	Format      string `json:"format,omitempty"`
	IsRequired  bool   `json:"isRequired,omitempty"`
	IsRepeated  bool   `json:"isRepeated,omitempty"`
}

// writeServerJSON writes dir/server.json: the npm package, run as
// "mcp-acpfs serve DIR...", and the universal bundle, whose manifest has
// its own arguments, at its download URL with its SHA-256. The read-only
// switch is not described: the schema's named arguments would render a
// boolean as "--read-only true", which serve would take for a folder.
func writeServerJSON(dir string, rel release, bundleFile, bundleSum string) error {
	s := serverJSON{
		Schema:      serverSchema,
		Name:        mcpName,
		Title:       "mcp-acpfs",
		Description: description,
		Version:     rel.semver,
		Repository:  registryRepository{URL: rel.homepage, Source: "github"},
		WebsiteURL:  rel.homepage,
		Packages: []registryPackage{{
			RegistryType: "npm",
			Identifier:   "mcp-acpfs",
			Version:      rel.semver,
			Transport:    registryTransport{Type: "stdio"},
			PackageArguments: []registryArgument{
				{Type: "positional", Value: "serve"},
				{Type: "positional", ValueHint: "directory", Format: "filepath", IsRequired: true, IsRepeated: true,
					Description: "A folder whose files the tools may use; the first is the working directory"},
			},
		}},
	}
	if bundleFile != "" {
		s.Packages = append(s.Packages, registryPackage{
			RegistryType: "mcpb",
			Identifier:   rel.downloadURL(bundleFile),
			Version:      rel.semver,
			FileSha256:   bundleSum,
			Transport:    registryTransport{Type: "stdio"},
		})
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "server.json"), append(data, '\n'), 0o644)
}
