package fsruntime

import (
	"context"
	"io/fs"

	"github.com/mcp-acpfs/mcp-acpfs/capabilities"
)

// Router implements the optional interfaces. ACP has no method for any of
// them, so each goes to disk, where Disk enforces the roots, except
// HashTextFile, which hashes what the read route sees.
var (
	_ StatFS   = (*Router)(nil)
	_ DirFS    = (*Router)(nil)
	_ WalkFS   = (*Router)(nil)
	_ MoveFS   = (*Router)(nil)
	_ BinaryFS = (*Router)(nil)
	_ HashFS   = (*Router)(nil)
)

// Stat implements [StatFS] on disk.
func (r *Router) Stat(ctx context.Context, path string) (FileInfo, error) {
	return r.disk.Stat(ctx, path)
}

// ListDir implements [DirFS] on disk.
func (r *Router) ListDir(ctx context.Context, path string, max int) ([]DirEntry, bool, error) {
	return r.disk.ListDir(ctx, path, max)
}

// ReadDir implements [DirFS] on disk.
func (r *Router) ReadDir(ctx context.Context, path string, max int) ([]FileInfo, bool, error) {
	return r.disk.ReadDir(ctx, path, max)
}

// MkdirAll implements [DirFS] on disk.
func (r *Router) MkdirAll(ctx context.Context, path string) error {
	return r.disk.MkdirAll(ctx, path)
}

// Walk implements [WalkFS] on disk.
func (r *Router) Walk(ctx context.Context, root string, fn WalkFunc) error {
	return r.disk.Walk(ctx, root, fn)
}

// Move implements [MoveFS] on disk. An editor learns of it as of any
// change on disk.
func (r *Router) Move(ctx context.Context, src, dst string, overwrite bool) error {
	return r.disk.Move(ctx, src, dst, overwrite)
}

// Remove implements [MoveFS] on disk.
func (r *Router) Remove(ctx context.Context, path string, recursive bool) error {
	return r.disk.Remove(ctx, path, recursive)
}

// ReadFile implements [BinaryFS] on disk: an editor's buffers are text.
func (r *Router) ReadFile(ctx context.Context, path string, max int64) ([]byte, error) {
	return r.disk.ReadFile(ctx, path, max)
}

// HashTextFile implements [HashFS] for what the read route sees, so that
// the hash a read reports and the one expectedHash is checked against
// agree. When reads go to the editor, the whole text is read through it
// (its unsaved buffer, within its size limit) and hashed; otherwise the
// disk streams the file.
func (r *Router) HashTextFile(ctx context.Context, path string) (string, error) {
	switch r.Route(capabilities.OpRead) {
	case capabilities.RouteEditor:
		// ReadTextFile checks the roots before asking the editor, and
		// falls back to disk as a read does.
		text, err := r.ReadTextFile(ctx, path, 0, 0)
		if err != nil {
			return "", reop("hash", err)
		}
		return HashText(text), nil
	case capabilities.RouteDisk:
		return r.disk.HashTextFile(ctx, path)
	default:
		return "", &fs.PathError{Op: "hash", Path: path, Err: ErrNotAdvertised}
	}
}
