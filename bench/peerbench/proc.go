package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// procStatus holds the memory figures of a process, in bytes, from
// /proc/PID/status.
type procStatus struct {
	RSS  int64 // VmRSS: resident now
	Peak int64 // VmHWM: the peak resident size since start or the last resetPeak
}

// readStatus reads the memory figures of process pid.
func readStatus(pid int) (procStatus, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return procStatus{}, err
	}
	return parseStatus(b)
}

// parseStatus reads VmRSS and VmHWM, given in kB, from the text of
// /proc/PID/status.
func parseStatus(b []byte) (procStatus, error) {
	var s procStatus
	var haveRSS, havePeak bool
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if !ok || (name != "VmRSS" && name != "VmHWM") {
			continue
		}
		f := strings.Fields(value)
		if len(f) != 2 || f[1] != "kB" {
			return s, fmt.Errorf("/proc status: %s: unexpected value %q", name, value)
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return s, fmt.Errorf("/proc status: %s: %w", name, err)
		}
		if name == "VmRSS" {
			s.RSS, haveRSS = kb<<10, true
		} else {
			s.Peak, havePeak = kb<<10, true
		}
	}
	if !haveRSS || !havePeak {
		return s, fmt.Errorf("/proc status: no VmRSS or VmHWM (is the process a zombie?)")
	}
	return s, nil
}

// resetPeak sets the peak resident size of process pid to its current
// one (clear_refs 5, Linux 4.0 and later), so that the next peak read is
// the peak of what came between.
func resetPeak(pid int) error {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
}

// clockTick is the unit of the CPU times in /proc/PID/stat: USER_HZ, which
// is 100 on every Linux architecture Go supports.
const clockTick = 10 * time.Millisecond

// cpuTime returns the user and system CPU time process pid has used, its
// threads included.
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return parseStatCPU(b)
}

// parseStatCPU reads utime and stime (fields 14 and 15) from the text of
// /proc/PID/stat. The command name, field 2, is in parentheses and may
// hold spaces, so the fields are counted from its closing parenthesis.
func parseStatCPU(b []byte) (time.Duration, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc stat: no command name in %.100q", b)
	}
	f := strings.Fields(string(b[i+1:])) // f[0] is field 3, the state
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc stat: %d fields after the command name, want at least 13", len(f))
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc stat: CPU time %q: %w", s, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * clockTick, nil
}
