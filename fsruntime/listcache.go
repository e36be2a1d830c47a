package fsruntime

import (
	"slices"
	"sync"
	"time"
)

// racyMargin is how long before a listing begins the directory must have
// last changed for the listing to be kept: far more than the coarsest
// timestamp tick of any kernel clock. See DESIGN.md, "Kept directory
// listings".
const racyMargin = 2 * time.Second

const (
	listCacheDirs    = 64   // listings kept at most
	listCacheEntries = 4096 // entries a kept listing has at most
)

// dirKey is a directory as the file system knows it.
type dirKey struct{ dev, ino uint64 }

// dirStampT is what must not have changed for a kept listing to be given
// again.
type dirStampT struct {
	key          dirKey
	mtime, ctime int64 // nanoseconds since the epoch
}

type keptListing struct {
	stamp   dirStampT
	entries []DirEntry // complete, sorted by name; never changed once kept
}

// listCache holds the kept listings, the oldest dropped first. A Disk has
// one, which the Disks its Narrow returns share: a directory's entries are
// the same whichever root lists it, and each caller has opened the
// directory through its own root before asking.
type listCache struct {
	mu    sync.Mutex
	m     map[dirKey]keptListing
	order []dirKey // the keys of m, in the order they were first kept
}

func newListCache() *listCache {
	return &listCache{m: make(map[dirKey]keptListing)}
}

// get returns a copy of the listing kept for stamp, if there is one.
func (c *listCache) get(stamp dirStampT) ([]DirEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	kept, ok := c.m[stamp.key]
	if !ok || kept.stamp != stamp { // a stale listing stays until replaced
		return nil, false
	}
	return slices.Clone(kept.entries), true
}

// put keeps a copy of entries, the complete sorted listing of the directory
// stamp describes.
func (c *listCache) put(stamp dirStampT, entries []DirEntry) {
	if len(entries) > listCacheEntries {
		return
	}
	kept := keptListing{stamp: stamp, entries: slices.Clone(entries)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[stamp.key]; !ok { // a new key: the keys of m and order stay the same
		for len(c.m) >= listCacheDirs {
			delete(c.m, c.order[0])
			c.order = c.order[1:]
		}
		c.order = append(c.order, stamp.key)
	}
	c.m[stamp.key] = kept
}
