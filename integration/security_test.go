package integration

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/fakeeditor"
	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/testagent"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
)

// The security suite runs every path attack of testdata/attacks.json
// against every operation that takes a path, in serve and through proxy,
// and checks that each is refused with an error that names its cause,
// that no result carries the content of a file outside the root, and that
// nothing outside the root (nor, for a refused call, inside it) changed.

// secretMark starts the content of every file outside the root, and of
// the editor's buffers for them: no result may ever contain it.
const secretMark = "SECRET-7f3a"

// An attack is one row of testdata/attacks.json.
type attack struct {
	Class    string `json:"class"`
	Path     string `json:"path"`
	Expect   string `json:"expect"`
	Dir      string `json:"dir,omitempty"`
	Resource string `json:"resource,omitempty"`
	Entry    bool   `json:"entry,omitempty"`
}

// secFixture is the tree the attacks are aimed at.
type secFixture struct {
	base, root string
	// entries are the entries of the root that lead out or are special,
	// by path relative to the root (in slashes), with how to make each
	// again.
	entries map[string]func() error
	// missing are the entries this system cannot make (symlinks, hard
	// links, a FIFO or a socket where it has none), with why: the attacks
	// through them are left out.
	missing map[string]error
	// links is nil if symlinks could be made, else why not.
	links error
}

// newSecFixture lays out base/project as the root, with prefix siblings
// (the shapes of CVE-2025-53110) and base/outside next to it, every file
// outside holding a secret, and in the root symlinks out (to a file, a
// directory, through a chain, dangling, looping, to /proc and /dev), hard
// links to files outside, a FIFO and a socket: each kind where a probe
// finds that the system can make it (see secFixture.missing).
func newSecFixture(t *testing.T) *secFixture {
	t.Helper()
	base := tempDir(t)
	f := &secFixture{base: base, root: filepath.Join(base, "project"), entries: map[string]func() error{}, missing: map[string]error{}}
	putFiles(t, f.root, map[string]string{"in.txt": "inside\n", "sub/ok.txt": "ok\n", "victim.txt": "victim\n"})
	for _, dir := range []string{"outside", "project2", "project_backup", "project-old", "projectile", "project.bak"} {
		putFiles(t, filepath.Join(base, dir), map[string]string{"secret.txt": secretMark + " in " + dir + "\n"})
	}
	f.links = ostest.NoSymlinks(t, base)
	hardLinks := hardLinkErr(base)
	// An entry is made with make, unless the probe of its kind, can,
	// found that the system cannot make it, or make finds that the
	// system has none (errors.ErrUnsupported); any other failure fails
	// the test.
	type entry struct {
		make func(at string) error
		can  error
	}
	symlink := func(target string) entry {
		return entry{func(at string) error { return os.Symlink(filepath.FromSlash(target), at) }, f.links}
	}
	hardlink := func(target string) entry {
		return entry{func(at string) error { return os.Link(target, at) }, hardLinks}
	}
	for name, e := range map[string]entry{
		"link_file":            symlink(filepath.Join(base, "outside", "secret.txt")),
		"link_rel":             symlink("../outside/secret.txt"),
		"link_dir":             symlink(filepath.Join(base, "outside")),
		"link_dir_rel":         symlink("../outside"),
		"chain1":               symlink("chain2"),
		"chain2":               symlink("sub/chain3"),
		"sub/chain3":           symlink("../../outside"),
		"sub/link_file_deep":   symlink("../../project2/secret.txt"),
		"sub/upup":             symlink("../.."),
		"sibling_link":         symlink("../project_backup"),
		"dangling":             symlink(filepath.Join(base, "outside", "new.txt")),
		"loop_a":               symlink("loop_b"),
		"loop_b":               symlink("loop_a"),
		"parent_link":          symlink("../outside"),
		"proc_root":            symlink("/proc/self/root"),
		"dev_zero":             symlink("/dev/zero"),
		"dev_stdin":            symlink("/dev/stdin"),
		"hardlink":             hardlink(filepath.Join(base, "outside", "secret.txt")),
		"sub/hardlink_sibling": hardlink(filepath.Join(base, "project2", "secret.txt")),
		"fifo": {func(at string) error {
			err := mkfifo(at)
			if errors.Is(err, errors.ErrUnsupported) {
				err = fmt.Errorf("no named pipes in the file system here: %w", err)
			}
			return err
		}, nil},
		"sock": {func(at string) error {
			ln, err := net.Listen("unix", at)
			if err == nil {
				ln.(*net.UnixListener).SetUnlinkOnClose(false)
				t.Cleanup(func() { ln.Close() })
			}
			return err
		}, ostest.NoUnixSockets(t)},
	} {
		if e.can != nil {
			f.missing[name] = e.can
			continue
		}
		at := filepath.Join(f.root, filepath.FromSlash(name))
		f.entries[name] = func() error { return e.make(at) }
		if err := e.make(at); errors.Is(err, errors.ErrUnsupported) { // the system has none
			delete(f.entries, name)
			f.missing[name] = err
		} else if err != nil {
			t.Fatalf("fixture %s: %v", name, err)
		}
	}
	return f
}

// through returns why an entry that the path p, relative to the root,
// goes through is missing (see secFixture.missing), or nil if it goes
// through none.
func (f *secFixture) through(p string) error {
	for name, err := range f.missing {
		if p == name || strings.HasPrefix(p, name+"/") {
			return err
		}
	}
	return nil
}

// remake makes the entry at rel again, after a call moved or deleted it.
func (f *secFixture) remake(t *testing.T, rel string) {
	t.Helper()
	os.Remove(filepath.Join(f.root, filepath.FromSlash(rel)))
	if err := f.entries[rel](); err != nil {
		t.Fatalf("making %s again: %v", rel, err)
	}
}

// outsideTree records everything in base but the root: every entry's type,
// a file's content, a link's target.
func (f *secFixture) outsideTree(t *testing.T) map[string]string {
	t.Helper()
	m := fsruntimetest.Tree(t, f.base)
	for p := range m {
		if p == f.root || strings.HasPrefix(p, f.root+string(filepath.Separator)) {
			delete(m, p)
		}
	}
	return m
}

// home is the home directory of serve in the suite, where a leading ~
// leads: the directory outside the root that holds secrets.
func (f *secFixture) home() string { return filepath.Join(f.base, "outside") }

// loadAttacks reads testdata/attacks.json and fills in its placeholders.
func loadAttacks(t *testing.T, f *secFixture) []attack {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "attacks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var table struct{ Attacks []attack }
	if err := json.Unmarshal(b, &table); err != nil {
		t.Fatalf("testdata/attacks.json: %v", err)
	}
	deep := f.root + strings.Repeat("/"+strings.Repeat("d", 200), 21)
	fill := strings.NewReplacer("{base}", f.base, "{root}", f.root, "{name256}", strings.Repeat("n", 256), "{path4k}", deep+"/x.txt")
	// In a URI, the paths as a URI's path has them (/C:/x on Windows).
	fillURI := strings.NewReplacer("{base}", uriPath(f.base), "{root}", uriPath(f.root))
	var attacks []attack
	leftOut := map[string][]string{} // why → the attacks left out for it
	for _, a := range table.Attacks {
		switch {
		case !strings.HasPrefix(strings.ToLower(a.Path), "file:"):
			a.Path = fill.Replace(a.Path)
		case strings.Contains(a.Path, "{"):
			a.Path = fill.Replace(fillURI.Replace(a.Path))
		default: // a Unix path, such as file:///etc/passwd
			a.Path = hostURI(a.Path, filepath.VolumeName(f.root))
		}
		if _, ok := f.entries[a.Path]; a.Entry && !ok && f.missing[a.Path] == nil {
			t.Fatalf("attack %q is an entry attack on no entry of the fixture", a.Path)
		}
		if err := f.through(a.Path); err != nil {
			why := fmt.Sprintf("through entries of the root that cannot be made here (%v)", err)
			leftOut[why] = append(leftOut[why], a.Path)
			continue
		}
		if namesFoldCase() && strings.HasPrefix(a.Class, "case ") {
			why := "on the root in another case, which is the root itself where names fold case (" + runtime.GOOS + ")"
			leftOut[why] = append(leftOut[why], a.Path)
			continue
		}
		if hostNamesShares && remoteURI(a.Path) {
			// file://server/share/x names \\server\share\x: a path
			// like any other, outside the roots, unless it names no
			// share (file://127.0.0.1/C:/x).
			a.Expect = "outside the allowed roots|cannot be a UNC path's server or share name"
		}
		attacks = append(attacks, a)
	}
	if n := len(table.Attacks); n < 60 {
		t.Fatalf("testdata/attacks.json has %d attacks, want at least 60", n)
	}
	for _, why := range slices.Sorted(maps.Keys(leftOut)) {
		t.Logf("left out %d attacks %s: %q", len(leftOut[why]), why, leftOut[why])
	}
	return attacks
}

// hostURI returns uri, a local file URI written for a Unix path
// (file:///etc/passwd, FILE:/etc/passwd), with its path on the volume vol
// (file:///C:/etc/passwd) where paths have drives (vol is C:): a URI's
// path without one is no absolute path there. A URI with a host other
// than localhost, or where paths have no volume, is returned as it is.
func hostURI(uri, vol string) string {
	if len(vol) != 2 || vol[1] != ':' {
		return uri
	}
	i := len("file:") // where the path starts
	if strings.HasPrefix(uri[i:], "//") {
		host, _, ok := strings.Cut(uri[i+2:], "/")
		if !ok || host != "" && !strings.EqualFold(host, "localhost") {
			return uri
		}
		i += 2 + len(host)
	}
	if !strings.HasPrefix(uri[i:], "/") {
		return uri
	}
	return uri[:i] + "/" + vol + uri[i:]
}

// isURI reports whether p is a file URI, as the binary takes one: file:/
// in any case (file:/abs, file:///abs, file://host/abs).
func isURI(p string) bool { return strings.HasPrefix(strings.ToLower(p), "file:/") }

// hostNamesShares reports whether the host's paths name network shares
// (\\server\share\x on Windows): there a file:// URI with a host other than
// localhost names one (RFC 8089), where elsewhere it is no local file.
var hostNamesShares = filepath.VolumeName(`\\server\share\x`) != ""

// remoteURI reports whether p is a file:// URI with a host other than
// localhost.
func remoteURI(p string) bool {
	if !strings.HasPrefix(strings.ToLower(p), "file://") {
		return false
	}
	u, err := url.Parse(p)
	return err == nil && u.Host != "" && !strings.EqualFold(u.Hostname(), "localhost")
}

// resourceURI is the file:// URI of the attack's path: the path itself if
// it is a URI (file:/abs too), else the path (relative to the root, a
// leading ~ standing for base/outside) percent-encoded, uncleaned.
func (f *secFixture) resourceURI(p string) string {
	if isURI(p) {
		return p
	}
	if rest, ok := strings.CutPrefix(p, "~"); ok && (rest == "" || rest[0] == '/') {
		p = f.home() + rest
	}
	switch {
	case filepath.IsAbs(p):
	case p != "" && os.IsPathSeparator(p[0]): // rooted, on the root's volume (Windows)
		p = filepath.VolumeName(f.root) + p
	default:
		p = f.root + "/" + p
	}
	return fileURI(p)
}

// An operation is one way to use a path: a tool with the path in one of
// its arguments, or a resource method on its URI.
type operation struct {
	name string
	// group decides what an entry attack expects: "content" (read or
	// write what the path leads to), "dir" (list, walk or create it as a
	// directory), or "name" (act on the entry itself).
	group    string
	tool     string
	args     func(p string, entry bool) map[string]any
	resource string // "read" or "subscribe", for a resource method
}

var operations = []operation{
	{name: "read_text_file", group: "content", tool: "read_text_file", args: pathArg},
	{name: "write_text_file", group: "content", tool: "write_text_file", args: func(p string, _ bool) map[string]any {
		return map[string]any{"path": p, "content": "pwned\n"}
	}},
	{name: "edit_text_file", group: "content", tool: "edit_text_file", args: func(p string, _ bool) map[string]any {
		return map[string]any{"path": p, "edits": []any{map[string]any{"oldText": secretMark, "newText": "pwned"}}}
	}},
	{name: "read_media_file", group: "content", tool: "read_media_file", args: pathArg},
	{name: "grep", group: "content", tool: "grep", args: func(p string, _ bool) map[string]any {
		return map[string]any{"path": p, "pattern": "SECRET|root|:"}
	}},
	{name: "get_file_info", group: "name", tool: "get_file_info", args: pathArg},
	{name: "list_directory", group: "dir", tool: "list_directory", args: pathArg},
	{name: "directory_tree", group: "dir", tool: "directory_tree", args: pathArg},
	{name: "glob", group: "dir", tool: "glob", args: func(p string, _ bool) map[string]any {
		return map[string]any{"path": p, "pattern": "**"}
	}},
	{name: "create_directory", group: "dir", tool: "create_directory", args: pathArg},
	{name: "move_file source", group: "name", tool: "move_file", args: func(p string, _ bool) map[string]any {
		return map[string]any{"source": p, "destination": "stolen", "overwrite": true}
	}},
	{name: "move_file destination", group: "name", tool: "move_file", args: func(p string, entry bool) map[string]any {
		// Over an entry, without overwrite: replacing the entry itself
		// would be no escape.
		return map[string]any{"source": "victim.txt", "destination": p, "overwrite": !entry}
	}},
	{name: "delete_file", group: "name", tool: "delete_file", args: func(p string, _ bool) map[string]any {
		return map[string]any{"path": p, "recursive": true}
	}},
	{name: "resources/read", group: "content", resource: "read"},
	// resources/subscribe, or subscriptions/listen in the 2026-07-28 era.
	{name: "resources/subscribe", group: "content", resource: "subscribe"},
}

func pathArg(p string, _ bool) map[string]any { return map[string]any{"path": p} }

// An outcome is what one call came to.
type outcome struct {
	isError  bool
	protocol bool   // the error is a JSON-RPC error, not a tool's error result
	text     string // the error's text, or the result's first text
	raw      string // everything the call returned, to look for secrets in
}

// A securityTarget runs calls in one mode.
type securityTarget interface {
	// tools runs the tool calls in order.
	tools(t *testing.T, calls []testagent.Step) []outcome
	// resource runs resources/read or resources/subscribe on uri.
	resource(t *testing.T, method, uri string) outcome
}

// A plannedCall is a call and what it must come to: want is "ok" for a
// success, else the text its error must contain ("a|b" for either).
type plannedCall struct {
	attack attack
	op     operation
	want   string
}

func (c plannedCall) String() string { return fmt.Sprintf("%s %q", c.op.name, c.attack.Path) }

// plan returns the calls of each phase: the first has every call that
// must be refused, and every call on an entry that changes nothing; the
// second deletes each entry, and the third moves each (the fixture makes
// the entries again in between).
func plan(attacks []attack) (refused, deletes, moves []plannedCall) {
	for _, a := range attacks {
		for _, op := range operations {
			want := a.Expect
			switch {
			case op.resource != "" && a.Resource != "":
				want = a.Resource
			case op.group == "dir" && a.Dir != "":
				want = a.Dir
			}
			if a.Entry && op.group == "name" {
				switch op.name {
				case "get_file_info":
					want = "ok"
				case "move_file destination":
					want = "destination exists"
				case "delete_file":
					deletes = append(deletes, plannedCall{a, op, "ok"})
					continue
				case "move_file source":
					moves = append(moves, plannedCall{a, op, "ok"})
					continue
				}
			}
			refused = append(refused, plannedCall{a, op, want})
		}
	}
	return refused, deletes, moves
}

// runCalls makes the calls on target and checks each outcome. It returns
// how many calls were made.
func runCalls(t *testing.T, target securityTarget, f *secFixture, calls []plannedCall) int {
	t.Helper()
	var steps []testagent.Step
	results := make([]outcome, len(calls))
	for i, c := range calls {
		if c.op.resource != "" {
			results[i] = target.resource(t, c.op.resource, f.resourceURI(c.attack.Path))
			continue
		}
		args := c.op.args(c.attack.Path, c.attack.Entry)
		if c.op.name == "move_file source" && c.want == "ok" {
			args["destination"] = fmt.Sprintf("moved/%d", i)
		}
		steps = append(steps, testagent.Step{Server: "acpfs", Tool: c.op.tool, Args: args})
	}
	outs := target.tools(t, steps)
	j := 0
	for i, c := range calls {
		if c.op.resource == "" {
			results[i] = outs[j]
			j++
		}
	}
	for i, c := range calls {
		checkOutcome(t, c, results[i])
	}
	return len(calls)
}

// checkOutcome fails the test unless res is what c wants, and holds no
// secret.
func checkOutcome(t *testing.T, c plannedCall, res outcome) {
	t.Helper()
	if strings.Contains(res.raw, secretMark) || strings.Contains(res.text, secretMark) {
		t.Errorf("%s (%s): the result holds a secret: %s", c, c.attack.Class, truncate(res.raw, 300))
	}
	if c.want == "ok" {
		if res.isError {
			t.Errorf("%s (%s): error %q, want it to act on the entry itself", c, c.attack.Class, res.text)
		}
		return
	}
	if !res.isError {
		t.Errorf("%s (%s): success %q, want it refused (%s)", c, c.attack.Class, truncate(res.text, 200), c.want)
		return
	}
	if res.protocol && c.op.resource == "" {
		t.Errorf("%s (%s): protocol error %q, want a tool error result", c, c.attack.Class, res.text)
	}
	if !slices.ContainsFunc(strings.Split(c.want, "|"), func(w string) bool { return strings.Contains(res.text, w) }) {
		t.Errorf("%s (%s): error %q does not say %q", c, c.attack.Class, res.text, c.want)
	}
}

// runSecuritySuite runs the whole table on target, checks that nothing
// outside the root changed, and logs what it tried.
func runSecuritySuite(t *testing.T, mode string, target securityTarget, f *secFixture) {
	attacks := loadAttacks(t, f)
	refused, deletes, moves := plan(attacks)
	outside, inside := f.outsideTree(t), fsruntimetest.Tree(t, f.root)

	calls := runCalls(t, target, f, refused)
	if after := fsruntimetest.Tree(t, f.root); !maps.Equal(inside, after) {
		t.Errorf("refused calls changed the root:\n%v\n->\n%v", inside, after)
	}
	// The entries themselves: deleted, made again, moved. Only they
	// change.
	calls += runCalls(t, target, f, deletes)
	for _, c := range deletes {
		if _, err := os.Lstat(filepath.Join(f.root, c.attack.Path)); err == nil {
			t.Errorf("delete_file %s left it", c.attack.Path)
		}
		f.remake(t, c.attack.Path)
	}
	calls += runCalls(t, target, f, moves)
	if after := f.outsideTree(t); !maps.Equal(outside, after) {
		t.Errorf("files outside the root changed:\n%v\n->\n%v", outside, after)
	}
	t.Logf("security: %d attacks x %d operations = %d calls in %s, all refused, but for %d calls on the %d entries inside the root, which described, moved or deleted the entry itself and nothing it leads to",
		len(attacks), len(operations), calls, mode, 3*len(deletes), len(deletes))
}

// TestSecurityServe runs the attack table against `mcp-acpfs serve` over
// stdio.
func TestSecurityServe(t *testing.T) {
	t.Parallel()
	f := newSecFixture(t)
	// (USERPROFILE is Windows' HOME.)
	p := start(t, procOptions{dir: f.root, env: []string{"HOME=" + f.home(), "USERPROFILE=" + f.home()}}, "serve", "--root", f.root)
	c := p.connect(t, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	runSecuritySuite(t, "serve", serveTarget{c}, f)
	if f.links != nil {
		t.Logf("no symlinks can be made here, so no file or directory is swapped for one: %v", f.links)
	} else {
		checkSwaps(t, serveTarget{c}, f)
	}
	checkDirectoryPaths(t, serveTarget{c}, f)
	c.Close()
	p.closeStdin()
}

// serveTarget makes the calls with an MCP client of serve.
type serveTarget struct{ c *client.Client }

func (s serveTarget) tools(t *testing.T, steps []testagent.Step) []outcome {
	out := make([]outcome, len(steps))
	for i, step := range steps {
		res, err := callTool(t, s.c, step.Tool, step.Args)
		if err != nil {
			out[i] = outcome{isError: true, protocol: true, text: err.Error(), raw: err.Error()}
			continue
		}
		raw, _ := json.Marshal(res)
		out[i] = outcome{isError: res.IsError, raw: string(raw)}
		if len(res.Content) > 0 {
			if tc, ok := mcp.AsTextContent(res.Content[0]); ok {
				out[i].text = tc.Text
			}
		}
	}
	return out
}

func (s serveTarget) resource(t *testing.T, method, uri string) outcome {
	return resourceCall(t, s.c, method, uri)
}

// resourceCall runs a resource method with c; its failures are JSON-RPC
// errors.
func resourceCall(t *testing.T, c *client.Client, method, uri string) outcome {
	ctx, cancel := context.WithTimeout(t.Context(), callTimeout)
	defer cancel()
	var err error
	var raw []byte
	switch method {
	case "read":
		var req mcp.ReadResourceRequest
		req.Params.URI = uri
		var res *mcp.ReadResourceResult
		res, err = c.ReadResource(ctx, req)
		raw, _ = json.Marshal(res)
	case "subscribe":
		if c.ProtocolVersion() != mcp.LATEST_PROTOCOL_VERSION {
			var req mcp.SubscribeRequest
			req.Params.URI = uri
			err = c.Subscribe(ctx, req)
			break
		}
		// In the 2026-07-28 era a subscription is a subscriptions/listen
		// stream, which the server refuses at once or keeps open; one
		// still open when the call's time is up was accepted.
		err = c.Listen(ctx, mcp.SubscriptionFilter{ResourceSubscriptions: []string{uri}})
		if ctx.Err() != nil {
			err = nil
		}
	}
	if err != nil {
		return outcome{isError: true, protocol: true, text: err.Error(), raw: err.Error()}
	}
	return outcome{raw: string(raw)}
}

// TestSecurityProxy runs the attack table through `mcp-acpfs proxy`: the
// tools through the scripted agent, many calls to a prompt, and the
// resources with a client of the session's endpoint. The editor serves
// both fs methods, with a buffer holding a secret for every attack path;
// it must never be asked for any of them.
func TestSecurityProxy(t *testing.T) {
	t.Parallel()
	f := newSecFixture(t)
	var paths []string
	for _, a := range loadAttacks(t, f) {
		if p := a.Path; !strings.Contains(p, "\x00") && !strings.HasPrefix(strings.ToLower(p), "file:") {
			paths = append(paths, hostAbs(f.root, p))
		}
	}
	bufs := fsruntimetest.NewMemFS()
	for _, p := range paths {
		// A buffer for every path that no other one lies under.
		if !slices.ContainsFunc(paths, func(q string) bool { return strings.HasPrefix(q, p+string(filepath.Separator)) || isFSRoot(p) }) {
			bufs.Set(p, secretMark+" in a buffer\n")
		}
	}
	r := startProxy(t, proxyOptions{
		mode:   agentModes[0], // http: the test reaches the same endpoint for the resources
		editor: fakeeditor.Options{ReadTextFile: true, WriteTextFile: true, Buffers: bufs},
	})
	s := r.newSession(f.root, nil)
	e := s.entry(t, "acpfs")
	target := proxyTarget{r: r, s: s, c: connectEntryHTTP(t, e.URL, e.Header("Authorization"))}
	runSecuritySuite(t, "proxy", target, f)
	if reqs := r.fsRequests(); len(reqs) > 0 {
		t.Errorf("the editor was sent %d fs requests for attack paths, such as %+v", len(reqs), reqs[0])
	}
	// Before the swaps the editor serves the two files; after, never.
	if f.links != nil {
		t.Logf("no symlinks can be made here, so no file or directory is swapped for one: %v", f.links)
	} else {
		bufs.Set(filepath.Join(f.root, "swap", "file.txt"), "before\n")
		checkSwaps(t, target, f)
		var sent []string
		for _, q := range r.fsRequests() {
			sent = append(sent, q.Method+" "+q.Path)
		}
		// The write is the read guard's read of the file first, then the
		// write itself.
		if want := []string{"fs/read_text_file " + filepath.Join(f.root, "swap", "file.txt"),
			"fs/read_text_file " + filepath.Join(f.root, "swapdir", "b.txt"),
			"fs/write_text_file " + filepath.Join(f.root, "swapdir", "b.txt")}; !slices.Equal(sent, want) {
			t.Errorf("the editor was sent %v, want only the calls before the swaps: %v", sent, want)
		}
	}
	before := len(r.fsRequests())
	checkDirectoryPaths(t, target, f)
	if n := len(r.fsRequests()); n != before {
		t.Errorf("the editor was sent %d requests for paths that end in a separator", n-before)
	}
}

// proxyTarget makes the tool calls through the proxy's agent, in prompts
// of at most promptSteps calls, and the resource calls with a client of
// the session's endpoint.
type proxyTarget struct {
	r *proxyRun
	s acpSession
	c *client.Client
}

// promptSteps is how many tool calls a prompt of the security suite makes.
const promptSteps = 100

func (p proxyTarget) tools(t *testing.T, steps []testagent.Step) []outcome {
	var out []outcome
	for chunk := range slices.Chunk(steps, promptSteps) {
		reps := p.r.mustPrompt(p.s, chunk...)
		for i := range chunk {
			rep := reps[i+1]
			if rep.Error != "" {
				out = append(out, outcome{isError: true, protocol: true, text: rep.Error, raw: rep.Error})
				continue
			}
			var res toolResult
			if err := json.Unmarshal(rep.Result, &res); err != nil {
				t.Fatalf("step %d: result %s: %v", rep.Step, rep.Result, err)
			}
			o := outcome{isError: res.IsError, raw: string(rep.Result)}
			if len(res.Content) > 0 {
				o.text = res.Content[0].Text
			}
			out = append(out, o)
		}
	}
	return out
}

func (p proxyTarget) resource(t *testing.T, method, uri string) outcome {
	return resourceCall(t, p.c, method, uri)
}

// checkSwaps: a file that was read is replaced by a symlink out, and a
// directory that was written in by a symlink to an outside directory;
// every later call on them is refused, and nothing outside changes.
func checkSwaps(t *testing.T, target securityTarget, f *secFixture) {
	t.Helper()
	putFiles(t, f.root, map[string]string{"swap/file.txt": "before\n", "swapdir/a.txt": "a\n"})
	outside := f.outsideTree(t)
	first := target.tools(t, []testagent.Step{
		{Server: "acpfs", Tool: "read_text_file", Args: map[string]any{"path": "swap/file.txt"}},
		{Server: "acpfs", Tool: "write_text_file", Args: map[string]any{"path": "swapdir/b.txt", "content": "b\n"}},
	})
	for i, o := range first {
		if o.isError {
			t.Fatalf("call %d before the swap: %s", i, o.text)
		}
	}
	swap := func(target, at string) {
		t.Helper()
		if err := os.RemoveAll(at); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, at); err != nil {
			t.Fatal(err)
		}
	}
	swap(filepath.Join(f.base, "outside", "secret.txt"), filepath.Join(f.root, "swap", "file.txt"))
	swap(filepath.Join(f.base, "outside"), filepath.Join(f.root, "swapdir"))
	steps := []testagent.Step{
		{Server: "acpfs", Tool: "read_text_file", Args: map[string]any{"path": "swap/file.txt"}},
		{Server: "acpfs", Tool: "write_text_file", Args: map[string]any{"path": "swap/file.txt", "content": "pwned\n"}},
		{Server: "acpfs", Tool: "edit_text_file", Args: map[string]any{"path": "swap/file.txt", "edits": []any{map[string]any{"oldText": "before", "newText": "pwned"}}}},
		{Server: "acpfs", Tool: "read_text_file", Args: map[string]any{"path": "swapdir/secret.txt"}},
		{Server: "acpfs", Tool: "write_text_file", Args: map[string]any{"path": "swapdir/b.txt", "content": "pwned\n"}},
		{Server: "acpfs", Tool: "write_text_file", Args: map[string]any{"path": "swapdir/new/c.txt", "content": "pwned\n"}},
	}
	for i, o := range target.tools(t, steps) {
		c := plannedCall{attack{Class: "swapped in between calls", Path: fmt.Sprint(steps[i].Args["path"])}, operation{name: steps[i].Tool}, "outside the allowed roots"}
		checkOutcome(t, c, o)
	}
	if after := f.outsideTree(t); !maps.Equal(outside, after) {
		t.Errorf("files outside the root changed after the swaps:\n%v\n->\n%v", outside, after)
	}
}

// TestAllowHardLinks: --allow-hard-links, on serve and on proxy, lets the
// tools read a file with another name, which they refuse without it.
func TestAllowHardLinks(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	skipWithout(t, "hard links", hardLinkErr(dir))
	putFiles(t, dir, map[string]string{"elsewhere/a.txt": "linked\n", "root/plain.txt": "plain\n"})
	root := filepath.Join(dir, "root")
	if err := os.Link(filepath.Join(dir, "elsewhere", "a.txt"), filepath.Join(root, "a.txt")); err != nil {
		t.Fatal(err)
	}
	for _, allow := range []bool{false, true} {
		var flags []string
		if allow {
			flags = []string{"--allow-hard-links"}
		}
		p := start(t, procOptions{}, append([]string{"serve", "--root", root}, flags...)...)
		c := p.connect(t, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
		if allow {
			if got := mustSucceed(t, c, readTool, map[string]any{"path": "a.txt"}); got != "linked\n" {
				t.Errorf("serve %v: read %q", flags, got)
			}
		} else {
			mustFail(t, c, readTool, map[string]any{"path": "a.txt"}, "hard-linked file refused", "2 names")
		}
		c.Close()
		p.closeStdin()

		r := startProxy(t, proxyOptions{mode: agentModes[0], proxyFlags: flags}) // the editor serves no fs method: disk
		s := r.newSession(root, nil)
		reps := r.mustPrompt(s, readStep("a.txt"), readStep("plain.txt"))
		if allow {
			wantText(t, reps[1], "linked\n")
		} else {
			wantToolError(t, reps[1], "hard-linked file refused")
		}
		wantText(t, reps[2], "plain\n")
	}
}

// checkDirectoryPaths: a path that ends in a separator names a directory,
// as in POSIX, so the tools on a file's content refuse it ("in.txt/" is
// not a file to read), and create nothing; the tools on directories take
// it.
func checkDirectoryPaths(t *testing.T, target securityTarget, f *secFixture) {
	t.Helper()
	var steps []testagent.Step
	for _, p := range []string{"in.txt/", "sub/", "new.txt/", "in.txt/."} {
		steps = append(steps,
			testagent.Step{Server: "acpfs", Tool: "read_text_file", Args: map[string]any{"path": p}},
			testagent.Step{Server: "acpfs", Tool: "write_text_file", Args: map[string]any{"path": p, "content": "x\n"}},
			testagent.Step{Server: "acpfs", Tool: "edit_text_file", Args: map[string]any{"path": p, "edits": []any{map[string]any{"oldText": "inside", "newText": "x"}}}},
			testagent.Step{Server: "acpfs", Tool: "read_media_file", Args: map[string]any{"path": p}},
		)
	}
	refused := len(steps)
	steps = append(steps, testagent.Step{Server: "acpfs", Tool: "list_directory", Args: map[string]any{"path": "sub/"}})
	outs := target.tools(t, steps)
	for i, o := range outs[:refused] {
		c := plannedCall{attack{Class: "a directory's path", Path: fmt.Sprint(steps[i].Args["path"])}, operation{name: steps[i].Tool}, "a path that ends in / or /. names a directory"}
		checkOutcome(t, c, o)
	}
	if o := outs[refused]; o.isError || !strings.Contains(o.text, "ok.txt") {
		t.Errorf("list_directory sub/ = %q (error %v), want its entries", o.text, o.isError)
	}
	if got := readFileOr(filepath.Join(f.root, "in.txt")); got != "inside\n" {
		t.Errorf("in.txt now holds %q", got)
	}
	for _, p := range []string{"new.txt", "new.txt/"} {
		if _, err := os.Lstat(filepath.Join(f.root, p)); err == nil {
			t.Errorf("a refused write created %s", p)
		}
	}
}

// readFileOr returns the content of path, or the error reading it.
func readFileOr(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	return string(b)
}
