//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// requireNPM returns the paths of node and npm, skipping the test when
// either is missing unless MCP_ACPFS_REQUIRE_NODE=1.
func requireNPM(t *testing.T) (node, npm string) {
	t.Helper()
	node, errNode := exec.LookPath("node")
	npm, errNPM := exec.LookPath("npm")
	if err := errors.Join(errNode, errNPM); err != nil {
		if os.Getenv("MCP_ACPFS_REQUIRE_NODE") == "1" {
			t.Fatalf("MCP_ACPFS_REQUIRE_NODE=1 but: %v", err)
		}
		t.Skipf("node and npm are needed: %v", err)
	}
	return node, npm
}

// TestNPMPackages makes the release of this platform, packs its npm
// packages, installs the tarballs into a new project without a registry,
// and runs the server through the launcher: its version, an MCP round trip,
// exit statuses and signals passed through, and SIGTERM ending the server.
func TestNPMPackages(t *testing.T) {
	node, npm := requireNPM(t)
	i := slices.IndexFunc(targets, func(tg target) bool { return tg.goos == runtime.GOOS && tg.goarch == runtime.GOARCH })
	if i < 0 {
		t.Skipf("no release target for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	host := targets[i]
	t.Chdir("..") // the root of the module
	tmp := t.TempDir()
	dist := filepath.Join(tmp, "dist")
	const version = "v1.2.3-test.4"
	if err := run(t.Context(), options{out: dist, version: version, targets: []string{host.String()}}); err != nil {
		t.Fatal(err)
	}

	// Pack, then install with an empty cache and no registry.
	packs, cache := filepath.Join(tmp, "packs"), filepath.Join(tmp, "npm-cache")
	if err := os.Mkdir(packs, 0o755); err != nil {
		t.Fatal(err)
	}
	npmRun := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), npm, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "npm_config_cache="+cache, "npm_config_update_notifier=false")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("npm %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	platformDir := "mcp-acpfs-" + host.npmOS + "-" + host.npmCPU
	npmRun(tmp, "pack", "--pack-destination", packs,
		filepath.Join(dist, "npm", "mcp-acpfs"), filepath.Join(dist, "npm", platformDir))
	launcherTgz := filepath.Join(packs, "mcp-acpfs-1.2.3-test.4.tgz")
	platformTgz := filepath.Join(packs, "mcp-acpfs-"+platformDir+"-1.2.3-test.4.tgz")
	project := newProject(t, filepath.Join(tmp, "project"))
	npmRun(project, "install", "--offline", "--no-audit", "--no-fund", launcherTgz, platformTgz)

	out := npmRun(project, "exec", "--offline", "--", "mcp-acpfs", "version")
	if want := "mcp-acpfs " + version + "\n"; out != want {
		t.Errorf("npx mcp-acpfs version: %q, want %q", out, want)
	}

	launcher := filepath.Join(project, "node_modules", "mcp-acpfs", "bin", "mcp-acpfs.js")
	t.Run("exit status", func(t *testing.T) {
		cmd := exec.CommandContext(t.Context(), node, launcher, "no-such-command")
		out, err := cmd.CombinedOutput()
		if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), `unknown command "no-such-command"`) {
			t.Errorf("a bad command through the launcher: %v\n%s", err, out)
		}
	})
	t.Run("serve and SIGTERM", func(t *testing.T) {
		s := startServe(t, node, launcher)
		s.roundTrip(t, version)
		if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := s.cmd.Wait(); err != nil {
			t.Errorf("the launcher after SIGTERM: %v (want the server's exit status, 0)", err)
		}
		s.checkGone(t)
	})
	t.Run("signal passed through", func(t *testing.T) {
		s := startServe(t, node, launcher)
		s.roundTrip(t, version)
		if err := syscall.Kill(s.child, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		err := s.cmd.Wait()
		ws, ok := s.cmd.ProcessState.Sys().(syscall.WaitStatus)
		if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Errorf("the launcher after its server was killed: %v, want killed by SIGKILL as the server was", err)
		}
		s.checkGone(t)
	})
	t.Run("no platform package", func(t *testing.T) {
		project := newProject(t, filepath.Join(tmp, "launcher-only"))
		npmRun(project, "install", "--offline", "--no-audit", "--no-fund", launcherTgz)
		cmd := exec.CommandContext(t.Context(), node, filepath.Join(project, "node_modules", "mcp-acpfs", "bin", "mcp-acpfs.js"), "version")
		out, err := cmd.CombinedOutput()
		want := "the package @mcp-acpfs/" + platformDir + ", which holds the binary for this machine, is not installed"
		if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 1 || !strings.Contains(string(out), want) {
			t.Errorf("the launcher without its platform package: %v\n%s\nwant exit status 1 and %q", err, out, want)
		}
	})
}

// newProject makes an empty npm project in dir.
func newProject(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"private": true}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A served is "mcp-acpfs serve" run by the launcher.
type served struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader // the launcher's standard output, shared by the server
	child int           // the server's process id, known after roundTrip
}

func startServe(t *testing.T, node, launcher string) *served {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), node, launcher, "serve", "--root", t.TempDir())
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	// A pipe of our own, which Wait leaves open: its end is seen only
	// once every process holding it open has exited.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	cmd.Stdout = w
	err = cmd.Start()
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	s := &served{cmd: cmd, stdin: stdin, out: bufio.NewReader(r)}
	t.Cleanup(func() {
		stdin.Close()
		if s.child != 0 {
			syscall.Kill(s.child, syscall.SIGKILL) // only if a failed test left it
		}
	})
	return s
}

// roundTrip initializes the server and lists its tools, then finds the
// server's process, the launcher's child.
func (s *served) roundTrip(t *testing.T, version string) {
	t.Helper()
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"npm-test","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	} {
		if _, err := io.WriteString(s.stdin, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	// The answers may come in either order.
	var answer struct {
		ID     int
		Result struct {
			ServerInfo struct{ Name, Version string }
			Tools      []struct{ Name string }
		}
	}
	answers := map[int]string{}
	for range 2 {
		line, err := s.out.ReadBytes('\n')
		if err != nil {
			t.Fatalf("reading an answer: %v", err)
		}
		if err := json.Unmarshal(line, &answer); err != nil {
			t.Fatalf("answer %s: %v", line, err)
		}
		switch r := answer.Result; answer.ID {
		case 1:
			answers[1] = r.ServerInfo.Name + " " + r.ServerInfo.Version
		case 2:
			for _, tool := range r.Tools {
				answers[2] += tool.Name + " "
			}
		}
	}
	if want := "mcp-acpfs " + version; answers[1] != want {
		t.Errorf("initialize answered with server %q, want %q", answers[1], want)
	}
	if !strings.Contains(answers[2], "read_text_file ") {
		t.Errorf("tools/list answered with the tools %q, want read_text_file among them", answers[2])
	}
	out, err := exec.CommandContext(t.Context(), "pgrep", "-P", strconv.Itoa(s.cmd.Process.Pid)).Output()
	pids := strings.Fields(string(out))
	if err != nil || len(pids) != 1 {
		t.Fatalf("the launcher's children: %q, %v; want one, the server", out, err)
	}
	if s.child, err = strconv.Atoi(pids[0]); err != nil {
		t.Fatal(err)
	}
}

// checkGone checks, once the launcher has exited, that the server has too:
// its process is gone and nothing holds the output pipe open.
func (s *served) checkGone(t *testing.T) {
	t.Helper()
	if err := syscall.Kill(s.child, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("server process %d after the launcher exited: %v, want it gone", s.child, err)
	}
	s.child = 0
	if rest, err := io.ReadAll(s.out); err != nil || len(rest) > 0 {
		t.Errorf("the rest of the output: %q, %v", rest, err)
	}
}

// TestLauncherPlatforms checks that the launcher knows the platform of
// every target, and no other.
func TestLauncherPlatforms(t *testing.T) {
	src, err := os.ReadFile("../npm/mcp-acpfs/bin/mcp-acpfs.js")
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range targets {
		if p := fmt.Sprintf("%q", tg.npmOS+"-"+tg.npmCPU); !strings.Contains(string(src), p) {
			t.Errorf("the launcher does not list %s (%s)", p, tg)
		}
	}
	if n := strings.Count(string(src), `-x64",`) + strings.Count(string(src), `-arm64",`); n != len(targets) {
		t.Errorf("the launcher lists %d platforms, want %d", n, len(targets))
	}
}
