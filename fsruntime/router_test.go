package fsruntime_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/mcp-acpfs/mcp-acpfs/capabilities"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fsruntimetest"
	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
)

// routerFixture is a session whose editor buffers differ from the disk.
type routerFixture struct {
	dir    string
	ed     *fsruntimetest.Editor
	disk   *fsruntime.Disk
	logBuf *bytes.Buffer
}

func newRouterFixture(t *testing.T) *routerFixture {
	t.Helper()
	f := &routerFixture{dir: realTempDir(t), ed: &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS()}, logBuf: &bytes.Buffer{}}
	writeFile(t, filepath.Join(f.dir, "main.go"), "package main // on disk\n")
	backdate(t, filepath.Join(f.dir, "main.go")) // unsaved changes, not a reload pending
	f.ed.Buffers.WriteTextFile(t.Context(), filepath.Join(f.dir, "main.go"), "package main // unsaved buffer\n")
	f.disk = openDisk(t, fsruntime.DiskOptions{}, f.dir)
	return f
}

func (f *routerFixture) router(t *testing.T, read, write bool, policy capabilities.Policy) *fsruntime.Router {
	var client capabilities.Client
	client.FS.ReadTextFile, client.FS.WriteTextFile = read, write
	return fsruntime.NewRouter(fsruntime.RouterOptions{
		Disk:   f.disk,
		Editor: fsruntime.NewEditor(dialFakeEditor(t, f.ed), fsruntime.EditorOptions{SessionID: fixedSession("sess_r")}),
		Client: client,
		Policy: policy,
		Log:    slog.New(slog.NewTextHandler(f.logBuf, nil)),
	})
}

func TestRouterReadsUnsavedBufferWhenAdvertised(t *testing.T) {
	f := newRouterFixture(t)
	r := f.router(t, true, true, capabilities.PolicyAuto)
	got, err := r.ReadTextFile(t.Context(), filepath.Join(f.dir, "main.go"), 0, 0)
	if err != nil || got != "package main // unsaved buffer\n" {
		t.Fatalf("read = %q, %v; want the buffer", got, err)
	}
	if err := r.WriteTextFile(t.Context(), filepath.Join(f.dir, "main.go"), "edited\n"); err != nil {
		t.Fatal(err)
	}
	if buf, _ := f.ed.Buffers.Get(filepath.Join(f.dir, "main.go")); buf != "edited\n" {
		t.Errorf("editor buffer = %q", buf)
	}
	if disk := readFile(t, filepath.Join(f.dir, "main.go")); disk != "package main // on disk\n" {
		t.Errorf("disk changed to %q", disk)
	}
}

func TestRouterUsesDiskWhenEditorCannotWrite(t *testing.T) {
	f := newRouterFixture(t)
	r := f.router(t, true, false, capabilities.PolicyAuto)
	if err := r.WriteTextFile(t.Context(), filepath.Join(f.dir, "main.go"), "to disk\n"); err != nil {
		t.Fatal(err)
	}
	if disk := readFile(t, filepath.Join(f.dir, "main.go")); disk != "to disk\n" {
		t.Errorf("disk = %q", disk)
	}
	for _, c := range f.ed.Requests() {
		if c.Method == fsruntime.MethodWriteTextFile {
			t.Errorf("the editor was sent %s without advertising it", c.Method)
		}
	}
}

func TestRouterUsesDiskWithoutFSCapability(t *testing.T) {
	f := newRouterFixture(t)
	r := f.router(t, false, false, capabilities.PolicyAuto)
	got, err := r.ReadTextFile(t.Context(), filepath.Join(f.dir, "main.go"), 0, 0)
	if err != nil || got != "package main // on disk\n" {
		t.Fatalf("read = %q, %v; want the disk", got, err)
	}
	if calls := f.ed.Requests(); len(calls) != 0 {
		t.Errorf("editor got calls %v", calls)
	}
}

func TestRouterPolicies(t *testing.T) {
	f := newRouterFixture(t)
	// disk: never the editor, even when advertised.
	got, err := f.router(t, true, true, capabilities.PolicyDisk).ReadTextFile(t.Context(), filepath.Join(f.dir, "main.go"), 0, 0)
	if err != nil || !strings.Contains(got, "on disk") {
		t.Errorf("policy disk read = %q, %v", got, err)
	}
	// editor: an operation the client did not advertise is refused, and
	// nothing is sent.
	r := f.router(t, false, false, capabilities.PolicyEditor)
	if _, err := r.ReadTextFile(t.Context(), filepath.Join(f.dir, "main.go"), 0, 0); !errors.Is(err, fsruntime.ErrNotAdvertised) {
		t.Errorf("policy editor without capability: err = %v", err)
	}
	if err := r.WriteTextFile(t.Context(), filepath.Join(f.dir, "x"), "y"); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("policy editor write without capability: err = %v", err)
	}
	if calls := f.ed.Requests(); len(calls) != 0 {
		t.Errorf("editor got calls %v", calls)
	}
}

func TestRouterFallsBackOnceOnMethodNotFound(t *testing.T) {
	f := newRouterFixture(t)
	f.ed.Fail = func(string, json.RawMessage) *jsonrpc2.Error {
		return &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "Method not found"}
	}
	r := f.router(t, true, true, capabilities.PolicyAuto)
	for range 3 {
		got, err := r.ReadTextFile(t.Context(), filepath.Join(f.dir, "main.go"), 0, 0)
		if err != nil || !strings.Contains(got, "on disk") {
			t.Fatalf("read after -32601 = %q, %v; want the disk", got, err)
		}
	}
	if n := len(f.ed.Requests()); n != 1 {
		t.Errorf("the editor was asked %d times, want once", n)
	}
	if n := strings.Count(f.logBuf.String(), "using disk"); n != 1 {
		t.Errorf("fallback logged %d times, want once:\n%s", n, f.logBuf)
	}
	if r.Route(capabilities.OpRead) != capabilities.RouteDisk || r.Route(capabilities.OpWrite) != capabilities.RouteEditor {
		t.Errorf("routes after a read fallback: read %v, write %v", r.Route(capabilities.OpRead), r.Route(capabilities.OpWrite))
	}
}

func TestRouterDoesNotFallBackOnOtherEditorErrors(t *testing.T) {
	f := newRouterFixture(t)
	f.ed.Fail = func(string, json.RawMessage) *jsonrpc2.Error {
		return &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: "invalid path"}
	}
	r := f.router(t, true, true, capabilities.PolicyAuto)
	if _, err := r.ReadTextFile(t.Context(), filepath.Join(f.dir, "main.go"), 0, 0); err == nil || !strings.Contains(err.Error(), "invalid path") {
		t.Errorf("read = %v, want the editor's refusal", err)
	}
	if err := r.WriteTextFile(t.Context(), filepath.Join(f.dir, "main.go"), "x"); err == nil {
		t.Error("write succeeded after the editor refused it")
	}
	if disk := readFile(t, filepath.Join(f.dir, "main.go")); disk != "package main // on disk\n" {
		t.Errorf("disk changed to %q", disk)
	}
}

func TestRouterChecksRootsBeforeSending(t *testing.T) {
	base, root, links := attackFixture(t)
	ed := &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS()}
	var client capabilities.Client
	client.FS.ReadTextFile, client.FS.WriteTextFile = true, true
	r := fsruntime.NewRouter(fsruntime.RouterOptions{
		Disk:   openDisk(t, fsruntime.DiskOptions{}, root),
		Editor: fsruntime.NewEditor(dialFakeEditor(t, ed), fsruntime.EditorOptions{SessionID: fixedSession("s")}),
		Client: client,
	})
	refused := func(t *testing.T, paths ...string) {
		t.Helper()
		for _, p := range paths {
			if _, err := r.ReadTextFile(t.Context(), p, 0, 0); !errors.Is(err, fsruntime.ErrOutsideRoots) {
				t.Errorf("read %s: err = %v", p, err)
			}
			if err := r.WriteTextFile(t.Context(), p, "x"); !errors.Is(err, fsruntime.ErrOutsideRoots) {
				t.Errorf("write %s: err = %v", p, err)
			}
		}
	}
	refused(t, filepath.Join(base, "root_backup/secret.txt"), filepath.Join(base, "outside/secret.txt"))
	t.Run("symlinks", func(t *testing.T) {
		ostest.SkipWithoutSymlinks(t, links)
		refused(t, filepath.Join(root, "link_file"), filepath.Join(root, "link_dir/x"), filepath.Join(root, "parent_link/new.txt"))
	})
	if calls := ed.Requests(); len(calls) != 0 {
		t.Errorf("the editor was sent paths outside the roots: %v", calls)
	}
	if err := fsruntimetest.TestRoots(t.Context(), r, filepath.Join(root, "sub/in.txt"), filepath.Join(base, "outside/new.txt")); err != nil {
		t.Error(err)
	}
}

func TestRouterConformance(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		read, write bool
	}{{"editor", true, true}, {"disk", false, false}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := realTempDir(t)
			ed := &fsruntimetest.Editor{Buffers: fsruntimetest.NewMemFS()}
			var client capabilities.Client
			client.FS.ReadTextFile, client.FS.WriteTextFile = tc.read, tc.write
			r := fsruntime.NewRouter(fsruntime.RouterOptions{
				Disk:   openDisk(t, fsruntime.DiskOptions{}, dir),
				Editor: fsruntime.NewEditor(dialFakeEditor(t, ed), fsruntime.EditorOptions{SessionID: fixedSession("s")}),
				Client: client,
			})
			if err := fsruntimetest.TestFS(t.Context(), r, dir); err != nil {
				t.Fatal(err)
			}
		})
	}
}
