package fsruntime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io/fs"
	"time"
	"unsafe"
)

// A FileType is what a directory entry is.
type FileType string

// File types.
const (
	TypeFile      FileType = "file"
	TypeDirectory FileType = "directory"
	TypeSymlink   FileType = "symlink"
	TypeOther     FileType = "other" // a FIFO, socket or device
)

// FileInfo describes a file without following a final symlink.
type FileInfo struct {
	Name    string      // base name
	Path    string      // absolute path
	Type    FileType    //
	Size    int64       // bytes; for a symlink, the length of its target
	ModTime time.Time   //
	Mode    fs.FileMode // type and permission bits, as fs.FileInfo.Mode
}

// A DirEntry is an entry of a directory as the directory itself records
// it: a name and a type, known without describing the entry further.
type DirEntry struct {
	Name string
	Type FileType
}

// A StatFS describes a file, as lstat does: a symlink is reported as one.
type StatFS interface {
	Stat(ctx context.Context, path string) (FileInfo, error)
}

// A DirFS lists and creates directories.
type DirFS interface {
	// ReadDir returns the entries of the directory at path, sorted by
	// name (byte order), at most max of them (max <= 0 means no limit);
	// truncated reports that there were more. Each entry is described
	// as Stat does, so a symlink is an entry of type TypeSymlink. A path
	// that is not a directory is an error wrapping fs.ErrInvalid.
	ReadDir(ctx context.Context, path string, max int) (entries []FileInfo, truncated bool, err error)
	// ListDir is ReadDir for names and types alone: the same entries,
	// order, cap and errors, without describing each entry, which on
	// disk costs a system call per entry where the listing costs one per
	// thousand or so.
	ListDir(ctx context.Context, path string, max int) (entries []DirEntry, truncated bool, err error)
	// MkdirAll creates the directory at path and any missing parents,
	// as mkdir -p does. An existing directory is not an error; a file
	// in the way is an error wrapping fs.ErrExist.
	MkdirAll(ctx context.Context, path string) error
}

// WalkFunc is called by WalkFS.Walk for each entry, as fs.WalkDirFunc is:
// returning fs.SkipDir skips a directory (or, from a file, the rest of its
// directory), fs.SkipAll ends the walk. When err is not nil, info has at
// least Name and Path: the walk could not describe the root (the first
// call), or could not read a directory it has already reported (a second
// call for it).
type WalkFunc func(path string, info FileInfo, err error) error

// A WalkFS walks a tree in lexical order. It never follows a symlink it
// finds: a link is reported as an entry of type TypeSymlink and not
// descended into. The root itself is resolved as any path argument is, so
// a root that is a symlink to a directory inside the roots is walked, and
// one that leads out is refused. Entry paths are the root joined with the
// names below it. Walk returns what fn returns (fs.SkipDir and fs.SkipAll
// become nil), or a *fs.PathError wrapping the context's error when ctx
// ends.
type WalkFS interface {
	Walk(ctx context.Context, root string, fn WalkFunc) error
}

// A MoveFS moves and removes files and directories. Neither may touch a
// root itself, or a directory that holds one: that is an error wrapping
// fs.ErrPermission.
type MoveFS interface {
	// Move renames src to dst, creating dst's missing parent
	// directories. A symlink is moved as a link. An existing dst is
	// replaced only with overwrite, and then only a file by a file or
	// an empty directory by a directory; otherwise it is an error
	// wrapping fs.ErrExist. Moving a directory into itself is an error
	// wrapping fs.ErrInvalid. An error names the path at fault.
	Move(ctx context.Context, src, dst string, overwrite bool) error
	// Remove removes the file, symlink or empty directory at path; a
	// non-empty directory needs recursive (otherwise it is an error
	// wrapping fs.ErrExist). A symlink is removed, never its target.
	// A missing path is an error wrapping fs.ErrNotExist.
	Remove(ctx context.Context, path string, recursive bool) error
}

// A BinaryFS reads a regular file's bytes, whatever they are, up to max
// bytes (over it is an error wrapping ErrTooLarge; max <= 0 means the
// backend's own size limit). Anything but a regular file wraps
// ErrNotRegular.
type BinaryFS interface {
	ReadFile(ctx context.Context, path string, max int64) ([]byte, error)
}

// A HashFS hashes a text file's whole content as a read of it returns it:
// [HashText] of the text. It is what read_text_file reports and what
// expectedHash is checked against. Content that a whole read refuses as
// binary is refused the same way (ErrBinary). The size limit is not
// applied where the backend can stream (the disk hashes a file of any
// size without holding it); a backend that must read the whole text, such
// as a route to the editor, refuses what its read refuses.
type HashFS interface {
	HashTextFile(ctx context.Context, path string) (string, error)
}

// HashText returns the hash that HashFS reports for text: the SHA-256 of
// its bytes, in lowercase hex.
func HashText(text string) string {
	sum := sha256.Sum256(bytesOf(text))
	return hex.EncodeToString(sum[:])
}

// HashTextPair returns HashText(a) and HashText(b), as an edit reports the
// text before and after it. The chunks that a and b start with in common
// are hashed once, so an edit near the end of a large file costs little
// more than one hash of it.
func HashTextPair(a, b string) (string, string) {
	const chunk = 4 << 10
	common := 0
	for common+chunk <= min(len(a), len(b)) && a[common:common+chunk] == b[common:common+chunk] {
		common += chunk
	}
	ha := sha256.New()
	ha.Write(bytesOf(a[:common]))
	cloner, ok := ha.(hash.Cloner)
	if !ok { // only in a FIPS 140 mode whose hash cannot be cloned
		return HashText(a), HashText(b)
	}
	hb, err := cloner.Clone()
	if err != nil {
		return HashText(a), HashText(b)
	}
	ha.Write(bytesOf(a[common:]))
	hb.Write(bytesOf(b[common:]))
	return hex.EncodeToString(ha.Sum(nil)), hex.EncodeToString(hb.Sum(nil))
}

// bytesOf returns the bytes of s in place, for a hash, which neither keeps
// nor changes what it is given (s can be as large as the size limit).
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
