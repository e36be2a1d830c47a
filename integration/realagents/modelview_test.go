//go:build linux

package realagents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/modelserver"
)

// A hostView is what the model of one agent is measured to get from the
// acpfs tools, and what mcp-acpfs sizes for it (mcpfs/hosts.go), by the
// name its MCP client gives.
type hostView struct {
	// page is the most a read without a limit returns, in bytes, and
	// numbers says that its lines come numbered.
	page    int
	numbers bool
	// image says that an image block of read_media_file reaches the
	// model. Where it does not, the check is that it still does not, so
	// that a new version that mends it is noticed.
	image bool
	// stateless says that the agent's MCP client speaks the stateless
	// protocol (2026-07-28: server/discover, no initialize, no session):
	// its calls share the server's sessionless ledger.
	stateless bool
	// readsAsk says that the agent asks the user before the file tools'
	// reads, which no profile has turned off yet.
	readsAsk bool
	// codexJSON says that the agent gives the model an MCP result of
	// text only as the JSON of its content array, after a line with the
	// call's wall time (codex).
	codexJSON bool
	// keep says that the run is with --agent-tools keep, every file tool
	// offered: the agent's profile offers too few for the view's checks.
	keep bool
}

var hostViews = map[string]hostView{
	"claude-agent-acp": {page: 32 << 10, numbers: true, image: true},
	// codex-acp 0.16.0 gives the model the JSON of a content array of
	// text, and a result with an image as input_text and input_image
	// items: the image reaches the model now that there is no
	// structuredContent (measured 2026-11-28).
	"codex-acp":  {page: 24 << 10, image: true, codexJSON: true},
	"gemini-cli": {page: 48 << 10, image: true},
	"opencode":   {page: 40 << 10, image: true},
	// Copilot CLI 1.0.102 with its own-key Chat Completions provider
	// gives its model no MCP image. Its MCP client is stateless (its
	// blind and stale writes went through until the sessionless calls
	// got a ledger). Its page, Copilot's, is also the default for a
	// client not known. It asks nothing for a readOnlyHint tool.
	"copilot": {page: 12 << 10, image: false, stateless: true},
	// Qwen Code asks before every MCP call. Its profile offers only
	// read_media_file (its own file tools go through the editor).
	"qwen-code": {page: 48 << 10, image: true, readsAsk: true, keep: true},
}

// The files of the model-view run, beside fileName.
const (
	smallName = "alpha.txt" // the 134-byte file of model-view.md's table
	mediaName = "pixel.png"
	bigName   = "big.txt"   // 6,000 lines, 348,000 bytes
	blindName = "blind.txt" // written without a read
	staleName = "stale.txt" // read, changed in the editor, then written
)

// smallText is 134 bytes, with a tab, quotes and a backslash, which JSON
// escapes.
const smallText = "alpha\n\tbeta = 1\n\tgamma = \"two words\"\n\tdelta = 'C:\\temp'\n" +
	"epsilon: a line of plain prose, long enough to wrap.\nzeta = [1, 2, 3]\ntheta 9\n"

const (
	bigLines     = 6000
	bigLineWidth = 58 // bytes, the newline included
	blindText    = "blind: in the editor and on disk\n"
	staleText    = "stale: as the model read it\n"
	staleChanged = "stale: changed in the editor after the model read it\n"
	modelWrote   = "written by the model\n"
)

// spillMarkers are what the agents put in place of a result too large for
// them (model-view.md, "Host limits").
var spillMarkers = []string{"<persisted-output>", "Output too large", "truncated", "Saved to", "saved to"}

// A modelViewRun is the workspace of one model-view run and the script
// that walks the model through it.
type modelViewRun struct {
	r                               *run
	small, media, big, blind, stale string
	png                             []byte
	bigText                         string
	changeOnce                      sync.Once
}

// prepareModelView adds the model-view files to r's workspace: each text
// file on disk and the same in the editor's buffer, the PNG on disk only
// (the editor serves no binary file).
func prepareModelView(t *testing.T, r *run) *modelViewRun {
	m := &modelViewRun{r: r}
	join := func(name string) string { return filepath.Join(r.ws, name) }
	m.small, m.media, m.big, m.blind, m.stale = join(smallName), join(mediaName), join(bigName), join(blindName), join(staleName)
	if len(smallText) != 134 {
		t.Fatalf("smallText is %d bytes, want 134", len(smallText))
	}
	m.bigText = bigFile()
	for path, text := range map[string]string{m.small: smallText, m.big: m.bigText, m.blind: blindText, m.stale: staleText} {
		writeFile(t, path, text)
		r.buffers.Set(path, text)
	}
	m.png = pixelPNG(t)
	if err := os.WriteFile(m.media, m.png, 0o600); err != nil {
		t.Fatal(err)
	}
	return m
}

// bigFile returns bigLines lines of bigLineWidth bytes each.
func bigFile() string {
	var b strings.Builder
	for i := 1; i <= bigLines; i++ {
		s := fmt.Sprintf("line %d: ", i)
		b.WriteString(s + strings.Repeat("x", bigLineWidth-len(s)-1) + "\n")
	}
	return b.String()
}

// pixelPNG returns a 1×1 PNG.
func pixelPNG(t *testing.T) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.NRGBA{R: 200, G: 30, B: 30, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// script has the model read the small file, the PNG (if it is offered
// read_media_file) and the big file,
// then, if it is offered write_text_file, write the blind file without
// reading it, read the stale file, which the editor then changes, and
// write it; then end its turn. A request that does not offer acpfs (a
// utility call) gets a text.
func (m *modelViewRun) script(a agent) modelserver.Script {
	read, media, write := a.tool("read_text_file"), a.tool("read_media_file"), a.tool("write_text_file")
	return func(q modelserver.Request) modelserver.Reply {
		if !slices.Contains(q.Tools, read) {
			return modelserver.Reply{Text: "done"}
		}
		type step struct {
			tool, path string
			args       map[string]any
		}
		steps := []step{{read, m.small, nil}}
		if slices.Contains(q.Tools, media) {
			steps = append(steps, step{media, m.media, nil})
		}
		steps = append(steps, step{read, m.big, nil})
		if slices.Contains(q.Tools, write) {
			steps = append(steps,
				step{write, m.blind, map[string]any{"content": modelWrote}},
				step{read, m.stale, nil},
				step{write, m.stale, map[string]any{"content": modelWrote}})
		}
		i := len(q.Results)
		if i >= len(steps) {
			return modelserver.Reply{Text: "done"}
		}
		if steps[i].tool == write && steps[i].path == m.stale {
			// Between the model's read and its write, the user types
			// in the editor.
			m.changeOnce.Do(func() { m.r.buffers.Set(m.stale, staleChanged) })
		}
		s := steps[i]
		args := map[string]any{"path": s.path}
		for k, v := range s.args {
			args[k] = v
		}
		return modelserver.Reply{Call: &modelserver.Call{Name: s.tool, Args: mustJSON(args)}}
	}
}

// TestModelView runs each agent, the three with profiles and the three
// without, once behind the proxy, its editor serving both fs methods, and
// checks what its model receives from the acpfs tools: a small file's
// exact text, once, unescaped; an image as an image; a big file as one
// page that says where to go on, under the agent's limits; and a write of
// a file the model never read, and of one changed since it read it,
// refused with nothing written.
func TestModelView(t *testing.T) {
	nodeModules(t)
	for _, a := range append(slices.Clone(agents), moreAgents...) {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			view, ok := hostViews[a.name]
			if !ok {
				t.Fatalf("no hostView for %s", a.name)
			}
			var m *modelViewRun
			var flags []string
			if view.keep {
				flags = []string{"--agent-tools", "keep"}
			}
			r := runAgent(t, a, runOptions{
				proxyFlags: flags,
				trace:      true,
				prepare:    func(t *testing.T, r *run) { m = prepareModelView(t, r) },
				script:     func(a agent, _ string) modelserver.Script { return m.script(a) },
			})
			checkStopped(t, r)
			checkHTTPServer(t, a, r)
			asked := permissionsAsked(r.ed)
			t.Logf("%s: the editor was asked to allow %q", a.name, asked)
			// A request for a read names the tool in its title, or, as
			// Qwen's do, gives the arguments there: the files only read.
			if reads := slices.DeleteFunc(asked, func(s string) bool {
				for _, w := range []string{"read_text_file", "read_media_file", smallName, mediaName, bigName} {
					if strings.Contains(s, w) {
						return false
					}
				}
				return true
			}); len(reads) > 0 != view.readsAsk {
				t.Errorf("%s: the editor was asked to allow the reads %q; want asks %v, as its own reads", a.name, reads, view.readsAsk)
			}
			last := lastTurn(t, r)
			checkSmallRead(t, a, view, m, last)
			if slices.Contains(last.Tools, a.tool("read_media_file")) {
				checkImage(t, a, view, m, last)
			} else {
				t.Logf("%s: the model is not offered %s: no image to check", a.name, a.tool("read_media_file"))
			}
			checkBigRead(t, a, view, m, last)
			switch {
			case !slices.Contains(last.Tools, a.tool("write_text_file")):
				t.Logf("%s: the model is not offered %s: no writes to check", a.name, a.tool("write_text_file"))
				return
			}
			checkBlindWrite(t, a, m, last)
			checkStaleWrite(t, a, m, last)
		})
	}
}

// lastTurn returns the model turn with the most tool results: the one
// that ends the conversation. Of several, it is one that offers the most
// tools: a side request (Qwen's classifier) may hold the same history
// with fewer.
func lastTurn(t *testing.T, r *run) modelserver.Request {
	t.Helper()
	var last modelserver.Request
	for _, q := range r.model.Turns() {
		if len(q.Results) > len(last.Results) || len(q.Results) == len(last.Results) && len(q.Tools) >= len(last.Tools) {
			last = q
		}
	}
	if len(last.Results) == 0 {
		t.Fatalf("no model turn holds a tool result; turns: %d", len(r.model.Turns()))
	}
	return last
}

// resultOf returns the result, in q, of the model's call of tool on path.
// Every call of the run gets one result, in order: a call's result is the
// one at its index (Gemini's calls and results carry no ids of the
// model's).
func resultOf(t *testing.T, a agent, q modelserver.Request, tool, path string) (modelserver.Result, bool) {
	t.Helper()
	for i, c := range q.Calls {
		var args struct{ Path string }
		json.Unmarshal(c.Args, &args)
		if c.Name != a.tool(tool) || args.Path != path {
			continue
		}
		if i >= len(q.Results) {
			t.Errorf("the call of %s on %s has no result in the model's last request", tool, path)
			return modelserver.Result{}, false
		}
		res := q.Results[i]
		if c.ID != "" && res.CallID != c.ID && res.CallID != c.Name {
			t.Errorf("result %d is of call %q, want %q", i, res.CallID, c.ID)
		}
		return res, true
	}
	t.Errorf("the model's last request holds no call of %s on %s: %d calls", a.tool(tool), path, len(q.Calls))
	return modelserver.Result{}, false
}

// codexPrefix is the line codex puts before an MCP result.
var codexPrefix = regexp.MustCompile(`^Wall time: [0-9.]+ seconds\nOutput:\n`)

// texts returns the text blocks of a result as the model got them: for
// codex, the text items of the JSON content array after its prefix, which
// must hold no structuredContent; else the result's text, whole.
func texts(t *testing.T, view hostView, res modelserver.Result) []string {
	t.Helper()
	if !view.codexJSON {
		return []string{res.Text}
	}
	var items []map[string]any
	if err := json.Unmarshal([]byte(codexPrefix.ReplaceAllString(res.Text, "")), &items); err != nil {
		t.Errorf("the result is not a JSON content array (%v): %s", err, truncate(res.Text, 500))
		return []string{res.Text}
	}
	var out []string
	for _, it := range items {
		if it["type"] == "text" {
			s, _ := it["text"].(string)
			out = append(out, s)
		}
	}
	if strings.Contains(res.Text, "structuredContent") {
		t.Errorf("the result holds structuredContent: %s", truncate(res.Text, 500))
	}
	return out
}

// checkSmallRead checks that the small file reached the model as its exact
// text (numbered, where the host numbers), once, and not escaped.
func checkSmallRead(t *testing.T, a agent, view hostView, m *modelViewRun, q modelserver.Request) {
	t.Helper()
	res, ok := resultOf(t, a, q, "read_text_file", m.small)
	if !ok {
		return
	}
	want := smallText
	if view.numbers {
		want = numbered(smallText)
	}
	got := texts(t, view, res)
	if view.codexJSON {
		// The fewest bytes codex allows: its prefix, then the content
		// array with one text block, the file's text, and nothing else.
		if len(got) != 1 || got[0] != want {
			t.Errorf("the model got the text blocks %q; want one, the file's text %q", got, want)
		}
		least := mustJSON([]struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{{"text", want}})
		if rest := codexPrefix.ReplaceAllString(res.Text, ""); rest != string(least) {
			t.Errorf("the model got %d bytes: %s\nwant, after codex's prefix, the %d bytes of %s", len(res.Text), res.Text, len(least), least)
		}
	} else {
		escaped := strings.Trim(string(mustJSON(want)), `"`)
		if n := strings.Count(got[0], want); n != 1 || strings.Contains(got[0], escaped) || len(got[0]) > len(want)+64 {
			t.Errorf("the model got %q (the text %d times, escaped %v); want the file's text %q once, unescaped",
				got[0], n, strings.Contains(got[0], escaped), want)
		}
	}
	t.Logf("%s: the %d-byte file reached the model as %d bytes: %q", a.name, len(smallText), len(res.Text), res.Text)
}

// numbered returns text with its lines numbered as Claude Code's Read
// numbers them.
func numbered(text string) string {
	var b strings.Builder
	for i, line := range strings.SplitAfter(strings.TrimSuffix(text, "\n"), "\n") {
		fmt.Fprintf(&b, "%6d→%s", i+1, line)
	}
	if strings.HasSuffix(text, "\n") {
		b.WriteString("\n")
	}
	return b.String()
}

// checkImage checks that the PNG reached the model as an image, in the
// result or in a user message beside it, where the agent is measured to
// pass images on, and that it still does not where it is measured not to.
func checkImage(t *testing.T, a agent, view hostView, m *modelViewRun, q modelserver.Request) {
	t.Helper()
	res, ok := resultOf(t, a, q, "read_media_file", m.media)
	if !ok {
		return
	}
	found := ""
	for where, images := range map[string][]modelserver.Image{"the tool result": res.Images, "a user message": q.Images} {
		for _, img := range images {
			if bytes.Equal(img.Data, m.png) {
				found = where
			}
		}
	}
	switch {
	case view.image && found == "":
		t.Errorf("the image did not reach the model; the result: %s (images: %d in it, %d in user messages)",
			truncate(res.Text, 1000), len(res.Images), len(q.Images))
	case !view.image && found != "":
		t.Errorf("the image reached the model, in %s, which this version of %s was measured not to do: update hostViews",
			found, a.name)
	}
	t.Logf("%s: read_media_file of a %d-byte PNG: image in %q; the text the model got: %q", a.name, len(m.png), found,
		truncate(res.Text, 300))
}

// statusPattern is the status block of a first page of the big file.
var statusPattern = regexp.MustCompile(`\[lines 1–(\d+) of ` + strconv.Itoa(bigLines) + `; continue with line=(\d+)\]`)

// checkBigRead checks that a read of the big file without a limit reached
// the model as one page of as many whole lines as the host's page holds
// (numbered, where the host numbers), then the status that says where to
// go on, with nothing cut or spilled by the agent.
func checkBigRead(t *testing.T, a agent, view hostView, m *modelViewRun, q modelserver.Request) {
	t.Helper()
	res, ok := resultOf(t, a, q, "read_text_file", m.big)
	if !ok {
		return
	}
	all := strings.Join(texts(t, view, res), "\n")
	for _, s := range spillMarkers {
		if strings.Contains(res.Text, s) {
			t.Errorf("the agent cut or spilled the page (%q): %s", s, truncate(res.Text, 2000))
		}
	}
	sm := statusPattern.FindStringSubmatchIndex(all)
	if sm == nil {
		t.Errorf("the model got no status [lines 1–N of %d; continue with line=N+1]; its result ends %q",
			bigLines, tail(all, 300))
		return
	}
	n, _ := strconv.Atoi(all[sm[2]:sm[3]])
	next, _ := strconv.Atoi(all[sm[4]:sm[5]])
	width := bigLineWidth
	if view.numbers {
		width += 6 + len("→")
	}
	if want := min(view.page/width, 2000); n != want || next != n+1 {
		t.Errorf("the page has lines 1–%d, continuing at %d; want 1–%d (a page of %d bytes, lines of %d), at %d",
			n, next, want, view.page, width, want+1)
	}
	page := strings.Join(strings.SplitAfter(m.bigText, "\n")[:n], "")
	if view.numbers {
		page = numbered(page)
	}
	if i := strings.Index(all, page); i < 0 || strings.Count(all, page) != 1 || i+len(page) > sm[0] {
		t.Errorf("the model did not get lines 1–%d whole, once, before the status; it got %d bytes starting %q",
			n, len(all), truncate(all, 200))
	}
	t.Logf("%s: the %d-byte, %d-line file reached the model as %d bytes: lines 1–%d, then %q", a.name,
		len(m.bigText), bigLines, len(res.Text), n, all[sm[0]:sm[1]])
}

// checkBlindWrite checks that a write of a file the model never read was
// refused, saying so, and that nothing reached the editor.
func checkBlindWrite(t *testing.T, a agent, m *modelViewRun, q modelserver.Request) {
	t.Helper()
	res, ok := resultOf(t, a, q, "write_text_file", m.blind)
	if !ok {
		return
	}
	if !strings.Contains(res.Text, m.blind) || !regexp.MustCompile(`has not read|read it`).MatchString(res.Text) ||
		!strings.Contains(res.Text, "nothing was written") {
		t.Errorf("the model got %q for a write of a file it never read; want a refusal that names %s, says "+
			"it has not read it, and that nothing was written", res.Text, m.blind)
	}
	checkNotWritten(t, m, m.blind, blindText, blindText)
	t.Logf("%s: the blind write: %q", a.name, res.Text)
}

// checkStaleWrite checks that a write of a file changed in the editor
// since the model read it was refused, saying so, and that nothing reached
// the editor.
func checkStaleWrite(t *testing.T, a agent, m *modelViewRun, q modelserver.Request) {
	t.Helper()
	res, ok := resultOf(t, a, q, "write_text_file", m.stale)
	if !ok {
		return
	}
	if !strings.Contains(res.Text, m.stale) || !strings.Contains(res.Text, "changed since") ||
		!strings.Contains(res.Text, "nothing was written") {
		t.Errorf("the model got %q for a write of a file changed since it read it; want a refusal that names %s, "+
			"says it changed since, and that nothing was written", res.Text, m.stale)
	}
	checkNotWritten(t, m, m.stale, staleChanged, staleText)
	t.Logf("%s: the stale write: %q", a.name, res.Text)
}

// checkNotWritten checks that the editor got no fs/write_text_file for
// path, that its buffer still holds want, and the disk wantDisk.
func checkNotWritten(t *testing.T, m *modelViewRun, path, want, wantDisk string) {
	t.Helper()
	for _, w := range m.r.ed.Requests("fs/write_text_file") {
		var p struct{ Path string }
		json.Unmarshal(w.Params, &p)
		if p.Path == path {
			t.Errorf("the editor got fs/write_text_file %s", w.Params)
		}
	}
	if got, _ := m.r.buffers.Get(path); got != want {
		t.Errorf("the editor's buffer of %s holds %q, want %q", path, got, want)
	}
	if disk, err := os.ReadFile(path); err != nil || string(disk) != wantDisk {
		t.Errorf("the disk's %s holds %q (%v), want %q", path, disk, err, wantDisk)
	}
}

// checkHTTPServer checks that the proxy gave the agent the acpfs server as
// an http server where the agent takes only those (Copilot CLI rejects
// stdio servers, silently), and logs which it gave.
func checkHTTPServer(t *testing.T, a agent, r *run) {
	t.Helper()
	data, err := os.ReadFile(r.trace)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		var l struct {
			Dir string `json:"dir"`
			Msg struct {
				Method string `json:"method"`
				Params struct {
					MCPServers []map[string]any `json:"mcpServers"`
				} `json:"params"`
			} `json:"msg"`
		}
		if json.Unmarshal(line, &l) != nil || l.Dir != "to-agent" || l.Msg.Method != "session/new" {
			continue
		}
		for _, s := range l.Msg.Params.MCPServers {
			if s["name"] != "acpfs" {
				continue
			}
			typ, _ := s["type"].(string)
			if typ == "" {
				typ = "stdio"
			}
			t.Logf("%s: the proxy gave the agent acpfs as a %s server", a.name, typ)
			if a.name == "copilot" && typ != "http" {
				t.Errorf("the proxy gave Copilot CLI, which takes http servers only, a %s server: %v", typ, s)
			}
			return
		}
	}
	t.Errorf("the agent got no session/new with an acpfs server")
}
