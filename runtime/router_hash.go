package runtime

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

var _ HashReadFS = (*Router)(nil)

// ReadTextFileHash implements [HashReadFS]. On the editor route the whole
// buffer is read once, hashed, and the range is cut from it here, so a
// ranged read costs the editor one request, as without the hash. When the
// whole buffer is over the size limit, the range is read on its own and sum
// is "". On the disk route it is [Disk.ReadTextFileHash].
func (r *Router) ReadTextFileHash(ctx context.Context, path string, line, limit int) (string, string, error) {
	switch r.Route(capabilities.OpRead) {
	case capabilities.RouteDisk:
		return r.disk.ReadTextFileHash(ctx, path, line, limit)
	case capabilities.RouteEditor:
		whole, err := r.ReadTextFile(ctx, path, 0, 0)
		switch {
		case err == nil:
			text, err := readLines(strings.NewReader(whole), line, limit, r.disk.MaxFileSize(), int64(len(whole)))
			if err != nil {
				return "", "", pathError("read", path, err)
			}
			return text, HashText(whole), nil
		case !errors.Is(err, ErrTooLarge):
			return "", "", err
		}
		text, err := r.ReadTextFile(ctx, path, line, limit)
		return text, "", err
	}
	_, err := r.ReadTextFile(ctx, path, line, limit) // refused: no route
	return "", "", err
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
