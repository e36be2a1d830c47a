// Command modelview measures what a model receives from mcp-acpfs's tools
// under each of six agents: the bytes of text, and the media passed as
// media, of a few tool results and of the tool definitions.
//
//	go run ./bench/modelview [-json]
//
// It runs the real server in process on generated fixtures (Go-like
// source, a directory of 1,000 files, a grep with 50 matches), once per
// host with the host's clientInfo name (the server may size a read's page
// by it), with the default tool options and again with structuredContent
// on, and renders each result by that host's rule (render.go). Beside
// them stand the hosts' own tools where their size is known: Claude Code's
// Read and gemini-cli's read_file computed for the same text, Claude
// Code's tool definitions from the reference. A row's goal is met where a
// host's bytes are at most its own tool's.
//
// The rules and the reference figures are those of
// /work/shared/reference/model-view.md, measured 2026-11-28.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	asJSON := flag.Bool("json", false, "print every row as JSON instead of the markdown table")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: go run ./bench/modelview [-json]\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	rows, err := measure(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "modelview:", err)
		os.Exit(1)
	}
	if *asJSON {
		err = writeJSON(os.Stdout, rows)
	} else {
		err = writeTable(os.Stdout, rows)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "modelview:", err)
		os.Exit(1)
	}
}

func writeJSON(w io.Writer, rows []Row) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rows)
}
