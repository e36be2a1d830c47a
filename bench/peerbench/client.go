package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"
)

// client is a lean pipelined JSON-RPC client of one MCP server process on
// stdio. Any number of calls may be in flight; each is written whole under
// a lock and matched to its response by id. Responses are not decoded: the
// reader takes each line's envelope ([scanEnvelope]), so a call costs one
// copy of the response and a scan for its quotes; a caller that asks gets
// the whole line to check. Requests from the server are answered (ping
// with an empty result, anything else with "method not found");
// notifications are dropped.
type client struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *tailBuffer

	wmu sync.Mutex
	w   *bufio.Writer

	mu      sync.Mutex
	nextID  int64
	pending map[int64]*call
	readErr error         // why the reader stopped; guarded by mu
	done    chan struct{} // closed when the reader stops
}

// call is one request in flight. Its reply goes to reply, or, for a call
// made with [client.start], to done, on the reader's goroutine.
type call struct {
	keep  bool // keep the response line (a failed tool call's is always kept)
	reply chan reply
	done  func(reply)
}

// deliver hands rep to the call's waiter.
func (cl *call) deliver(rep reply) {
	if cl.done != nil {
		cl.done(rep)
		return
	}
	cl.reply <- rep
}

// reply is the response to a call.
type reply struct {
	env  envelope
	line []byte // the whole response, when the call asked to keep it
	at   time.Time
	err  error
}

// maxLine bounds a response line, so that a server gone wrong cannot take
// the client's memory with it.
const maxLine = 1536 << 20

// startClient runs argv with its stdin and stdout as the MCP stream; its
// stderr is kept (the last 64 KiB) for error messages.
func startClient(argv []string) (*client, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c := &client{
		cmd:     cmd,
		stdin:   stdin,
		stderr:  &tailBuffer{max: 64 << 10},
		w:       bufio.NewWriterSize(stdin, 64<<10),
		pending: map[int64]*call{},
		done:    make(chan struct{}),
	}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	go c.read(bufio.NewReaderSize(stdout, 1<<20))
	return c, nil
}

// pid is the server process's id.
func (c *client) pid() int { return c.cmd.Process.Pid }

// read reads responses until the server's stdout ends.
func (c *client) read(r *bufio.Reader) {
	var line []byte
	var err error
	for {
		line, err = readLine(r, line[:0])
		if err != nil {
			break
		}
		at := time.Now()
		env, serr := scanEnvelope(line)
		if serr != nil {
			err = fmt.Errorf("response %.200q: %w", line, serr)
			break
		}
		if env.Method != "" {
			if env.ID != nil {
				c.answer(env)
			}
			continue
		}
		id, perr := strconv.ParseInt(string(env.ID), 10, 64)
		c.mu.Lock()
		cl := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if perr != nil || cl == nil {
			err = fmt.Errorf("response to no request in flight: id %s", env.ID)
			break
		}
		rep := reply{env: env, at: at}
		if cl.keep || env.IsError {
			rep.line = append([]byte(nil), line...)
		}
		cl.deliver(rep)
	}
	if errors.Is(err, io.EOF) {
		err = errors.New("the server closed its output")
	}
	c.mu.Lock()
	c.readErr = err
	failed := make([]*call, 0, len(c.pending))
	for id, cl := range c.pending {
		failed = append(failed, cl)
		delete(c.pending, id)
	}
	c.mu.Unlock()
	for _, cl := range failed {
		cl.deliver(reply{err: err})
	}
	close(c.done)
}

// readLine appends the next line of r, without its newline, to buf.
func readLine(r *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		chunk, err := r.ReadSlice('\n')
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			return buf[:len(buf)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			if len(buf) > maxLine {
				return buf, fmt.Errorf("a response line is over %d bytes", maxLine)
			}
		case errors.Is(err, io.EOF) && len(buf) > 0:
			return buf, io.ErrUnexpectedEOF
		default:
			return buf, err
		}
	}
}

// answer answers a request from the server.
func (c *client) answer(env envelope) {
	var resp []byte
	if env.Method == "ping" {
		resp = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{}}`, env.ID)
	} else {
		resp = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`, env.ID)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.w.Write(resp)
	c.w.WriteByte('\n')
	c.w.Flush()
}

// request sends a request with params, raw JSON, and waits for its
// response or ctx. It returns the time it was sent and the reply; a
// JSON-RPC error is an error, a tool error (isError) is not: the caller
// decides.
func (c *client) request(ctx context.Context, method string, params []byte, keep bool) (time.Time, reply, error) {
	cl := &call{keep: keep, reply: make(chan reply, 1)}
	c.mu.Lock()
	if c.readErr != nil {
		err := c.readErr
		c.mu.Unlock()
		return time.Time{}, reply{}, c.failure(err)
	}
	c.nextID++
	id := c.nextID
	c.pending[id] = cl
	c.mu.Unlock()

	sent := time.Now()
	if err := c.send(id, method, params); err != nil {
		c.forget(id)
		return sent, reply{}, c.failure(fmt.Errorf("send %s: %w", method, err))
	}
	select {
	case rep := <-cl.reply:
		if rep.err != nil {
			return sent, rep, c.failure(rep.err)
		}
		if rep.env.Error != nil {
			return sent, rep, fmt.Errorf("%s: JSON-RPC error %s", method, rep.env.Error)
		}
		return sent, rep, nil
	case <-ctx.Done():
		c.forget(id)
		return sent, reply{}, fmt.Errorf("%s: no response: %w", method, ctx.Err())
	}
}

// start sends a tools/call-style request with params and returns at once;
// done gets its reply (a JSON-RPC error as rep.err) on the reader's
// goroutine, where it may start the next call but must not block. A
// closed-loop caller so spends no goroutine switch per call: the reader
// that takes a response writes the next request.
func (c *client) start(method string, params []byte, done func(reply)) {
	cl := &call{done: func(rep reply) {
		switch {
		case rep.err != nil:
			rep.err = c.failure(rep.err)
		case rep.env.Error != nil:
			rep.err = fmt.Errorf("%s: JSON-RPC error %s", method, rep.env.Error)
		}
		done(rep)
	}}
	c.mu.Lock()
	if c.readErr != nil {
		err := c.readErr
		c.mu.Unlock()
		done(reply{err: c.failure(err)})
		return
	}
	c.nextID++
	id := c.nextID
	c.pending[id] = cl
	c.mu.Unlock()
	if err := c.send(id, method, params); err != nil && c.forget(id) {
		// Else the reader, stopping, has failed the call already.
		done(reply{err: c.failure(fmt.Errorf("send %s: %w", method, err))})
	}
}

// forget drops the call id, and reports whether it was still in flight.
func (c *client) forget(id int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.pending[id]
	delete(c.pending, id)
	return ok
}

// send writes one request line.
func (c *client) send(id int64, method string, params []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.w.WriteString(`{"jsonrpc":"2.0","id":`)
	c.w.WriteString(strconv.FormatInt(id, 10))
	c.w.WriteString(`,"method":`)
	c.w.WriteString(strconv.Quote(method))
	if params != nil {
		c.w.WriteString(`,"params":`)
		c.w.Write(params)
	}
	c.w.WriteString("}\n")
	return c.w.Flush()
}

// notify sends a notification.
func (c *client) notify(method string, params []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.w.WriteString(`{"jsonrpc":"2.0","method":`)
	c.w.WriteString(strconv.Quote(method))
	if params != nil {
		c.w.WriteString(`,"params":`)
		c.w.Write(params)
	}
	c.w.WriteString("}\n")
	return c.w.Flush()
}

// failure adds the server's last stderr lines to err.
func (c *client) failure(err error) error {
	if tail := c.stderr.String(); tail != "" {
		return fmt.Errorf("%w; the server's stderr ends with:\n%s", err, tail)
	}
	return err
}

// handshake is what the client learns of a server at initialize.
type handshake struct {
	Protocol string // the protocol version agreed
	Name     string // serverInfo
	Version  string
	Tools    map[string]bool
}

// initialize performs the MCP handshake and lists the server's tools.
func (c *client) initialize(ctx context.Context) (handshake, error) {
	params := `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"peerbench","version":"1"}}`
	_, rep, err := c.request(ctx, "initialize", []byte(params), true)
	if err != nil {
		return handshake{}, err
	}
	var init struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
			ServerInfo      struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			} `json:"serverInfo"`
		} `json:"result"`
	}
	if err := json.Unmarshal(rep.line, &init); err != nil || init.Result.ProtocolVersion == "" {
		return handshake{}, fmt.Errorf("initialize: no protocol version in %.300q", rep.line)
	}
	hs := handshake{
		Protocol: init.Result.ProtocolVersion,
		Name:     init.Result.ServerInfo.Name,
		Version:  init.Result.ServerInfo.Version,
		Tools:    map[string]bool{},
	}
	if err := c.notify("notifications/initialized", nil); err != nil {
		return handshake{}, err
	}
	cursor := ""
	for {
		p := []byte(`{}`)
		if cursor != "" {
			p, _ = json.Marshal(map[string]string{"cursor": cursor})
		}
		_, rep, err := c.request(ctx, "tools/list", p, true)
		if err != nil {
			return handshake{}, err
		}
		var list struct {
			Result struct {
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
				NextCursor string `json:"nextCursor"`
			} `json:"result"`
		}
		if err := json.Unmarshal(rep.line, &list); err != nil {
			return handshake{}, fmt.Errorf("tools/list: %w", err)
		}
		for _, t := range list.Result.Tools {
			hs.Tools[t.Name] = true
		}
		if cursor = list.Result.NextCursor; cursor == "" {
			return hs, nil
		}
	}
}

// close ends the server: it closes its stdin, and kills it if it has not
// exited after grace.
func (c *client) close(grace time.Duration) error {
	c.stdin.Close()
	exited := make(chan error, 1)
	go func() { exited <- c.cmd.Wait() }()
	select {
	case err := <-exited:
		return err
	case <-time.After(grace):
		c.cmd.Process.Signal(os.Kill)
		return <-exited
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
