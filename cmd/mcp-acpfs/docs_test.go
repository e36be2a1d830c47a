package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDocCommandsParse: every mcp-acpfs command line in the README, in
// docs/*.md and in the npm launcher's README parses against the CLI's flags, as run would parse it. The
// command lines are those of the fenced code blocks (shell and JSON
// "command"/"args" forms) and of the VS Code and Cursor install links;
// a renamed or removed flag or command fails here with the file and line.
func TestDocCommandsParse(t *testing.T) {
	docs, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files := append([]string{"../../README.md", "../../npm/mcp-acpfs/README.md"}, docs...)
	perFile := map[string]int{}
	for _, file := range files {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(filepath.ToSlash(file), "../../")
		cmds, errs := docCommands(name, string(text))
		for _, err := range errs {
			t.Error(err)
		}
		for _, c := range cmds {
			t.Logf("%s:%d: mcp-acpfs %s", c.file, c.line, strings.Join(c.args, " "))
			var stderr bytes.Buffer
			e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &stderr, getenv: func(string) string { return "" }}
			if code, _ := checkArgs(c.args, e); code != exitOK {
				t.Errorf("%s:%d: mcp-acpfs %s: exit code %d:\n%s", c.file, c.line, strings.Join(c.args, " "), code, stderr.String())
			}
		}
		perFile[name] = len(cmds)
	}
	// The extractor must keep finding what the documents hold: a README
	// whose commands it stopped seeing would pass for the wrong reason.
	for name, least := range map[string]int{"README.md": 10, "docs/serve.md": 8, "docs/proxy.md": 7, "docs/install.md": 5, "npm/mcp-acpfs/README.md": 3} {
		if perFile[name] < least {
			t.Errorf("%s: %d mcp-acpfs command lines found, want at least %d", name, perFile[name], least)
		}
	}
}

// TestDocCommandsFinds: the extractor finds each form the documents use,
// and leaves alone what is not a run of mcp-acpfs.
func TestDocCommandsFinds(t *testing.T) {
	cfg := `{"command":"npx","args":["-y","mcp-acpfs","serve","${workspaceFolder}"]}`
	b64 := base64.StdEncoding.EncodeToString([]byte(cfg))
	doc := "# t\n" +
		"```sh\n" +
		"go run ./cmd/mcp-acpfs serve .      # a comment --no-such-flag\n" +
		"claude mcp add acpfs -- mcp-acpfs serve \"$PWD\" && echo done\n" +
		"mcp-acpfs serve --root a \\\n  --read-only b\n" +
		"acpx --agent 'mcp-acpfs proxy --route auto -- npx agent' exec 'hi'\n" +
		"code --add-mcp '{\"name\":\"acpfs\",\"command\":\"mcp-acpfs\",\"args\":[\"serve\",\"x\"]}'\n" +
		"brew install mcp-acpfs/tap/mcp-acpfs\n" +
		"go install ./cmd/mcp-acpfs\n" +
		"sudo mv dir/mcp-acpfs /usr/local/bin/\n" +
		"xattr -d com.apple.quarantine /usr/local/bin/mcp-acpfs\n" +
		"```\n" +
		"```text\n" +
		"mcp-acpfs serve [--root DIR]... [DIR...]\n" +
		"```\n" +
		"```powershell\n" +
		"claude mcp add acpfs -- mcp-acpfs.exe serve C:\\w\n" +
		"```\n" +
		"- a list item:\n\n" +
		"  ```json\n" +
		"  {\"x\": {\"command\": \"C:\\\\bin\\\\mcp-acpfs.exe\", \"args\": [\"proxy\", \"--\", \"gemini\", \"--acp\"]},\n" +
		"   \"y\": {\"command\": \"cmd\", \"args\": [\"/c\", \"npx\", \"-y\", \"mcp-acpfs\", \"serve\", \"d\"]}}\n" +
		"  ```\n" +
		"[VS Code](https://vscode.dev/redirect/mcp/install?name=acpfs&config=" + url.QueryEscape(cfg) + ")\n" +
		"`vscode:mcp/install?" + url.QueryEscape(`{"name":"acpfs","command":"mcp-acpfs","args":["help"]}`) + "`\n" +
		"[Cursor](https://cursor.com/en/install-mcp?name=acpfs&config=" + url.QueryEscape(b64) + ")\n" +
		"`cursor://anysphere.cursor-deeplink/mcp/install?name=acpfs&config=" + b64 + "`\n"
	cmds, errs := docCommands("t.md", doc)
	for _, err := range errs {
		t.Error(err)
	}
	var got []string
	for _, c := range cmds {
		got = append(got, fmt.Sprintf("%d: %s", c.line, strings.Join(c.args, " ")))
	}
	want := []string{
		"3: serve .",
		"4: serve $PWD",
		"5: serve --root a --read-only b",
		"7: proxy --route auto -- npx agent",
		"8: serve x",
		"18: serve C:\\w",
		"23: proxy -- gemini --acp",
		"23: serve d",
		"26: serve ${workspaceFolder}",
		"27: help",
		"28: serve ${workspaceFolder}",
		"29: serve ${workspaceFolder}",
	}
	if !slices.Equal(got, want) {
		t.Errorf("found:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	_, errs = docCommands("bad.md", "```json\n{\"command\": \"mcp-acpfs\",\n```\n[x](https://cursor.com/en/install-mcp?name=acpfs&config=%%%)\n")
	if len(errs) != 2 {
		t.Errorf("a broken JSON block and a broken link: errors %v, want 2", errs)
	}
}

// TestCheckArgs: checkArgs parses as run does and refuses what run
// refuses, without running anything.
func TestCheckArgs(t *testing.T) {
	for _, c := range commands {
		if c.check == nil {
			t.Errorf("command %s has no check", c.name)
		}
	}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"serve", "a", "--read-only", "b"}, exitOK},
		{[]string{"serve", "--http", "127.0.0.1:0", "--page-size", "16KiB"}, exitOK},
		{[]string{"serve", "-h"}, exitOK},
		{[]string{"proxy", "--route", "editor", "--", "agent", "--flag"}, exitOK},
		{[]string{"relay"}, exitOK},
		{[]string{"version"}, exitOK},
		{[]string{"--version"}, exitOK},
		{[]string{"help", "proxy"}, exitOK},
		{[]string{"--help"}, exitOK},
		{[]string{"serve", "--readonly"}, exitUsage},
		{[]string{"serve", "--http", "0.0.0.0:8765"}, exitUsage},
		{[]string{"serve", "--http-no-auth"}, exitUsage},
		{[]string{"serve", "--max-file-size", "ten"}, exitUsage},
		{[]string{"proxy", "--route", "auto"}, exitUsage},
		{[]string{"proxy", "--agent-profile", "nobody", "--", "agent"}, exitUsage},
		{[]string{"relay", "extra"}, exitUsage},
		{[]string{"help", "frobnicate"}, exitUsage},
		{[]string{"frobnicate"}, exitUsage},
		{nil, exitUsage},
	} {
		e := &env{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
		if code, _ := checkArgs(tc.args, e); code != tc.code {
			t.Errorf("checkArgs(%q): exit code %d, want %d", tc.args, code, tc.code)
		}
	}
}

// A docCommand is a run of mcp-acpfs found in a document.
type docCommand struct {
	file string
	line int
	args []string // after the program's name
}

// shellLangs are the info strings of the fenced blocks read as command
// lines (and "" for a block without one); jsonLangs those read as JSON.
// Blocks of other languages, such as the synopses' "text", are skipped.
var (
	shellLangs = []string{"", "sh", "shell", "bash", "zsh", "console", "powershell", "pwsh", "ps1", "cmd", "bat"}
	jsonLangs  = []string{"json"}
)

// docCommands returns the runs of mcp-acpfs in the fenced code blocks and
// install links of text, a Markdown document named file, and an error for
// each block or link that cannot be read.
func docCommands(file, text string) ([]docCommand, []error) {
	var cmds []docCommand
	var errs []error
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		indent, fence, lang, ok := openingFence(lines[i])
		if !ok {
			continue
		}
		start := i + 1 // the block's first line, 1-based: the line after the fence
		var body []string
		for i++; i < len(lines); i++ {
			l := lines[i]
			if strings.TrimSpace(l) == fence {
				break
			}
			body = append(body, strings.TrimPrefix(l, indent))
		}
		at := func(n int) func([]string) {
			return func(args []string) { cmds = append(cmds, docCommand{file, start + 1 + n, args}) }
		}
		switch {
		case slices.Contains(jsonLangs, lang):
			var v any
			if err := json.Unmarshal([]byte(strings.Join(body, "\n")), &v); err != nil {
				errs = append(errs, fmt.Errorf("%s:%d: a JSON block that is not JSON: %v", file, start, err))
				continue
			}
			walkJSON(v, at(0))
		case slices.Contains(shellLangs, lang):
			powershell := lang == "powershell" || lang == "pwsh" || lang == "ps1"
			for n := 0; n < len(body); n++ {
				first, line := n, body[n]
				for !powershell && strings.HasSuffix(line, `\`) && n+1 < len(body) {
					n++
					line = line[:len(line)-1] + " " + body[n]
				}
				scanLine(line, powershell, at(first))
			}
		}
	}
	for _, m := range linkRE.FindAllStringSubmatchIndex(text, -1) {
		line := 1 + strings.Count(text[:m[0]], "\n")
		link := text[m[0]:m[1]]
		found := 0
		err := installLink(link, func(args []string) {
			found++
			cmds = append(cmds, docCommand{file, line, args})
		})
		if err == nil && found == 0 {
			err = errors.New("it runs no mcp-acpfs command")
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: install link %s: %v", file, line, link, err))
		}
	}
	slices.SortStableFunc(cmds, func(a, b docCommand) int { return a.line - b.line })
	return cmds, errs
}

// openingFence reports whether line opens a fenced code block, with its
// indentation, its fence and its language.
func openingFence(line string) (indent, fence, lang string, ok bool) {
	rest := strings.TrimLeft(line, " ")
	if len(line)-len(rest) > 3 && !strings.HasPrefix(rest, "```") {
		return "", "", "", false
	}
	indent = line[:len(line)-len(rest)]
	n := len(rest) - len(strings.TrimLeft(rest, "`"))
	if n < 3 {
		return "", "", "", false
	}
	lang, _, _ = strings.Cut(strings.TrimSpace(rest[n:]), " ")
	return indent, rest[:n], strings.ToLower(lang), true
}

// linkRE matches the install links of VS Code and Cursor, as links or as
// code.
var linkRE = regexp.MustCompile("(?:vscode:mcp/install\\?|https://(?:insiders\\.)?vscode\\.dev/redirect/mcp/install\\?|cursor://anysphere\\.cursor-deeplink/mcp/install\\?|https://cursor\\.com/[a-z-]*/?install-mcp\\?)[^\\s)`\"'<>]+")

// installLink decodes an install link and passes each run of mcp-acpfs in
// its configuration to found.
func installLink(link string, found func([]string)) error {
	u, err := url.Parse(link)
	if err != nil {
		return err
	}
	var config []byte
	switch {
	case u.Scheme == "vscode":
		s, err := url.QueryUnescape(u.RawQuery)
		if err != nil {
			return err
		}
		config = []byte(s)
	case strings.Contains(u.Host, "vscode.dev"):
		config = []byte(u.Query().Get("config"))
	default: // Cursor: the configuration in base64
		q, err := url.ParseQuery(u.RawQuery)
		if err != nil {
			return err
		}
		// A "+" left unescaped in the link reads as a space.
		b64 := strings.ReplaceAll(q.Get("config"), " ", "+")
		if config, err = base64.StdEncoding.DecodeString(b64); err != nil {
			return fmt.Errorf("config: %v", err)
		}
		if q.Get("name") == "" {
			return errors.New("no name")
		}
	}
	var v any
	if err := json.Unmarshal(config, &v); err != nil {
		return fmt.Errorf("config %s: %v", config, err)
	}
	walkJSON(v, found)
	return nil
}

// walkJSON passes to found each run of mcp-acpfs in a "command" and its
// "args" anywhere in v.
func walkJSON(v any, found func([]string)) {
	switch v := v.(type) {
	case map[string]any:
		if command, ok := v["command"].(string); ok {
			words := []string{command}
			if args, ok := v["args"].([]any); ok {
				for _, a := range args {
					s, _ := a.(string)
					words = append(words, s)
				}
			}
			scanWords(words, false, found)
		}
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range v {
				if !yield(k) {
					return
				}
			}
		}) {
			walkJSON(v[k], found)
		}
	case []any:
		for _, x := range v {
			walkJSON(x, found)
		}
	}
}

// skipVerbs are the words after which "mcp-acpfs" names a package or a
// file, not a program to run: brew install mcp-acpfs, mv …/mcp-acpfs.
var skipVerbs = []string{"install", "uninstall", "upgrade", "publish", "add", "mv", "cp", "ln", "rm", "chmod"}

// scanWords passes to found the arguments of the first run of mcp-acpfs
// in words, one simple command; a word that holds a command line of its
// own (acpx --agent 'mcp-acpfs proxy …') or JSON (code --add-mcp '{…}')
// is read as such.
func scanWords(words []string, powershell bool, found func([]string)) {
	for i, w := range words {
		base := w[strings.LastIndexAny(w, `/\`)+1:]
		if base == "mcp-acpfs" || base == "mcp-acpfs.exe" {
			if i > 0 && slices.Contains(skipVerbs, words[i-1]) || i == len(words)-1 {
				continue // a package or a file, or a mere mention
			}
			found(words[i+1:])
			return
		}
		switch t := strings.TrimSpace(w); {
		case strings.HasPrefix(t, "{"):
			var v any
			if json.Unmarshal([]byte(t), &v) == nil {
				walkJSON(v, found)
			}
		case strings.ContainsAny(t, " \t"):
			scanLine(t, powershell, found)
		}
	}
}

// scanLine splits a command line into simple commands, as a shell would,
// and scans the words of each.
func scanLine(line string, powershell bool, found func([]string)) {
	for _, words := range shellSplit(line, powershell) {
		scanWords(words, powershell, found)
	}
}

// shellSplit splits line into the words of its simple commands: quotes
// group, an unquoted |, &, ;, (, ), < or > ends a command, and a # that
// starts a word starts a comment. A backslash escapes the next character,
// except in PowerShell, where it is an ordinary one.
func shellSplit(line string, powershell bool) [][]string {
	var cmds [][]string
	var words []string
	var w strings.Builder
	inWord := false
	endWord := func() {
		if inWord {
			words = append(words, w.String())
		}
		w.Reset()
		inWord = false
	}
	endCommand := func() {
		endWord()
		if len(words) > 0 {
			cmds = append(cmds, words)
		}
		words = nil
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			endWord()
		case c == '#' && !inWord:
			endCommand()
			return cmds
		case strings.IndexByte("|&;()<>", c) >= 0:
			endCommand()
		case c == '\'':
			inWord = true
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				j = len(line) - i - 1
			}
			w.WriteString(line[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			inWord = true
			for i++; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && !powershell && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0 {
					i++
				}
				w.WriteByte(line[i])
			}
		case c == '\\' && !powershell && i+1 < len(line):
			inWord = true
			i++
			w.WriteByte(line[i])
		default:
			inWord = true
			w.WriteByte(c)
		}
	}
	endCommand()
	return cmds
}
