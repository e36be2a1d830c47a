package heapfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

const mib = 1 << 20

func TestPercent(t *testing.T) {
	for _, tc := range []struct {
		live, floor uint64
		want        int
	}{
		{1 * mib, 16 * mib, 400},  // capped: the runtime's floor becomes 16 MiB
		{3 * mib, 16 * mib, 400},  // 433 would scale the runtime's floor past 16 MiB
		{5 * mib, 16 * mib, 200},  // 220, rounded down: a goal of 15 MiB
		{7 * mib, 16 * mib, 125},  // 128
		{8 * mib, 16 * mib, 100},  // twice the live heap is the floor
		{40 * mib, 16 * mib, 100}, // far above it
		{0, 16 * mib, 100},        // no collection yet
		{1 * mib, 4 * mib, 100},   // the runtime's own floor already
		{1 * mib, 2 * mib, 100},
	} {
		if got := Percent(tc.live, tc.floor); got != tc.want {
			t.Errorf("Percent(%d MiB, %d MiB) = %d, want %d", tc.live/mib, tc.floor/mib, got, tc.want)
		}
	}
}

// heapGoal returns the runtime's heap goal now.
func heapGoal() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// Start raises the heap goal of a small heap to the floor at once, and
// Stop gives GOGC back.
func TestStartAndStop(t *testing.T) {
	before := debug.SetGCPercent(100)
	debug.SetGCPercent(before)
	runtime.GC()
	small := heapGoal()
	if small >= 16*mib {
		t.Skipf("the test binary's heap goal is %d MiB already", small/mib)
	}

	f := Start(32 * mib)
	if goal := heapGoal(); goal < 30*mib || goal > 34*mib {
		t.Errorf("heap goal under a 32 MiB floor = %.1f MiB, want about 32", float64(goal)/mib)
	}
	f.Stop()
	f.Stop() // a second Stop changes nothing
	if got := debug.SetGCPercent(before); got != before {
		t.Errorf("GOGC after Stop = %d, want %d, as before Start", got, before)
	}
	runtime.GC()
	if goal := heapGoal(); goal >= 16*mib {
		t.Errorf("heap goal after Stop = %.1f MiB, want it back under 16", float64(goal)/mib)
	}
}

// After each collection the Floor sets GOGC for the live heap found: 100
// once the live heap is half the floor, the floor's again when it shrinks.
func TestTunesAfterEachCollection(t *testing.T) {
	const floor = 16 * mib
	f := Start(floor)
	defer f.Stop()
	tuned := make(chan int, 64)
	f.mu.Lock()
	f.tuned = func(p int) {
		select {
		case tuned <- p:
		default: // never block the runtime's cleanups
		}
	}
	f.mu.Unlock()

	// awaitPercent collects until a tuning after the collection sets
	// GOGC to want.
	awaitPercent := func(want int) {
		t.Helper()
		for range 10 {
			runtime.GC()
			select {
			case got := <-tuned:
				if got == want {
					return
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no tuning within 10 s of a collection")
			}
		}
		t.Fatalf("GOGC never became %d", want)
	}
	live := make([]byte, 12*mib) // more than half the floor
	for i := range live {
		live[i] = 1 // resident, as a real heap would be
	}
	awaitPercent(100)
	runtime.KeepAlive(live) // and no further
	awaitPercent(400)
	if goal := heapGoal(); goal < floor-2*mib || goal > floor+2*mib {
		t.Errorf("heap goal = %.1f MiB, want about 16", float64(goal)/mib)
	}
}
