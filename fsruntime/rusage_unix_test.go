//go:build unix

package fsruntime_test

import (
	"runtime"
	"syscall"
	"time"
)

// maxRSS returns the most memory this process has held, in MiB.
func maxRSS() (float64, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	kib := float64(ru.Maxrss)
	if runtime.GOOS == "darwin" { // bytes there
		kib /= 1024
	}
	return kib / 1024, true
}

// processCPU returns the CPU time, user and system, this process has used.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
