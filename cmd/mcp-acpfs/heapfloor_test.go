package main

import (
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

// gogc returns GOGC as the runtime has it now.
func gogc() uint64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// The floor under the heap goal starts unless GOGC is set, and then
// leaves GOGC alone.
func TestStartHeapFloor(t *testing.T) {
	env := func(gogc string) func(string) string {
		return func(name string) string {
			if name == "GOGC" {
				return gogc
			}
			return ""
		}
	}
	before := debug.SetGCPercent(150)
	defer debug.SetGCPercent(before)
	if f := startHeapFloor(env("150")); f != nil {
		f.Stop()
		t.Error("GOGC=150: the floor started")
	}
	if got := gogc(); got != 150 {
		t.Errorf("GOGC=150: GOGC is now %d", got)
	}
	f := startHeapFloor(env(""))
	if f == nil {
		t.Fatal("no GOGC: the floor did not start")
	}
	defer f.Stop()
	if got := gogc(); got == 150 {
		t.Error("no GOGC: the floor left GOGC as it was")
	}
}
