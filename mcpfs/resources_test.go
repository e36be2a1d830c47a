package mcpfs_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.uber.org/goleak"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fspath"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/mcpfstest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/sessiontest"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
	"github.com/mcp-acpfs/mcp-acpfs/mcptransport"
)

// waitFor bounds every wait for a notification.
const waitFor = 10 * time.Second

// updates collects the notifications a client receives.
type updates struct {
	ch  chan mcp.JSONRPCNotification // notifications/resources/updated
	ack chan mcp.JSONRPCNotification // notifications/subscriptions/acknowledged
}

// watchUpdates registers a notification handler on c.
func watchUpdates(c *client.Client) *updates {
	u := &updates{ch: make(chan mcp.JSONRPCNotification, 100), ack: make(chan mcp.JSONRPCNotification, 10)}
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		switch n.Method {
		case mcp.MethodNotificationResourceUpdated:
			u.ch <- n
		case mcp.MethodNotificationSubscriptionsAcknowledged:
			u.ack <- n
		}
	})
	return u
}

// next waits for the next resources/updated notification and returns it.
func (u *updates) next(t *testing.T) mcp.JSONRPCNotification {
	t.Helper()
	select {
	case n := <-u.ch:
		return n
	case <-time.After(waitFor):
		t.Fatal("no notifications/resources/updated within", waitFor)
		return mcp.JSONRPCNotification{}
	}
}

// nextURI waits for the next resources/updated notification and returns its
// URI.
func (u *updates) nextURI(t *testing.T) string {
	t.Helper()
	uri, _ := u.next(t).Params.AdditionalFields["uri"].(string)
	return uri
}

// want waits for the next notification and checks that it is for uri: a
// notification still due for another file would arrive first, since
// notifications go out in the order their debounce delays end.
func (u *updates) want(t *testing.T, uri, why string) {
	t.Helper()
	if got := u.nextURI(t); got != uri {
		t.Fatalf("%s: got an update for %s, want %s", why, got, uri)
	}
}

func subscribe(t *testing.T, c *client.Client, uri string) error {
	t.Helper()
	var req mcp.SubscribeRequest
	req.Params.URI = uri
	return c.Subscribe(t.Context(), req)
}

func mustSubscribe(t *testing.T, c *client.Client, uri string) {
	t.Helper()
	if err := subscribe(t, c, uri); err != nil {
		t.Fatalf("subscribe %s: %v", uri, err)
	}
}

func unsubscribe(t *testing.T, c *client.Client, uri string) {
	t.Helper()
	var req mcp.UnsubscribeRequest
	req.Params.URI = uri
	if err := c.Unsubscribe(t.Context(), req); err != nil {
		t.Fatalf("unsubscribe %s: %v", uri, err)
	}
}

func readResource(t *testing.T, c *client.Client, uri string) (*mcp.ReadResourceResult, error) {
	t.Helper()
	var req mcp.ReadResourceRequest
	req.Params.URI = uri
	return c.ReadResource(t.Context(), req)
}

// readText reads uri and returns its one text content.
func readText(t *testing.T, c *client.Client, uri string) mcp.TextResourceContents {
	t.Helper()
	res, err := readResource(t, c, uri)
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	if len(res.Contents) != 1 {
		t.Fatalf("read %s: %d contents, want 1", uri, len(res.Contents))
	}
	tc, ok := mcp.AsTextResourceContents(res.Contents[0])
	if !ok {
		t.Fatalf("read %s: %T, want text", uri, res.Contents[0])
	}
	return *tc
}

// otherHostRefused is what the refusal of a file URI on the host
// example.com, with a local file's path, says: that the host is not this
// one, or on Windows, where another host names a share (RFC 8089,
// \\example.com\share), that the drive (C:) is no share's name.
var otherHostRefused = func() string {
	if runtime.GOOS == "windows" {
		return "cannot be a UNC path's server or share name"
	}
	return `host "example.com"`
}()

// wantErr checks that err is an error whose text has every one of parts.
func wantErr(t *testing.T, what string, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error", what)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %q does not contain %q", what, err, p)
		}
	}
}

// burst writes content to p with many small writes in quick succession,
// as an editor or a build tool might.
func burst(t *testing.T, p, content string) {
	t.Helper()
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		if _, err := f.WriteString(content + strconv.Itoa(i) + "\n"); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// inotifyWatches counts the inotify watches of this process, or returns -1
// where that cannot be seen (no /proc).
func inotifyWatches(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	n := 0
	for _, fd := range fds {
		if link, err := os.Readlink("/proc/self/fd/" + fd.Name()); err != nil || link != "anon_inode:inotify" {
			continue
		}
		info, err := os.ReadFile("/proc/self/fdinfo/" + fd.Name())
		if err != nil {
			continue // closed meanwhile
		}
		for line := range strings.Lines(string(info)) {
			if strings.HasPrefix(line, "inotify wd:") {
				n++
			}
		}
	}
	return n
}

// wantWatches checks the number of inotify watches, where it can be seen.
func wantWatches(t *testing.T, want int, why string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		return
	}
	got := inotifyWatches(t)
	switch {
	case got < 0:
		t.Logf("%s: cannot count inotify watches here", why)
	case got != want:
		t.Errorf("%s: %d inotify watches, want %d", why, got, want)
	}
}

// noGoroutinesLeft fails the test if goroutines begun after before are
// still running once they have had time to end (goleak's retries), naming
// them by their stacks.
func noGoroutinesLeft(t *testing.T, before goleak.Option, why string) {
	t.Helper()
	if err := goleak.Find(before); err != nil {
		t.Fatalf("%s: %v", why, err)
	}
}

func TestResourceTemplate(t *testing.T) {
	f := mcpfstest.NewFixture(t, false)
	for _, era := range mcpfstest.Eras {
		t.Run(era.Name, func(t *testing.T) {
			c := mcpfstest.Connect(t, f.Srv, era.Version)
			res, err := c.ListResourceTemplates(t.Context(), mcp.ListResourceTemplatesRequest{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.ResourceTemplates) != 1 {
				t.Fatalf("%d templates, want 1: %+v", len(res.ResourceTemplates), res.ResourceTemplates)
			}
			tpl := res.ResourceTemplates[0]
			if got := tpl.URITemplate.Raw(); got != "file://{+path}" {
				t.Errorf("template %q, want file://{+path}", got)
			}
			if mcpfs.FileResourceTemplate != "file://{+path}" {
				t.Errorf("FileResourceTemplate = %q", mcpfs.FileResourceTemplate)
			}
			if tpl.Name == "" || tpl.Description == "" {
				t.Errorf("template %+v has no name or description", tpl)
			}
			list, err := c.ListResources(t.Context(), mcp.ListResourcesRequest{})
			if err != nil {
				t.Fatal(err)
			}
			if len(list.Resources) != 0 {
				t.Errorf("resources/list = %+v, want none: files are reached through the template", list.Resources)
			}
		})
	}
}

func TestResourceCapability(t *testing.T) {
	f := mcpfstest.NewFixture(t, false)
	c, err := client.NewInProcessClient(f.Srv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	var req mcp.InitializeRequest
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	res, err := c.Initialize(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Capabilities.Resources; r == nil || !r.Subscribe || r.ListChanged {
		t.Errorf("resources capability %+v, want subscribe and no listChanged", r)
	}
}

func TestReadResource(t *testing.T) {
	f := mcpfstest.NewFixture(t, false, "root")
	f.WriteFile(t, "root/a.txt", "alpha\n")
	f.WriteFile(t, "root/dir with space/b%.txt", "beta\r\n")
	f.WriteFile(t, "outside.txt", "secret\n")
	f.WriteFile(t, "root/blob.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")
	a := f.Path("root/a.txt")
	for _, era := range mcpfstest.Eras {
		t.Run(era.Name, func(t *testing.T) {
			c := mcpfstest.Connect(t, f.Srv, era.Version)

			got := readText(t, c, fspath.FileURI(a))
			if got.Text != "alpha\n" || got.MIMEType != "text/plain" || got.URI != fspath.FileURI(a) {
				t.Errorf("read a.txt = %+v", got)
			}
			// Percent-encoded, with the host localhost.
			b := "file://localhost" + mcpfstest.URIPath(f.Path("root/dir with space")) + "/b%25.txt"
			if got := readText(t, c, b); got.Text != "beta\r\n" || got.URI != b {
				t.Errorf("read %s = %+v", b, got)
			}

			// The scheme in any case (RFC 3986, 3.1); the result names
			// the URI with it in lower case, its normal form.
			for _, scheme := range []string{"FILE://", "File://localhost"} {
				u := scheme + mcpfstest.URIPath(a)
				if got := readText(t, c, u); got.Text != "alpha\n" || got.URI != "file://"+u[len("file://"):] {
					t.Errorf("read %s = %+v", u, got)
				}
			}

			_, err := readResource(t, c, fspath.FileURI(f.Path("outside.txt")))
			wantErr(t, "outside the roots", err, fspath.FileURI(f.Path("outside.txt")), "outside the allowed roots")
			_, err = readResource(t, c, fspath.FileURI(f.Path("root/../outside.txt")))
			wantErr(t, "dot-dot out of the roots", err, "outside the allowed roots")
			// A path with no drive is on the working directory's drive on
			// Windows, as the tools take it: outside the roots everywhere.
			_, err = readResource(t, c, "file:///elsewhere/x.txt")
			wantErr(t, "a path with no drive", err, "outside the allowed roots")
			_, err = readResource(t, c, "file://example.com"+mcpfstest.URIPath(a))
			wantErr(t, "another host", err, otherHostRefused)
			_, err = readResource(t, c, fspath.FileURI(a)+"?x=1")
			wantErr(t, "a query", err, "query")
			_, err = readResource(t, c, fspath.FileURI(f.Path("root/missing.txt")))
			wantErr(t, "a missing file", err, "missing.txt")
			_, err = readResource(t, c, fspath.FileURI(f.Path("root")))
			wantErr(t, "a directory", err, "not a regular file")
			_, err = readResource(t, c, "https://example.com/a.txt")
			wantErr(t, "another scheme", err)

			png := fspath.FileURI(f.Path("root/blob.png"))
			res, err := readResource(t, c, png)
			if _, ok := any(f.Disk).(fsruntime.BinaryFS); !ok {
				wantErr(t, "a binary file without BinaryFS", err, png, "binary")
				return
			}
			if err != nil {
				t.Fatalf("read %s: %v", png, err)
			}
			blob, ok := mcp.AsBlobResourceContents(res.Contents[0])
			if !ok {
				t.Fatalf("read %s: %T, want a blob", png, res.Contents[0])
			}
			data, _ := base64.StdEncoding.DecodeString(blob.Blob)
			raw, _ := os.ReadFile(f.Path("root/blob.png"))
			if string(data) != string(raw) || blob.MIMEType != "image/png" || blob.URI != png {
				t.Errorf("read %s = %s, %d bytes, want image/png, %d bytes", png, blob.MIMEType, len(data), len(raw))
			}
		})
	}
}

func TestResourceSubscribeDebounced(t *testing.T) {
	f := mcpfstest.NewFixture(t, false)
	f.WriteFile(t, "a.txt", "a\n")
	f.WriteFile(t, "sub/b.txt", "b\n")
	a, b := fspath.FileURI(f.Path("a.txt")), fspath.FileURI(f.Path("sub/b.txt"))
	c := mcpfstest.Connect(t, f.Srv, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	u := watchUpdates(c)
	mustSubscribe(t, c, a)
	mustSubscribe(t, c, b)
	wantWatches(t, 2, "two files in two directories")

	burst(t, f.Path("a.txt"), "changed")
	n := u.next(t)
	if n.Params.AdditionalFields["uri"] != a {
		t.Fatalf("update %+v, want one for %s", n.Params, a)
	}
	// A second update for a.txt, if the burst gave one, would come before
	// the one for b.txt.
	burst(t, f.Path("sub/b.txt"), "changed")
	u.want(t, b, "a burst of writes gave more than one update")

	// A write through a temporary file renamed over the target.
	tmp := f.Path(".a.txt.tmp")
	if err := os.WriteFile(tmp, []byte("renamed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, f.Path("a.txt")); err != nil {
		t.Fatal(err)
	}
	u.want(t, a, "atomic rename")
	// So does the server's own write_text_file, which writes that way.
	readFirst(t, c, f.Path("sub/b.txt"))
	mcpfstest.WantOK(t, mcpfstest.Call(t, c, mcpfs.WriteTextFile, map[string]any{"path": f.Path("sub/b.txt"), "content": "tool\n"}))
	u.want(t, b, "write_text_file")
	// Removing the file, and creating it again.
	if err := os.Remove(f.Path("a.txt")); err != nil {
		t.Fatal(err)
	}
	u.want(t, a, "remove")
	f.WriteFile(t, "a.txt", "again\n")
	u.want(t, a, "create")
	// Metadata alone is no change.
	if err := os.Chmod(f.Path("a.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	burst(t, f.Path("sub/b.txt"), "last")
	u.want(t, b, "chmod")
}

func TestResourceUnsubscribe(t *testing.T) {
	f := mcpfstest.NewFixture(t, false)
	f.WriteFile(t, "a.txt", "a\n")
	f.WriteFile(t, "b.txt", "b\n")
	f.WriteFile(t, "sub/c.txt", "c\n")
	a, b, cURI := fspath.FileURI(f.Path("a.txt")), fspath.FileURI(f.Path("b.txt")), fspath.FileURI(f.Path("sub/c.txt"))
	before := goleak.IgnoreCurrent()
	c := mcpfstest.Connect(t, f.Srv, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	u := watchUpdates(c)
	for _, uri := range []string{a, b, cURI} {
		mustSubscribe(t, c, uri)
	}
	mustSubscribe(t, c, a) // twice is once
	wantWatches(t, 2, "three files in two directories")

	unsubscribe(t, c, a)
	wantWatches(t, 2, "b.txt still needs its directory")
	burst(t, f.Path("a.txt"), "x")
	burst(t, f.Path("b.txt"), "x")
	u.want(t, b, "a.txt was unsubscribed")

	unsubscribe(t, c, cURI)
	wantWatches(t, 1, "no file of sub/ is subscribed")
	unsubscribe(t, c, cURI)                                                        // again: nothing
	unsubscribe(t, c, fspath.FileURI(f.Path("never.txt")))                         // never subscribed: nothing
	unsubscribe(t, c, "file://example.com"+mcpfstest.URIPath(f.Path("never.txt"))) // not even ours: nothing
	burst(t, f.Path("sub/c.txt"), "x")
	burst(t, f.Path("b.txt"), "y")
	u.want(t, b, "sub/c.txt was unsubscribed")

	// Another spelling of the same file ends the subscription too.
	unsubscribe(t, c, "file://localhost"+mcpfstest.URIPath(f.Path("b.txt")))
	wantWatches(t, 0, "nothing is subscribed")
	// The watcher is gone with the last subscription; the client's own
	// goroutines remain.
	c.Close()
	noGoroutinesLeft(t, before, "every subscription and the client ended")
}

func TestResourceSubscriptionsEndWithSession(t *testing.T) {
	f := mcpfstest.NewFixture(t, false)
	f.WriteFile(t, "a.txt", "a\n")
	f.WriteFile(t, "sub/b.txt", "b\n")
	a, b := fspath.FileURI(f.Path("a.txt")), fspath.FileURI(f.Path("sub/b.txt"))
	before := goleak.IgnoreCurrent()

	c1 := mcpfstest.Connect(t, f.Srv, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	c2 := mcpfstest.Connect(t, f.Srv, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	u1, u2 := watchUpdates(c1), watchUpdates(c2)
	mustSubscribe(t, c1, a)
	mustSubscribe(t, c1, b)
	mustSubscribe(t, c2, a)
	wantWatches(t, 2, "two directories")
	burst(t, f.Path("a.txt"), "x")
	u1.want(t, a, "first client")
	u2.want(t, a, "second client")

	// The first session ends: its subscriptions go, the second's stay.
	c1.Close()
	wantWatches(t, 1, "only a.txt of the second client is left")
	burst(t, f.Path("a.txt"), "y")
	u2.want(t, a, "second client after the first left")

	c2.Close()
	wantWatches(t, 0, "every session ended")
	noGoroutinesLeft(t, before, "every session ended")
	select {
	case n := <-u1.ch:
		t.Errorf("a closed client got %+v", n)
	default:
	}
}

func TestResourceSubscribeRefused(t *testing.T) {
	f := mcpfstest.NewFixture(t, false, "root")
	f.WriteFile(t, "root/a.txt", "a\n")
	f.WriteFile(t, "outside.txt", "x\n")
	c := mcpfstest.Connect(t, f.Srv, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	outside := fspath.FileURI(f.Path("outside.txt"))
	wantErr(t, "outside the roots", subscribe(t, c, outside), outside, "outside the allowed roots")
	wantErr(t, "a path with no drive", subscribe(t, c, "file:///elsewhere/x.txt"), "outside the allowed roots")
	if f.Symlinks(t) {
		f.Symlink(t, f.Path("outside.txt"), "root/link.txt")
		wantErr(t, "a symlink out of the roots", subscribe(t, c, fspath.FileURI(f.Path("root/link.txt"))), "outside the allowed roots")
	}
	wantErr(t, "another host", subscribe(t, c, "file://example.com"+mcpfstest.URIPath(f.Path("root/a.txt"))), otherHostRefused)
	wantErr(t, "another scheme", subscribe(t, c, "https://example.com/a.txt"), "not a file:// URI")
	wantErr(t, "a directory", subscribe(t, c, fspath.FileURI(f.Path("root"))), "is a directory")
	wantErr(t, "a missing directory", subscribe(t, c, fspath.FileURI(f.Path("root/no/such.txt"))), "does not exist")
	wantWatches(t, 0, "every subscription was refused")

	// A file that does not exist yet, in a directory that does, is fine:
	// its creation is a change.
	u := watchUpdates(c)
	later := fspath.FileURI(f.Path("root/later.txt"))
	mustSubscribe(t, c, later)
	f.WriteFile(t, "root/later.txt", "here\n")
	u.want(t, later, "creating a subscribed file")
}

func TestResourceUnwatchedDirectories(t *testing.T) {
	// The root lies in a directory named build, which does not count.
	f := mcpfstest.NewFixture(t, false, "build/project")
	files := []string{"build/project/node_modules/x/index.js", "build/project/.git/HEAD", "build/project/dist/out.js",
		"build/project/src/__pycache__/m.pyc", "build/project/.next/page.js", "build/project/build/a.o"}
	for _, rel := range files {
		f.WriteFile(t, rel, "x\n")
	}
	f.WriteFile(t, "build/project/main.go", "package main\n")
	c := mcpfstest.Connect(t, f.Srv, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	u := watchUpdates(c)
	for _, rel := range files {
		mustSubscribe(t, c, fspath.FileURI(f.Path(rel))) // accepted, never notified
	}
	wantWatches(t, 0, "only unwatched directories")
	main := fspath.FileURI(f.Path("build/project/main.go"))
	mustSubscribe(t, c, main)
	wantWatches(t, 1, "main.go's directory")
	for _, rel := range files {
		burst(t, f.Path(rel), "changed")
	}
	burst(t, f.Path("build/project/main.go"), "// changed")
	u.want(t, main, "an unwatched directory notified")
}

// TestResourceListenStateless: protocol 2026-07-28 has no
// resources/subscribe; a subscriptions/listen stream names the resources.
func TestResourceListenStateless(t *testing.T) {
	f := mcpfstest.NewFixture(t, false, "root")
	f.WriteFile(t, "root/a.txt", "a\n")
	f.WriteFile(t, "outside.txt", "x\n")
	a := fspath.FileURI(f.Path("root/a.txt"))
	before := goleak.IgnoreCurrent()
	c := mcpfstest.Connect(t, f.Srv, mcp.LATEST_PROTOCOL_VERSION)
	u := watchUpdates(c)

	// The removed RPC (mcp-go's client only records the URI for the next
	// stream) is answered -32601, and subscribes nothing.
	raw := `{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":` + strconv.Quote(a) +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"` + mcp.LATEST_PROTOCOL_VERSION +
		`","io.modelcontextprotocol/clientCapabilities":{}}}}`
	resp, _ := json.Marshal(f.Srv.HandleMessage(t.Context(), json.RawMessage(raw)))
	if !strings.Contains(string(resp), `"code":-32601`) {
		t.Errorf("a stateless resources/subscribe = %s, want -32601", resp)
	}
	wantWatches(t, 0, "a stateless resources/subscribe")

	outside := fspath.FileURI(f.Path("outside.txt"))
	err := c.Listen(t.Context(), mcp.SubscriptionFilter{ResourceSubscriptions: []string{outside}})
	wantErr(t, "listen outside the roots", err, outside, "outside the allowed roots")

	stop, err := c.ListenAsync(t.Context(), mcp.SubscriptionFilter{ResourceSubscriptions: []string{a}}, func(err error) {
		t.Errorf("listen: %v", err)
	})
	if err != nil {
		t.Fatal(err)
	}
	var ack mcp.JSONRPCNotification
	select {
	case ack = <-u.ack:
	case <-time.After(waitFor):
		t.Fatal("the stream was not acknowledged")
	}
	wantWatches(t, 1, "a listen stream")
	burst(t, f.Path("root/a.txt"), "x")
	n := u.next(t)
	if n.Params.AdditionalFields["uri"] != a {
		t.Errorf("update %+v, want %s", n.Params, a)
	}
	if id := n.Params.Meta[mcp.MetaKeySubscriptionID]; id == nil || id != ack.Params.Meta[mcp.MetaKeySubscriptionID] {
		t.Errorf("update tagged %v, want the stream's id %v", id, ack.Params.Meta[mcp.MetaKeySubscriptionID])
	}
	stop()
	wantWatches(t, 0, "the stream ended")
	c.Close()
	noGoroutinesLeft(t, before, "the stream and the client ended")
}

// TestResourceThroughEditor: a resource read goes the way read_text_file
// does, so an ACP session's read returns the editor's unsaved buffer, and
// subscriptions are confined to the session's roots.
func TestResourceThroughEditor(t *testing.T) {
	ed := &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS()}
	b := sessiontest.NewBridge(t, ed)
	dirA, dirB := sessiontest.Workspace(t, ed, "A"), sessiontest.Workspace(t, ed, "B")
	s := sessiontest.OpenSession(t, b, dirA, "sess-A")
	c := mcpfstest.Connect(t, s.MCPServer(), mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	main := fspath.FileURI(filepath.Join(dirA, "main.go"))
	if got := readText(t, c, main); got.Text != "// A unsaved\n" {
		t.Errorf("read %s = %q, want the editor's buffer", main, got.Text)
	}
	other := fspath.FileURI(filepath.Join(dirB, "main.go"))
	_, err := readResource(t, c, other)
	wantErr(t, "another session's file", err, "outside the allowed roots")
	wantErr(t, "subscribing to another session's file", subscribe(t, c, other), "outside the allowed roots")

	u := watchUpdates(c)
	mustSubscribe(t, c, main)
	if err := os.WriteFile(filepath.Join(dirA, "main.go"), []byte("// saved\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	u.want(t, main, "a change on disk")
}

// binaryDisk is a Disk that also reads bytes, as fsruntime.BinaryFS.
type binaryDisk struct{ *fsruntime.Disk }

func (d binaryDisk) ReadFile(ctx context.Context, path string, max int64) ([]byte, error) {
	if err := d.Check(path); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err == nil && int64(len(data)) > max {
		return nil, &fs.PathError{Op: "read", Path: path, Err: &fsruntime.TooLargeError{Size: int64(len(data)), Limit: max}}
	}
	return data, err
}

func TestReadResourceBinary(t *testing.T) {
	f := mcpfstest.NewFixture(t, false)
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
	f.WriteFile(t, "pixel.png", png)
	f.WriteFile(t, "big.bin", "\x00"+strings.Repeat("x", mcpfstest.TestMaxFileSize))
	srv, err := mcpfs.NewServer(mcpfs.Files{WorkDir: f.Dir, FS: binaryDisk{f.Disk}, MaxFileSize: mcpfstest.TestMaxFileSize}, mcpfs.Options{Tools: mcpfstest.Structured})
	if err != nil {
		t.Fatal(err)
	}
	c := mcpfstest.Connect(t, srv, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	uri := fspath.FileURI(f.Path("pixel.png"))
	res, err := readResource(t, c, uri)
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	blob, ok := mcp.AsBlobResourceContents(res.Contents[0])
	if !ok {
		t.Fatalf("read %s: %T, want a blob", uri, res.Contents[0])
	}
	if data, _ := base64.StdEncoding.DecodeString(blob.Blob); string(data) != png || blob.MIMEType != "image/png" || blob.URI != uri {
		t.Errorf("read %s = %s, %q", uri, blob.MIMEType, data)
	}
	_, err = readResource(t, c, fspath.FileURI(f.Path("big.bin")))
	wantErr(t, "a binary file over the limit", err, "big.bin", "too large")
}

// TestResourceSubscribeOverStreams: the stream transports end a client's
// subscriptions when the client goes, and deliver the updates.
func TestResourceSubscribeOverStreams(t *testing.T) {
	transports := []struct {
		name  string
		serve func(ctx context.Context, srv *server.MCPServer, conn net.Conn) error
	}{
		{"ServeStream", func(ctx context.Context, srv *server.MCPServer, conn net.Conn) error {
			return mcptransport.ServeStream(ctx, srv, conn, mcptransport.Options{})
		}},
		{"ServeStdio", func(ctx context.Context, srv *server.MCPServer, conn net.Conn) error {
			defer conn.Close()
			return mcptransport.ServeStdio(ctx, srv, conn, conn, mcptransport.Options{})
		}},
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			f := mcpfstest.NewFixture(t, false)
			f.WriteFile(t, "a.txt", "a\n")
			a := fspath.FileURI(f.Path("a.txt"))
			clientEnd, serverEnd := net.Pipe()
			served := make(chan error, 1)
			go func() { served <- tr.serve(context.WithoutCancel(t.Context()), f.Srv, serverEnd) }()
			c := client.NewClient(transport.NewIO(clientEnd, clientEnd, nil))
			t.Cleanup(func() { c.Close() })
			if err := c.Start(t.Context()); err != nil {
				t.Fatal(err)
			}
			var req mcp.InitializeRequest
			req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
			if _, err := c.Initialize(t.Context(), req); err != nil {
				t.Fatal(err)
			}
			u := watchUpdates(c)
			mustSubscribe(t, c, a)
			wantErr(t, "outside the roots", subscribe(t, c, fspath.FileURI(ostest.HostPath("/etc/hostname"))), "outside the allowed roots")
			burst(t, f.Path("a.txt"), "x")
			u.want(t, a, "an update over "+tr.name)

			c.Close()
			select {
			case <-served:
			case <-time.After(waitFor):
				t.Fatal(tr.name, "did not return when the client went")
			}
			wantWatches(t, 0, "the client went")
		})
	}
}
