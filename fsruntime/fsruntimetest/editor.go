package fsruntimetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sync"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
)

// Editor is a fake ACP client for tests: it serves fs/read_text_file and
// fs/write_text_file from Buffers, answering errors as Zed, the reference
// client, does, and records every request it is sent. Serve it with
// jsonrpc2.NewConn(ctx, stream, jsonrpc2.AsyncHandler(jsonrpc2.HandlerWithError(ed.Handle))).
type Editor struct {
	// Buffers are the editor's open buffers, which may differ from the
	// disk. Required.
	Buffers *MemFS
	// Fail, if not nil, is asked first about every request; an error it
	// returns is the answer.
	Fail func(method string, params json.RawMessage) *jsonrpc2.Error
	// Delay, if not nil, runs before a request is served; it may block
	// until ctx ends (the request is cancelled or the connection closes).
	Delay func(ctx context.Context, method string)

	mu       sync.Mutex
	requests []EditorRequest
}

// An EditorRequest is a request the Editor received.
type EditorRequest struct {
	Method string
	Params map[string]any
}

// Requests returns the requests received so far.
func (e *Editor) Requests() []EditorRequest {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]EditorRequest(nil), e.requests...)
}

// fsParams are the params of both fs methods.
type fsParams struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	Line      int    `json:"line"`
	Limit     int    `json:"limit"`
	Content   string `json:"content"`
}

// Handle serves one request; it has the signature of
// jsonrpc2.HandlerWithError.
func (e *Editor) Handle(ctx context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	var raw json.RawMessage
	if req.Params != nil {
		raw = *req.Params
	}
	var all map[string]any
	json.Unmarshal(raw, &all)
	e.mu.Lock()
	e.requests = append(e.requests, EditorRequest{Method: req.Method, Params: all})
	e.mu.Unlock()
	if req.Notif {
		return nil, nil
	}
	if e.Delay != nil {
		e.Delay(ctx, req.Method)
	}
	if e.Fail != nil {
		if err := e.Fail(req.Method, raw); err != nil {
			return nil, err
		}
	}
	var p fsParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: err.Error()}
	}
	switch req.Method {
	case fsruntime.MethodReadTextFile:
		text, err := e.Buffers.ReadTextFile(ctx, p.Path, p.Line, p.Limit)
		if err != nil {
			return nil, ZedError(p.Path, p.Line, err)
		}
		return map[string]string{"content": text}, nil
	case fsruntime.MethodWriteTextFile:
		if err := e.Buffers.WriteTextFile(ctx, p.Path, p.Content); err != nil {
			return nil, ZedError(p.Path, p.Line, err)
		}
		return nil, nil // Zed answers null
	}
	return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "Method not found"}
}

// ZedError is the error Zed answers an fs request with for err.
func ZedError(path string, line int, err error) *jsonrpc2.Error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		e := &jsonrpc2.Error{Code: fsruntime.CodeResourceNotFound, Message: "Resource not found"}
		e.SetError(map[string]string{"uri": path})
		return e
	case errors.Is(err, fsruntime.ErrPastEnd):
		e := &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: "Invalid params"}
		e.SetError(fmt.Sprintf("Attempting to read beyond the end of the file, line %d:0", line))
		return e
	case errors.Is(err, context.Canceled):
		return &jsonrpc2.Error{Code: fsruntime.CodeRequestCancelled, Message: "Request cancelled"}
	case errors.Is(err, fs.ErrInvalid):
		return &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: err.Error()}
	}
	return &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: err.Error()}
}
