package fspath

import (
	"errors"
	"fmt"
	"strings"
)

// winKind is what a Windows path is relative to.
type winKind uint8

const (
	winRelative      winKind = iota // a.txt: the working directory
	winRooted                       // \a.txt: the working directory's volume
	winDriveRelative                // C:a.txt: drive C:'s own current directory
	winAbsolute                     // C:\a.txt, \\server\share\a.txt
)

// winPath is a Windows path split at its volume.
type winPath struct {
	kind   winKind
	volume string // "C:" or `\\server\share` (separators as \), or ""
	rest   string // what follows the volume, as written
}

var (
	errDevicePath = errors.New(`a device path (\\?\, \\.\ or \??\) is not accepted: write the path as C:\dir\name or \\server\share\dir\name`)
	errUNCPath    = errors.New(`a UNC path needs a server and a share: \\server\share\dir\name`)
)

// parseWin splits p, in Windows syntax (\ or / as separators), at its
// volume. Device and verbatim paths (\\?\, \\.\, \??\) are refused: they
// skip the normalisation every other path gets (so \\?\C:\a\..\b and a
// name like "CON" mean something else there), and reach devices.
func parseWin(p string) (winPath, error) {
	sep := windowsPaths.isSep
	switch {
	case len(p) >= 2 && sep(p[0]) && sep(p[1]):
		server, rest := windowsPaths.cut(p[2:])
		if server == "?" || server == "." {
			return winPath{}, errDevicePath
		}
		share, rest := windowsPaths.cut(rest)
		if server == "" || share == "" {
			return winPath{}, errUNCPath
		}
		for _, name := range []string{server, share} {
			if checkWinName(name) != nil {
				return winPath{}, fmt.Errorf(`%q cannot be a UNC path's server or share name (\\server\share\dir\name; a file:// URI with a host names a share: file://server/share/dir/name)`, name)
			}
		}
		if rest != "" || sep(p[len(p)-1]) {
			rest = `\` + rest
		}
		return winPath{kind: winAbsolute, volume: `\\` + server + `\` + share, rest: rest}, nil
	case len(p) >= 4 && sep(p[0]) && p[1:3] == "??" && sep(p[3]):
		return winPath{}, errDevicePath
	case len(p) >= 2 && p[1] == ':' && isASCIILetter(p[0]):
		kind := winDriveRelative
		if len(p) > 2 && sep(p[2]) {
			kind = winAbsolute
		}
		return winPath{kind: kind, volume: p[:2], rest: p[2:]}, nil
	case p != "" && sep(p[0]):
		return winPath{kind: winRooted, rest: p}, nil
	}
	return winPath{kind: winRelative, rest: p}, nil
}

// asciiUpper maps a-z to A-Z, as Windows compares device names.
func asciiUpper(r rune) rune {
	if 'a' <= r && r <= 'z' {
		return r - 'a' + 'A'
	}
	return r
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// winClean joins volume and the names of rest with \, resolving "." and
// ".." lexically (".." stops at the volume's root), as filepath.Clean
// does on Windows for an absolute path: the root of a share is
// \\server\share without a separator after it, as without one it was given.
func winClean(volume, rest string) string {
	if rest == "" {
		return volume
	}
	var names []string
	for rest != "" {
		var name string
		name, rest = windowsPaths.cut(rest)
		switch name {
		case "", ".":
		case "..":
			if len(names) > 0 {
				names = names[:len(names)-1]
			}
		default:
			names = append(names, name)
		}
	}
	return volume + `\` + strings.Join(names, `\`)
}

// absWin is Abs's resolution in Windows syntax: name (no longer a URI)
// against workDir. A path rooted without a volume (\a.txt) is on the
// working directory's volume; a drive-relative one (C:a.txt) is taken
// relative to the working directory when that is on the same drive, as
// Windows does when it is the current directory, and refused otherwise.
func absWin(workDir, name string) (string, error) {
	v, err := parseWin(name)
	if err != nil {
		return "", err
	}
	if v.kind == winAbsolute {
		return winClean(v.volume, v.rest), nil
	}
	w, err := parseWin(workDir)
	if err != nil || w.kind != winAbsolute {
		return "", errRelativePath
	}
	switch v.kind {
	case winRooted:
		return winClean(w.volume, v.rest), nil
	case winDriveRelative:
		if !strings.EqualFold(v.volume, w.volume) {
			return "", fmt.Errorf(`a drive-relative path (%s without a separator after the colon) is relative to the current directory of drive %s, which is unknown here, as the working directory is not on it: write %s\dir\name`, v.volume, v.volume, v.volume)
		}
	}
	return winClean(w.volume, w.rest+`\`+v.rest), nil
}

// checkWinNames refuses a name of the absolute, clean path p (past its
// volume) that Windows would not keep as written: one with a character
// Windows forbids in names, an alternate data stream (a.txt:secret), a
// trailing dot or space (which Windows drops, so "a.txt." is "a.txt"),
// or a device name Windows reserves (CON, NUL.txt, com1, ...).
func checkWinNames(p string) error {
	_, names, _ := windowsPaths.root(p)
	for names != "" {
		var name string
		name, names = windowsPaths.cut(names)
		if err := checkWinName(name); err != nil {
			return err
		}
	}
	return nil
}

// checkWinName is checkWinNames for one name.
func checkWinName(name string) error {
	if i := strings.IndexFunc(name, func(r rune) bool { return r < ' ' || strings.ContainsRune(`<>:"|?*`, r) }); i >= 0 {
		if name[i] == ':' {
			return fmt.Errorf("the name %q names an alternate data stream (what follows the colon), which is not accepted", name)
		}
		return fmt.Errorf("the name %q holds %q, which Windows does not allow in a name", name, name[i])
	}
	if strings.HasSuffix(name, ".") || strings.HasSuffix(name, " ") {
		return fmt.Errorf("the name %q ends in a dot or a space, which Windows drops", name)
	}
	if winReserved(name) {
		return fmt.Errorf("the name %q is a device name that Windows reserves (CON, PRN, AUX, NUL, COM0 to COM9, LPT0 to LPT9, CONIN$, CONOUT$, with or without an extension)", name)
	}
	return nil
}

// winReserved reports whether Windows takes name for a device: CON, PRN,
// AUX, NUL, COM and LPT followed by a digit (or a superscript ¹, ² or ³),
// CONIN$ and CONOUT$, in any case, also with an extension or with spaces
// before it ("nul.txt", "CON .log"), as older Windows versions do.
func winReserved(name string) bool {
	base, _, _ := strings.Cut(name, ".")
	base = strings.Map(asciiUpper, strings.TrimRight(base, " "))
	switch base {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	if len(base) < 4 || base[:3] != "COM" && base[:3] != "LPT" {
		return false
	}
	switch digit := base[3:]; digit {
	case "¹", "²", "³":
		return true
	default:
		return len(digit) == 1 && '0' <= digit[0] && digit[0] <= '9'
	}
}

// linkRelative reports whether dest, a symlink's target that is not
// absolute in f, is relative to the link's directory, so that joining it
// there finds what the link names. In Windows syntax only a plain relative
// path is: \x is rooted at a volume and D:x relative to drive D:'s current
// directory, neither of them the link's directory, and a device path is no
// relative path either.
func (f flavor) linkRelative(dest string) bool {
	if f != windowsPaths {
		return true
	}
	v, err := parseWin(dest)
	return err == nil && v.kind == winRelative
}
