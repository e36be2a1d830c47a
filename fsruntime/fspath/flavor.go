package fspath

import (
	"path"
	"strings"
)

// flavor is the path syntax of one family of systems, and how a path is
// matched to a root there. The functions that take one are pure, so the
// syntax of every OS is tested on any OS; the running OS picks hostPaths
// (host_windows.go, host_darwin.go, host_other.go).
type flavor uint8

const (
	// unixPaths: / is the only separator, and names are compared byte
	// for byte. A backslash is an ordinary character of a name.
	unixPaths flavor = iota
	// darwinPaths: unixPaths, but a path is matched to a root ignoring
	// case, as macOS's usual file systems (APFS, HFS+) compare names.
	darwinPaths
	// windowsPaths: \ and / both separate; an absolute path starts with
	// a drive (C:\) or a share (\\server\share\); \x is on the working
	// directory's drive, and C:x relative to the working directory if it
	// is on C:; names are matched ignoring case. Device paths (\\?\,
	// \\.\), reserved device names (CON, nul.txt, COM1), streams
	// (a.txt:s), names ending in a dot or a space and the characters
	// Windows forbids are refused (windows.go). file:///C:/w is C:\w.
	windowsPaths
)

// foldsCase reports whether f matches a path to a root ignoring case.
func (f flavor) foldsCase() bool { return f != unixPaths }

// sep is the separator f writes.
func (f flavor) sep() byte {
	if f == windowsPaths {
		return '\\'
	}
	return '/'
}

// isSep reports whether c separates names in f.
func (f flavor) isSep(c byte) bool { return c == '/' || c == '\\' && f == windowsPaths }

// hasSepSuffix reports whether p ends in a separator or in a "."
// component.
func (f flavor) hasSepSuffix(p string) bool {
	p = strings.TrimSuffix(p, ".")
	return p != "" && f.isSep(p[len(p)-1])
}

// isAbs reports whether p is absolute in f: it names the same file
// whatever the working directory.
func (f flavor) isAbs(p string) bool {
	if f != windowsPaths {
		return strings.HasPrefix(p, "/")
	}
	v, err := parseWin(p)
	return err == nil && v.kind == winAbsolute
}

// clean is filepath.Clean in f, for a path f deems absolute; any other
// path is returned as it is.
func (f flavor) clean(p string) string {
	if f != windowsPaths {
		if !strings.HasPrefix(p, "/") {
			return p
		}
		return path.Clean(p)
	}
	v, err := parseWin(p)
	if err != nil || v.kind != winAbsolute {
		return p
	}
	return winClean(v.volume, v.rest)
}

// root splits an absolute, clean path of f into its volume ("" outside
// Windows) and the names after the first separator ("" for the root).
func (f flavor) root(p string) (volume, names string, ok bool) {
	if f != windowsPaths {
		names, ok = strings.CutPrefix(p, "/")
		return "", names, ok
	}
	v, err := parseWin(p)
	if err != nil || v.kind != winAbsolute {
		return "", "", false
	}
	return v.volume, strings.TrimLeft(v.rest, `\/`), true
}

// sameName reports whether two names (or two volumes) of f are one.
// Volumes are always compared ignoring case, as Windows does.
func (f flavor) sameName(a, b string) bool {
	if f.foldsCase() {
		return strings.EqualFold(a, b) // Unicode simple folding
	}
	return a == b
}

// within reports whether p lies in dir or is dir, in f, comparing whole
// names (ignoring case where f does), never a string prefix. Both must
// be absolute and clean. It returns the rest of p after dir's names ("."
// for dir itself), a part of p as given, which os.Root then resolves in
// dir: a match can only pick a root, never reach past it, even where a
// volume's names are case-sensitive after all.
func (f flavor) within(dir, p string) (string, bool) {
	dvol, dnames, ok := f.root(dir)
	if !ok {
		return "", false
	}
	pvol, pnames, ok := f.root(p)
	if !ok || !strings.EqualFold(dvol, pvol) { // "" outside Windows
		return "", false
	}
	for dnames != "" {
		if pnames == "" {
			return "", false
		}
		dname, drest := f.cut(dnames)
		pname, prest := f.cut(pnames)
		if !f.sameName(dname, pname) {
			return "", false
		}
		dnames, pnames = drest, prest
	}
	if pnames == "" {
		return ".", true
	}
	return pnames, true
}

// below is [Below] in f: p lies in dir, and is not dir itself.
func (f flavor) below(dir, p string) bool {
	rel, in := f.within(dir, p)
	return in && rel != "."
}

// spell returns p, which lies in dir, as dir spells it: dir joined with
// the rest of p. It differs from p only where f matches names ignoring
// case, and is what a peer that resolves names itself must be given.
func (f flavor) spell(dir, p string) (string, bool) {
	rest, ok := f.within(dir, p)
	switch {
	case !ok:
		return "", false
	case rest == ".":
		return dir, true
	case f.hasSepSuffix(dir):
		return dir + rest, true // a volume's root, as C:\ or /
	}
	return dir + string(f.sep()) + rest, true
}

// cut splits names at its first separator.
func (f flavor) cut(names string) (first, rest string) {
	for i := 0; i < len(names); i++ {
		if f.isSep(names[i]) {
			return names[:i], names[i+1:]
		}
	}
	return names, ""
}

// expandHome returns p with a leading ~ standing for home: "~" is home,
// and "~/x" (also "~\x" on Windows) is x in home. home must be absolute
// in f; if it is not (or is empty), p is returned as it is. "~user/x" is
// an ordinary relative name, as is a ~ anywhere else: a shell would look
// up another user's home, which a server for one user has no business
// reading.
func (f flavor) expandHome(home, p string) string {
	if home == "" || !strings.HasPrefix(p, "~") || !f.isAbs(home) {
		return p
	}
	if p == "~" {
		return home
	}
	if f.isSep(p[1]) {
		return home + p[1:]
	}
	return p
}
