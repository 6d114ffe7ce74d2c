package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/scaledsm/scaledsm/dataio"
	"github.com/scaledsm/scaledsm/internal/mem"
	"github.com/scaledsm/scaledsm/synth"
)

// generate writes a synthetic problem to dir, failing the test on error.
func generate(t *testing.T, dir string, args ...string) {
	t.Helper()
	if code, _, errs := cli(t, append([]string{"generate", "--out", dir}, args...)...); code != 0 {
		t.Fatalf("generate %v: exit %d: %s", args, code, errs)
	}
}

// writeNpy writes a float64 array.
func writeNpy(t *testing.T, path string, shape []int, v []float64) {
	t.Helper()
	var b bytes.Buffer
	if err := dataio.WriteFloat64(&b, shape, v); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// jsonOf parses the JSON a command printed.
func jsonOf(t *testing.T, out string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	return m
}

// TestScaledObservations solves a problem whose y and X* are multiplied by
// 8000, as a user who does not divide by m would give them: every method
// with its default step recovers the scaled matrix. (The gradient methods
// failed from files with "eta = 0", and geometric steps, whose default λ
// did not scale with X, made no progress; λ now defaults to a tenth of the
// initialization's norm.)
func TestScaledObservations(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	generate(t, data, "--problem", "ms", "--n", "12", "--r", "2", "--kappa", "3")
	for _, name := range []string{"y.npy", "X_star.npy"} {
		v, shape, err := dataio.ReadFile(filepath.Join(data, name))
		if err != nil {
			t.Fatal(err)
		}
		for i := range v {
			v[i] *= 8000
		}
		writeNpy(t, filepath.Join(dir, name), shape, v)
	}
	for _, args := range [][]string{
		{}, {"--step", "geometric"}, {"--method", "vanillasm", "--iters", "3000"},
		{"--method", "scaledgd", "--tol", "1e-9"}, {"--method", "gd", "--tol", "1e-9", "--iters", "5000"},
	} {
		code, out, errs := cli(t, append([]string{"solve", "--json", "--sensing", filepath.Join(data, "A.npy"), "--y", filepath.Join(dir, "y.npy"),
			"--truth", filepath.Join(dir, "X_star.npy"), "--rank", "2", "--out", filepath.Join(dir, "out"), "--tol", "1e-10"}, args...)...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, errs)
			continue
		}
		if s := jsonOf(t, out); s["status"] != "converged" {
			t.Errorf("%v: %v after %v iterations at %v", args, s["status"], s["iterations"], s["rel_error"])
		}
	}
}

// TestStationaryWithoutTruth solves from files without the truth with
// steps that shrink too fast: the run stops moving far from X*, and says
// so (stationary, with almost no measurement fitted), never "converged".
func TestStationaryWithoutTruth(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	generate(t, data, "--problem", "ms", "--n", "12", "--r", "2", "--ps", "0.1")
	args := []string{"solve", "--sensing", filepath.Join(data, "A.npy"), "--y", filepath.Join(data, "y.npy"), "--rank", "2", "--out", filepath.Join(dir, "out")}
	code, out, errs := cli(t, append(args, "--step", "geometric", "--q", "0.5")...)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if !strings.Contains(out, "status     stationary after") || !strings.Contains(out, "the fit below is the evidence") {
		t.Errorf("summary:\n%s", out)
	}
	s := readSummary(t, filepath.Join(dir, "out", "summary.json"))
	if s["status"] != "stationary" || s["fit_fraction"].(float64) > 0.05 {
		t.Errorf("status %v, fit fraction %v", s["status"], s["fit_fraction"])
	}
	// With the default steps the same run recovers X*: everything but the
	// outliers is fitted.
	code, _, errs = cli(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	s = readSummary(t, filepath.Join(dir, "out", "summary.json"))
	if s["status"] != "stationary" || s["fit_fraction"].(float64) < 0.85 {
		t.Errorf("default steps: status %v, fit fraction %v", s["status"], s["fit_fraction"])
	}
}

// TestExitCodes checks the exit status of each outcome: 0 for a converged
// run and for an iteration limit (with a warning), 1 for a diverged run,
// 2 for bad input.
func TestExitCodes(t *testing.T) {
	base := []string{"solve", "--problem", "ms", "--n", "10", "--r", "2", "--ps", "0.1"}
	cases := []struct {
		args   []string
		code   int
		stderr string
	}{
		{nil, 0, ""},
		{[]string{"--iters", "3"}, 0, "warning: stopped at the iteration limit (3)"},
		{[]string{"--step", "geometric", "--lambda", "1e6"}, 1, "the solve failed: diverged after"},
		{[]string{"--kappa", "0"}, 2, "--kappa 0"},
	}
	for _, c := range cases {
		code, _, errs := cli(t, append(base, c.args...)...)
		if code != c.code || !strings.Contains(errs, c.stderr) || strings.Count(errs, "\n") > 1 {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errs, c.code, c.stderr)
		}
	}
}

// TestTooBigForMemory asks for a sensing problem of 138 GB: it is refused
// before anything is allocated, with one line that gives what it needs,
// what the machine has, and what would fit.
func TestTooBigForMemory(t *testing.T) {
	c := synth.Config{Kind: synth.Sensing, N1: 600, Rank: 10}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if avail, ok := mem.Available(); !ok || avail >= c.Bytes() {
		t.Skipf("this machine has room for %d bytes", c.Bytes())
	}
	for _, cmd := range []string{"solve", "generate"} {
		args := []string{cmd, "--problem", "ms", "--n", "600", "--r", "10"}
		if cmd == "generate" {
			args = append(args, "--out", filepath.Join(t.TempDir(), "big"))
		}
		code, out, errs := cli(t, args...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q", cmd, code, out, errs)
		}
		for _, want := range []string{"needs about 1", "GB of memory but this machine has", "available", "--m"} {
			if !strings.Contains(errs, want) {
				t.Errorf("%s: %q lacks %q", cmd, errs, want)
			}
		}
	}
}

// TestOutputsCheckedFirst gives outputs that cannot be written: the
// command refuses them before it solves, in one line that names the flag
// and no temporary file.
func TestOutputsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "file"), nil, 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--trace", filepath.Join(dir, "file", "trace.csv")}, "--trace " + filepath.Join(dir, "file", "trace.csv") + ": cannot be written: " + filepath.Join(dir, "file") + " is not a directory"},
		{[]string{"--trace", dir}, "is a directory"},
	}
	if runtime.GOOS == "linux" {
		// /proc takes no new file, even from root.
		cases = append(cases, struct {
			args []string
			want string
		}{[]string{"--out", "/proc/scaledsm-out"}, "--out /proc/scaledsm-out: cannot be created"})
	}
	if os.Geteuid() != 0 {
		ro := filepath.Join(dir, "readonly")
		os.Mkdir(ro, 0o555)
		cases = append(cases, struct {
			args []string
			want string
		}{[]string{"--out", ro}, "--out " + ro + ": cannot write there"})
	}
	for _, c := range cases {
		// A solve of 100000 iterations would take long: the refusal comes
		// first.
		code, out, errs := cli(t, append([]string{"solve", "--n", "10", "--r", "2", "--tol", "0", "--iters", "100000"}, c.args...)...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) || strings.Contains(errs, ".tmp-") || strings.Contains(errs, "probe") {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, errs, c.want)
		}
	}
}

// TestZeroTruthAndNoObservations refuses what makes the relative error
// undefined or leaves nothing to fit.
func TestZeroTruthAndNoObservations(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	generate(t, data, "--problem", "ms", "--n", "6", "--r", "1")
	zero := filepath.Join(dir, "zero.npy")
	writeNpy(t, zero, []int{6, 6}, make([]float64, 36))
	code, _, errs := cli(t, "solve", "--sensing", filepath.Join(data, "A.npy"), "--y", filepath.Join(data, "y.npy"), "--rank", "1",
		"--truth", zero, "--out", filepath.Join(dir, "out"))
	if code != 2 || !strings.Contains(errs, "--truth: ||X*||_F = 0: the relative error is undefined") {
		t.Errorf("zero truth: exit %d, stderr %q", code, errs)
	}
	emptyA, emptyY := filepath.Join(dir, "A0.npy"), filepath.Join(dir, "y0.npy")
	writeNpy(t, emptyA, []int{0, 6, 6}, nil)
	writeNpy(t, emptyY, []int{0}, nil)
	code, _, errs = cli(t, "solve", "--sensing", emptyA, "--y", emptyY, "--rank", "1", "--out", filepath.Join(dir, "out"))
	if code != 2 || !strings.Contains(errs, "is empty") {
		t.Errorf("no observations: exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Error("--out was created")
	}
}

// TestGenerateReplacesAProblem generates a quadratic problem where a
// sensing one was: the directory then holds the new problem's files only,
// and a failed generate leaves the old set as it was.
func TestGenerateReplacesAProblem(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "p")
	generate(t, dir, "--problem", "ms", "--n", "6", "--r", "1")
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
	generate(t, dir, "--problem", "qs", "--n", "6", "--r", "1")
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "A.npy L_star.npy X_star.npy notes.txt outliers.npy problem.json y.npy" {
		t.Errorf("after replacing the problem the directory holds %s", got)
	}
	if s := readSummary(t, filepath.Join(dir, "problem.json")); s["problem"] != "qs" {
		t.Errorf("problem.json says %v", s["problem"])
	}
	if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 1 {
		t.Errorf("generate left %d entries beside --out", len(entries))
	}
	_, _, shape, _ := func() ([]float64, int, []int, error) {
		v, s, err := dataio.ReadFile(filepath.Join(dir, "A.npy"))
		return v, 0, s, err
	}()
	if len(shape) != 2 {
		t.Errorf("A.npy has shape %v, want the quadratic (m, n)", shape)
	}
}

// TestGenerateFloat32Quadratic writes a quadratic problem as float32: the
// operator's values are rounded before y is computed, so the solve from
// the float32 file recovers X* exactly.
func TestGenerateFloat32Quadratic(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	generate(t, data, "--problem", "qs", "--n", "10", "--r", "2", "--dtype", "float32")
	code, out, errs := cli(t, "solve", "--json", "--quadratic", filepath.Join(data, "A.npy"), "--y", filepath.Join(data, "y.npy"), "--rank", "2",
		"--truth", filepath.Join(data, "X_star.npy"), "--out", filepath.Join(dir, "out"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if s := jsonOf(t, out); s["status"] != "converged" || !(s["rel_error"].(float64) <= 1e-12) || math.IsNaN(s["rel_error"].(float64)) {
		t.Errorf("%v at %v", s["status"], s["rel_error"])
	}
}
