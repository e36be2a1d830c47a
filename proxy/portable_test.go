package proxy

import (
	"encoding/json"
	"os"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// The helpers here, with those of internal/ostest, let the package's own
// tests run in the path syntax and on the file systems of every OS: a
// fixture written as a Unix path means the same path on drive C: on
// Windows (ostest.HostPath).

// shortFileURI matches file:/ and the first character of the path of a
// file URI in the short form, file:/w/a.txt.
var shortFileURI = regexp.MustCompile(`file:/([^/])`)

// hostJSON returns text, JSON whose absolute fixtures are Unix paths, with
// them moved to drive C: on Windows as ostest.HostPath does, but in
// slashes, which Windows takes too (C:/w/a.txt): every string that starts
// with / (at any depth of quoting, as in an argument list sent as text),
// and the paths of file URIs (file:///w/a is file:///C:/w/a, file:/w/a is
// file:/C:/w/a). A URI with a host is left alone. On Unix text is returned
// as it is.
func hostJSON(text string) string {
	if runtime.GOOS != "windows" {
		return text
	}
	text = strings.ReplaceAll(text, `"/`, `"C:/`)
	text = strings.ReplaceAll(text, "file:///", "file:///C:/")
	return shortFileURI.ReplaceAllString(text, "file:/C:/$1")
}

// jsonString returns s as a JSON string.
func jsonString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// permissionsKept reports whether the file system of dir keeps a file's
// permission bits as they are set: it sets a file's to 0604 and reads them
// back. Windows keeps only a read-only attribute (and says 0666 here).
func permissionsKept(t *testing.T, dir string) bool {
	t.Helper()
	f, err := os.CreateTemp(dir, "perm-probe-")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	defer os.Remove(f.Name())
	if err := os.Chmod(f.Name(), 0o604); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return info.Mode().Perm() == 0o604
}
