package fsruntime_test

import (
	"path/filepath"
	"runtime"
	"strings"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime/fspath"
)

// The helpers here, with those of internal/ostest, let the tests run in
// the syntax and on the file systems of every OS: a fixture written as a
// Unix path means the same path on drive C: on Windows (ostest.HostPath),
// and what needs symbolic links (ostest.NeedSymlinks), or the permission
// bits that Windows does not keep (ostest.ChmodKept), is checked where the
// platform has them.

// hostURI returns uri, a file URI written for a Unix path (file:///w/a,
// file://localhost/w/a, file:/w/a), with its path moved to drive C: on
// Windows as ostest.HostPath does (file:///C:/w/a). A URI with no path or
// with another host, or on Unix, is returned as it is.
func hostURI(uri string) string {
	const scheme = "file:"
	if runtime.GOOS != "windows" || !strings.EqualFold(uri[:min(len(uri), len(scheme))], scheme) {
		return uri
	}
	i := len(scheme) // the path's start
	if strings.HasPrefix(uri[i:], "//") {
		host, _, ok := strings.Cut(uri[i+2:], "/")
		if !ok || host != "" && !strings.EqualFold(host, "localhost") {
			return uri // no path, or a share's (file://server/share/a)
		}
		i += 2 + len(host)
	}
	if !strings.HasPrefix(uri[i:], "/") {
		return uri
	}
	return uri[:i] + "/C:" + uri[i:]
}

// uriPath returns the path part of the file URI of the absolute path p, as
// it follows "file://": p itself on Unix (/tmp/x), /C:/tmp/x on Windows. A
// test appends to it what a URI's path may hold (%2e%2e, /..) and puts a
// scheme and host of its choosing before it.
func uriPath(p string) string {
	return strings.TrimPrefix(fspath.FileURI(p), "file://")
}

// slashRel returns p without the leading root and separator, in slashes:
// the key a test gives a path it found under root. p that is not below
// root is returned as it is.
func slashRel(root, p string) string {
	return filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
}
