// Package bench measures scaledsm's time per iteration and peak memory
// beside floors measured in the same process: the fastest streaming read of
// the data, the machine's multiply-add peak, the random accesses of a pass
// over entries alone, NumPy's BLAS for the batched sweep, and LIBMF for
// matrix completion. Each case runs in a process of its own (the scaledsm
// command re-executed with "bench --child CASE"), so that its peak memory is
// its own. The command's bench wires it; nothing of it is in a solve.
package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/scaledsm/scaledsm/internal/kernel"
)

// The cases of bench, in the order they run by default, and those that run
// only when asked for (with --large or by name in --cases): 10^8 entries
// take about 4 GB.
var (
	Cases      = []string{"sensing-f64", "sensing-f32", "quadratic", "sweep-109", "mc-1e6", "mc-1e7", "netflix-1e7"}
	LargeCases = []string{"mc-1e8", "netflix-1e8"}
	// libmf runs when named, or when --libmf gives LIBMF's mf-train.
	AnchorCases = []string{"libmf", "libmf-ratings"}
)

// Result is one case's measurements: a row of the table and an object
// of the --json array.
type Result struct {
	Case      string  `json:"case"`
	Size      string  `json:"size"`
	MsPerIter float64 `json:"ms_per_iter"` // median; per run for the sweep
	// BestMsPerIter is the least time of an iteration (per run for the
	// sweep).
	BestMsPerIter float64 `json:"best_ms_per_iter"`
	// FloorMs is the floor: the fastest streaming read of the data in the
	// case's process (GoFloorMs; FloorMedianMs is the median of its
	// measures), or the same bytes at the rate of --membw's C program
	// (MembwFloorMs, measured just before the case) where that is less.
	FloorMs       float64  `json:"floor_ms"`
	GoFloorMs     float64  `json:"go_floor_ms"`
	FloorMedianMs float64  `json:"floor_median_ms"`
	MembwFloorMs  *float64 `json:"membw_floor_ms,omitempty"`
	// GenerateMs is the time to draw the problem (completion cases).
	GenerateMs *float64 `json:"generate_ms,omitempty"`
	// AccessFloorMs (completion) is the fastest pass of the random accesses
	// of an iteration alone, without its arithmetic: R's rows gathered and
	// added to a partial GR's rows at the entries' columns, on all cores.
	AccessFloorMs *float64 `json:"access_floor_ms,omitempty"`
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
	BatchBestMs  *float64 `json:"batch_best_ms,omitempty"` // the least batched iteration
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
	// FMAPeakShare is ComputeFloorMs/MsPerIter: the share of the
	// multiply-add peak the batched iteration reaches (target 0.8).
	FMAPeakShare *float64 `json:"fma_peak_share,omitempty"`
	// The sweep's shape, m rows of length n1·n2 for Runs runs, and its
	// tuned-BLAS anchor: the same two products (m×n by n×runs, runs×m by
	// m×n) by NumPy's BLAS on GOMAXPROCS threads, timed by the parent just
	// after the case (median and least of 5, the BLAS core), the batched
	// iteration's median over that median (BatchOverBLAS), or a note
	// saying why there is none.
	SweepRows     int      `json:"sweep_rows,omitempty"`
	SweepLength   int      `json:"sweep_row_length,omitempty"`
	BLASMs        *float64 `json:"blas_ms,omitempty"`
	BLASBestMs    *float64 `json:"blas_best_ms,omitempty"`
	BLASCore      string   `json:"blas_core,omitempty"`
	BatchOverBLAS *float64 `json:"scaledsm_over_blas,omitempty"`
	BLASNote      string   `json:"blas_note,omitempty"`
	Target        string   `json:"target"`
	Met           bool     `json:"met"`
	PeakRSSMB     *float64 `json:"peak_rss_mb"`             // VmHWM of the case's process; null where unknown
	HugePagesMB   *float64 `json:"huge_pages_mb,omitempty"` // memory on transparent huge pages at the end (AnonHugePages)
	DataMB        float64  `json:"data_mb"`
	// MemoryLimitMB is 1.15 × data + 64 MB for sensing, 40 bytes per
	// entry plus the factors for completion.
	MemoryLimitMB *float64 `json:"memory_limit_mb,omitempty"`
	MemoryMet     *bool    `json:"memory_met,omitempty"`
	// CPUShare is the CPU time of the timed iterations over their wall time
	// and GOMAXPROCS: near 1 when the case had the cores to itself.
	CPUShare float64   `json:"cpu_share"`
	Load     []float64 `json:"load_average,omitempty"` // 1-minute load average before and after
	Kernel   string    `json:"kernel"`
	Procs    int       `json:"gomaxprocs"`
	Quick    bool      `json:"quick,omitempty"`
	// LIBMF is the anchor case's: scaledsm and LIBMF on one problem.
	LIBMF *libmfAnchor `json:"libmf,omitempty"`
	// Ratings is the ratings anchor's: the recommender and LIBMF.
	Ratings *ratingsAnchor `json:"ratings,omitempty"`
}

// Config is what Run measures and how.
type Config struct {
	Cases  []string // the cases, in order (see ParseCases)
	Quick  bool     // small sizes, for a check in seconds
	Iters  int      // iterations timed per case; 0: each case's default
	Membw  string   // a streaming-read program run before each case, whose rate is a floor
	LIBMF  string   // LIBMF's mf-train, for the libmf case
	Python string   // the Python with NumPy that times the sweep's BLAS anchor
	// Exe is the scaledsm command, which Run re-executes for each case
	// as Exe bench --child CASE --kernel Kernel ..., and the libmf case
	// runs as a solve.
	Exe      string
	Kernel   string
	Progress io.Writer // a line as each case starts; nil: none
}

// ParseCases returns the cases named in the comma-separated list, with
// libmf added when mf-train is given and the 10^8 cases when large is set.
func ParseCases(list, libmf string, large bool) ([]string, error) {
	var names []string
	all := slices.Concat(Cases, LargeCases, AnchorCases)
	for _, c := range strings.Split(list, ",") {
		c = strings.TrimSpace(c)
		if !slices.Contains(all, c) {
			return nil, fmt.Errorf("unknown case %q (want some of %s)", c, strings.Join(all, ", "))
		}
		names = append(names, c)
	}
	for _, c := range AnchorCases {
		if libmf != "" && !slices.Contains(names, c) {
			names = append(names, c)
		}
	}
	if large {
		for _, c := range LargeCases {
			if !slices.Contains(names, c) {
				names = append(names, c)
			}
		}
	}
	return names, nil
}

// Run measures the cases of c, each in a process of its own.
func Run(c Config) ([]Result, error) {
	var results []Result
	for _, name := range c.Cases {
		if c.Progress != nil {
			fmt.Fprintf(c.Progress, "bench: %s ...\n", name)
		}
		if slices.Contains(AnchorCases, name) {
			a := Result{Case: name, Kernel: kernel.Active(), Procs: runtime.GOMAXPROCS(0), Quick: c.Quick}
			var err error
			if name == "libmf" {
				a.LIBMF, err = runLIBMFAnchor(c.Exe, c.LIBMF, c.Quick)
			} else {
				a.Ratings, err = runRatingsAnchor(c.Exe, c.LIBMF, c.Quick)
			}
			if err != nil {
				return nil, fmt.Errorf("case %s: %v", name, err)
			}
			results = append(results, a)
			continue
		}
		r, err := c.child(name)
		if err != nil {
			return nil, err
		}
		if r.SweepRows > 0 {
			addBLASAnchor(r, c.Python)
		}
		results = append(results, *r)
	}
	return results, nil
}

// child runs the case name in a process of its own and returns its
// result.
func (c Config) child(name string) (*Result, error) {
	args := []string{"bench", "--child", name, "--kernel", c.Kernel}
	if c.Quick {
		args = append(args, "--quick")
	}
	if c.Iters > 0 {
		args = append(args, "--iters", strconv.Itoa(c.Iters))
	}
	if c.Membw != "" {
		gbs, err := runMembw(c.Membw)
		if err != nil {
			return nil, err
		}
		args = append(args, "--membw-gbs", strconv.FormatFloat(gbs, 'g', -1, 64))
	}
	cmd := exec.Command(c.Exe, args...)
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("case %s: %v\n%s", name, err, strings.TrimSpace(errs.String()))
	}
	var r Result
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		return nil, fmt.Errorf("case %s: reading its result: %v\n%s", name, err, out.String())
	}
	return &r, nil
}

// Synopsis says what the bench measures, for the command's help.
const Synopsis = `Measures the median milliseconds per iteration and the peak memory of
sensing (float64 and float32 storage), quadratic sampling, a batched sweep
of 109 sensing runs, at the paper's sizes, and matrix completion (10^6 and
10^7 entries of a 100,000×100,000 matrix and 10^7 of a Netflix-shaped
480,189×17,770 one; 10^8 of each with --large, about 4 GB), beside the
floor measured in the same process: the fastest streaming read of the data
on all cores, between the timed iterations, with the fastest loads of the
machine (or, with --membw, the rate of that C program if it reads faster).
The sweep is also set against the machine's multiply-add peak and against
the same products by NumPy's BLAS (when python3 has NumPy); the completion
cases, which time the model's default method, against their arithmetic
floor (3r multiply-adds an entry at that peak) and their access floor (the
pass's random reads and additions of factor rows, without the arithmetic).
Each case runs in a process of its own, so that its peak memory is its
own; the whole takes a few minutes. Prints a Markdown table, or with --json
one JSON array.`

// PrintTable prints the results as a Markdown table.
func PrintTable(w io.Writer, rs []Result, elapsed time.Duration) {
	yes := map[bool]string{true: "yes", false: "**no**"}
	fmt.Fprintln(w, "| case | size | ms per iteration (median) | floor ms | ratio | target | met | peak RSS MB | memory limit MB | met | CPU share |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	var notes []string
	for _, r := range rs {
		if a := r.Ratings; a != nil {
			notes = append(notes, a.row(w, yes))
			continue
		}
		if a := r.LIBMF; a != nil {
			if a.Note != "" {
				notes = append(notes, "- libmf: "+a.Note+".")
				continue
			}
			speed, mem := a.Scaledsm.MsPerIter/a.LIBMF.MsPerIter, a.Scaledsm.PeakRSSMB/a.LIBMF.PeakRSSMB
			fmt.Fprintf(w, "| libmf | LIBMF's problem, %d entries | %.3g (LIBMF %.3g an epoch) | - | %.2f × LIBMF | ≤ 1 × LIBMF | %s | %.0f (LIBMF %.0f: %.1f ×) | ≤ 3 × LIBMF | %s | - |\n",
				a.Entries, a.Scaledsm.MsPerIter, a.LIBMF.MsPerIter, speed, yes[speed <= 1], a.Scaledsm.PeakRSSMB, a.LIBMF.PeakRSSMB, mem, yes[mem <= 3])
			notes = append(notes, fmt.Sprintf("- libmf: scaledsm solve from .npy files and LIBMF's mf-train -k 10 -l2 0 -f 0 from its text file, each run for %d and %d iterations (epochs): the difference of the wall times over %d (the median of %d such pairs, interleaved), and the largest peak RSS of the runs.", libmfShort, libmfLong, libmfLong-libmfShort, libmfRepeats))
			continue
		}
		ms := fmt.Sprintf("%.3g", r.MsPerIter)
		ratio := fmt.Sprintf("%.2f × floor", r.RatioToFloor)
		if r.Speedup != nil {
			ms = fmt.Sprintf("%.3g per run (batch %.4g / %.0f runs; alone %.3g)", r.MsPerIter, *r.BatchMs, r.ActiveRuns, *r.OneAtATimeMs)
			ratio = fmt.Sprintf("%.1f × faster", *r.Speedup)
			if r.MaxSpeedup != nil {
				ratio += fmt.Sprintf(" (at most %.1f × at the FMA peak, %.0f G/s: %.3g ms per run)", *r.MaxSpeedup, *r.FMAPeakG, *r.ComputeFloorMs)
			}
			if r.FMAPeakShare != nil {
				ratio = fmt.Sprintf("%.0f%% of the FMA peak; ", 100**r.FMAPeakShare) + ratio
			}
			switch {
			case r.BatchOverBLAS != nil:
				core := ""
				if r.BLASCore != "" {
					core = ", core " + r.BLASCore
				}
				least := ""
				if r.BatchBestMs != nil {
					least = fmt.Sprintf("; least %.4g against %.4g: %.2f", *r.BatchBestMs, *r.BLASBestMs, *r.BatchBestMs / *r.BLASBestMs)
				}
				notes = append(notes, fmt.Sprintf("%s: the same two products by NumPy's BLAS (%d threads%s) took %.4g ms (median of %d), the batched iteration %.4g: scaledsm / BLAS = %.2f%s",
					r.Case, r.Procs, core, *r.BLASMs, blasReps, *r.BatchMs, *r.BatchOverBLAS, least))
			case r.BLASNote != "":
				notes = append(notes, r.Case+": "+r.BLASNote)
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
		floor := fmt.Sprintf("%.3g", r.FloorMs)
		if r.MembwFloorMs != nil {
			floor = fmt.Sprintf("%.3g (Go %.3g, C %.3g)", r.FloorMs, r.GoFloorMs, *r.MembwFloorMs)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.2f |\n",
			r.Case, r.Size, ms, floor, ratio, r.Target, yes[r.Met], rss, limit, memMet, r.CPUShare)
		var parts []string
		if r.GenerateMs != nil {
			parts = append(parts, fmt.Sprintf("generated in %.1f s", *r.GenerateMs/1e3))
		}
		if r.ComputeFloorMs != nil && r.Speedup == nil {
			parts = append(parts, fmt.Sprintf("arithmetic floor %.3g ms (3r multiply-adds an entry at the FMA peak, %.0f G/s), %.1f × the memory floor",
				*r.ComputeFloorMs, *r.FMAPeakG, *r.ComputeFloorMs/r.FloorMs))
		}
		if r.AccessFloorMs != nil {
			parts = append(parts, fmt.Sprintf("random accesses alone (R's rows gathered and added to GR's at the entries' columns) %.3g ms, %.0f × the memory floor; an iteration is %.1f × that",
				*r.AccessFloorMs, *r.AccessFloorMs/r.FloorMs, r.MsPerIter/(*r.AccessFloorMs)))
		}
		if len(parts) > 0 {
			notes = append(notes, fmt.Sprintf("- %s: %s.", r.Case, strings.Join(parts, "; ")))
		}
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "\n%s\n", strings.Join(notes, "\n"))
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
