//go:build linux

package realagents

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/gobuild"
)

// binPath is the mcp-acpfs binary that TestMain built.
var binPath string

// sharedCache is a cache directory that the runs share: Copilot CLI
// unpacks itself there on its first start (about 150 MB), once for all
// its runs.
var sharedCache string

// raceEnabled is set by race_test.go; the binary is then built with the
// race detector too.
var raceEnabled bool

// requireNodeEnv, set to 1, turns the skip of these tests when
// node_modules is missing into a failure. CI sets it.
const requireNodeEnv = "MCP_ACPFS_REQUIRE_NODE"

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "mcp-acpfs-realagents-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "realagents:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	binPath = filepath.Join(dir, "mcp-acpfs")
	sharedCache = filepath.Join(dir, "cache")
	if err := gobuild.Build(dir, raceEnabled, "github.com/mcp-acpfs/mcp-acpfs/cmd/mcp-acpfs"); err != nil {
		fmt.Fprintln(os.Stderr, "realagents:", err)
		return 1
	}
	return m.Run()
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// nodeModules returns the absolute path of node_modules, skipping the
// test when it lacks what the agents need, or failing it when
// MCP_ACPFS_REQUIRE_NODE=1.
func nodeModules(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("node_modules")
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, p := range []string{node22Rel, codexRel, geminiRel, claudeRel, opencodeRel, copilotRel, qwenRel} {
		if !fileExists(filepath.Join(dir, p)) {
			missing = append(missing, p)
		}
	}
	if len(missing) == 0 {
		return dir
	}
	msg := fmt.Sprintf("the real-agent tests need integration/realagents/node_modules, which lacks %s "+
		"(run `npm ci --no-audit --no-fund` in integration/realagents; it needs linux-x64)",
		strings.Join(missing, ", "))
	if runtime.GOARCH != "amd64" {
		t.Skip(msg) // the pinned packages are linux-x64 ones
	}
	if os.Getenv(requireNodeEnv) == "1" {
		t.Fatalf("%s; %s=1 requires them", msg, requireNodeEnv)
	}
	t.Skip(msg)
	return ""
}
