package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
)

// TestMain runs main itself when the test binary is started as the command
// (see mainCommand).
func TestMain(m *testing.M) {
	if os.Getenv("MCP_ACPFS_RUN_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// mainCommand returns a command that runs mcp-acpfs's main with args.
func mainCommand(t *testing.T, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(t.Context(), os.Args[0], args...)
	cmd.Env = append(os.Environ(), "MCP_ACPFS_RUN_MAIN=1")
	return cmd
}

// result is what one run of mcp-acpfs did.
type result struct {
	code           int
	stdout, stderr string
}

// runWith runs mcp-acpfs in process with args and an empty stdin.
func runWith(t *testing.T, getenv func(string) string, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	code := run(t.Context(), args, &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: getenv})
	return result{code, stdout.String(), stderr.String()}
}

func TestCommandLine(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args       []string
		code       int
		stdout     string // a regexp, or "" for nothing
		stderr     string // a regexp, or "" for nothing
		noStderrRe bool
	}{
		{args: []string{"version"}, code: 0, stdout: `^mcp-acpfs \S+\n$`},
		{args: []string{"version", "-h"}, code: 0, stderr: `^usage: mcp-acpfs version\n`},
		{args: []string{"version", "extra"}, code: 2, stderr: `usage: mcp-acpfs version`},
		{args: []string{"--version"}, code: 0, stdout: `^mcp-acpfs \S+\n$`},
		{args: []string{"-version"}, code: 0, stdout: `^mcp-acpfs \S+\n$`},
		{args: []string{"--version", "extra"}, code: 2, stderr: `usage: mcp-acpfs version`},
		{args: nil, code: 2, stderr: `Usage:.*\n(.*\n)*\tserve `},
		{args: []string{"-h"}, code: 0, stderr: `Usage:`},
		{args: []string{"--help"}, code: 0, stderr: `Usage:`},
		{args: []string{"help"}, code: 0, stdout: `(?s)Usage:.*serve.*version.*help`},
		{args: []string{"help", "serve"}, code: 0, stdout: `^usage: mcp-acpfs serve `},
		{args: []string{"help", "nope"}, code: 2, stderr: `unknown command "nope"`},
		{args: []string{"help", "-h"}, code: 0, stderr: `^usage: mcp-acpfs help`},
		{args: []string{"nope"}, code: 2, stderr: `^mcp-acpfs: unknown command "nope"\nusage: mcp-acpfs <command>`},

		{args: []string{"serve", "--help"}, code: 0, stderr: `^usage: mcp-acpfs serve `},
		{args: []string{"serve", "-h"}, code: 0, stderr: `(?s)^usage: mcp-acpfs serve .*\[--no-fsync\].*--max-file-size N\n.*\n  --no-fsync\n\tdo not wait for written files.*--http ADDR`},
		{args: []string{"proxy", "-h"}, code: 0, stderr: `(?s)^usage: mcp-acpfs proxy .*\[--no-fsync\].*\n  --no-fsync\n\tdo not wait for the files`},
		{args: []string{"serve", "--no-fsync=maybe"}, code: 2, stderr: `invalid boolean value "maybe" for -no-fsync`},
		{args: []string{"serve", "--bogus"}, code: 2, stderr: `flag provided but not defined: -bogus\nusage: mcp-acpfs serve .*\nrun 'mcp-acpfs serve -h' for help\n$`},
		{args: []string{"serve", filepath.Join(dir, "extra")}, code: 1, stderr: `^mcp-acpfs serve: .*extra`},
		{args: []string{"serve", dir, ""}, code: 2, stderr: `^mcp-acpfs serve: DIR "": empty directory\nusage: mcp-acpfs serve`},
		{args: []string{"serve", dir, "--bogus"}, code: 2, stderr: `flag provided but not defined: -bogus\nusage: mcp-acpfs serve`},
		{args: []string{"serve", "--max-file-size", "10XB"}, code: 2, stderr: `invalid value "10XB" for flag -max-file-size: .*unknown unit`},
		{args: []string{"serve", "--max-file-size", "0"}, code: 2, stderr: `flag -max-file-size: .*positive`},
		{args: []string{"serve", "--max-file-size", "-1"}, code: 2, stderr: `flag -max-file-size`},
		{args: []string{"serve", "--log-level", "loud"}, code: 2, stderr: `flag -log-level: "loud" is not a log level`},
		{args: []string{"serve", "--root", ""}, code: 2, stderr: `flag -root: empty directory`},
		{args: []string{"serve", "--http", ":8080"}, code: 2, stderr: `--http: address ":8080" has no host`},
		{args: []string{"serve", "--http", "0.0.0.0:8080"}, code: 2, stderr: `--http: address "0.0.0.0:8080" is not a loopback address`},
		{args: []string{"serve", "--http", "example.com:80"}, code: 2, stderr: `not a loopback address`},
		{args: []string{"serve", "--http", "127.0.0.1"}, code: 2, stderr: `--http: .*missing port`},
		{args: []string{"serve", "--http-no-auth"}, code: 2, stderr: `--http-no-auth needs --http`},
		{args: []string{"serve", "--root", filepath.Join(dir, "missing")}, code: 1, stderr: `^mcp-acpfs serve: .*missing`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := runWith(t, nil, tc.args...)
			if r.code != tc.code {
				t.Errorf("exit code %d, want %d\nstderr: %s", r.code, tc.code, r.stderr)
			}
			for _, s := range []struct{ name, got, want string }{{"stdout", r.stdout, tc.stdout}, {"stderr", r.stderr, tc.stderr}} {
				if s.want == "" {
					if s.got != "" {
						t.Errorf("%s: %q, want nothing", s.name, s.got)
					}
				} else if !regexp.MustCompile(s.want).MatchString(s.got) {
					t.Errorf("%s: %q, want a match of %q", s.name, s.got, s.want)
				}
			}
		})
	}
}

// TestNoFsyncFlag: --no-fsync, and only it, turns off the syncs of the
// disk writes, on serve and on proxy.
func TestNoFsyncFlag(t *testing.T) {
	e := &env{stderr: io.Discard, getenv: func(string) string { return "" }}
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"--no-fsync"}, true},
		{[]string{"--no-fsync=true"}, true},
		{[]string{"--no-fsync=false"}, false},
		{[]string{"--allow-hard-links", "--read-only"}, false},
	} {
		var serve serveConfig
		if err := serveFlags(&serve, e).Parse(tc.args); err != nil {
			t.Fatalf("serve %v: %v", tc.args, err)
		}
		if got := serve.diskOptions().NoSync; got != tc.want {
			t.Errorf("serve %v: DiskOptions.NoSync = %v, want %v", tc.args, got, tc.want)
		}
		var proxy proxyConfig
		if err := proxyFlags(&proxy, e).Parse(append(tc.args, "--", "agent")); err != nil {
			t.Fatalf("proxy %v: %v", tc.args, err)
		}
		if got := proxy.bridgeOptions(nil).NoSync; got != tc.want {
			t.Errorf("proxy %v: BridgeOptions.NoSync = %v, want %v", tc.args, got, tc.want)
		}
	}
}

// TestServeNoFsyncWrites runs serve --no-fsync and writes through it: a
// new file and a replaced one, which keeps its mode, and nothing else in
// the directory.
func TestServeNoFsyncWrites(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "w.txt")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- run(t.Context(), []string{"serve", "--root", dir, "--no-fsync", "--log-level", "debug"},
			&env{stdin: inR, stdout: outW, stderr: &stderr, getenv: func(string) string { return "" }})
		outW.Close()
	}()
	c := connectStdio(t, outR, inW, mcp.LATEST_PROTOCOL_VERSION)
	write := func(content string) {
		t.Helper()
		var req mcp.CallToolRequest
		req.Params.Name = "write_text_file"
		req.Params.Arguments = map[string]any{"path": p, "content": content}
		res, err := c.CallTool(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			t.Fatalf("write_text_file: %s", resultText(res))
		}
	}
	write("first\n")
	mode := ostest.ChmodKept(t, p, 0o646)
	write("second\n")
	c.Close()
	if got := <-code; got != 0 {
		t.Errorf("exit code %d at the end of input", got)
	}
	if got, err := os.ReadFile(p); err != nil || string(got) != "second\n" {
		t.Errorf("the file holds %q, %v; want \"second\\n\"", got, err)
	}
	if info, err := os.Stat(p); err != nil {
		t.Error(err)
	} else if info.Mode().Perm() != mode {
		t.Errorf("the replaced file's mode: %v; want %v (0646 has o+w, which the umask would drop)", info.Mode().Perm(), mode)
	}
	if entries, err := os.ReadDir(filepath.Dir(p)); err != nil || len(entries) != 1 {
		t.Errorf("the directory holds %v (%v), want the file alone", entries, err)
	}
	if !strings.Contains(stderr.String(), "fsync=false") {
		t.Errorf("the debug log does not say fsync=false:\n%s", stderr.String())
	}
}

func TestParseSize(t *testing.T) {
	for s, want := range map[string]int64{
		"1":                    1,
		"1048576":              1 << 20,
		"100B":                 100,
		"512KiB":               512 << 10,
		"512kib":               512 << 10,
		"512K":                 512 << 10,
		"10MiB":                10 << 20,
		"10M":                  10 << 20,
		"10 MiB":               10 << 20,
		"1GiB":                 1 << 30,
		"1g":                   1 << 30,
		"8589934592GiB":        -1, // overflows
		"":                     -1,
		"KiB":                  -1,
		"1.5MiB":               -1,
		"10MB":                 -1,
		"10 kB":                -1,
		"0":                    -1,
		"0KiB":                 -1,
		"-1":                   -1,
		"1TiB":                 -1,
		"99999999999999999999": -1,
	} {
		got, err := parseSize(s)
		if want < 0 {
			if err == nil {
				t.Errorf("parseSize(%q) = %d, want an error", s, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v, want %d", s, got, err, want)
		}
	}
}

// connectStdio connects an MCP client to a server whose stdin is toServer
// and whose stdout is fromServer.
func connectStdio(t *testing.T, fromServer io.Reader, toServer io.WriteCloser, version string) *client.Client {
	t.Helper()
	c := client.NewClient(transport.NewIO(fromServer, toServer, nil))
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	var req mcp.InitializeRequest
	req.Params.ProtocolVersion = version
	if _, err := c.Initialize(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	return c
}

func readFile(t *testing.T, c *client.Client, path string) *mcp.CallToolResult {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = "read_text_file"
	req.Params.Arguments = map[string]any{"path": path}
	res, err := c.CallTool(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func resultText(res *mcp.CallToolResult) string {
	if len(res.Content) != 1 {
		return ""
	}
	tc, _ := mcp.AsTextContent(res.Content[0])
	return tc.Text
}

// TestServeStdio runs serve on pipes: it serves the first root, logs
// nothing at the default level, and exits 0 at the end of its input.
func TestServeStdio(t *testing.T) {
	for _, version := range []string{mcp.LATEST_LEGACY_PROTOCOL_VERSION, mcp.LATEST_PROTOCOL_VERSION} {
		t.Run(version, func(t *testing.T) {
			dir1, dir2 := t.TempDir(), t.TempDir()
			os.WriteFile(filepath.Join(dir1, "a.txt"), []byte("one\n"), 0o644)
			os.WriteFile(filepath.Join(dir2, "b.txt"), []byte("two\n"), 0o644)

			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			var stderr bytes.Buffer
			code := make(chan int, 1)
			go func() {
				code <- run(t.Context(), []string{"serve", "--root", dir1, "--root", dir2, "--read-only"},
					&env{stdin: inR, stdout: outW, stderr: &stderr, getenv: func(string) string { return "" }})
				outW.Close()
			}()
			c := connectStdio(t, outR, inW, version)
			if got := resultText(readFile(t, c, "a.txt")); got != "one\n" {
				t.Errorf("relative to the first root: %q", got)
			}
			if got := resultText(readFile(t, c, filepath.Join(dir2, "b.txt"))); got != "two\n" {
				t.Errorf("in the second root: %q", got)
			}
			if res := readFile(t, c, filepath.Join(dir1, "..")); !res.IsError {
				t.Errorf("outside the roots: %q", resultText(res))
			}
			tools, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range tools.Tools {
				names = append(names, tool.Name)
				if tool.Annotations.ReadOnlyHint == nil || !*tool.Annotations.ReadOnlyHint {
					t.Errorf("--read-only lists %s, which is not read-only", tool.Name)
				}
			}
			if !slices.Contains(names, "read_text_file") {
				t.Errorf("--read-only: tools %v lack read_text_file", names)
			}
			c.Close()
			if got := <-code; got != 0 {
				t.Errorf("exit code %d at the end of input", got)
			}
			if stderr.Len() != 0 {
				t.Errorf("stderr at the default level: %s", stderr.String())
			}
		})
	}
}

func TestServeStdioDebugLog(t *testing.T) {
	dir := t.TempDir()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- run(t.Context(), []string{"serve", "--root", dir, "--log-level", "debug", "--max-file-size", "1KiB"},
			&env{stdin: inR, stdout: outW, stderr: &stderr, getenv: func(string) string { return "" }})
		outW.Close()
	}()
	c := connectStdio(t, outR, inW, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	readFile(t, c, "missing.txt")
	c.Close()
	<-code
	for _, want := range []string{"level=DEBUG msg=serving", "max_file_size=1024", "msg=mcp.request mcp.method=initialize", "mcp.tool.name=read_text_file"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("debug log lacks %q:\n%s", want, stderr.String())
		}
	}
}

// TestServeHTTP runs serve --http: it logs its URL and a generated token,
// and serves MCP to a client that has the token.
func TestServeHTTP(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		envTok  string
		wantLog string // a regexp with the token as its first group, if any
	}{
		{"generated token", nil, "", `token=([0-9a-f]{64})`},
		{"token from the environment", nil, "env-token", `token=\$MCP_ACPFS_TOKEN`},
		{"no auth", []string{"--http-no-auth"}, "", `auth=none`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "a.txt"), []byte("http\n"), 0o644)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			errR, errW := io.Pipe()
			code := make(chan int, 1)
			args := append([]string{"serve", "--root", dir, "--http", "127.0.0.1:0", "--log-level", "error"}, tc.args...)
			getenv := func(k string) string {
				if k == tokenEnv {
					return tc.envTok
				}
				return ""
			}
			go func() {
				code <- run(ctx, args, &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: errW, getenv: getenv})
				errW.Close()
			}()
			sc := bufio.NewScanner(errR)
			if !sc.Scan() {
				t.Fatalf("no log line; exit code %d", <-code)
			}
			line := sc.Text()
			go io.Copy(io.Discard, errR)
			url := regexp.MustCompile(`url=(http://127\.0\.0\.1:\d+/mcp)`).FindStringSubmatch(line)
			if url == nil {
				t.Fatalf("no url in %q", line)
			}
			m := regexp.MustCompile(tc.wantLog).FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("log line %q does not match %q", line, tc.wantLog)
			}
			token := tc.envTok
			if len(m) > 1 {
				token = m[1]
			}

			resp, err := http.Post(url[1], "application/json", strings.NewReader(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if tc.name != "no auth" && resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("without a token: status %d", resp.StatusCode)
			}

			headers := map[string]string{}
			if token != "" {
				headers["Authorization"] = "Bearer " + token
			}
			c, err := client.NewStreamableHttpClient(url[1], transport.WithHTTPHeaders(headers))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := c.Start(t.Context()); err != nil {
				t.Fatal(err)
			}
			var req mcp.InitializeRequest
			req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
			if _, err := c.Initialize(t.Context(), req); err != nil {
				t.Fatal(err)
			}
			if got := resultText(readFile(t, c, "a.txt")); got != "http\n" {
				t.Errorf("read %q", got)
			}
			c.Close()

			cancel() // as SIGINT would
			if got := <-code; got != 0 {
				t.Errorf("exit code %d after cancel", got)
			}
		})
	}
}

// TestMainProcess runs the real main in a child process: version, the end of
// stdin, and a request to stop (stop: SIGTERM, or on Windows a console
// CTRL_BREAK_EVENT), after which it exits 0.
func TestMainProcess(t *testing.T) {
	out, err := mainCommand(t, "version").Output()
	if err != nil || !regexp.MustCompile(`^mcp-acpfs \S+\n$`).Match(out) {
		t.Errorf("version: %q, %v", out, err)
	}

	cmd := mainCommand(t, "serve", "--root", t.TempDir())
	cmd.Stdin = strings.NewReader("")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("serve with an empty stdin: %v\n%s", err, out)
	}

	cmd = mainCommand(t, "serve", "--root", t.TempDir())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stoppable(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Once the server has answered, it is up: then stop it.
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`+"\n")
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.Contains(line, `"id":1`) {
		t.Fatalf("initialize answer %q, %v", line, err)
	}
	stop(t, cmd)
	if err := cmd.Wait(); err != nil {
		t.Errorf("after %s: %v\n%s", stopSignal, err, stderr.String())
	}
}
