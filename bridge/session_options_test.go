package bridge

import (
	"testing"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
)

// A session's disk is opened with the bridge's options: --no-fsync,
// --allow-hard-links and --max-file-size of `mcp-acpfs proxy` reach the
// disk of every session (the flags reach BridgeOptions in cmd's tests, and
// the disk honours them in runtime's).
func TestOpenSessionDiskOptions(t *testing.T) {
	for _, opts := range []BridgeOptions{
		{},
		{NoSync: true},
		{AllowHardLinks: true, MaxFileSize: 3 << 20},
		{NoSync: true, AllowHardLinks: true, MaxFileSize: 1 << 10},
	} {
		b := NewBridge(nil, opts)
		s, err := b.OpenSession(SessionParams{Cwd: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		want := fsruntime.DiskOptions{MaxFileSize: opts.MaxFileSize, AllowHardLinks: opts.AllowHardLinks, NoSync: opts.NoSync}
		if want.MaxFileSize == 0 {
			want.MaxFileSize = fsruntime.DefaultMaxFileSize
		}
		if got := s.disk.Options(); got != want {
			t.Errorf("BridgeOptions %+v: the session's disk has %+v, want %+v", opts, got, want)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
