//go:build linux && !acpfs_portable

package fsruntime

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestListCache checks that a listing is given again only while its
// directory is unchanged: kept listings are used (shown by poisoning
// one), and every change to the directory's entries (create, remove,
// rename, a type change) is seen at once, however the clock stands.
func TestListCache(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "d")
	for _, name := range []string{"d/a.txt", "d/b.txt"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := OpenDisk([]string{root}, DiskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	listings := d.listings

	stampOf := func(at time.Time) (dirStampT, bool) {
		f, err := os.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		info, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		return dirStamp(f, info, at)
	}
	list := func() []DirEntry {
		t.Helper()
		entries, truncated, err := d.ListDir(t.Context(), dir, 0)
		if err != nil || truncated {
			t.Fatalf("ListDir: %v, truncated %t", err, truncated)
		}
		return entries
	}

	// Just made: too recent to keep, by the real clock.
	list()
	if _, kept := stampOf(time.Now()); kept {
		t.Fatal("a directory changed this instant is keepable")
	}
	if len(listings.m) != 0 {
		t.Fatalf("a listing of a directory changed this instant was kept: %v", listings.m)
	}

	// From an hour on, the directory is old enough.
	d.now = func() time.Time { return time.Now().Add(time.Hour) }
	if _, kept := stampOf(d.now()); !kept {
		t.Skip("the temporary directory's file system is not one whose listings are kept")
	}
	want := []DirEntry{{"a.txt", TypeFile}, {"b.txt", TypeFile}}
	if got := list(); !slices.Equal(got, want) {
		t.Fatalf("ListDir = %v, want %v", got, want)
	}
	stamp, _ := stampOf(d.now())
	if len(listings.m) != 1 || listings.m[stamp.key].stamp != stamp {
		t.Fatalf("the listing was not kept: %v", listings.m)
	}
	// Poison the kept listing: an unchanged directory gives it back, and
	// with a cap, capped.
	poisoned := []DirEntry{{"kept-1", TypeOther}, {"kept-2", TypeOther}}
	listings.put(stamp, poisoned)
	if got := list(); !slices.Equal(got, poisoned) {
		t.Fatalf("an unchanged directory listed as %v, want the kept %v", got, poisoned)
	}
	if got, truncated, err := d.ListDir(t.Context(), dir, 1); err != nil || !truncated || !slices.Equal(got, poisoned[:1]) {
		t.Fatalf("ListDir max=1 = %v, %t, %v; want the first kept entry, truncated", got, truncated, err)
	}
	got, _, err := d.ReadDir(t.Context(), dir, 0)
	if err != nil || len(got) != 0 {
		t.Fatalf("ReadDir of poisoned names = %v, %v; want the kept names, which do not exist, left out", got, err)
	}
	// The kept listings are d's: a Disk that d narrows shares them,
	// another Disk of the same root does not.
	narrowed, err := d.Narrow([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	defer narrowed.Close()
	if got, _, err := narrowed.ListDir(t.Context(), dir, 0); err != nil || !slices.Equal(got, poisoned) {
		t.Errorf("a narrowed Disk listed %v, %v; want d's kept %v", got, err, poisoned)
	}
	other, err := OpenDisk([]string{root}, DiskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	other.now = d.now
	if got, _, err := other.ListDir(t.Context(), dir, 0); err != nil || !slices.Equal(got, want) {
		t.Errorf("another Disk listed %v, %v; want %v, not d's kept listing", got, err, want)
	}

	for _, change := range []struct {
		name string
		do   func() error
		want []DirEntry
	}{
		{"create", func() error { return os.WriteFile(filepath.Join(dir, "c.txt"), nil, 0o644) },
			[]DirEntry{{"a.txt", TypeFile}, {"b.txt", TypeFile}, {"c.txt", TypeFile}}},
		{"remove", func() error { return os.Remove(filepath.Join(dir, "a.txt")) },
			[]DirEntry{{"b.txt", TypeFile}, {"c.txt", TypeFile}}},
		{"rename", func() error { return os.Rename(filepath.Join(dir, "b.txt"), filepath.Join(dir, "e.txt")) },
			[]DirEntry{{"c.txt", TypeFile}, {"e.txt", TypeFile}}},
		{"type change", func() error {
			if err := os.Remove(filepath.Join(dir, "c.txt")); err != nil {
				return err
			}
			return os.Mkdir(filepath.Join(dir, "c.txt"), 0o755)
		}, []DirEntry{{"c.txt", TypeDirectory}, {"e.txt", TypeFile}}},
		{"symlink", func() error { return os.Symlink("e.txt", filepath.Join(dir, "l")) },
			[]DirEntry{{"c.txt", TypeDirectory}, {"e.txt", TypeFile}, {"l", TypeSymlink}}},
	} {
		// Keep a listing of the directory with its times an hour back,
		// then poison it, so that a stale hit cannot pass. The change
		// moves the times from there, however coarse the file system's
		// clock: tmpfs stamps in ticks, within which two changes look
		// alike.
		past := time.Now().Add(-time.Hour)
		if err := os.Chtimes(dir, past, past); err != nil {
			t.Fatal(err)
		}
		list()
		s, _ := stampOf(d.now())
		if listings.m[s.key].stamp != s {
			t.Fatalf("before %s: the listing was not kept", change.name)
		}
		listings.put(s, poisoned)
		if err := change.do(); err != nil {
			t.Fatal(err)
		}
		if got := list(); !slices.Equal(got, change.want) {
			t.Errorf("after %s: ListDir = %v, want %v", change.name, got, change.want)
		}
	}
}

// TestListCacheBounds checks that the cache keeps at most listCacheDirs
// listings, dropping the oldest, and no listing over listCacheEntries.
func TestListCacheBounds(t *testing.T) {
	t.Parallel()
	c := newListCache()
	for i := range listCacheDirs + 10 {
		c.put(dirStampT{key: dirKey{ino: uint64(i)}}, []DirEntry{{"x", TypeFile}})
	}
	if len(c.m) != listCacheDirs || len(c.order) != listCacheDirs {
		t.Fatalf("%d listings, %d keys in order; want %d", len(c.m), len(c.order), listCacheDirs)
	}
	if _, ok := c.get(dirStampT{key: dirKey{ino: 0}}); ok {
		t.Error("the oldest listing was not dropped")
	}
	if _, ok := c.get(dirStampT{key: dirKey{ino: listCacheDirs + 9}}); !ok {
		t.Error("the newest listing was dropped")
	}
	// A stale stamp misses, and its replacement takes no new place.
	newest := dirStampT{key: dirKey{ino: listCacheDirs + 9}, mtime: 1}
	if _, ok := c.get(newest); ok {
		t.Error("a stale stamp was a hit")
	}
	c.put(newest, nil)
	if len(c.m) != listCacheDirs || len(c.order) != listCacheDirs {
		t.Errorf("after a replacement: %d listings, %d keys in order", len(c.m), len(c.order))
	}
	c.put(dirStampT{key: dirKey{ino: 1 << 40}}, make([]DirEntry, listCacheEntries+1))
	if _, ok := c.m[dirKey{ino: 1 << 40}]; ok {
		t.Error("a listing over the entry cap was kept")
	}
}
