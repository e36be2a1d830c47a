package runtime

import (
	"context"
	"errors"
	"os"
)

// DefaultMaxFileSize is the default limit on the size of content returned by
// a read or given to a write: 10 MiB.
const DefaultMaxFileSize = 10 << 20

// DiskOptions configure a [Disk].
type DiskOptions struct {
	// MaxFileSize limits the content a read returns and a write accepts,
	// in bytes. Zero means DefaultMaxFileSize. A line range of a larger
	// file can still be read.
	MaxFileSize int64
}

// Disk is an FS on local disk, confined to a set of root directories.
//
// Each root is opened once as an [os.Root]. A path is first matched to the
// root that contains it, component by component (never by string prefix),
// and the remainder is then resolved by os.Root, which refuses any symlink
// or ".." that leads out of the root at the time of the operation.
type Disk struct {
	roots []*diskRoot
	max   int64
}

var _ FS = (*Disk)(nil)

// OpenDisk opens a Disk confined to roots, which must be existing
// directories. Each is made absolute and cleaned; a root reached through a
// symlink is also known by its real path.
func OpenDisk(roots []string, opts DiskOptions) (*Disk, error) {
	return nil, errors.ErrUnsupported
}

// Roots returns the root directories, absolute and clean, in the order given.
func (d *Disk) Roots() []string { return nil }

// MaxFileSize returns the size limit in force.
func (d *Disk) MaxFileSize() int64 { return d.max }

// Narrow returns a Disk confined to those of dirs that lie inside d's roots,
// plus those of d's roots that lie inside one of dirs: roots can only
// shrink. Each new root is opened through the existing one, so a symlink
// cannot widen it. A dir outside every root is dropped. The result shares
// nothing that Close on d would release, and must be closed itself.
func (d *Disk) Narrow(dirs []string) (*Disk, error) { return nil, errors.ErrUnsupported }

// Check reports whether path lies inside the roots, following symlinks that
// exist on disk now. It returns nil for a path that does not exist yet but
// whose nearest existing ancestor is inside. It is for routes that do not go
// through Disk (the editor), which must not be sent a path outside the roots.
func (d *Disk) Check(path string) error { return errors.ErrUnsupported }

// ReadTextFile implements [FS].
func (d *Disk) ReadTextFile(ctx context.Context, path string, line, limit int) (string, error) {
	return "", errors.ErrUnsupported
}

// WriteTextFile implements [FS].
func (d *Disk) WriteTextFile(ctx context.Context, path, content string) error {
	return errors.ErrUnsupported
}

// Close releases the roots.
func (d *Disk) Close() error { return nil }

type diskRoot struct {
	path string // absolute, clean, as configured
	real string // the same with symlinks resolved
	root *os.Root
}
