package fsruntime_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-acpfs/mcp-acpfs/fsruntime"
)

// crashWriterEnv names the file a run of this binary as the crash test's
// writer writes to, again and again, until it is killed.
const crashWriterEnv = "MCP_ACPFS_TEST_CRASH_WRITER"

// crashNoSyncEnv, set to 1, makes the crash test's writer write with
// DiskOptions.NoSync.
const crashNoSyncEnv = "MCP_ACPFS_TEST_CRASH_NOSYNC"

// crashContents are the two contents the writer alternates between: of
// different sizes (so a cut shows), a few MiB each (so that a kill lands
// in the middle of a write), and each line naming its content (so that a
// mix of the two shows wherever it is).
func crashContents() [2]string {
	return [2]string{
		strings.Repeat("A "+strings.Repeat("a", 61)+"\n", 3<<20/64),
		strings.Repeat("B "+strings.Repeat("b", 61)+"\n", 2<<20/64),
	}
}

// TestCrashWriter is the writer process of TestWritesSurviveSIGKILL, and
// skips when the test runs as a test: it writes the two contents in turn
// through a Disk (with NoSync if crashNoSyncEnv says so), forever, saying
// "started" first.
func TestCrashWriter(t *testing.T) {
	path := os.Getenv(crashWriterEnv)
	if path == "" {
		t.Skip("the writer process of TestWritesSurviveSIGKILL")
	}
	noSync, _ := strconv.ParseBool(os.Getenv(crashNoSyncEnv))
	d, err := fsruntime.OpenDisk([]string{filepath.Dir(path)}, fsruntime.DiskOptions{MaxFileSize: 16 << 20, NoSync: noSync})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	contents := crashContents()
	fmt.Println("started")
	for i := 1; ; i++ {
		if err := d.WriteTextFile(context.Background(), path, contents[i%2]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
}

// killWindow is how long the writer may run before it is killed, at
// least: a few writes' time on a local disk, so that kills land at every
// stage of one. A slower disk gets a longer one (crashKillWindow).
const killWindow = 25 * time.Millisecond

// crashKillWindow is killWindow, or twice the fastest of three synced
// writes of the larger content in dir if that is longer.
func crashKillWindow(t *testing.T, dir string) time.Duration {
	d, err := fsruntime.OpenDisk([]string{dir}, fsruntime.DiskOptions{MaxFileSize: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	probe, content := filepath.Join(dir, "probe.txt"), crashContents()[0]
	fastest := time.Hour
	for range 3 {
		start := time.Now()
		if err := d.WriteTextFile(t.Context(), probe, content); err != nil {
			t.Fatal(err)
		}
		fastest = min(fastest, time.Since(start))
	}
	if err := os.Remove(probe); err != nil {
		t.Fatal(err)
	}
	return max(killWindow, 2*fastest)
}

// crashSeedEnv, if set, is the seed of the kill times, which every run
// logs, so that a failing run can be repeated.
const crashSeedEnv = "MCP_ACPFS_TEST_CRASH_SEED"

// TestWritesSurviveSIGKILL kills a process writing a file of a few MiB
// through a Disk, over and over, with SIGKILL at random points: 200 times
// (2000 with MCP_ACPFS_LONG=1; with -short 10, or more until both kinds
// of writer have changed the file), every other time with NoSync writes,
// just as atomic against a killed process. After each kill the file holds
// exactly one of the two contents: never a mix, a cut, empty or missing.
// The temporary files a kill leaves must be ones a Disk recognises and
// removes (complete with O_TMPFILE, maybe cut if named).
func TestWritesSurviveSIGKILL(t *testing.T) {
	if os.Getenv(crashWriterEnv) != "" {
		t.Skip("this is the writer")
	}
	t.Parallel()
	kills, most := 200, 200
	if long, _ := strconv.ParseBool(os.Getenv("MCP_ACPFS_LONG")); long {
		kills, most = 2000, 2000
	} else if testing.Short() {
		kills = 10
	}
	seed := uint64(time.Now().UnixNano())
	if env := os.Getenv(crashSeedEnv); env != "" {
		var err error
		if seed, err = strconv.ParseUint(env, 10, 64); err != nil {
			t.Fatalf("%s=%q: %v", crashSeedEnv, env, err)
		}
	}
	t.Logf("kill times from seed %d (%s=%[1]d repeats them)", seed, crashSeedEnv)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "target.txt")
	contents := crashContents()
	temps := "named"
	if fsruntime.UnnamedTemps(t, dir) {
		temps = "unnamed"
	}
	window := crashKillWindow(t, dir)
	if err := os.WriteFile(path, []byte(contents[0]), 0o644); err != nil {
		t.Fatal(err)
	}

	rng := rand.New(rand.NewPCG(seed, 5))
	var seen [2]int    // which content the file held after a kill
	var changed [2]int // kills after which the file had changed, synced and not
	leftovers := 0
	last := contents[0]
	begin := time.Now()
	i := 0
	for ; i < most && (i < kills || changed[0] == 0 || changed[1] == 0); i++ {
		cmd := exec.Command(exe, "-test.run=^TestCrashWriter$")
		noSync := i % 2
		cmd.Env = append(os.Environ(), crashWriterEnv+"="+path, crashNoSyncEnv+"="+strconv.Itoa(noSync))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait until it runs, then let it write for a random while: the
		// sleep is when the kill lands, not a wait for anything.
		if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "started\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("kill %d: the writer did not start (%q, %v): %s", i, line, err, stderr.String())
		}
		time.Sleep(time.Duration(rng.Int64N(int64(window))))
		cmd.Process.Signal(syscall.SIGKILL)
		err = cmd.Wait()
		// Windows has no signals: the kill ends the process with status 1.
		ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
		if killed := ok && ws.Signaled() || runtime.GOOS == "windows" && cmd.ProcessState.ExitCode() == 1; !killed {
			t.Fatalf("kill %d: the writer ended on its own (%v): %s", i, err, stderr.String())
		}

		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("kill %d: the file is gone: %v", i, err)
		}
		switch string(got) {
		case contents[0]:
			seen[0]++
		case contents[1]:
			seen[1]++
		default:
			t.Fatalf("kill %d: the file holds %d bytes that are neither content (starting %.40q)", i, len(got), got)
		}
		if string(got) != last {
			changed[noSync]++
			last = string(got)
		}
		// What a kill left besides the file: with O_TMPFILE, only a
		// temporary file that was complete, named just for the rename;
		// with a named temporary file (the portable writes, and Linux's
		// on a file system without O_TMPFILE), also one cut short.
		for _, name := range tempFiles(t, dir) {
			leftovers++
			if !strings.HasPrefix(name, ".target.txt.tmp-") {
				t.Errorf("kill %d left %s, which is not a temporary file's name", i, name)
			}
			left, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			whole := string(left) == contents[0] || string(left) == contents[1]
			cut := strings.HasPrefix(contents[0], string(left)) || strings.HasPrefix(contents[1], string(left))
			if !whole && (temps != "named" || !cut) {
				t.Errorf("kill %d left %s with %d bytes of a write cut short (%s temporary files)", i, name, len(left), temps)
			}
			os.Remove(filepath.Join(dir, name))
		}
	}
	t.Logf("%d kills: the file held A %d times and B %d times, and changed %d times after synced writes and %d after NoSync ones; kills came after 0 to %v of writing",
		i, seen[0], seen[1], changed[0], changed[1], window)
	t.Logf("%d temporary files (%s) were left in all (%v in all)", leftovers, temps, time.Since(begin).Round(time.Millisecond))
	if changed[0] == 0 || changed[1] == 0 {
		t.Errorf("the file never changed after a kill of one kind of writer: no kill came after a whole write, so the test proved nothing of it")
	}
}

// tempFiles lists the names in dir other than the target.
func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.Name() != "target.txt" {
			names = append(names, e.Name())
		}
	}
	return names
}
