package integration

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// conformanceScenarios are the scenarios of the official MCP conformance
// suite (@modelcontextprotocol/conformance) that apply to any server; the
// others need the suite's fixture tools.
var conformanceScenarios = []string{
	"server-initialize",
	"ping",
	"tools-list",
	"logging-set-level",
	"dns-rebinding-protection",
}

// conformanceCLI is the suite's entry point, relative to node/.
const conformanceCLI = "node_modules/@modelcontextprotocol/conformance/dist/index.js"

// A conformanceCheck is one entry of a scenario's checks.json.
type conformanceCheck struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Description  string `json:"description"`
	Status       string `json:"status"` // SUCCESS, FAILURE, WARNING, INFO, SKIPPED
	ErrorMessage string `json:"errorMessage"`
}

// TestConformance runs the generic server scenarios of the official MCP
// conformance suite against serve --http (the suite speaks Streamable HTTP
// only). Every scenario must exit 0 and report no FAILURE.
func TestConformance(t *testing.T) {
	node := node22(t)
	t.Parallel()
	tr := newTree(t)
	s := startHTTP(t, tr.root, nil, "--http-no-auth")
	for _, sc := range conformanceScenarios {
		t.Run(sc, func(t *testing.T) {
			out := t.TempDir()
			stdout, stderr, err := tryNode(t, node, conformanceCLI, "server", "--url", s.url, "--scenario", sc, "--output-dir", out)
			checks := readChecks(t, out)
			failed := false
			for _, c := range checks {
				switch c.Status {
				case "FAILURE":
					failed = true
					t.Errorf("%s: FAILURE: %s (%s): %s", sc, c.ID, c.Description, c.ErrorMessage)
				case "WARNING":
					t.Logf("%s: WARNING: %s (%s): %s", sc, c.ID, c.Description, c.ErrorMessage)
				}
			}
			if len(checks) == 0 {
				t.Errorf("%s: no checks in %s", sc, out)
			}
			if err != nil && !failed {
				t.Errorf("%s: the suite failed (%v) without a FAILURE check", sc, err)
			}
			if t.Failed() {
				t.Logf("conformance stdout:\n%s\nstderr:\n%s", stdout, stderr)
			}
		})
	}
	s.stop()
}

// readChecks reads the checks.json the suite wrote somewhere under dir.
func readChecks(t *testing.T, dir string) []conformanceCheck {
	t.Helper()
	var checks []conformanceCheck
	found := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "checks.json" {
			return err
		}
		found++
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var cs []conformanceCheck
		if err := json.Unmarshal(b, &cs); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		checks = append(checks, cs...)
		return nil
	})
	if err != nil {
		t.Errorf("reading the results: %v", err)
	}
	if found != 1 {
		t.Errorf("found %d checks.json under %s, want 1", found, dir)
	}
	return checks
}
