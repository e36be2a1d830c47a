package fsruntime

import (
	"context"
	"errors"
	"strings"

	"github.com/mcp-acpfs/mcp-acpfs/capabilities"
)

// A HashReadFS reads a line range of a text file and hashes the whole file
// as that same read sees it, as one operation of its route: a read tool
// reports the hash that a later expectedHash is checked against.
type HashReadFS interface {
	ReadTextFileHash(ctx context.Context, path string, line, limit int) (text, sum string, err error)
}

// A SourceReadFS reads as a HashReadFS does, and also says where the text
// came from and how it compares with the file on disk.
type SourceReadFS interface {
	ReadTextFileSource(ctx context.Context, path string, line, limit int) (TextRead, error)
}

// A TextRead is what a SourceReadFS read.
type TextRead struct {
	Text   string
	SHA256 string // HashText of the whole file as read; "" when not hashed
	Origin
}

// An Origin says where a read's text came from.
type Origin struct {
	Route capabilities.Route // RouteEditor or RouteDisk
	Disk  DiskMatch          // how the text compares with the disk
}

var (
	_ HashReadFS   = (*Router)(nil)
	_ SourceReadFS = (*Router)(nil)
)

// ReadTextFileHash implements [HashReadFS] with ReadTextFileSource.
func (r *Router) ReadTextFileHash(ctx context.Context, path string, line, limit int) (string, string, error) {
	read, err := r.ReadTextFileSource(ctx, path, line, limit)
	return read.Text, read.SHA256, err
}

// ReadTextFileSource implements [SourceReadFS]. On the editor route the
// whole buffer is read once, hashed, compared with the whole file on disk
// (and asked again while a reload is pending, as ReadTextFile does), and
// the range is cut from it here, so a ranged read costs the editor one
// request, as without the hash, and Disk says whether the file differs,
// not only the range. When the whole buffer is over the size limit, the
// range is read on its own, compared with the same range on disk, and
// SHA256 is "". On the disk route it is [Disk.ReadTextFileSource].
func (r *Router) ReadTextFileSource(ctx context.Context, path string, line, limit int) (TextRead, error) {
	switch r.Route(capabilities.OpRead) {
	case capabilities.RouteDisk:
		return r.disk.ReadTextFileSource(ctx, path, line, limit)
	case capabilities.RouteEditor:
		whole, from, err := r.read(ctx, path, 0, 0)
		switch {
		case err == nil:
			text := whole
			if line > 1 || limit > 0 {
				text, err = readLines(strings.NewReader(whole), line, limit, r.disk.MaxFileSize(), int64(len(whole)))
				if err != nil {
					return TextRead{}, pathError("read", path, err)
				}
			}
			return TextRead{Text: text, SHA256: HashText(whole), Origin: from}, nil
		case line <= 1 && limit <= 0, !errors.Is(err, ErrTooLarge):
			return TextRead{}, err
		}
		text, from, err := r.read(ctx, path, line, limit)
		if err != nil {
			return TextRead{}, err
		}
		return TextRead{Text: text, Origin: from}, nil
	}
	_, _, err := r.read(ctx, path, line, limit) // refused: no route
	return TextRead{}, err
}

var _ SourceReadFS = (*Disk)(nil)

// ReadTextFileSource implements [SourceReadFS]: a whole read is hashed from
// its text, a range as [Disk.ReadTextFileHash] hashes it.
func (d *Disk) ReadTextFileSource(ctx context.Context, path string, line, limit int) (TextRead, error) {
	read := TextRead{Origin: Origin{Route: capabilities.RouteDisk, Disk: DiskSame}}
	var err error
	if line <= 1 && limit <= 0 {
		if read.Text, err = d.ReadTextFile(ctx, path, line, limit); err != nil {
			return TextRead{}, err
		}
		read.SHA256 = HashText(read.Text)
		return read, nil
	}
	if read.Text, read.SHA256, err = d.ReadTextFileHash(ctx, path, line, limit); err != nil {
		return TextRead{}, err
	}
	return read, nil
}

var _ HashReadFS = (*Disk)(nil)

// ReadTextFileHash implements [HashReadFS]: the file is hashed by streaming
// it, and then the range is read. Should the file change in between, the
// hash is the older one, so a write made with it is refused rather than let
// through on a stale read. A file over the size limit can be neither
// written nor edited whole, so its hash could never serve as an
// expectedHash: it is not hashed (sum is ""), and a deep range of a huge
// file stays a read of only that far.
func (d *Disk) ReadTextFileHash(ctx context.Context, path string, line, limit int) (string, string, error) {
	var sum string
	if info, err := d.Stat(ctx, path); err != nil || info.Type != TypeFile || info.Size <= d.max {
		if sum, err = d.HashTextFile(ctx, path); err != nil {
			sum = "" // the read below stands, or fails for the same reason
		}
	}
	text, err := d.ReadTextFile(ctx, path, line, limit)
	if err != nil {
		return "", "", err
	}
	return text, sum, nil
}
