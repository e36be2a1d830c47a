package integration

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// The official MCP conformance suite (@modelcontextprotocol/conformance),
// in two releases that node/package.json pins: the latest stable one, of
// the 2025-11-25 era, and a pre-release that knows 2026-07-28 (under the
// npm alias conformance-next).
const (
	conformanceStable = "node_modules/@modelcontextprotocol/conformance/dist/index.js"
	conformanceNext   = "node_modules/conformance-next/dist/index.js"
)

// conformanceBaseline lists the scenarios and checks that need the
// suite's own fixtures, which a file server rightly lacks.
const conformanceBaseline = "testdata/conformance-baseline.yml"

// A conformanceRun is one run of the suite: every scenario of a release
// that applies to a protocol revision, the pending ones and (for
// 2026-07-28) the tasks extension's included.
type conformanceRun struct {
	name string
	cli  string   // relative to node/
	spec string   // the revision, for a scenario run again alone
	args []string // which scenarios
}

var conformanceRuns = []conformanceRun{
	{"stable-2025-11-25", conformanceStable, "2025-11-25", []string{"--suite", "all", "--spec-version", "2025-11-25"}},
	{"next-2025-11-25", conformanceNext, "2025-11-25", []string{"--requirements", "2025-11-25"}},
	{"next-2026-07-28", conformanceNext, "2026-07-28", []string{"--requirements", "2026-07-28"}},
}

// A conformanceCheck is one entry of a scenario's checks.json.
type conformanceCheck struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Description  string `json:"description"`
	Status       string `json:"status"` // SUCCESS, FAILURE, WARNING, INFO, SKIPPED
	ErrorMessage string `json:"errorMessage"`
}

// failing reports whether a check counts against the server: a FAILURE,
// or a WARNING (a SHOULD not met), as the suite's own baseline counts them.
func (c conformanceCheck) failing() bool {
	return c.Status == "FAILURE" || c.Status == "WARNING"
}

// TestConformance runs the official MCP conformance suite against serve
// --http (the suite speaks Streamable HTTP only), in both protocol eras.
// Every failing check must be in the baseline, and every baseline entry
// must still fail in some run: one that passes in every run is stale.
//
// A few checks give the server a fixed time (the suite reads a
// subscriptions/listen stream for 800 ms), which a loaded machine can
// miss; so a scenario with a check that fails unexpectedly is run once
// more, alone, and fails the test only if it fails again.
func TestConformance(t *testing.T) {
	node := node22(t)
	t.Parallel()
	baseline := readBaseline(t, conformanceBaseline)
	tr := newTree(t)
	s := startHTTP(t, tr.root, nil, "--http-no-auth")

	suite := func(run conformanceRun, args ...string) (map[string][]conformanceCheck, string) {
		out := t.TempDir()
		args = append([]string{run.cli, "server", "--url", s.url, "--output-dir", out}, args...)
		stdout, stderr, err := tryNode(t, node, args...)
		results := readResults(t, out)
		if len(results) == 0 {
			t.Errorf("%s: no results (%v)\nstdout:\n%s\nstderr:\n%s", run.name, err, stdout, stderr)
		}
		return results, stdout
	}
	o := conformanceOutcome{baseline: baseline, failed: map[string]bool{}, passed: map[string]bool{}}
	for _, run := range conformanceRuns {
		begin := time.Now()
		results, stdout := suite(run, run.args...)
		t.Logf("%s: %v", run.name, time.Since(begin).Round(time.Millisecond))
		failedRun := false
		for _, sc := range slices.Sorted(maps.Keys(results)) {
			bad := o.record(sc, results[sc])
			if len(bad) == 0 {
				continue
			}
			again, _ := suite(run, "--scenario", sc, "--spec-version", run.spec)
			if badAgain := o.record(sc, again[sc]); len(again[sc]) > 0 && len(badAgain) == 0 {
				t.Logf("%s: %s failed (%s), and passed when run again alone", run.name, sc, bad[0])
				continue
			}
			for _, b := range bad {
				t.Errorf("%s: %s", run.name, b)
			}
			failedRun = true
		}
		if failedRun {
			t.Logf("%s stdout:\n%s", run.name, stdout)
		}
	}
	for _, entry := range slices.Sorted(maps.Keys(baseline)) {
		switch {
		case o.failed[entry]:
		case o.passed[entry]:
			t.Errorf("stale baseline entry %s: it passes now; remove it from %s", entry, conformanceBaseline)
		default:
			t.Errorf("baseline entry %s matches no check of any run; remove it from %s", entry, conformanceBaseline)
		}
	}
	s.stop()
}

// conformanceOutcome gathers the baseline entries that failed, and that
// passed, in some run.
type conformanceOutcome struct {
	baseline       map[string]string
	failed, passed map[string]bool
}

// record records the checks of scenario sc, and returns those that fail
// without a baseline entry, described.
func (o *conformanceOutcome) record(sc string, checks []conformanceCheck) []string {
	var bad []string
	_, whole := o.baseline[sc]
	for _, c := range checks {
		key := sc + ":" + c.ID
		entry := key
		if whole {
			entry = sc
		}
		_, listed := o.baseline[entry]
		switch {
		case c.failing() && listed:
			o.failed[entry] = true
		case c.failing():
			bad = append(bad, fmt.Sprintf("%s %s (%s): %s", c.Status, key, c.Description, c.ErrorMessage))
		case c.Status == "SUCCESS" && listed && !whole:
			o.passed[entry] = true
		}
	}
	if whole && len(checks) > 0 && !slices.ContainsFunc(checks, conformanceCheck.failing) {
		o.passed[sc] = true
	}
	return bad
}

// baselineLine is an entry of the baseline: "  - scenario  # reason" or
// "  - scenario:check-id  # reason".
var baselineLine = regexp.MustCompile(`^\s*-\s*([a-z0-9][a-z0-9/_.-]*(?::[a-z0-9/_.-]+)?)\s*(?:#\s*(.*))?$`)

// readBaseline reads the entries of the baseline file, which is also the
// suite's own --expected-failures format (YAML, a server: list); every
// entry must give its reason in a comment.
func readBaseline(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	entries := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") || trimmed == "server:" {
			continue
		}
		m := baselineLine.FindStringSubmatch(line)
		switch {
		case m == nil:
			t.Fatalf("%s:%d: not an entry: %q", path, n, line)
		case strings.TrimSpace(m[2]) == "":
			t.Fatalf("%s:%d: entry %s gives no reason", path, n, m[1])
		}
		if _, dup := entries[m[1]]; dup {
			t.Fatalf("%s:%d: entry %s is listed twice", path, n, m[1])
		}
		entries[m[1]] = m[2]
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for e := range entries {
		if sc, _, ok := strings.Cut(e, ":"); ok {
			if _, whole := entries[sc]; whole {
				t.Fatalf("%s: %s is redundant with the whole scenario %s", path, e, sc)
			}
		}
	}
	return entries
}

// resultDir is the name of a scenario's result directory:
// server-<scenario>-<timestamp>.
var resultDir = regexp.MustCompile(`^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$`)

// readResults reads the checks.json of every scenario the suite ran, by
// scenario.
func readResults(t *testing.T, dir string) map[string][]conformanceCheck {
	t.Helper()
	results := map[string][]conformanceCheck{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "checks.json" {
			return err
		}
		m := resultDir.FindStringSubmatch(filepath.Base(filepath.Dir(p)))
		if m == nil {
			return fmt.Errorf("%s: not in a scenario's result directory", p)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var cs []conformanceCheck
		if err := json.Unmarshal(b, &cs); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		results[m[1]] = append(results[m[1]], cs...)
		return nil
	})
	if err != nil {
		t.Errorf("reading the results: %v", err)
	}
	return results
}
