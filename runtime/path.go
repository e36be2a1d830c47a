package runtime

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"strings"
)

// Limits on a path, as Linux has them: a name (one component) of at most
// NAME_MAX bytes, and a whole path shorter than PATH_MAX, which counts the
// terminating NUL.
const (
	nameMax = 255
	pathMax = 4096
)

var (
	errEmptyPath    = errors.New("empty path: " + fs.ErrInvalid.Error())
	errNULInPath    = errors.New("path contains a NUL byte: " + fs.ErrInvalid.Error())
	errRelativePath = errors.New("path is not absolute: " + fs.ErrInvalid.Error())
	errUncleanPath  = errors.New("path is not clean (it has . or .. components, or repeated separators): " + fs.ErrInvalid.Error())
)

// invalid wraps a message so that it matches fs.ErrInvalid.
type invalid struct{ err error }

func (e invalid) Error() string { return e.err.Error() }
func (e invalid) Unwrap() error { return fs.ErrInvalid }

// Abs resolves p for a session whose working directory is workDir, without
// touching the file system:
//
//   - A file:// URI with no host or the host localhost (file:///abs,
//     file://localhost/abs) stands for its percent-decoded path. One with
//     another host, user information, a query or a fragment, or without
//     an absolute path, is refused. In a plain path % is just a character.
//   - An absolute path is cleaned; a relative one is joined to workDir.
//
// The result is absolute, clean, free of NUL bytes, with no name longer
// than 255 bytes (NAME_MAX), and shorter than 4096 bytes (PATH_MAX).
// Anything else is a *fs.PathError (op "resolve", the path as given) that
// wraps fs.ErrInvalid and names the cause. A trailing separator is dropped
// with the cleaning; use [AbsFile] where the path must name a file. Abs
// does not check roots; the FS does.
func Abs(workDir, p string) (string, error) {
	fail := func(err error) (string, error) {
		return "", &fs.PathError{Op: "resolve", Path: p, Err: invalid{err}}
	}
	switch {
	case p == "":
		return fail(errEmptyPath)
	case strings.IndexByte(p, 0) >= 0:
		return fail(errNULInPath)
	}
	name := p
	if IsFileURI(p) {
		var err error
		if name, err = fileURIPath(p); err != nil {
			return fail(err)
		}
		if strings.IndexByte(name, 0) >= 0 {
			return fail(errNULInPath)
		}
	}
	var abs string
	switch {
	case filepath.IsAbs(name):
		abs = filepath.Clean(name)
	case !filepath.IsAbs(workDir):
		return fail(errRelativePath)
	default:
		abs = filepath.Join(workDir, name)
	}
	if err := checkLengths(abs); err != nil {
		return fail(err)
	}
	return abs, nil
}

// errNamesDir refuses a path that ends in a separator where a file is
// needed.
var errNamesDir = fmt.Errorf("%w: a path that ends in / or /. names a directory", ErrNotRegular)

// AbsFile is [Abs] for a path that must name a file, as the path of a
// read or a write of a file's content does. A path that ends in a
// separator, or in a "." component, names a directory, as in POSIX
// ("file.txt/" names no file): it is refused with a *fs.PathError (op
// "resolve") that wraps [ErrNotRegular], where Abs would drop the
// separator and name the file.
func AbsFile(workDir, p string) (string, error) {
	abs, err := Abs(workDir, p)
	if err != nil {
		return "", err
	}
	if NamesDir(p) {
		return "", &fs.PathError{Op: "resolve", Path: p, Err: errNamesDir}
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
func NamesDir(p string) bool {
	name := p
	if IsFileURI(p) {
		var err error
		if name, err = fileURIPath(p); err != nil {
			return false
		}
	}
	sep := string(filepath.Separator)
	return strings.HasSuffix(name, sep) || strings.HasSuffix(name, sep+".")
}

// IsFileURI reports whether p starts with file:// (the scheme in any
// case): [Abs] takes such a p for the path the URI names.
func IsFileURI(p string) bool {
	const scheme = "file://"
	return len(p) >= len(scheme) && strings.EqualFold(p[:len(scheme)], scheme)
}

// fileURIPath returns the percent-decoded path of a local file:// URI, as
// RFC 8089 defines one: an empty host or localhost, and an absolute path.
func fileURIPath(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("not a valid file:// URI (%w)", unwrapURLError(err))
	}
	switch {
	case u.User != nil:
		return "", errors.New("a file:// URI with user information is not a local file")
	case u.Host != "" && !strings.EqualFold(u.Host, "localhost"):
		return "", fmt.Errorf("a file:// URI on host %q is not a local file (use file:///path or file://localhost/path)", u.Host)
	case u.RawQuery != "" || u.ForceQuery:
		return "", errors.New("a file:// URI has no query (percent-encode a ? in a name as %3F)")
	case strings.ContainsRune(uri, '#'):
		return "", errors.New("a file:// URI has no fragment (percent-encode a # in a name as %23)")
	case !strings.HasPrefix(u.Path, "/"):
		return "", errors.New("the file:// URI has no absolute path")
	}
	return filepath.FromSlash(u.Path), nil
}

// unwrapURLError drops the *url.Error around a parse error, which repeats
// the URI.
func unwrapURLError(err error) error {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		return ue.Err
	}
	return err
}

// checkLengths refuses a path longer than the system's limits allow,
// naming the limit.
func checkLengths(p string) error {
	if len(p) >= pathMax {
		return fmt.Errorf("path is %d bytes long, and the limit is %d (PATH_MAX)", len(p), pathMax-1)
	}
	for name := range strings.SplitSeq(p, string(filepath.Separator)) {
		if len(name) > nameMax {
			return fmt.Errorf("the name %q is %d bytes long, and the limit is %d (NAME_MAX)", name[:16]+"...", len(name), nameMax)
		}
	}
	return nil
}

// checkPath is what every FS operation asks of its path: absolute, clean,
// free of NUL bytes and within the length limits. It does not resolve
// anything.
func checkPath(p string) error {
	switch {
	case p == "":
		return invalid{errEmptyPath}
	case strings.IndexByte(p, 0) >= 0:
		return invalid{errNULInPath}
	case !filepath.IsAbs(p):
		return invalid{errRelativePath}
	case filepath.Clean(p) != p:
		return invalid{errUncleanPath}
	}
	if err := checkLengths(p); err != nil {
		return invalid{err}
	}
	return nil
}

// within reports whether p lies in dir or is dir, comparing whole path
// components. Both must be absolute and clean. It returns the path of p
// relative to dir ("." for dir itself).
func within(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}
