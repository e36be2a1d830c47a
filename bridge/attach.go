package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
)

// Attach gives the bridge its connection to the editor, when NewBridge
// was given nil: the order in which an agent whose connection handler
// uses the bridge can make both without a race,
//
//	b := bridge.NewBridge(nil, opts)
//	conn := jsonrpc2.NewConn(ctx, stream, handlerThatUses(b))
//	b.Attach(conn)
//
// A tool call that needs the editor before Attach waits for it, at most
// EditorTimeout. A connection that also has Notify, as *jsonrpc2.Conn
// does, gets $/cancel_request for every fs request the bridge abandons
// (see [fsruntime.Notifier]); one without it must send that itself.
// Attach fails if the bridge already has a connection.
func (b *Bridge) Attach(editor fsruntime.Caller) error {
	if editor == nil {
		return errors.New("bridge: Attach: the editor connection is nil")
	}
	return b.editor.attach(editor)
}

// editorConn is the bridge's connection to the editor, which may be
// attached after the bridge is made. It is a [fsruntime.Notifier] so that
// the sessions' Editors number their requests and cancel them; it
// notifies only if the attached Caller can.
type editorConn struct {
	once     sync.Once
	attached chan struct{} // closed once caller is set
	caller   fsruntime.Caller
}

var (
	_ fsruntime.Caller   = (*editorConn)(nil)
	_ fsruntime.Notifier = (*editorConn)(nil)
)

func (c *editorConn) attach(caller fsruntime.Caller) error {
	err := errors.New("bridge: Attach: the bridge already has a connection to the editor")
	c.once.Do(func() {
		c.caller = caller
		close(c.attached)
		err = nil
	})
	return err
}

// get returns the attached Caller, waiting for it until ctx ends.
func (c *editorConn) get(ctx context.Context) (fsruntime.Caller, error) {
	select {
	case <-c.attached:
		return c.caller, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *editorConn) Call(ctx context.Context, method string, params, result any, opts ...jsonrpc2.CallOption) error {
	caller, err := c.get(ctx)
	if err != nil {
		return err
	}
	return caller.Call(ctx, method, params, result, opts...)
}

func (c *editorConn) Notify(ctx context.Context, method string, params any, opts ...jsonrpc2.CallOption) error {
	caller, err := c.get(ctx)
	if err != nil {
		return err
	}
	if n, ok := caller.(fsruntime.Notifier); ok {
		return n.Notify(ctx, method, params, opts...)
	}
	return nil // the Caller tells the editor itself
}

// checkClientCapabilities reports an fs capability of the wrong type in
// the params of an initialize request, naming the member.
func checkClientCapabilities(params json.RawMessage) error {
	var p struct {
		ClientCapabilities *struct {
			FS *struct {
				ReadTextFile  *bool `json:"readTextFile"`
				WriteTextFile *bool `json:"writeTextFile"`
			} `json:"fs"`
		} `json:"clientCapabilities"`
	}
	return json.Unmarshal(params, &p)
}
