package bench

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/scaledsm/scaledsm/completion"
	"github.com/scaledsm/scaledsm/dataio"
	"github.com/scaledsm/scaledsm/internal/atomicio"
	"github.com/scaledsm/scaledsm/internal/mem"
	"github.com/scaledsm/scaledsm/synth"
)

// The LIBMF anchor: LIBMF (github.com/cjlin1/libmf), the single-machine
// matrix factorization people compare against, and scaledsm on the same
// problem (libmfProblem), which scaledsm reads from .npy files and LIBMF
// from its text format. Each program runs for libmfShort and libmfLong
// iterations (epochs); its time per iteration is the difference of the
// two wall times over the difference of the counts, so that reading and
// starting cancel out, taken as the median of libmfRepeats such pairs,
// the programs' runs interleaved, since one pair on a shared machine is
// noisy (docs/performance.md, "Against LIBMF"). Peak memory is the largest
// maximum resident set of a program's processes. LIBMF runs as mf-train
// -k 10 -s P -l2 0 -f 0 (least squares, no penalty, P = GOMAXPROCS), from
// --libmf or the PATH, or the case is a note; build it from its own source.
const (
	libmfShort   = 20
	libmfLong    = 220
	libmfRepeats = 3
)

// libmfProblem is the problem of the anchor.
var libmfProblem = synth.Config{Kind: synth.Completion, N1: 10000, Rank: 10, P: 0.01, Seed: 1}

// libmfRun is one program's measurements.
type libmfRun struct {
	MsPerIter float64 `json:"ms_per_iter"`
	PeakRSSMB float64 `json:"peak_rss_mb"`
}

// libmfAnchor is the anchor's result.
type libmfAnchor struct {
	Entries  int       `json:"entries"`
	Scaledsm *libmfRun `json:"scaledsm,omitempty"`
	LIBMF    *libmfRun `json:"libmf,omitempty"`
	Note     string    `json:"note,omitempty"`
}

// runLIBMFAnchor measures the anchor with the mf-train at path (found on
// the PATH when empty), and the scaledsm command at exe.
func runLIBMFAnchor(exe, path string, quick bool) (*libmfAnchor, error) {
	path, err := findLIBMF(path)
	if err != nil || path == "" {
		return &libmfAnchor{Note: libmfAbsent}, err
	}
	cfg := libmfProblem
	if quick {
		cfg.N1, cfg.P = 2000, 0.05
	}
	draw, err := synth.New(cfg)
	if err != nil {
		return nil, err
	}
	in, err := draw.Instance(synth.Setting{Kappa: 2, SNR: math.Inf(1)})
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "scaledsm-libmf-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	// The entries as scaledsm's .npy files and LIBMF's text: "row col value".
	op := draw.Op.(*completion.Entries)
	start, cols := op.Start(), op.Cols()
	rows := make([]int32, len(cols))
	for i := 0; i+1 < len(start); i++ {
		for k := start[i]; k < start[i+1]; k++ {
			rows[k] = int32(i)
		}
	}
	for name, write := range map[string]func(io.Writer) error{
		"rows.npy":   func(w io.Writer) error { return dataio.WriteInt32(w, []int{len(rows)}, rows) },
		"cols.npy":   func(w io.Writer) error { return dataio.WriteInt32(w, []int{len(cols)}, cols) },
		"values.npy": func(w io.Writer) error { return dataio.WriteFloat64(w, []int{len(in.Y)}, in.Y) },
		"train.txt": func(w io.Writer) error {
			bw := bufio.NewWriter(w)
			for k, c := range cols {
				fmt.Fprintf(bw, "%d %d %s\n", rows[k], c, strconv.FormatFloat(in.Y[k], 'g', -1, 64))
			}
			return bw.Flush()
		},
	} {
		if err := atomicio.WriteFile(filepath.Join(dir, name), write); err != nil {
			return nil, err
		}
	}
	text := filepath.Join(dir, "train.txt")
	a := &libmfAnchor{Entries: len(in.Y)}
	threads := strconv.Itoa(runtime.GOMAXPROCS(0))
	shape := fmt.Sprintf("%dx%d", cfg.N1, cfg.N1)
	scaledsmArgs := func(iters int) []string {
		return []string{"solve", "--rows", filepath.Join(dir, "rows.npy"), "--cols", filepath.Join(dir, "cols.npy"),
			"--values", filepath.Join(dir, "values.npy"), "--shape", shape, "--rank", strconv.Itoa(cfg.Rank),
			"--iters", strconv.Itoa(iters), "--tol", "0", "--json"}
	}
	libmfArgs := func(epochs int) []string {
		return []string{"-k", strconv.Itoa(cfg.Rank), "-s", threads, "-l2", "0", "-f", "0", "-t", strconv.Itoa(epochs), "--quiet",
			text, filepath.Join(dir, "model.txt")}
	}
	var per [2][]float64 // program: ms per iteration of each pair
	var rss [2]float64
	short, long, repeats := libmfShort, libmfLong, libmfRepeats
	if quick {
		short, long, repeats = 5, 25, 1
	}
	for range repeats {
		var t [2][2]float64 // program, short/long: seconds
		for n, count := range []int{short, long} {
			for p, run := range []struct {
				name string
				args []string
			}{{exe, scaledsmArgs(count)}, {path, libmfArgs(count)}} {
				secs, mb, err := timeProcess(run.name, run.args, io.Discard)
				if err != nil {
					return nil, fmt.Errorf("%s: %v", filepath.Base(run.name), err)
				}
				t[p][n], rss[p] = secs, math.Max(rss[p], mb)
			}
		}
		for p := range per {
			per[p] = append(per[p], (t[p][1]-t[p][0])/float64(long-short)*1e3)
		}
	}
	a.Scaledsm = &libmfRun{MsPerIter: median(per[0]), PeakRSSMB: rss[0]}
	a.LIBMF = &libmfRun{MsPerIter: median(per[1]), PeakRSSMB: rss[1]}
	return a, nil
}

// libmfAbsent is an anchor's note without LIBMF.
const libmfAbsent = "LIBMF absent: give --libmf PATH to its mf-train (build LIBMF from its own source, github.com/cjlin1/libmf, as its README says)"

// findLIBMF returns the mf-train at path, or found on the PATH when path
// is empty ("" when there is none), and an error for a path that names no
// program.
func findLIBMF(path string) (string, error) {
	if path == "" {
		path, _ = exec.LookPath("mf-train")
		return path, nil
	}
	if _, err := exec.LookPath(path); err != nil {
		return "", fmt.Errorf("--libmf %s: %v", path, err)
	}
	return path, nil
}

// timeProcess runs a program and returns its wall time in seconds and its
// peak resident set in MB: the high-water mark of /proc/PID/status, read
// every 2 ms while it runs (the rusage of a child counts the memory of the
// parent it was cloned from, before its exec), or else the rusage. Its
// standard output goes to stdout.
func timeProcess(name string, args []string, stdout io.Writer) (float64, float64, error) {
	cmd := exec.Command(name, args...)
	cmd.Stdout = stdout
	var errs limitedBuffer
	cmd.Stderr = &errs
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	done := make(chan struct{})
	var hwm int64
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			if kb, ok := mem.ProcKB(status, "VmHWM:"); ok {
				hwm = max(hwm, kb)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	err := cmd.Wait()
	close(done)
	wg.Wait()
	if err != nil {
		return 0, 0, fmt.Errorf("%v: %s", err, errs.String())
	}
	secs := time.Since(start).Seconds()
	if hwm > 0 {
		return secs, float64(hwm) / 1024, nil
	}
	return secs, childRSSMB(cmd.ProcessState), nil
}

// limitedBuffer keeps the first 4 KB written to it.
type limitedBuffer struct{ b []byte }

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := 4096 - len(l.b); room > 0 {
		l.b = append(l.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (l *limitedBuffer) String() string { return string(l.b) }
