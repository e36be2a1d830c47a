package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-acpfs/mcp-acpfs/integration/internal/gobuild"
)

// binPath is the mcp-acpfs binary that TestMain built.
var binPath string

// raceEnabled is set by race_test.go when the tests run with -race; the
// binary is then built with the race detector too, so that a data race in
// the server makes it exit with status 66 and fail the test that ran it.
var raceEnabled bool

// testAgentPath is the scripted ACP agent that TestMain built, for the
// proxy tests.
var testAgentPath string

// The packages TestMain builds: mcp-acpfs, and the test peers.
const (
	mainPackage      = "github.com/mcp-acpfs/mcp-acpfs/cmd/mcp-acpfs"
	testAgentPackage = "github.com/mcp-acpfs/mcp-acpfs/integration/cmd/testagent"
)

// Deadlines. A healthy server answers in milliseconds; these only bound how
// long a broken one can hang a test.
const (
	startTimeout = 20 * time.Second // until serve --http logs its URL (a -race binary starts slowly)
	callTimeout  = 20 * time.Second // one request
	exitTimeout  = 10 * time.Second // from stdin EOF or a signal to exit
)

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "mcp-acpfs-integration-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "integration:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	// The path the binaries know themselves by (os.Executable): symlinks
	// resolved, and on Windows long names for short ones.
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		fmt.Fprintln(os.Stderr, "integration:", err)
		return 1
	}

	binPath = filepath.Join(dir, "mcp-acpfs"+exeSuffix)
	testAgentPath = filepath.Join(dir, "testagent"+exeSuffix)
	if err := gobuild.Build(dir, raceEnabled, mainPackage, testAgentPackage); err != nil {
		fmt.Fprintln(os.Stderr, "integration:", err)
		return 1
	}
	return m.Run()
}

// buildTags returns the -tags this test binary was built with.
func buildTags() string { return gobuild.Tags() }

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// childEnv returns the environment for a child process: this process's,
// without any MCP_ACPFS_ variable, plus extra.
func childEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MCP_ACPFS_") {
			env = append(env, kv)
		}
	}
	if raceEnabled {
		// A race-enabled binary sleeps a second at exit unless told not to.
		env = append(env, "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	}
	return append(env, extra...)
}

// A proc is a running mcp-acpfs subprocess.
//
// Its standard output is recorded in full, to check that it carries nothing
// but protocol messages, and can be read from out by a client; its standard
// error is recorded line by line. Neither ever blocks the child.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    io.Reader // the child's stdout, from the start
	stdout *stream
	stderr *lineLog

	exited  chan struct{} // closed when Wait has returned
	waitErr error         // Wait's result; read after exited is closed
}

// procOptions configure [start].
type procOptions struct {
	dir string   // working directory; "" means the test's
	env []string // added to childEnv()
	// unrecorded keeps no copy of stdout: out, which must be its only
	// reader, gets it, and what it has read is let go (a long run's
	// output would not fit in memory).
	unrecorded bool
	// modelView runs serve and proxy as a user gets them. Without it they
	// run with programView, the results that most of these tests read.
	modelView bool
}

// programView are the flags that give serve's and proxy's tools the
// results a program reads: structured content beside the text, and whole
// files. Tests of what a model is given set procOptions.modelView.
var programView = []string{"--structured-content", "--page-size", "0"}

// start runs the binary with args. The process is killed in t.Cleanup if it
// is still running then.
func start(t *testing.T, opts procOptions, args ...string) *proc {
	t.Helper()
	if !opts.modelView && len(args) > 0 && (args[0] == "serve" || args[0] == "proxy") {
		args = slices.Concat(args[:1], programView, args[1:])
	}
	cmd := exec.Command(binPath, args...)
	cmd.Dir = opts.dir
	cmd.Env = childEnv(opts.env...)
	// Wait returns only when stdout and stderr are closed by every process
	// holding them; a descendant left running after the server exits
	// shows up as exec.ErrWaitDelay.
	cmd.WaitDelay = 2 * time.Second
	signalable(cmd)

	p := &proc{
		t:      t,
		cmd:    cmd,
		stdout: newStream(),
		stderr: newLineLog(),
		exited: make(chan struct{}),
	}
	p.stdout.forget = opts.unrecorded
	p.out = p.stdout.reader()
	cmd.Stdout = p.stdout
	cmd.Stderr = p.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.stdin = stdin
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", strings.Join(args, " "), err)
	}
	go func() {
		p.waitErr = cmd.Wait()
		p.stderr.Close()
		p.stdout.Close() // EOF for readers of out
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			_ = cmd.Process.Kill()
			<-p.exited
		}
		if t.Failed() {
			t.Logf("stderr of mcp-acpfs %s:\n%s", strings.Join(args, " "), p.stderr.String())
		}
	})
	return p
}

// wait waits for the process to exit, at most exitTimeout, and returns its
// exit code. It kills the process and fails the test if it does not exit in
// time, or if it left something holding its output open.
func (p *proc) wait(why string) int {
	p.t.Helper()
	select {
	case <-p.exited:
	case <-time.After(exitTimeout):
		p.t.Errorf("mcp-acpfs did not exit within %v after %s; killing it", exitTimeout, why)
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
	if errors.Is(p.waitErr, exec.ErrWaitDelay) {
		p.t.Errorf("after mcp-acpfs exited, its stdout or stderr stayed open: a child process was left running")
	}
	if raceEnabled && p.cmd.ProcessState.ExitCode() == 66 && strings.Contains(p.stderr.String(), "DATA RACE") {
		p.t.Errorf("the race detector found a data race in mcp-acpfs:\n%s", p.stderr.String())
	}
	return p.cmd.ProcessState.ExitCode()
}

// closeStdin ends the process's input, and with it an MCP stdio session, and
// waits for the process to exit; it must exit with status 0.
func (p *proc) closeStdin() {
	p.t.Helper()
	if err := p.stdin.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		p.t.Errorf("closing stdin: %v", err)
	}
	if code := p.wait("stdin EOF"); code != 0 {
		p.t.Errorf("mcp-acpfs exited with status %d after stdin EOF, want 0\nstderr:\n%s", code, p.stderr.String())
	}
}

// signal sends sig and waits for the process to exit, returning its exit
// code. On Windows os.Interrupt is a console CTRL_BREAK_EVENT (see
// sendSignal); a signal the system cannot send, such as SIGTERM there,
// skips the test, saying why.
func (p *proc) signal(sig os.Signal) int {
	p.t.Helper()
	code, err := p.trySignal(sig)
	if err != nil {
		p.t.Skipf("sending %v: %v", sig, err)
	}
	return code
}

// trySignal is signal, but where the system cannot send sig it returns
// why (errCannotSignal), having sent nothing, and the test goes on.
func (p *proc) trySignal(sig os.Signal) (int, error) {
	p.t.Helper()
	if err := sendSignal(p.cmd.Process, sig); err != nil {
		if errors.Is(err, errCannotSignal) {
			return 0, err
		}
		p.t.Fatalf("sending %v: %v", sig, err)
	}
	return p.wait(fmt.Sprint(sig)), nil
}

// checkStdoutJSONLines fails the test unless everything the process wrote
// to stdout is newline-terminated lines that are each one JSON-RPC message
// object.
func (p *proc) checkStdoutJSONLines() {
	p.t.Helper()
	out := p.stdout.String()
	if out == "" {
		p.t.Errorf("stdout is empty; want JSON-RPC messages")
		return
	}
	if !strings.HasSuffix(out, "\n") {
		p.t.Errorf("stdout does not end with a newline: ...%q", tail(out, 80))
	}
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var msg struct {
			JSONRPC string `json:"jsonrpc"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil || msg.JSONRPC != "2.0" {
			p.t.Errorf("stdout line %d is not a JSON-RPC 2.0 message (err %v): %q", i+1, err, truncate(line, 200))
		}
	}
}

// stream records everything written to it, for any number of readers that
// each read it from the start. Writes never block.
type stream struct {
	mu     sync.Mutex
	cond   *sync.Cond
	buf    []byte
	closed bool
	forget bool // drop what the (only) reader has read
}

func newStream() *stream {
	s := &stream{}
	s.cond = sync.NewCond(&s.mu)
	return s
}

func (s *stream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf = append(s.buf, p...)
	s.cond.Broadcast()
	return len(p), nil
}

// Close ends the stream: readers get io.EOF after the last byte.
func (s *stream) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.cond.Broadcast()
}

func (s *stream) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return string(s.buf)
}

// reader returns a reader of the stream from its start.
func (s *stream) reader() io.Reader { return &streamReader{s: s} }

type streamReader struct {
	s   *stream
	off int
}

func (r *streamReader) Read(p []byte) (int, error) {
	s := r.s
	s.mu.Lock()
	defer s.mu.Unlock()
	for r.off == len(s.buf) && !s.closed {
		s.cond.Wait()
	}
	if r.off == len(s.buf) {
		return 0, io.EOF
	}
	n := copy(p, s.buf[r.off:])
	r.off += n
	if s.forget {
		s.buf, r.off = s.buf[r.off:], 0
	}
	return n, nil
}

// lineLog records a stream line by line and lets a test wait for a line.
type lineLog struct {
	mu      sync.Mutex
	partial []byte
	lines   []string
	closed  bool
	changed chan struct{} // closed and replaced on every new line and on Close
}

func newLineLog() *lineLog { return &lineLog{changed: make(chan struct{})} }

func (l *lineLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	added := false
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		l.lines = append(l.lines, string(l.partial[:i]))
		l.partial = l.partial[i+1:]
		added = true
	}
	if added {
		close(l.changed)
		l.changed = make(chan struct{})
	}
	return len(p), nil
}

// Close marks the end of the stream; a last line without a newline counts.
func (l *lineLog) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.partial) > 0 {
		l.lines = append(l.lines, string(l.partial))
		l.partial = nil
	}
	l.closed = true
	close(l.changed)
	l.changed = make(chan struct{})
}

func (l *lineLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := strings.Join(l.lines, "\n")
	if len(l.partial) > 0 {
		s += "\n" + string(l.partial)
	}
	return s
}

// waitFor waits until a line matches re and returns the line and its
// submatches. It fails the test when ctx ends or the stream closes first.
func (l *lineLog) waitFor(ctx context.Context, t *testing.T, re *regexp.Regexp) (string, []string) {
	t.Helper()
	seen := 0
	for {
		l.mu.Lock()
		for ; seen < len(l.lines); seen++ {
			if m := re.FindStringSubmatch(l.lines[seen]); m != nil {
				line := l.lines[seen]
				l.mu.Unlock()
				return line, m
			}
		}
		closed, changed := l.closed, l.changed
		l.mu.Unlock()
		if closed {
			t.Fatalf("stderr ended without a line matching %s:\n%s", re, l.String())
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("no stderr line matching %s in time (%v):\n%s", re, context.Cause(ctx), l.String())
		}
	}
}

// runCommand runs the binary to completion with args and no input, and
// returns its exit code, stdout and stderr.
func runCommand(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), exitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, args...)
	cmd.Env = childEnv()
	cmd.Dir = t.TempDir()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("mcp-acpfs %s did not exit within %v", strings.Join(args, " "), exitTimeout)
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatalf("running mcp-acpfs %s: %v", strings.Join(args, " "), err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
