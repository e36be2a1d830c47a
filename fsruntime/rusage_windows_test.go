package fsruntime_test

import (
	"time"

	"golang.org/x/sys/windows"
)

// maxRSS is not measured here.
func maxRSS() (float64, bool) { return 0, false }

// processCPU returns the CPU time, user and system, this process has used.
func processCPU() (time.Duration, bool) {
	var creation, exit, kernel, user windows.Filetime
	if windows.GetProcessTimes(windows.CurrentProcess(), &creation, &exit, &kernel, &user) != nil {
		return 0, false
	}
	ticks := func(f windows.Filetime) time.Duration {
		return time.Duration(int64(f.HighDateTime)<<32|int64(f.LowDateTime)) * 100
	}
	return ticks(kernel) + ticks(user), true
}
