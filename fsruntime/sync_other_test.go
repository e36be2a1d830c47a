//go:build !linux || acpfs_portable

package fsruntime

import (
	"os"
	"testing"
)

// countSyncs replaces syncFile and syncDir, for the rest of the test, with
// ones that record each call in order and then sync as before. target is
// the file whose content each call records.
func countSyncs(t *testing.T, target string) *[]syncCall {
	t.Helper()
	var calls []syncCall
	record := func(dir bool, f *os.File) {
		info, err := f.Stat()
		if err != nil {
			t.Errorf("stat of the synced file: %v", err)
			return
		}
		size := info.Size()
		if dir {
			size = 0 // a directory's size means nothing here
		}
		b, _ := os.ReadFile(target)
		calls = append(calls, syncCall{dir: dir, size: size, current: string(b), temp: tempNamed(t, target)})
	}
	file, dir := syncFile, syncDir
	syncFile = func(f *os.File) error { record(false, f); return file(f) }
	syncDir = func(f *os.File) error { record(true, f); return dir(f) }
	t.Cleanup(func() { syncFile, syncDir = file, dir })
	return &calls
}
