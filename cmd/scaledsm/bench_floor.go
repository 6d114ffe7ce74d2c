package main

import (
	"runtime"
	"sync"
	"time"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/kernel"
)

// floor is the streaming read of an operator's data on all cores, and
// for the sweep the rate of multiply-adds on all cores.
type floor struct {
	read  func()
	bytes int64
	ms    []float64
	fma   []float64 // multiply-adds per second, by measureFMA
}

func newFloor(op scaledsm.Operator) *floor {
	split := func(n int, sum func(lo, hi int) float64) func() {
		return func() {
			onAllCores(func(k, procs int) float64 { return sum(k*n/procs, (k+1)*n/procs) })
		}
	}
	f := &floor{}
	switch o := op.(type) {
	case *scaledsm.Sensing:
		if a := o.Data32(); a != nil {
			f.read = split(len(a), func(lo, hi int) float64 { return kernel.Sum32(a[lo:hi]) })
		} else {
			a := o.Data()
			f.read = split(len(a), func(lo, hi int) float64 { return kernel.Sum(a[lo:hi]) })
		}
		f.bytes = o.Bytes()
	case *scaledsm.Quadratic:
		a := o.Data()
		f.read = split(len(a), func(lo, hi int) float64 { return kernel.Sum(a[lo:hi]) })
		f.bytes = 8 * int64(len(a))
	}
	return f
}

// measure reads the data with the loads of each kernel implementation (the
// fastest stands for the floor, whatever --kernel is) and records the time
// of the fastest read.
func (f *floor) measure() {
	f.ms = append(f.ms, 1e3/bestRate(func() float64 { f.read(); return 1 }))
}

// measureFMA runs kernel.MultiplyAdds on every core at once with each
// implementation floorImpls returns, and records the fastest rate in
// multiply-adds per second: the arithmetic floor of a batched pass.
func (f *floor) measureFMA() {
	const rounds = 1 << 20 // a few milliseconds
	f.fma = append(f.fma, bestRate(func() float64 {
		return onAllCores(func(int, int) float64 { return kernel.MultiplyAdds(rounds) })
	}))
}

// bestRate runs work once with each implementation floorImpls returns and
// returns the highest rate, in what work returns per second of wall time.
// The active implementation is restored.
func bestRate(work func() float64) float64 {
	active := kernel.Active()
	defer kernel.Use(active)
	best := 0.0
	for _, impl := range floorImpls() {
		kernel.Use(impl)
		t := time.Now()
		done := work()
		best = max(best, done/time.Since(t).Seconds())
	}
	return best
}

// onAllCores runs f(k, procs) on procs = GOMAXPROCS goroutines at once, k <
// procs, and returns the sum of the results.
func onAllCores(f func(k, procs int) float64) float64 {
	procs := runtime.GOMAXPROCS(0)
	parts := make([]float64, 8*procs) // one cache line per goroutine
	var wg sync.WaitGroup
	for k := range procs {
		wg.Go(func() { parts[8*k] = f(k, procs) })
	}
	wg.Wait()
	var sum float64
	for k := range procs {
		sum += parts[8*k]
	}
	return sum
}

// floorImpls returns the implementations whose loads the floor tries: the
// vector ones, or the generic one where there is none.
func floorImpls() []string {
	var wide []string
	for _, impl := range kernel.Available() {
		if impl != "generic" {
			wide = append(wide, impl)
		}
	}
	if len(wide) == 0 {
		return []string{"generic"}
	}
	return wide
}

func (f *floor) median() float64 { return median(f.ms) }
