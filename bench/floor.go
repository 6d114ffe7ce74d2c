package bench

import (
	"fmt"
	"math"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/completion"
	"github.com/scaledsm/scaledsm/internal/kernel"
)

// floor is the streaming read of an operator's data on all cores, and
// for the sweep the rate of multiply-adds on all cores.
//
// The read is the honest floor of a pass bound by memory: each measure
// tries the loads of every vector implementation, reading one sequential
// stream or four at once per core, and keeps the fastest, and the floor is
// the fastest measure of the case (as a C program that sums the array
// reports its best of five). Where the bench was given the read rate of
// such a program (--membw), the floor is the faster of the two.
type floor struct {
	parts []floorPart
	bytes int64
	ms    []float64 // the fastest read of each measure
	fma   []float64 // multiply-adds per second, by measureFMA
	cMs   float64   // the same bytes at the rate of --membw's program; 0 without it
}

// floorPart is one array of the data: n elements, sum reading [lo, hi)
// with the given number of streams.
type floorPart struct {
	n   int
	sum func(lo, hi, streams int) float64
}

func f64Part(a []float64) floorPart {
	return floorPart{len(a), func(lo, hi, s int) float64 { return kernel.SumStreams(a[lo:hi], s) }}
}

func f32Part(a []float32) floorPart {
	return floorPart{len(a), func(lo, hi, s int) float64 { return kernel.SumStreams32(a[lo:hi], s) }}
}

// int32Part reads 32-bit integers with the loads of float32 data: the
// floor counts bytes, not what they hold.
func int32Part(a []int32) floorPart {
	if len(a) == 0 {
		return floorPart{}
	}
	return f32Part(unsafe.Slice((*float32)(unsafe.Pointer(&a[0])), len(a)))
}

// newFloor returns the floor of op's data; for the entrywise operator the
// data are its columns and the observations y.
func newFloor(op scaledsm.Operator, y []float64, y32 []float32) *floor {
	f := &floor{}
	switch o := op.(type) {
	case *scaledsm.Sensing:
		if a := o.Data32(); a != nil {
			f.parts = []floorPart{f32Part(a)}
		} else {
			f.parts = []floorPart{f64Part(o.Data())}
		}
		f.bytes = o.Bytes()
	case *scaledsm.Quadratic:
		a := o.Data()
		f.parts = []floorPart{f64Part(a)}
		f.bytes = 8 * int64(len(a))
	case *completion.Entries:
		if y32 != nil {
			f.parts = []floorPart{int32Part(o.Cols()), f32Part(y32)}
		} else {
			f.parts = []floorPart{int32Part(o.Cols()), f64Part(y)}
		}
		f.bytes = 4*int64(len(o.Cols())) + 8*int64(len(y)) + 4*int64(len(y32))
	}
	return f
}

// read reads every part once on all cores, each core its share.
func (f *floor) read(streams int) {
	for _, p := range f.parts {
		if p.n > 0 {
			onAllCores(func(k, procs int) float64 { return p.sum(k*p.n/procs, (k+1)*p.n/procs, streams) })
		}
	}
}

// measure reads the data with the loads of each vector implementation,
// one stream and four per core (the fastest stands for the floor, whatever
// --kernel is), and records the time of the fastest read.
func (f *floor) measure() {
	best := math.Inf(1)
	for _, streams := range []int{1, 4} {
		best = min(best, 1e3/bestRate(func() float64 { f.read(streams); return 1 }))
	}
	f.ms = append(f.ms, best)
}

// setMembw sets the read rate, in GB/s, measured by --membw's program.
func (f *floor) setMembw(gbs float64) {
	if gbs > 0 {
		f.cMs = float64(f.bytes) / (gbs * 1e9) * 1e3
	}
}

// goMs returns the fastest read of the case in this process.
func (f *floor) goMs() float64 {
	if len(f.ms) == 0 {
		return math.NaN()
	}
	return slices.Min(f.ms)
}

// value returns the floor: the fastest read in this process, or the time
// at --membw's rate where that is less.
func (f *floor) value() float64 {
	if f.cMs > 0 {
		return min(f.goMs(), f.cMs)
	}
	return f.goMs()
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

// runMembw runs the streaming-read program of --membw on GOMAXPROCS
// threads and returns the rate it prints, in GB/s ("X GB/s read ...").
func runMembw(path string) (float64, error) {
	out, err := exec.Command(path, strconv.Itoa(runtime.GOMAXPROCS(0))).Output()
	if err != nil {
		return 0, fmt.Errorf("--membw %s: %v", path, err)
	}
	fields := strings.Fields(string(out))
	if len(fields) < 2 || fields[1] != "GB/s" {
		return 0, fmt.Errorf("--membw %s: printed %q, want \"X GB/s read ...\"", path, strings.TrimSpace(string(out)))
	}
	gbs, err := strconv.ParseFloat(fields[0], 64)
	if err != nil || !(gbs > 0) {
		return 0, fmt.Errorf("--membw %s: printed %q, want a positive rate", path, fields[0])
	}
	return gbs, nil
}
