package bench

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"

	"github.com/scaledsm/scaledsm/internal/kernel"
)

// blasAnchorScript times the sweep's two matrix products with NumPy's BLAS
// (see the file for what it prints).
//
//go:embed blas_anchor.py
var blasAnchorScript string

// blasAnchor is what blas_anchor.py prints.
type blasAnchor struct {
	Ms     float64 `json:"ms"`
	BestMs float64 `json:"best_ms"`
	DotMs  float64 `json:"dot_ms"`
	AxpyMs float64 `json:"axpy_ms"`
	Reps   int     `json:"reps"`
	NumPy  string  `json:"numpy"`
	BLAS   string  `json:"blas"`
	Error  string  `json:"error"`
}

// blasReps is how many times the anchor times the two products.
const blasReps = 5

// pythons returns the interpreters the anchor tries in turn: the one of
// --python, or python3 on the PATH and then /usr/bin/python3 (where Debian
// installs python3-numpy, which a python3 of pyenv or a venv may lack).
func pythons(flag string) []string {
	if flag != "" {
		return []string{flag}
	}
	return []string{"python3", "/usr/bin/python3"}
}

// runBLASAnchor times, with NumPy's BLAS on threads threads, the two
// products of a batched pass over m rows of length n for runs runs: the
// first interpreter of pythons(python) that has NumPy. Without one it
// returns a note saying why, and no error: the anchor is a comparison, and
// the bench runs without it.
func runBLASAnchor(python string, m, n, runs, threads int) (*blasAnchor, string) {
	var why []string
	for _, py := range pythons(python) {
		cmd := exec.Command(py, "-", strconv.Itoa(m), strconv.Itoa(n), strconv.Itoa(runs), strconv.Itoa(threads), strconv.Itoa(blasReps))
		cmd.Stdin = strings.NewReader(blasAnchorScript)
		cmd.Env = blasEnv(os.Environ(), threads)
		var out, errs bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errs
		if err := cmd.Run(); err != nil {
			why = append(why, fmt.Sprintf("%s: %v", py, firstLine(errs.String(), err.Error())))
			continue
		}
		var a blasAnchor
		if err := json.Unmarshal(out.Bytes(), &a); err != nil {
			why = append(why, fmt.Sprintf("%s printed %q", py, firstLine(out.String(), "nothing")))
			continue
		}
		if a.Error != "" {
			why = append(why, fmt.Sprintf("%s: %s", py, a.Error))
			continue
		}
		if !(a.Ms > 0) {
			why = append(why, fmt.Sprintf("%s timed %v ms", py, a.Ms))
			continue
		}
		return &a, ""
	}
	return nil, "no tuned-BLAS anchor (" + strings.Join(why, "; ") + "; Debian: apt-get install python3-numpy libopenblas0-pthread)"
}

// blasEnv returns env with OpenBLAS (and OpenMP) set to threads threads
// and, where the CPU has AVX-512 and the caller did not choose a core,
// OpenBLAS's AVX-512 kernels (OPENBLAS_CORETYPE=SkylakeX): the OpenBLAS of
// Debian 12 does not know Zen 5 and would take its AVX2 ones.
func blasEnv(env []string, threads int) []string {
	t := strconv.Itoa(threads)
	env = append(slices.Clone(env), "OPENBLAS_NUM_THREADS="+t, "OMP_NUM_THREADS="+t)
	if _, set := os.LookupEnv("OPENBLAS_CORETYPE"); !set && slices.Contains(kernel.Available(), "avx512") {
		env = append(env, "OPENBLAS_CORETYPE=SkylakeX")
	}
	return env
}

// firstLine returns the first non-empty line of s, or alt.
func firstLine(s, alt string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return alt
}

// addBLASAnchor times the sweep's products with NumPy's BLAS, on as many
// threads as the case had, and records them beside the batched iteration.
func addBLASAnchor(r *Result, python string) {
	a, note := runBLASAnchor(python, r.SweepRows, r.SweepLength, r.Runs, r.Procs)
	if a == nil {
		r.BLASNote = note
		return
	}
	ms, best := a.Ms, a.BestMs
	r.BLASMs, r.BLASBestMs, r.BLASCore = &ms, &best, a.BLAS
	if r.BatchMs != nil {
		ratio := *r.BatchMs / ms
		r.BatchOverBLAS = &ratio
	}
}
