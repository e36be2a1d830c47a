package fsruntime_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
)

// silentEditor receives requests and never answers them, until ctx ends.
type silentEditor struct{ got chan string }

func (s silentEditor) Handle(ctx context.Context, _ *jsonrpc2.Conn, r *jsonrpc2.Request) {
	if !r.Notif {
		s.got <- r.Method
	}
}

// TestEditorTimeout: through a plain jsonrpc2 connection (as an agent
// that embeds the bridge has), a call the editor never answers fails once
// the Editor's timeout passes, with an error that names the method, the
// path and the timeout and matches context.DeadlineExceeded; a call
// cancelled by its caller first fails with the caller's error instead. It
// runs in a synctest bubble, whose clock jumps to each timeout.
func TestEditorTimeout(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		a, b := net.Pipe()
		ctx := context.WithoutCancel(t.Context())
		ed := silentEditor{got: make(chan string, 4)}
		edConn := jsonrpc2.NewConn(ctx, jsonrpc2.NewPlainObjectStream(a), jsonrpc2.AsyncHandler(ed))
		us := jsonrpc2.NewConn(ctx, jsonrpc2.NewPlainObjectStream(b), jsonrpc2.AsyncHandler(ed))
		t.Cleanup(func() { us.Close(); edConn.Close() })
		const timeout = 200 * time.Millisecond
		e := fsruntime.NewEditor(us, fsruntime.EditorOptions{SessionID: fixedSession("s"), Timeout: timeout})

		p := ostest.HostPath("/p/never.txt")
		_, err := e.ReadTextFile(t.Context(), p, 0, 0)
		var te *fsruntime.EditorTimeoutError
		if !errors.As(err, &te) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("a read never answered: %v (%T), want an EditorTimeoutError", err, err)
		}
		for _, part := range []string{"read " + p, "fs/read_text_file", timeout.String()} {
			if !strings.Contains(err.Error(), part) {
				t.Errorf("error %q does not name %q", err, part)
			}
		}
		if err := e.WriteTextFile(t.Context(), p, "x"); !errors.As(err, &te) || te.Method != fsruntime.MethodWriteTextFile {
			t.Errorf("a write never answered: %v", err)
		}

		// The caller's own cancellation is not a timeout.
		cctx, cancel := context.WithCancel(t.Context())
		go func() { <-ed.got; <-ed.got; <-ed.got; cancel() }()
		if _, err := e.ReadTextFile(cctx, p, 0, 0); !errors.Is(err, context.Canceled) || errors.As(err, &te) {
			t.Errorf("a read its caller cancelled: %v, want context.Canceled", err)
		}
	})
}
