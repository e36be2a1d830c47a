package fsruntimetest_test

import (
	"path/filepath"
	"strconv"

	"github.com/mcp-acpfs/mcp-acpfs/internal/ostest"
)

// inMem returns rel, written with /, in memDir, as the kit names it.
func inMem(rel string) string { return filepath.Join(memDir, filepath.FromSlash(rel)) }

// q quotes p as the kit's reports do (%q).
func q(p string) string { return strconv.Quote(p) }

// badArgs are paths the kit refuses as a directory or a root: empty,
// relative or unclean in the running OS's syntax, and, where that is not
// Unix syntax, the Unix absolute paths, which are not absolute there.
func badArgs() []string {
	bad := []string{"", "rel", ostest.HostPath("/a/../b"), ostest.HostPath("/a/")}
	for _, p := range []string{"/a/../b", "/a/", "/a"} {
		if ostest.HostPath(p) != p {
			bad = append(bad, p)
		}
	}
	return bad
}
