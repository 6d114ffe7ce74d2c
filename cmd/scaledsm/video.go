package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/scaledsm/scaledsm/completion"
	"github.com/scaledsm/scaledsm/dataio"
	"github.com/scaledsm/scaledsm/internal/atomicio"
	"github.com/scaledsm/scaledsm/internal/mem"
	"github.com/scaledsm/scaledsm/report"
)

// videoOutputs are the files video writes into --out.
var videoOutputs = []string{"background.npy", "foreground.npy", "L.npy", "R.npy", "summary.json"}

// videoSummary is what video prints and writes as summary.json.
type videoSummary struct {
	Input       string   `json:"input"`
	Rows        int      `json:"rows"`
	Cols        int      `json:"cols"`
	Rank        int      `json:"rank"`
	Stride      int      `json:"stride"`
	SampleRows  int      `json:"sample_rows"`
	Sample      string   `json:"sample"`
	Sweeps      int      `json:"sweeps"`
	Status      string   `json:"status"`     // stationary, or iteration-limit (see completion.SampledResult)
	Iterations  int      `json:"iterations"` // the sweeps kept, as Sweeps
	AbsResidual float64  `json:"abs_residual"`
	FitFraction float64  `json:"fit_fraction"`
	Seconds     float64  `json:"seconds"` // reading and fitting, not writing
	PeakBytes   int64    `json:"peak_bytes,omitempty"`
	Files       []string `json:"files,omitempty"`
}

// videoFlags are the settings of video's fit, shared with the Python
// package's separate().
type videoFlags struct {
	rank, budget, sweeps int
}

func (v *videoFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&v.rank, "rank", 2, "the rank of the background")
	fs.IntVar(&v.budget, "budget", completion.DefaultSampleBudget, "the most entries of the sample of rows (one row in a stride) fitted by the default method;\nthe stride is the fewest rows that keep the sample within it")
	fs.IntVar(&v.sweeps, "sweeps", completion.DefaultSampledSweeps, "the most sweeps of least absolute deviations over every entry (fewer once one lowers Σ|y - x| by 1e-7 of it or less)")
}

// check refuses settings out of their ranges.
func (v *videoFlags) check() error {
	switch {
	case v.rank < 1:
		return badFlag("rank", v.rank, "must be at least 1")
	case v.budget < 1:
		return badFlag("budget", v.budget, "must be at least 1")
	case v.sweeps < 1: // the library reads 0 as its default
		return badFlag("sweeps", v.sweeps, "must be at least 1")
	}
	return nil
}

// checkShape refuses a rank beyond an n1 × n2 matrix's.
func (v *videoFlags) checkShape(n1, n2 int) error {
	if v.rank > min(n1, n2) {
		return badFlag("rank", v.rank, fmt.Sprintf("must lie in [1, min(n1, n2)] = [1, %d]", min(n1, n2)))
	}
	return nil
}

// settings returns the library's settings of the flags.
func (v *videoFlags) settings() completion.SampledSettings {
	return completion.SampledSettings{Budget: v.budget, Sweeps: v.sweeps}
}

// newVideoSummary returns the summary of SolveSampled's result on the
// n1 × n2 matrix read from in.
func newVideoSummary(in string, n1, n2, rank int, res *completion.SampledResult) videoSummary {
	return videoSummary{Input: in, Rows: n1, Cols: n2, Rank: rank, Stride: res.Stride, SampleRows: (n1 + res.Stride - 1) / res.Stride,
		Sample: fmt.Sprintf("%v after %s, polished %d", res.Sample.Status, report.Iterations(res.Sample.Iterations), res.Sample.Polished),
		Sweeps: res.Sweeps, Status: res.Status.String(), Iterations: res.Sweeps, AbsResidual: res.AbsResidual, FitFraction: res.FitFraction}
}

// runVideo separates a large fully observed matrix (a video, pixels ×
// frames) into a low-rank background and a foreground: the library's
// SolveSampled.
func runVideo(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("video", `Separates a fully observed matrix too large for "solve --masked" (a video at full
resolution: one row a pixel, one column a frame; docs/video_full.py makes one)
into a low-rank background L Rᵀ and a foreground Y - L Rᵀ: the default method of
solve on a sample of the rows (one in a stride), then least absolute deviations
of every row and every column over every entry, held as float32. A line of
progress on stderr after each stage. 768×576 pixels × 795 frames (3.5e8
entries) made exactly rank 2 plus a sparse foreground: about 2 minutes and 1.8 GB
on 2 cores; real footage's sample takes longer to fit (docs/completion.md).

  scaledsm video --in Y.npy [--rank K] [--out DIR]`, stdout)
	in := fs.String("in", "", "the matrix, pixels × frames (a frame a column), float32 or float64 .npy (required);\nheld as float32, 4 bytes an entry")
	var vf videoFlags
	vf.register(fs)
	var of outputFlags
	fs.StringVar(&of.out, "out", "", "directory for the results: background.npy (L Rᵀ) and foreground.npy (Y - L Rᵀ), float32 as Y,\nL.npy, R.npy and summary.json (created with its parents if needed; without it, nothing is written)")
	fs.BoolVar(&of.json, "json", false, "print the summary as one JSON object")
	quiet := fs.Bool("quiet", false, "print no progress on stderr")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *in == "" {
		return usageError{"--in is required"}
	}
	if err := vf.check(); err != nil {
		return err
	}
	if err := of.check(); err != nil {
		return err
	}
	if of.out != "" {
		if err := refuseOverwrite("out", of.out, within(of.out, videoOutputs), input{"in", *in}); err != nil {
			return err
		}
	}
	if st, err := os.Stat(*in); err == nil && (st.IsDir() || slices.Contains([]string{".png", ".jpg", ".jpeg", ".mp4", ".avi"}, strings.ToLower(filepath.Ext(*in)))) {
		return exitError{fmt.Errorf("--in %s: video takes the matrix of a whole video, pixels × frames, as a .npy (docs/video_full.py makes one from a video file); for masks of a folder of frames, frame by frame, see scaledsm background", *in), exitBadInput}
	}
	n1, n2, err := dataio.Full32Shape("in", *in)
	if err != nil {
		return err
	}
	if err := vf.checkShape(n1, n2); err != nil {
		return err
	}
	data := 4 * int64(n1) * int64(n2)
	// The data, the sample's fit (about 100 bytes an entry of it), the
	// column blocks' buffers and the factors.
	need := data + 100*min(int64(vf.budget), int64(n1)*int64(n2)) + 256<<20 + 64*int64(n1)*int64(vf.rank)
	if err := fitsMemory(need, fmt.Sprintf("--in %s (%d×%d)", *in, n1, n2)); err != nil {
		return err
	}
	mem.TuneGC(data)
	progress := func(format string, args ...any) {
		if !*quiet {
			fmt.Fprintf(stderr, "%6.1f s  ", time.Since(started).Seconds())
			fmt.Fprintf(stderr, format+"\n", args...)
		}
	}
	setPhase("reading --in")
	m, err := dataio.ReadFull32("in", *in)
	if err != nil {
		return err
	}
	progress("read %s: %d×%d, %s as float32", *in, n1, n2, mem.Format(data))
	ctx, stop := interruptContext()
	defer stop()
	setPhase("fitting")
	s := vf.settings()
	s.Progress = func(st completion.SampledStage) {
		switch st.Stage {
		case "sample":
			progress("fitted the sample of rows")
		case "rows":
			progress("fitted every row: Σ|y - x| %.8g, %.2f%% of the entries fitted", st.AbsResidual, 100*st.FitFraction)
		default:
			kept := "kept"
			if !st.Kept {
				kept = "not kept: stop"
			}
			progress("sweep %d: Σ|y - x| %.8g, %.2f%% fitted (%s)", st.Sweep, st.AbsResidual, 100*st.FitFraction, kept)
		}
	}
	res, err := completion.SolveSampled(ctx, m, vf.rank, s)
	if err != nil {
		if ctx.Err() != nil {
			return exitError{errors.New("interrupted while fitting; nothing written"), exitInterrupted}
		}
		return err
	}
	sum := newVideoSummary(*in, n1, n2, vf.rank, res)
	sum.Seconds = time.Since(started).Seconds()
	if b, ok := mem.PeakRSS(); ok {
		sum.PeakBytes = b
	}
	if of.out != "" {
		setPhase(writingPhase)
		if err := writeVideo(of.out, m, res, &sum); err != nil {
			return err
		}
		progress("wrote %s", of.out)
	}
	if of.json {
		return json.NewEncoder(stdout).Encode(sum)
	}
	fmt.Fprintf(stdout, "%s: %d×%d, rank %d\n", sum.Input, n1, n2, sum.Rank)
	fmt.Fprintf(stdout, "sample     one row in %d (%d rows): %s\n", sum.Stride, sum.SampleRows, sum.Sample)
	fmt.Fprintf(stdout, "sweeps     %s after %s of least absolute deviations over every entry\n", sum.Status, count(sum.Sweeps, "sweep"))
	rest := "the rest: the foreground"
	if sum.FitFraction < 0.5 {
		// As the library's exactFit: no recovery of an exactly low-rank
		// matrix fits fewer than half the entries.
		rest = fmt.Sprintf("not a matrix of rank %d plus outliers: the foreground holds the background's misfit too", sum.Rank)
	}
	fmt.Fprintf(stdout, "fit        %.2f%% of the entries to 1e-6 of their scale (%s); Σ|y - x| %.8g, %.3g an entry\n",
		100*sum.FitFraction, rest, sum.AbsResidual, sum.AbsResidual/(float64(n1)*float64(n2)))
	fmt.Fprintf(stdout, "time       %.1f s to read and fit", sum.Seconds)
	if sum.PeakBytes > 0 {
		fmt.Fprintf(stdout, ", peak memory %s", mem.Format(sum.PeakBytes))
	}
	fmt.Fprintln(stdout)
	if len(sum.Files) > 0 {
		fmt.Fprintf(stdout, "wrote      %v in %s\n", sum.Files, of.out)
	}
	return nil
}

// writeVideo writes video's files into dir, all of them or none: the
// background L Rᵀ and the foreground Y - L Rᵀ a row at a time, float32.
func writeVideo(dir string, m completion.Full32, res *completion.SampledResult, sum *videoSummary) error {
	unlock, err := atomicio.Lock(dir)
	if err != nil {
		return outputError("out", dir, err)
	}
	defer unlock()
	l, r := res.L.RawMatrix(), res.R.RawMatrix()
	k := l.Cols
	background := func(i int, dst []float32) {
		li := l.Data[i*l.Stride : i*l.Stride+k]
		for j := range dst {
			var x float64
			for c, v := range li {
				x += v * r.Data[j*r.Stride+c]
			}
			dst[j] = float32(x)
		}
	}
	foreground := func(i int, dst []float32) {
		background(i, dst)
		for j, y := range m.Y[i*m.N2 : (i+1)*m.N2] {
			dst[j] = y - dst[j]
		}
	}
	sum.Files = videoOutputs
	var set atomicio.Set
	add := func(name string, write func(io.Writer) error) error {
		return set.Add(filepath.Join(dir, name), write)
	}
	err = add("background.npy", func(w io.Writer) error { return dataio.WriteRows32(w, m.N1, m.N2, background) })
	if err == nil {
		err = add("foreground.npy", func(w io.Writer) error { return dataio.WriteRows32(w, m.N1, m.N2, foreground) })
	}
	if err == nil {
		err = add("L.npy", func(w io.Writer) error { return dataio.WriteDense(w, res.L) })
	}
	if err == nil {
		err = add("R.npy", func(w io.Writer) error { return dataio.WriteDense(w, res.R) })
	}
	if err == nil {
		err = add("summary.json", func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(sum)
		})
	}
	if err == nil {
		err = set.Commit()
	}
	if err != nil {
		return setError(dir, err)
	}
	return nil
}
