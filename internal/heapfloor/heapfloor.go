// Package heapfloor keeps the garbage collector's heap goal from falling
// below a floor while the live heap is small.
package heapfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// runtimeMinimum is the runtime's own floor under the heap goal at
// GOGC=100, which it scales with GOGC (Go 1.26, mgcpacer.go): the goal
// is the larger of live × (1 + GOGC/100) and runtimeMinimum × GOGC/100.
const runtimeMinimum = 4 << 20

// A Floor sets GOGC after each collection; see Start.
type Floor struct {
	floor uint64
	prev  int // GOGC before Start, restored by Stop

	mu      sync.Mutex
	stopped bool
	percent int
	sample  []metrics.Sample
	tuned   func(percent int) // a test's hook: see report
}

// Start keeps the heap goal at about floor bytes while the live heap is
// under half of that, and at twice the live heap (GOGC=100) above it. It
// sets GOGC now and after each collection, for the live heap that
// collection found, until Stop. GOGC is process-wide: only one Floor
// should run at a time, and only where the process's owner has not set
// GOGC. See DESIGN.md, "A floor under the heap goal".
func Start(floor uint64) *Floor {
	f := &Floor{
		floor:   floor,
		prev:    debug.SetGCPercent(100),
		percent: 100,
		sample:  []metrics.Sample{{Name: "/gc/heap/live:bytes"}},
	}
	f.tune()
	f.arm()
	return f
}

// Stop ends the tuning and gives GOGC back the value it had before
// Start.
func (f *Floor) Stop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.stopped {
		f.stopped = true
		debug.SetGCPercent(f.prev)
	}
}

// sentinel is allocated to be collected, so that its cleanup runs after
// a collection. It holds a pointer so that it is not a tiny allocation,
// whose memory may be shared with other objects and outlive it.
type sentinel struct{ _ *byte }

// arm allocates a sentinel whose cleanup, after the next collection,
// tunes and arms the next one.
func (f *Floor) arm() {
	runtime.AddCleanup(new(sentinel), func(f *Floor) {
		if f.tune() {
			f.arm()
			f.report()
		}
	}, f)
}

// report hands a test's hook the GOGC a collection's cleanup chose, once
// the next sentinel is armed: a collection the test starts then is one
// the Floor sees.
func (f *Floor) report() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.tuned != nil {
		f.tuned(f.percent)
	}
}

// tune sets GOGC for the live heap the last collection found, and
// reports whether the Floor is still running.
func (f *Floor) tune() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped {
		return false
	}
	metrics.Read(f.sample)
	if f.sample[0].Value.Kind() == metrics.KindUint64 {
		if p := Percent(f.sample[0].Value.Uint64(), f.floor); p != f.percent {
			f.percent = p
			debug.SetGCPercent(p)
		}
	}
	return true
}

// Percent is the GOGC that gives a live heap of live bytes a goal of
// about floor bytes, or 100 when twice the live heap reaches floor. It
// never scales the runtime's own floor above floor, and it is a multiple
// of 25, so that small changes of the live heap leave it as it is.
func Percent(live, floor uint64) int {
	most := 100 * floor / runtimeMinimum
	if live == 0 || 2*live >= floor || most <= 100 {
		return 100
	}
	p := min(100*(floor-live)/live, most)
	return int(max(p-p%25, 100))
}
