//go:build linux

package realagents

import (
	"os"
	"slices"
	"sync"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
	"github.com/mcp-acpfs/mcp-acpfs/mcpfs"
)

// steeredTools returns the acpfs tools that a's steered sessions offer,
// by their own names, sorted: its profile's, or all of them where mcpfs
// does not honour ToolOptions.Only.
func steeredTools(a agent) []string {
	if a.offered == nil || !onlyHonoured() {
		return acpfsTools
	}
	return slices.Sorted(slices.Values(a.offered))
}

// onlyHonoured reports whether an mcpfs server leaves out the tools that
// ToolOptions.Only does not name.
var onlyHonoured = sync.OnceValue(func() bool {
	d, err := fsruntime.OpenDisk([]string{os.TempDir()}, fsruntime.DiskOptions{})
	if err != nil {
		panic(err)
	}
	defer d.Close()
	srv, err := mcpfs.NewServer(mcpfs.DiskFiles(d, false), mcpfs.Options{Tools: mcpfs.ToolOptions{Only: []string{mcpfs.ReadTextFile}}})
	if err != nil {
		panic(err)
	}
	return len(srv.ListTools()) == 1
})
