package bench

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/cputime"
	"github.com/scaledsm/scaledsm/internal/kernel"
	"github.com/scaledsm/scaledsm/internal/mem"
	"github.com/scaledsm/scaledsm/synth"
)

// Options are the options a child process runs its case with.
type Options struct {
	Quick    bool
	Iters    int
	MembwGBs float64 // GB/s read by --membw's program just before; 0 without it
}

// completionCase is the shape of a matrix completion case: n1×n2, rank r,
// m entries expected (each observed with probability m/(n1·n2)).
type completionCase struct {
	n1, n2, r int
	m         float64
	precision synth.Precision // of the observations
}

// completionCases are the matrix completion cases, the last two of which
// (10^8 entries, about 4 GB each) run only with --large. The Netflix
// shape's observations are float32, as ratings are (Problem.Y32).
var completionCases = map[string]completionCase{
	"mc-1e6":      {100_000, 100_000, 10, 1e6, synth.Float64},
	"mc-1e7":      {100_000, 100_000, 10, 1e7, synth.Float64},
	"netflix-1e7": {480_189, 17_770, 10, 1e7, synth.Float32},
	"mc-1e8":      {100_000, 100_000, 10, 1e8, synth.Float64},
	"netflix-1e8": {480_189, 17_770, 10, 1e8, synth.Float32},
}

// RunCase runs one case in this process and returns its measurements.
func RunCase(name string, o Options) (*Result, error) {
	if _, ok := completionCases[name]; ok {
		return completionBench(name, o)
	}
	res := newBenchResult(name, o)
	var cfg synth.Config
	switch {
	case name == "quadratic" && o.Quick:
		cfg = synth.Config{Kind: synth.Quadratic, N1: 20, Rank: 2}
	case name == "quadratic":
		cfg = synth.Config{Kind: synth.Quadratic, N1: 100, Rank: 5}
	case slices.Contains(Cases, name) && o.Quick:
		cfg = synth.Config{Kind: synth.Sensing, N1: 20, Rank: 3}
	case slices.Contains(Cases, name):
		cfg = synth.Config{Kind: synth.Sensing, N1: 100, Rank: 10}
	default:
		return nil, fmt.Errorf("unknown case")
	}
	cfg.Seed = 1
	if name == "sensing-f32" {
		cfg.Precision = synth.Float32
	}
	draw, err := synth.New(cfg)
	if err != nil {
		return nil, err
	}
	mem.TuneGCFor(draw.Op)
	res.Size = fmt.Sprintf("n=%d r=%d m=%d", draw.N1, draw.Rank, draw.M)
	in, err := draw.Instance(synth.Setting{Kappa: 10, PS: 0.2, SNR: math.Inf(1)})
	if err != nil {
		return nil, err
	}
	problem := in.Problem()
	spec, err := scaledsm.Problem{Op: problem.Op, Y: problem.Y, Rank: problem.Rank}.Spectral(scaledsm.TruncateFraction(0.2))
	if err != nil {
		return nil, err
	}
	init := &spec
	floor := newFloor(draw.Op, problem.Y, nil)
	floor.setMembw(o.MembwGBs)
	res.DataMB = float64(floor.bytes) / 1e6

	iters := o.Iters
	if iters == 0 {
		iters = map[string]int{"quadratic": 1000, "sweep-109": 6}[name]
		if iters == 0 {
			iters = 12
		}
	}
	// Slowly decaying geometric steps: an iteration costs what it costs
	// with any rule, and no run stops early (Polyak's would stall once
	// converged).
	single := scaledsm.Settings{Step: scaledsm.Geometric{Lambda: 1, Q: 0.999}, Init: init, MaxIter: iters, Tol: -1}
	c0, t0 := cputime.Process(), time.Now()
	switch name {
	case "sweep-109":
		jobs := sweepJobs(problem, in.FStar, init, iters)
		times, active, err := timeBatch(jobs, floor)
		if err != nil {
			return nil, err
		}
		perRun := make([]float64, len(times))
		for i, t := range times {
			perRun[i] = t / float64(active[i])
		}
		alone, err := timeSolve(problem, scaledsm.Settings{Step: jobs[0].Settings.Step, Init: init, MaxIter: iters + 2, Tol: -1}, floor)
		if err != nil {
			return nil, err
		}
		res.Runs = len(jobs)
		res.ActiveRuns = median(intsToFloats(active))
		res.Iterations = len(times)
		res.MsPerIter = median(perRun)
		res.BestMsPerIter = slices.Min(perRun)
		batch, one, least := median(times), median(alone), slices.Min(times)
		res.BatchMs, res.OneAtATimeMs, res.BatchBestMs = &batch, &one, &least
		speedup := one / res.MsPerIter
		res.Speedup = &speedup
		res.RatioToFloor = batch / floor.value()
		m, n1, n2 := problem.Op.Dims()
		peak := slices.Max(floor.fma)
		cf := 2 * float64(m*n1*n2) / peak * 1e3
		most := one / cf
		peakG := peak / 1e9
		share := cf / res.MsPerIter
		res.FMAPeakG, res.ComputeFloorMs, res.MaxSpeedup, res.FMAPeakShare = &peakG, &cf, &most, &share
		res.SweepRows, res.SweepLength = m, n1*n2
		res.Target = "≥ 80% of the FMA peak"
		res.Met = share >= 0.8
	default:
		times, err := timeSolve(problem, single, floor)
		if err != nil {
			return nil, err
		}
		res.setTimes(times, floor)
		if name == "quadratic" {
			res.Target = "≤ 0.5 ms"
			res.Met = res.MsPerIter <= 0.5
		} else {
			res.Target = "≤ 1.2 × floor"
			res.Met = res.RatioToFloor <= 1.2
		}
	}
	res.setCPUShare(c0, t0)
	if strings.HasPrefix(name, "sensing") {
		limit := 1.15*res.DataMB + 64
		res.MemoryLimitMB = &limit
	}
	res.finish(floor)
	return res, nil
}

// newBenchResult starts the result of a case.
func newBenchResult(name string, o Options) *Result {
	res := &Result{Case: name, Kernel: kernel.Active(), Procs: runtime.GOMAXPROCS(0), Quick: o.Quick}
	res.Load = append(res.Load, loadAverage()...)
	return res
}

// setTimes records the iteration times of a single run: their median and
// the least, and the median's ratio to the floor.
func (res *Result) setTimes(times []float64, f *floor) {
	res.Iterations = len(times)
	res.MsPerIter = median(times)
	res.BestMsPerIter = slices.Min(times)
	res.RatioToFloor = res.MsPerIter / f.value()
}

// setCPUShare records the CPU time since c0 over the wall time since t0
// and GOMAXPROCS.
func (res *Result) setCPUShare(c0 time.Duration, t0 time.Time) {
	if wall := time.Since(t0); wall > 0 {
		res.CPUShare = (cputime.Process() - c0).Seconds() / (wall.Seconds() * float64(res.Procs))
	}
}

// finish records the floor and the memory of the process, and checks the
// memory limit where the case has one.
func (res *Result) finish(f *floor) {
	res.FloorMs = f.value()
	res.GoFloorMs = f.goMs()
	res.FloorMedianMs = median(f.ms)
	if f.cMs > 0 {
		c := f.cMs
		res.MembwFloorMs = &c
	}
	if rss, ok := mem.PeakRSS(); ok {
		mb := float64(rss) / 1e6
		res.PeakRSSMB = &mb
		if res.MemoryLimitMB != nil {
			met := mb <= *res.MemoryLimitMB
			res.MemoryMet = &met
		}
	}
	if kb, ok := mem.ProcKB("/proc/self/smaps_rollup", "AnonHugePages:"); ok {
		mb := float64(kb) * 1024 / 1e6
		res.HugePagesMB = &mb
	}
	res.Load = append(res.Load, loadAverage()...)
}

// sweepJobs returns the 109 runs of Figure 5 (the (λ, q) grid of geometric
// steps and Polyak's steps) on one problem from one initialization,
// Polyak's first.
func sweepJobs(p scaledsm.Problem, fStar float64, init *scaledsm.Factors, iters int) []scaledsm.Job {
	jobs := []scaledsm.Job{{Problem: p, Settings: scaledsm.Settings{Step: scaledsm.Polyak{FStar: fStar}, Init: init, MaxIter: iters}}}
	for _, lambda := range []float64{1, 2, 5, 10, 20, 50} {
		for q := 80; q <= 97; q++ {
			jobs = append(jobs, scaledsm.Job{Problem: p, Settings: scaledsm.Settings{
				Step: scaledsm.Geometric{Lambda: lambda, Q: float64(q) / 100}, Init: init, MaxIter: iters,
			}})
		}
	}
	return jobs
}

// timeSolve solves p and returns the wall milliseconds of each iteration
// but the first, interleaving a floor read between iterations (not
// counted), so that a drift of the machine's load affects both alike.
func timeSolve(p scaledsm.Problem, s scaledsm.Settings, f *floor) ([]float64, error) {
	var times []float64
	var last time.Time
	s.Recorder = func(it scaledsm.Iteration) {
		if it.Iter > 0 {
			times = append(times, msSince(last))
		}
		f.measure()
		last = time.Now()
	}
	res, err := scaledsm.Solve(context.Background(), p, s)
	if err != nil {
		return nil, err
	}
	if res.Iterations < s.MaxIter {
		return nil, fmt.Errorf("the timed run stopped (%v) after %d of %d iterations", res.Status, res.Iterations, s.MaxIter)
	}
	return times, nil
}

// timeBatch solves the jobs as one batch and returns the wall milliseconds
// of each batched iteration but the first and the number of runs it
// advanced. Job 0 must not stop before the others; a floor read and a
// measure of the multiply-add rate are interleaved between iterations,
// not counted.
func timeBatch(jobs []scaledsm.Job, f *floor) (times []float64, active []int, err error) {
	var last time.Time
	jobs[0].Settings.Recorder = func(it scaledsm.Iteration) {
		if it.Iter > 0 {
			times = append(times, msSince(last))
		}
		f.measure()
		f.measureFMA()
		last = time.Now()
	}
	results, err := scaledsm.SolveBatch(context.Background(), jobs)
	if err != nil {
		return nil, nil, err
	}
	for t := range times {
		n := 0
		for _, r := range results {
			if len(r.Trace) > t+1 {
				n++
			}
		}
		active = append(active, n)
	}
	return times, active, nil
}
