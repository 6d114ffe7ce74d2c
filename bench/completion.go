package bench

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/completion"
	"github.com/scaledsm/scaledsm/internal/cputime"
	"github.com/scaledsm/scaledsm/internal/kernel"
	"github.com/scaledsm/scaledsm/internal/mem"
	"github.com/scaledsm/scaledsm/synth"
)

// completionBench times the iterations of matrix completion (the entrywise
// operator and its default method, completion.DefaultSettings) on a synthetic problem of
// completionCases, beside the floor: one streaming read of the stored
// entries (a 4-byte column and an 8-byte observation each, or 4 bytes for
// float32 observations) on all cores.
// It also times the generation of the problem and checks the peak memory
// against 40 bytes per entry plus the factors.
//
// The run starts from the truth's factors scaled by 1.1, not from the
// spectral estimate: an iteration costs the same from anywhere, and the
// case times iterations. The problem carries no truth (as real data do),
// so the solver forms no fits.
func completionBench(name string, o Options) (*Result, error) {
	res := newBenchResult(name, o)
	cc := completionCases[name]
	if o.Quick {
		cc = completionCase{2000, 2000 * cc.n2 / cc.n1, 5, 2e4, cc.precision}
	}
	t := time.Now()
	draw, err := synth.New(synth.Config{Kind: synth.Completion, N1: cc.n1, N2: cc.n2, Rank: cc.r,
		P: cc.m / (float64(cc.n1) * float64(cc.n2)), Seed: 1, Precision: cc.precision})
	if err != nil {
		return nil, err
	}
	in, err := draw.Instance(synth.Setting{Kappa: 10, PS: 0.1, SNR: math.Inf(1)})
	if err != nil {
		return nil, err
	}
	gen := msSince(t)
	res.GenerateMs = &gen
	mem.TuneGCFor(draw.Op)
	res.Size = fmt.Sprintf("%d×%d r=%d m=%d", draw.N1, draw.N2, draw.Rank, draw.M)
	problem := scaledsm.Problem{Op: in.Op, Y: in.Y, Y32: in.Y32, Rank: draw.Rank}
	init := scaledsm.Factors{L: &mat.Dense{}, R: &mat.Dense{}}
	init.L.Scale(1.1, in.Star.L)
	init.R.Scale(1.1, in.Star.R)

	floor := newFloor(draw.Op, problem.Y, problem.Y32)
	floor.setMembw(o.MembwGBs)
	res.DataMB = float64(floor.bytes) / 1e6
	iters := o.Iters
	if iters == 0 {
		iters = 12
	}
	c0, t0 := cputime.Process(), time.Now()
	settings := completion.DefaultSettings().Settings
	settings.Init, settings.MaxIter, settings.Tol = &init, iters, -1
	settings.Ridge = 0 // the iterations timed, not the choice of a penalty
	times, err := timeSolve(problem, settings, floor)
	if err != nil {
		return nil, err
	}
	res.setTimes(times, floor)
	// The arithmetic floor: 3r multiply-adds an entry (its fit, its
	// share of GL's row and of GR's) at the machine's peak rate.
	for range 3 {
		floor.measureFMA()
	}
	peak := slices.Max(floor.fma)
	peakG, cf := peak/1e9, 3*float64(draw.Rank)*float64(draw.M)/peak*1e3
	res.FMAPeakG, res.ComputeFloorMs = &peakG, &cf
	af := accessFloor(draw.Op.(*completion.Entries), draw.Rank)
	res.AccessFloorMs = &af
	res.setCPUShare(c0, t0)
	res.Target = "≤ 3 × floor"
	res.Met = res.RatioToFloor <= 3
	factors := 8 * float64(draw.N1+draw.N2) * float64(draw.Rank)
	limit := (40*float64(draw.M) + factors) / 1e6
	res.MemoryLimitMB = &limit
	res.finish(floor)
	return res, nil
}

// accessFloor returns the fastest of three passes, in milliseconds, of the
// random accesses of a completion iteration without its arithmetic: for
// each entry, R's row at its column gathered and added to that row of a
// partial GR, one partial per core, each core a contiguous share of the
// entries (with the rows of the next 64 entries prefetched, as the pass
// prefetches a row ahead).
func accessFloor(op *completion.Entries, r int) float64 {
	cols := op.Cols()
	_, _, n2 := op.Dims()
	R := make([]float64, n2*r)
	for i := range R {
		R[i] = float64(i%7) - 3
	}
	procs := runtime.GOMAXPROCS(0)
	parts := make([][]float64, procs)
	for k := range parts {
		parts[k] = make([]float64, n2*r)
	}
	best := math.Inf(1)
	for range 3 {
		t := time.Now()
		onAllCores(func(k, procs int) float64 {
			lo, hi := k*len(cols)/procs, (k+1)*len(cols)/procs
			p := parts[k]
			const ahead = 64
			for e := lo; e < hi; e++ {
				if (e-lo)%ahead == 0 && e+2*ahead <= hi {
					next := cols[e+ahead : e+2*ahead]
					kernel.PrefetchRows(R, next, r, r)
					kernel.PrefetchRows(p, next, r, r)
				}
				j := int(cols[e])
				rj, gj := R[j*r:(j+1)*r], p[j*r:(j+1)*r]
				for a, v := range rj {
					gj[a] += v
				}
			}
			return 0
		})
		best = min(best, msSince(t))
	}
	return best
}
