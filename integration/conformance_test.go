package integration

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
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
// must fail in some run (else it is stale). A scenario with a check that
// fails unexpectedly runs once more, alone, and fails the test only if it
// fails again: a few checks give the server a fixed time (800 ms on a
// subscriptions/listen stream) that a loaded machine can miss. A crashed
// run (suiteProblems) fails it too.
func TestConformance(t *testing.T) {
	node := node22(t)
	t.Parallel()
	baseline := readBaseline(t, conformanceBaseline)
	tr := newTree(t)
	s := startHTTP(t, tr.root, nil, "--http-no-auth")

	// suite runs the suite with args: a run's own, or one --scenario.
	suite := func(run conformanceRun, scenario string, args ...string) (map[string][]conformanceCheck, string) {
		out := t.TempDir()
		args = append([]string{run.cli, "server", "--url", s.url, "--output-dir", out}, args...)
		stdout, stderr, err := tryNode(t, node, args...)
		results := readResults(t, out)
		if problems := suiteProblems(stdout, scenario, results, err); len(problems) > 0 {
			for _, p := range problems {
				t.Errorf("%s: %s", run.name, p)
			}
			t.Logf("%s stdout:\n%s\nstderr:\n%s", run.name, stdout, stderr)
		}
		return results, stdout
	}
	o := conformanceOutcome{baseline: baseline, failed: map[string]bool{}, passed: map[string]bool{}}
	for _, run := range conformanceRuns {
		begin := time.Now()
		results, stdout := suite(run, "", run.args...)
		t.Logf("%s: %v", run.name, time.Since(begin).Round(time.Millisecond))
		failedRun := false
		for _, sc := range slices.Sorted(maps.Keys(results)) {
			bad := o.record(sc, results[sc])
			if len(bad) == 0 {
				continue
			}
			again, _ := suite(run, sc, "--scenario", sc, "--spec-version", run.spec)
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

// The suite's progress on stdout, when it runs more than one scenario: how
// many it will run, and each as it starts.
var (
	suiteAnnounce = regexp.MustCompile(`(?m)^Running .* \((\d+) scenarios\) against `)
	suiteStarts   = regexp.MustCompile(`(?m)^=== Running scenario: (\S+) ===$`)
)

// suiteProblems returns what is wrong with a run of the suite beyond its
// failing checks, which the baseline judges: given its stdout, the one
// scenario it was asked for ("" for a run of many), the results it wrote
// and the error of its exit. A scenario that crashed writes no checks.json,
// so every scenario asked for or started must have results; a run of many
// must start as many as it announced; and a non-zero exit, which a check
// with status FAILURE explains (listed in the baseline or not: the suite
// does not read it), is a crash when no check has it.
func suiteProblems(stdout, scenario string, results map[string][]conformanceCheck, err error) []string {
	var problems []string
	var asked []string
	if scenario != "" {
		asked = []string{scenario}
	} else {
		for _, m := range suiteStarts.FindAllStringSubmatch(stdout, -1) {
			asked = append(asked, m[1])
		}
		switch m := suiteAnnounce.FindStringSubmatch(stdout); {
		case m == nil:
			problems = append(problems, "the suite announced no scenarios")
		case m[1] != strconv.Itoa(len(asked)):
			problems = append(problems, fmt.Sprintf("the suite announced %s scenarios and started %d", m[1], len(asked)))
		}
	}
	for _, sc := range asked {
		if len(results[sc]) == 0 {
			problems = append(problems, fmt.Sprintf("scenario %s: no results", sc))
		}
	}
	failed := false
	for _, checks := range results {
		failed = failed || slices.ContainsFunc(checks, func(c conformanceCheck) bool { return c.Status == "FAILURE" })
	}
	if err != nil && !failed {
		problems = append(problems, fmt.Sprintf("the suite exited with %v, and no check failed", err))
	}
	return problems
}

// A run of the suite that crashed, for one scenario or for all, fails the
// test even when no check it wrote fails; one whose failing checks explain
// its exit status does not.
func TestSuiteProblems(t *testing.T) {
	exit1 := errors.New("exit status 1") // as an *exec.ExitError says it
	pass := []conformanceCheck{{ID: "c", Status: "SUCCESS"}}
	fail := []conformanceCheck{{ID: "c", Status: "SUCCESS"}, {ID: "d", Status: "FAILURE"}}
	warn := []conformanceCheck{{ID: "c", Status: "WARNING"}}
	started := func(announced int, scenarios ...string) string {
		out := fmt.Sprintf("Running all suite (%d scenarios) against http://127.0.0.1:1/mcp\n", announced)
		for _, sc := range scenarios {
			out += "\n=== Running scenario: " + sc + " ===\nRunning client scenario '" + sc + "' against server\n"
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		stdout   string
		scenario string
		results  map[string][]conformanceCheck
		err      error
		want     []string
	}{
		{"all pass", started(2, "a", "b"), "", map[string][]conformanceCheck{"a": pass, "b": pass}, nil, nil},
		{"a failing check explains the exit", started(2, "a", "b"), "", map[string][]conformanceCheck{"a": pass, "b": fail}, exit1, nil},
		{"one scenario crashed", started(2, "a", "b"), "", map[string][]conformanceCheck{"a": fail}, exit1,
			[]string{"scenario b: no results"}},
		{"one scenario crashed, and nothing else failed", started(2, "a", "b"), "", map[string][]conformanceCheck{"a": pass}, exit1,
			[]string{"scenario b: no results", "the suite exited with exit status 1, and no check failed"}},
		{"the suite died midway", started(3, "a", "b"), "", map[string][]conformanceCheck{"a": pass, "b": fail}, exit1,
			[]string{"the suite announced 3 scenarios and started 2"}},
		{"the suite did not start", "", "", nil, exit1,
			[]string{"the suite announced no scenarios", "the suite exited with exit status 1, and no check failed"}},
		{"a warning does not explain the exit", started(1, "a"), "", map[string][]conformanceCheck{"a": warn}, exit1,
			[]string{"the suite exited with exit status 1, and no check failed"}},
		{"one scenario passes", "", "a", map[string][]conformanceCheck{"a": pass}, nil, nil},
		{"one scenario fails", "", "a", map[string][]conformanceCheck{"a": fail}, exit1, nil},
		{"one scenario crashed", "", "a", nil, exit1,
			[]string{"scenario a: no results", "the suite exited with exit status 1, and no check failed"}},
		{"one scenario was skipped", "SKIPPED: scenario 'a' is not applicable\n", "a", nil, nil,
			[]string{"scenario a: no results"}},
	} {
		if got := suiteProblems(tc.stdout, tc.scenario, tc.results, tc.err); !slices.Equal(got, tc.want) {
			t.Errorf("%s: problems %q, want %q", tc.name, got, tc.want)
		}
	}
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
