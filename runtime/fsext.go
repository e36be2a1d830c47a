package runtime

import (
	"context"
	"io/fs"
	"time"
)

// The optional interfaces below extend an [FS] beyond what ACP's fs methods
// offer: metadata, listing, walking, moving, removing and binary reads. The
// disk backend implements them all, within its roots; a [Router] implements
// them by going to disk (ACP has no method for any of them), except
// HashTextFile, which hashes what the route reads. The editor backend
// implements none. Callers test for them with a type assertion, as io/fs
// does for ReadFileFS.
//
// Paths are absolute and clean, as for FS, and errors are *fs.PathError
// values in the same vocabulary.

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

// A StatFS describes a file, as lstat does: a symlink is reported as one.
type StatFS interface {
	Stat(ctx context.Context, path string) (FileInfo, error)
}

// A DirFS lists and creates directories.
type DirFS interface {
	// ReadDir returns the entries of the directory at path, sorted by
	// name, at most max of them (max <= 0 means no limit); truncated
	// reports that there were more.
	ReadDir(ctx context.Context, path string, max int) (entries []FileInfo, truncated bool, err error)
	// MkdirAll creates the directory at path and any missing parents,
	// as mkdir -p does. An existing directory is not an error.
	MkdirAll(ctx context.Context, path string) error
}

// WalkFunc is called by WalkFS.Walk for each entry, as fs.WalkDirFunc is:
// returning fs.SkipDir skips a directory, fs.SkipAll ends the walk.
type WalkFunc func(path string, info FileInfo, err error) error

// A WalkFS walks a tree in lexical order. It never follows a symlink: a
// link is reported as an entry of type TypeSymlink and not descended into.
type WalkFS interface {
	Walk(ctx context.Context, root string, fn WalkFunc) error
}

// A MoveFS moves and removes files and directories. Neither may touch a
// root itself.
type MoveFS interface {
	// Move renames src to dst. An existing dst is replaced only with
	// overwrite (and never a non-empty directory); otherwise it is an
	// error wrapping fs.ErrExist.
	Move(ctx context.Context, src, dst string, overwrite bool) error
	// Remove removes the file, symlink or empty directory at path; a
	// non-empty directory needs recursive. A symlink is removed, never
	// its target.
	Remove(ctx context.Context, path string, recursive bool) error
}

// A BinaryFS reads a file's bytes, whatever they are, up to max bytes
// (over it is an error wrapping ErrTooLarge).
type BinaryFS interface {
	ReadFile(ctx context.Context, path string, max int64) ([]byte, error)
}

// A HashFS hashes a text file's whole content as a read of it returns it:
// the hex SHA-256 of the text. It is what read_text_file reports and what
// expectedHash is checked against.
type HashFS interface {
	HashTextFile(ctx context.Context, path string) (string, error)
}
