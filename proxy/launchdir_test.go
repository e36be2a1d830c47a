package proxy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A launch directory left by a proxy that is gone is removed at the next
// start; one whose proxy lives, or one just made, is not.
func TestRemoveStaleLaunchDirs(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("TMP", tmp)
	t.Setenv("TEMP", tmp)

	// A dead proxy's: its lock file is there, and no one holds it.
	dead := filepath.Join(tmp, launchDirPrefix+"1-dead")
	if err := os.MkdirAll(dead, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dead, launchLockName), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// An old directory without a lock file, and a new one.
	old := filepath.Join(tmp, launchDirPrefix+"2-old")
	fresh := filepath.Join(tmp, launchDirPrefix+"3-fresh")
	for _, d := range []string{old, fresh} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	long := time.Now().Add(-time.Hour)
	if err := os.Chtimes(old, long, long); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(tmp, "someone-else")
	if err := os.MkdirAll(other, 0o700); err != nil {
		t.Fatal(err)
	}

	live, err := newLaunchDir() // removes the stale ones first
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(live.path) != filepath.Clean(os.TempDir()) {
		t.Fatalf("launch dir %s not in %s", live.path, os.TempDir())
	}
	for _, d := range []string{dead, old} {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("%s is stale and was not removed", filepath.Base(d))
		}
	}
	for _, d := range []string{fresh, other, live.path} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(d), err)
		}
	}

	// The live one stays while its owner holds it, even for another start.
	removeStaleLaunchDirs(tmp)
	if _, err := os.Stat(live.path); err != nil {
		t.Fatalf("a live launch dir was removed: %v", err)
	}
	live.remove()
	if _, err := os.Stat(live.path); err == nil {
		t.Error("remove left the launch dir")
	}
}

// A launch directory whose owner was killed outright (no exit handler ran)
// is removed at the next start.
func TestRemoveStaleLaunchDirsOfKilledProcess(t *testing.T) {
	if os.Getenv("MCP_ACPFS_TEST_LAUNCHDIR_CHILD") == "1" {
		d, err := newLaunchDir()
		if err != nil {
			os.Exit(2)
		}
		os.Stdout.WriteString(d.path + "\n")
		time.Sleep(time.Minute) // killed before this ends
		return
	}
	tmp := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestRemoveStaleLaunchDirsOfKilledProcess$")
	cmd.Env = append(os.Environ(), "MCP_ACPFS_TEST_LAUNCHDIR_CHILD=1", "TMPDIR="+tmp, "TMP="+tmp, "TEMP="+tmp)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	n, _ := out.Read(buf)
	dir := strings.TrimSpace(string(buf[:n]))
	if dir == "" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("the child made no launch dir")
	}
	removeStaleLaunchDirs(tmp)
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the live child's launch dir %q was removed: %v", dir, err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	removeStaleLaunchDirs(tmp)
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("the killed child's launch dir %s was not removed", dir)
	}
}
