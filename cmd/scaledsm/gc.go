package main

import (
	"os"
	"runtime/debug"

	"github.com/scaledsm/scaledsm"
)

// bigData is the size of operator data above which tuneGC tightens the
// collector.
const bigData = 64 << 20

// tuneGC keeps the garbage of a long solve small beside the operator's
// data. Go collects once the heap has grown by GOGC percent (100 by
// default) of what was live after the last collection, and the data is most
// of that: a batch of runs making a few hundred KB of garbage per iteration
// (gonum's small products, the traces) would grow the heap towards twice
// the data before a collection. At 25% the heap stays within a quarter of
// the data above it, at the cost of a collection every few hundred
// iterations, cheap here since the data holds no pointers. A GOGC set in
// the environment is left alone.
func tuneGC(op scaledsm.Operator) {
	if b, ok := op.(interface{ Bytes() int64 }); ok {
		tuneGCBytes(b.Bytes())
	}
}

// tuneGCBytes is tuneGC for data of the given size.
func tuneGCBytes(n int64) {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	if n >= bigData {
		debug.SetGCPercent(25)
	}
}
