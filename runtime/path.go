package runtime

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
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

// Abs resolves p for a session whose working directory is workDir: an
// absolute p is cleaned, a relative one is joined to workDir. A NUL byte or
// an empty path is an error wrapping fs.ErrInvalid. Abs does not check
// roots; the FS does.
func Abs(workDir, p string) (string, error) {
	switch {
	case p == "":
		return "", &fs.PathError{Op: "resolve", Path: p, Err: invalid{errEmptyPath}}
	case strings.IndexByte(p, 0) >= 0:
		return "", &fs.PathError{Op: "resolve", Path: p, Err: invalid{errNULInPath}}
	case filepath.IsAbs(p):
		return filepath.Clean(p), nil
	case !filepath.IsAbs(workDir):
		return "", &fs.PathError{Op: "resolve", Path: p, Err: invalid{errRelativePath}}
	}
	return filepath.Join(workDir, p), nil
}

// checkPath is what every FS operation asks of its path: absolute, clean
// and free of NUL bytes. It does not resolve anything.
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
