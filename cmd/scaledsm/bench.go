package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/cputime"
	"github.com/scaledsm/scaledsm/internal/kernel"
	"github.com/scaledsm/scaledsm/synth"
)

// The cases of bench, in the order they run.
var benchCases = []string{"sensing-f64", "sensing-f32", "quadratic", "sweep-109"}

// benchResult is one case's measurements: a row of the table and an object
// of the --json array.
type benchResult struct {
	Case      string  `json:"case"`
	Size      string  `json:"size"`
	MsPerIter float64 `json:"ms_per_iter"` // median; per run for the sweep
	FloorMs   float64 `json:"floor_ms"`    // median streaming read of the data
	// RatioToFloor is MsPerIter/FloorMs (for the sweep, the batched
	// iteration's median over the floor).
	RatioToFloor float64 `json:"ratio_to_floor"`
	Iterations   int     `json:"iterations"` // iterations timed
	// The sweep: runs in the batch, the median number still running, the
	// batched iteration's median ms, one run alone's median ms per
	// iteration (the same process), and their ratio per run.
	Runs         int      `json:"runs,omitempty"`
	ActiveRuns   float64  `json:"active_runs,omitempty"`
	BatchMs      *float64 `json:"batch_ms_per_iter,omitempty"`
	OneAtATimeMs *float64 `json:"one_at_a_time_ms,omitempty"`
	Speedup      *float64 `json:"speedup,omitempty"`
	// The sweep's arithmetic floor: the fastest rate of independent fused
	// multiply-adds on all cores (G per second, measured between the
	// batched iterations), the milliseconds per run of a run's 2·m·n1·n2
	// multiply-adds at that rate, and the speed-up over one at a time that
	// it allows.
	FMAPeakG       *float64 `json:"fma_peak_g_per_s,omitempty"`
	ComputeFloorMs *float64 `json:"compute_floor_ms,omitempty"`
	MaxSpeedup     *float64 `json:"max_speedup,omitempty"`
	Target         string   `json:"target"`
	Met            bool     `json:"met"`
	PeakRSSMB      *float64 `json:"peak_rss_mb"`             // VmHWM of the case's process; null where unknown
	HugePagesMB    *float64 `json:"huge_pages_mb,omitempty"` // memory on transparent huge pages at the end (AnonHugePages)
	DataMB         float64  `json:"data_mb"`
	MemoryLimitMB  *float64 `json:"memory_limit_mb,omitempty"` // sensing: 1.15 × data + 64 MB
	MemoryMet      *bool    `json:"memory_met,omitempty"`
	// CPUShare is the CPU time of the timed iterations over their wall time
	// and GOMAXPROCS: near 1 when the case had the cores to itself.
	CPUShare float64   `json:"cpu_share"`
	Load     []float64 `json:"load_average,omitempty"` // 1-minute load average before and after
	Kernel   string    `json:"kernel"`
	Procs    int       `json:"gomaxprocs"`
	Quick    bool      `json:"quick,omitempty"`
}

const benchSynopsis = `Measures the median milliseconds per iteration and the peak memory of
sensing (float64 and float32 storage), quadratic sampling and a batched sweep
of 109 sensing runs, at the paper's sizes, beside the floor measured in the
same process (a streaming read of the data on all cores, between the timed
iterations, with the fastest loads of the machine). Each case runs in a process of its own, so that its peak memory
is its own; the whole takes a few minutes. Prints a Markdown table, or with
--json one JSON array.`

func runBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench", benchSynopsis, stdout)
	asJSON := fs.Bool("json", false, "print one JSON array of objects instead of the table")
	quick := fs.Bool("quick", false, "small sizes, for a check in seconds (the targets are those of the paper's sizes)")
	cases := fs.String("cases", strings.Join(benchCases, ","), "the cases to run, comma-separated")
	iters := fs.Int("iters", 0, "iterations timed per case (default 12 for sensing, 1000 for quadratic sampling,\n6 batched and 8 single iterations for the sweep)")
	kernelName := kernelFlag(fs)
	// --child CASE runs one case in this process: the parent re-executes
	// itself with it for each case. It is internal, left out of the help.
	child := fs.String("child", "", "internal")
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage: scaledsm bench [flags]\n\n%s\n\nFlags:\n", benchSynopsis)
		fs.VisitAll(func(f *flag.Flag) {
			if f.Name != "child" {
				printFlag(w, f)
			}
		})
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := useKernel(*kernelName); err != nil {
		return err
	}
	if *iters < 0 {
		return badFlag("iters", *iters, "must be positive")
	}
	if *child != "" {
		res, err := benchCase(*child, *quick, *iters)
		if err != nil {
			return err
		}
		return json.NewEncoder(stdout).Encode(res)
	}
	var names []string
	for _, c := range strings.Split(*cases, ",") {
		c = strings.TrimSpace(c)
		if !slices.Contains(benchCases, c) {
			return badFlag("cases", *cases, fmt.Sprintf("unknown case %q (want some of %s)", c, strings.Join(benchCases, ", ")))
		}
		names = append(names, c)
	}

	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	var results []benchResult
	start := time.Now()
	for _, name := range names {
		fmt.Fprintf(stderr, "bench: %s ...\n", name)
		cargs := []string{"bench", "--child", name, "--kernel", kernel.Active()}
		if *quick {
			cargs = append(cargs, "--quick")
		}
		if *iters > 0 {
			cargs = append(cargs, "--iters", strconv.Itoa(*iters))
		}
		cmd := exec.Command(exe, cargs...)
		var out, errs bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errs
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("case %s: %v\n%s", name, err, strings.TrimSpace(errs.String()))
		}
		var r benchResult
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			return fmt.Errorf("case %s: reading its result: %v\n%s", name, err, out.String())
		}
		results = append(results, r)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(results)
	}
	printBenchTable(stdout, results, time.Since(start))
	return nil
}

// printBenchTable prints the results as a Markdown table.
func printBenchTable(w io.Writer, rs []benchResult, elapsed time.Duration) {
	yes := map[bool]string{true: "yes", false: "**no**"}
	fmt.Fprintln(w, "| case | size | ms per iteration (median) | floor ms | ratio | target | met | peak RSS MB | memory limit MB | met | CPU share |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	for _, r := range rs {
		ms := fmt.Sprintf("%.3g", r.MsPerIter)
		ratio := fmt.Sprintf("%.2f × floor", r.RatioToFloor)
		if r.Speedup != nil {
			ms = fmt.Sprintf("%.3g per run (batch %.4g / %.0f runs; alone %.3g)", r.MsPerIter, *r.BatchMs, r.ActiveRuns, *r.OneAtATimeMs)
			ratio = fmt.Sprintf("%.1f × faster", *r.Speedup)
			if r.MaxSpeedup != nil {
				ratio += fmt.Sprintf(" (at most %.1f × at the FMA peak, %.0f G/s: %.3g ms per run)", *r.MaxSpeedup, *r.FMAPeakG, *r.ComputeFloorMs)
			}
		}
		if r.Case == "quadratic" {
			ratio = "-"
		}
		rss, limit, memMet := "n/a", "-", "-"
		if r.PeakRSSMB != nil {
			rss = fmt.Sprintf("%.0f", *r.PeakRSSMB)
		}
		if r.MemoryLimitMB != nil {
			limit = fmt.Sprintf("%.0f", *r.MemoryLimitMB)
		}
		if r.MemoryMet != nil {
			memMet = yes[*r.MemoryMet]
		}
		fmt.Fprintf(w, "| %s | %s | %s | %.3g | %s | %s | %s | %s | %s | %s | %.2f |\n",
			r.Case, r.Size, ms, r.FloorMs, ratio, r.Target, yes[r.Met], rss, limit, memMet, r.CPUShare)
	}
	if len(rs) > 0 {
		r := rs[0]
		fmt.Fprintf(w, "\nkernel %s, GOMAXPROCS %d, %s; %.0f s in all.", r.Kernel, r.Procs, runtime.GOARCH, elapsed.Seconds())
		if len(r.Load) > 0 {
			fmt.Fprintf(w, " Load average %.1f at the start.", r.Load[0])
		}
		fmt.Fprintln(w)
		if r.Quick {
			fmt.Fprintln(w, "Quick mode: small sizes; the targets are those of the paper's sizes.")
		}
	}
}

// benchCase runs one case in this process and returns its measurements.
func benchCase(name string, quick bool, iters int) (*benchResult, error) {
	res := &benchResult{Case: name, Kernel: kernel.Active(), Procs: runtime.GOMAXPROCS(0), Quick: quick}
	res.Load = append(res.Load, loadAverage()...)
	var cfg synth.Config
	switch {
	case name == "quadratic" && quick:
		cfg = synth.Config{Kind: synth.Quadratic, N1: 20, Rank: 2}
	case name == "quadratic":
		cfg = synth.Config{Kind: synth.Quadratic, N1: 100, Rank: 5}
	case slices.Contains(benchCases, name) && quick:
		cfg = synth.Config{Kind: synth.Sensing, N1: 20, Rank: 3}
	case slices.Contains(benchCases, name):
		cfg = synth.Config{Kind: synth.Sensing, N1: 100, Rank: 10}
	default:
		return nil, badFlag("child", name, "unknown case")
	}
	cfg.Seed = 1
	if name == "sensing-f32" {
		cfg.Precision = synth.Float32
	}
	draw, err := synth.New(cfg)
	if err != nil {
		return nil, err
	}
	tuneGC(draw.Op)
	res.Size = fmt.Sprintf("n=%d r=%d m=%d", draw.N1, draw.Rank, draw.M)
	in, err := draw.Instance(synth.Setting{Kappa: 10, PS: 0.2, SNR: math.Inf(1)})
	if err != nil {
		return nil, err
	}
	problem := in.Problem()
	spec, err := scaledsm.Spectral(problem.Op, problem.Y, problem.Rank, scaledsm.TrimFraction(0.2))
	if err != nil {
		return nil, err
	}
	init := &spec
	floor := newFloor(draw.Op)
	res.DataMB = float64(floor.bytes) / 1e6

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
		batch, one := median(times), median(alone)
		res.BatchMs, res.OneAtATimeMs = &batch, &one
		speedup := one / res.MsPerIter
		res.Speedup = &speedup
		res.RatioToFloor = batch / floor.median()
		m, n1, n2 := problem.Op.Dims()
		peak := slices.Max(floor.fma)
		cf := 2 * float64(m*n1*n2) / peak * 1e3
		most := one / cf
		peakG := peak / 1e9
		res.FMAPeakG, res.ComputeFloorMs, res.MaxSpeedup = &peakG, &cf, &most
		res.Target = "≥ 10 × one at a time"
		res.Met = speedup >= 10
	default:
		times, err := timeSolve(problem, single, floor)
		if err != nil {
			return nil, err
		}
		res.Iterations = len(times)
		res.MsPerIter = median(times)
		res.RatioToFloor = res.MsPerIter / floor.median()
		if name == "quadratic" {
			res.Target = "≤ 0.5 ms"
			res.Met = res.MsPerIter <= 0.5
		} else {
			res.Target = "≤ 1.2 × floor"
			res.Met = res.RatioToFloor <= 1.2
		}
	}
	if wall := time.Since(t0); wall > 0 {
		res.CPUShare = (cputime.Process() - c0).Seconds() / (wall.Seconds() * float64(res.Procs))
	}
	res.FloorMs = floor.median()
	if strings.HasPrefix(name, "sensing") {
		limit := 1.15*res.DataMB + 64
		res.MemoryLimitMB = &limit
	}
	if rss, ok := peakRSS(); ok {
		mb := float64(rss) / 1e6
		res.PeakRSSMB = &mb
		if res.MemoryLimitMB != nil {
			met := mb <= *res.MemoryLimitMB
			res.MemoryMet = &met
		}
	}
	if kb, ok := procKB("/proc/self/smaps_rollup", "AnonHugePages:"); ok {
		mb := float64(kb) * 1024 / 1e6
		res.HugePagesMB = &mb
	}
	res.Load = append(res.Load, loadAverage()...)
	return res, nil
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

func msSince(t time.Time) float64 { return time.Since(t).Seconds() * 1e3 }

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func intsToFloats(v []int) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// peakRSS returns the peak resident set size of this process in bytes
// (VmHWM), where /proc/self/status tells it (Linux).
func peakRSS() (int64, bool) {
	kb, ok := procKB("/proc/self/status", "VmHWM:")
	return kb * 1024, ok
}

// procKB returns the value in kB of the line of a /proc file that starts
// with key.
func procKB(path, key string) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), key); ok {
			fields := strings.Fields(rest)
			if len(fields) == 2 && fields[1] == "kB" {
				if kb, err := strconv.ParseInt(fields[0], 10, 64); err == nil {
					return kb, true
				}
			}
		}
	}
	return 0, false
}

// loadAverage returns the 1-minute load average, where /proc/loadavg
// tells it.
func loadAverage() []float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return nil
	}
	fields := strings.Fields(string(b))
	if len(fields) == 0 {
		return nil
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return nil
	}
	return []float64{v}
}
