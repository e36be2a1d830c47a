//go:build !linux || acpfs_portable

package fsruntime

import (
	"context"
	"io"
	"io/fs"
	"os"
	"time"
)

// direntImpl names how this build reads a directory.
const direntImpl = "Readdirnames"

// dirStamp never lets a listing be kept here: see the Linux version.
func dirStamp(*os.File, fs.FileInfo, time.Time) (dirStampT, bool) { return dirStampT{}, false }

// dirChunk is how many names a listing asks the kernel for at a time.
const dirChunk = 1024

// readDirEntries calls fn with each entry of the directory f, in the order
// the directory gives them. Here the names come without their types, so
// lookup describes each entry; an entry it reports gone is left out.
func readDirEntries(ctx context.Context, f *os.File, lookup typeLookup, fn func(DirEntry)) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		names, err := f.Readdirnames(dirChunk)
		for _, name := range names {
			typ, ok, lerr := lookup(name)
			if lerr != nil {
				return lerr
			}
			if ok {
				fn(DirEntry{Name: name, Type: typ})
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
