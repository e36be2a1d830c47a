//go:build linux && !acpfs_portable

package fsruntime

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// countSyncs replaces syncFile and syncDir, for the rest of the test, with
// ones that record each call in order and then sync as before. target is
// the file whose content each call records.
func countSyncs(t *testing.T, target string) *[]syncCall {
	t.Helper()
	var calls []syncCall
	record := func(dir bool, fd int) {
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			t.Errorf("fstat of the synced descriptor: %v", err)
		}
		b, _ := os.ReadFile(target)
		calls = append(calls, syncCall{dir: dir, size: st.Size, current: string(b), temp: tempNamed(t, target)})
	}
	file, dir := syncFile, syncDir
	syncFile = func(fd int) error { record(false, fd); return file(fd) }
	syncDir = func(fd int) error { record(true, fd); return dir(fd) }
	t.Cleanup(func() { syncFile, syncDir = file, dir })
	return &calls
}
