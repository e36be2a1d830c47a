package fspath

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"strings"
)

// Limits on a path, as Linux has them: a name (one component) of at most
// NAME_MAX bytes, and a whole path shorter than PATH_MAX, which counts the
// terminating NUL.
const (
	NameMax = 255
	pathMax = 4096
)

var (
	// ErrEmpty: the path is empty. It matches fs.ErrInvalid.
	ErrEmpty = invalid{errors.New("empty path: " + fs.ErrInvalid.Error())}
	// ErrNUL: the path holds a NUL byte. It matches fs.ErrInvalid.
	ErrNUL = invalid{errors.New("path contains a NUL byte: " + fs.ErrInvalid.Error())}

	errRelativePath = errors.New("path is not absolute: " + fs.ErrInvalid.Error())
	errUncleanPath  = errors.New("path is not clean (it has . or .. components, or repeated separators): " + fs.ErrInvalid.Error())
)

// invalid wraps a message so that it matches fs.ErrInvalid.
type invalid struct{ err error }

func (e invalid) Error() string { return e.err.Error() }
func (e invalid) Unwrap() error { return fs.ErrInvalid }

// Abs resolves p for a session whose working directory is workDir, in the
// running OS's syntax, without touching the file system: a file URI, an
// absolute path or one relative to workDir becomes an absolute, clean
// path, by the rules in the package doc. Anything else is a *fs.PathError
// (op "resolve") that wraps fs.ErrInvalid and names the cause. Abs does
// not check roots; the FS does. Use [AbsFile] where the path must name a
// file; a leading ~ is a name: see [ExpandHome].
func Abs(workDir, p string) (string, error) { return hostPaths.abs(workDir, p) }

// abs is [Abs] in the syntax of f.
func (f flavor) abs(workDir, p string) (string, error) {
	fail := func(err error) (string, error) {
		if _, ok := err.(invalid); !ok {
			err = invalid{err}
		}
		return "", &fs.PathError{Op: "resolve", Path: p, Err: err}
	}
	switch {
	case p == "":
		return fail(ErrEmpty)
	case strings.IndexByte(p, 0) >= 0:
		return fail(ErrNUL)
	}
	name := p
	if isFileURI(p) {
		var err error
		if name, err = f.fileURIPath(p); err != nil {
			return fail(err)
		}
		if strings.IndexByte(name, 0) >= 0 {
			return fail(ErrNUL)
		}
	}
	var abs string
	switch {
	case f == windowsPaths:
		var err error
		if abs, err = absWin(workDir, name); err != nil {
			return fail(err)
		}
	case f.isAbs(name):
		abs = path.Clean(name)
	case !f.isAbs(workDir):
		return fail(errRelativePath)
	default:
		abs = path.Join(workDir, name)
	}
	if err := f.checkNames(abs); err != nil {
		return fail(err)
	}
	return abs, nil
}

// ExpandHome returns p with a leading "~" or "~/" standing for home, the
// user's home directory, which the caller looks up once
// (os.UserHomeDir): "~/notes.txt" is notes.txt in home. "~user/x" and a ~
// anywhere else stay ordinary names. An empty or relative home leaves p as
// it is. The roots apply to the result as to any path.
func ExpandHome(home, p string) string { return hostPaths.expandHome(home, p) }

// ErrNamesDir refuses a path that ends in a separator where a file is
// needed. It matches fs.ErrInvalid.
var ErrNamesDir = invalid{errors.New("not a regular file: a path that ends in / or /. names a directory")}

// AbsFile is [Abs] for a path that must name a file, as the path of a
// read or a write of a file's content does. A path that ends in a
// separator, or in a "." component, names a directory, as in POSIX
// ("file.txt/" names no file): it is refused with a *fs.PathError (op
// "resolve") that wraps [ErrNamesDir], where Abs would drop the
// separator and name the file.
func AbsFile(workDir, p string) (string, error) { return hostPaths.absFile(workDir, p) }

// absFile is [AbsFile] in the syntax of f.
func (f flavor) absFile(workDir, p string) (string, error) {
	abs, err := f.abs(workDir, p)
	if err != nil {
		return "", err
	}
	if f.namesDir(p) {
		return "", &fs.PathError{Op: "resolve", Path: p, Err: ErrNamesDir}
	}
	return abs, nil
}

// NamesDir reports whether the path argument p, a path or a file:// URI
// as [Abs] takes it, ends in a separator or in a "." component. In POSIX
// such a path must name a directory (a symlink at its end is followed):
// on a file, "file.txt/" is "not a directory" (ENOTDIR). Abs drops the
// ending with the cleaning, so a caller that acts on whatever lies at the
// path checks the kind when NamesDir holds; [AbsFile] refuses such a path
// outright. NamesDir is false for a URI that Abs refuses.
func NamesDir(p string) bool { return hostPaths.namesDir(p) }

// namesDir is [NamesDir] in the syntax of f.
func (f flavor) namesDir(p string) bool {
	name := p
	if isFileURI(p) {
		var err error
		if name, err = f.fileURIPath(p); err != nil {
			return false
		}
	}
	return f.hasSepSuffix(name)
}

// IsFileURI reports whether p starts with file:// (the scheme in any
// case): [Abs] takes such a p for the path the URI names.
func IsFileURI(p string) bool {
	const scheme = "file://"
	return len(p) >= len(scheme) && strings.EqualFold(p[:len(scheme)], scheme)
}

// FileURI returns the file:// URI of p, an absolute, clean path in the
// running OS's syntax, percent-encoded where a path's characters need it:
// the URI [Abs] resolves back to p. On Windows C:\a is file:///C:/a and
// \\server\share\a is file://server/share/a (RFC 8089).
func FileURI(p string) string { return hostPaths.fileURI(p) }

// fileURI is [FileURI] in the syntax of f.
func (f flavor) fileURI(p string) string {
	u := url.URL{Scheme: "file", Path: p}
	if f == windowsPaths {
		if v, err := parseWin(p); err == nil && v.kind == winAbsolute {
			rest := strings.ReplaceAll(v.rest, `\`, "/")
			if server, share, ok := strings.Cut(strings.TrimPrefix(v.volume, `\\`), `\`); ok {
				u.Host, u.Path = server, "/"+share+rest
			} else {
				u.Path = "/" + v.volume + rest
			}
		}
	}
	return u.String()
}

// isFileURI reports whether [Abs] takes p for a file URI: file:// as
// [IsFileURI], or file:/ followed by a path, RFC 8089's short form.
func isFileURI(p string) bool {
	const scheme = "file:/"
	return len(p) >= len(scheme) && strings.EqualFold(p[:len(scheme)], scheme)
}

// fileURIPath returns the percent-decoded path of a local file URI, as
// RFC 8089 defines one: an empty host or localhost, and an absolute path.
// On Windows a path that starts with a drive (/C:/w) drops its first /,
// and another host names a share (file://server/share/a is
// \\server\share\a).
func (f flavor) fileURIPath(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("not a valid file:// URI (%w)", unwrapURLError(err))
	}
	local := u.Host == "" || strings.EqualFold(u.Host, "localhost")
	switch {
	case u.User != nil:
		return "", errors.New("a file:// URI with user information is not a local file")
	case !local && f != windowsPaths:
		return "", fmt.Errorf("a file:// URI on host %q is not a local file (use file:///path or file://localhost/path)", u.Host)
	case !local && (u.Port() != "" || strings.ContainsAny(u.Host, "[:")):
		return "", fmt.Errorf("a file:// URI on host %q does not name a share: write file://server/share/path", u.Host)
	case u.RawQuery != "" || u.ForceQuery:
		return "", errors.New("a file:// URI has no query (percent-encode a ? in a name as %3F)")
	case strings.ContainsRune(uri, '#'):
		return "", errors.New("a file:// URI has no fragment (percent-encode a # in a name as %23)")
	case !strings.HasPrefix(u.Path, "/"):
		return "", errors.New("the file:// URI has no absolute path")
	}
	if !local {
		return `\\` + u.Host + u.Path, nil
	}
	if f == windowsPaths && len(u.Path) >= 3 && u.Path[2] == ':' && isASCIILetter(u.Path[1]) {
		if len(u.Path) == 3 {
			return u.Path[1:] + `\`, nil // file:///C: is the drive's root
		}
		if u.Path[3] == '/' {
			return u.Path[1:], nil
		}
	}
	return u.Path, nil
}

// unwrapURLError drops the *url.Error around a parse error, which repeats
// the URI.
func unwrapURLError(err error) error {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		return ue.Err
	}
	return err
}

// checkNames refuses a path of f with a name f does not accept (only
// Windows has some, see checkWinNames), or longer than the system's limits
// allow, naming the limit.
func (f flavor) checkNames(p string) error {
	if len(p) >= pathMax {
		return fmt.Errorf("path is %d bytes long, and the limit is %d (PATH_MAX)", len(p), pathMax-1)
	}
	for name := range strings.SplitSeq(p, string(f.sep())) {
		if len(name) > NameMax {
			return fmt.Errorf("the name %q is %d bytes long, and the limit is %d (NAME_MAX)", name[:16]+"...", len(name), NameMax)
		}
	}
	if f == windowsPaths {
		return checkWinNames(p)
	}
	return nil
}

// Check is what every FS operation asks of its path: absolute, clean,
// free of NUL bytes, within the length limits, and with no name that the
// OS would not keep as written. It does not resolve anything. Its error
// matches fs.ErrInvalid and names the cause.
func Check(p string) error { return hostPaths.checkPath(p) }

// checkPath is [Check] in the syntax of f.
func (f flavor) checkPath(p string) error {
	switch {
	case p == "":
		return ErrEmpty
	case strings.IndexByte(p, 0) >= 0:
		return ErrNUL
	case !f.isAbs(p):
		return invalid{errRelativePath}
	case f.clean(p) != p:
		return invalid{errUncleanPath}
	}
	if err := f.checkNames(p); err != nil {
		return invalid{err}
	}
	return nil
}

// Within reports whether p lies in dir or is dir on this OS, comparing
// whole names, ignoring case on macOS and Windows, never a string
// prefix. Both must be absolute and clean. It returns the rest of p after
// dir ("." for dir itself), for os.Root to resolve in dir.
func Within(dir, p string) (string, bool) { return hostPaths.within(dir, p) }

// Below reports whether p lies strictly below dir on this OS: [Within],
// but not dir itself, which includes a p that differs from dir only in
// case where the OS ignores it (a rename of dir's own name).
func Below(dir, p string) bool { return hostPaths.below(dir, p) }

// Spell returns p, which lies in dir, as dir spells it: dir joined with
// the rest of p (see [Within]). It differs from p only where names match
// ignoring case, and is what a peer that resolves names itself is given.
func Spell(dir, p string) (string, bool) { return hostPaths.spell(dir, p) }

// LinkRelative reports whether dest, a symlink's target that is not
// absolute, is relative to the link's directory on this OS (on Windows,
// \x and D:x are not).
func LinkRelative(dest string) bool { return hostPaths.linkRelative(dest) }
