package mem

import (
	"os"
	"runtime/debug"
)

// BigData is the size of operator data above which TuneGC tightens the
// collector.
const BigData = 64 << 20

// TuneGC keeps the garbage of a long solve small beside n bytes of
// operator data. Go collects once the heap has grown by GOGC percent (100
// by default) of what was live after the last collection, and the data is
// most of that: a batch of runs making a few hundred KB of garbage per
// iteration (gonum's small products, the traces) would grow the heap
// towards twice the data before a collection. At 25% the heap stays within
// a quarter of the data above it, at the cost of a collection every few
// hundred iterations, cheap here since the data holds no pointers. A GOGC
// set in the environment is left alone.
func TuneGC(n int64) {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	if !tuneHuge(n) && n >= BigData {
		debug.SetGCPercent(25)
	}
}

// HugeData is the size of data above which TuneGC leaves 10% of garbage.
const HugeData = 1 << 30

// TuneGC for data above HugeData (10^8 ratings) tightens the collector to
// 10%: each of its passes (reading, laying out, a fit's table) leaves
// garbage of the data's own size, which at 25% would add a quarter of the
// data to the peak.
func tuneHuge(n int64) bool {
	if n >= HugeData {
		debug.SetGCPercent(10)
		return true
	}
	return false
}

// TuneGCTight is TuneGC for data that stays live to the end and beside
// which each step's garbage is small, a ratings table: above HugeData the
// collector leaves a twentieth of garbage, not a tenth. A process's peak
// is about the heap's goal and the tenth more of freed pages that the
// runtime keeps before it returns them, so that it follows the percent
// (the Netflix shape's, docs/recommend.md).
func TuneGCTight(n int64) {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	if n >= HugeData {
		debug.SetGCPercent(5)
		return
	}
	TuneGC(n)
}

// TuneGCFor is TuneGC for the data of v, when it says its size (Bytes).
func TuneGCFor(v any) {
	if b, ok := v.(interface{ Bytes() int64 }); ok {
		TuneGC(b.Bytes())
	}
}
