package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/scaledsm/scaledsm/report"
)

// cli runs the command line and returns its exit code, stdout and stderr.
// Every solve's report is held to account for its time (see
// checkAccounted).
func cli(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errw bytes.Buffer
	t0 := time.Now()
	code := run(args, &out, &errw)
	if len(args) > 0 && args[0] == "solve" && code == 0 {
		checkAccounted(t, out.String(), time.Since(t0))
	}
	return code, out.String(), errw.String()
}

// checkAccounted checks a solve's report, as JSON or as text, against its
// wall time d measured here: the whole it reports is d's within a second,
// the fit returned (with its polish) and the other fits it names are within the library
// call's time, and no more than a second of that call is in no fit (an
// unnamed fit would be).
func checkAccounted(t *testing.T, out string, d time.Duration) {
	t.Helper()
	var fit, fits, solve, wall float64
	if strings.HasPrefix(out, "{") {
		var s report.Summary
		if err := json.Unmarshal([]byte(out), &s); err != nil || s.Problem == "ratings" || s.Problem == "interactions" || s.Problem == "" {
			return // the recommender, or not a solve's summary
		}
		fit, fits, solve, wall = s.Seconds+s.InitSeconds+s.PolishSeconds, s.FitsSeconds, s.SolveSeconds, s.WallSeconds
		if math.Abs(s.SetupSeconds+s.SolveSeconds+s.FinishSeconds-wall) > 1e-6 || s.FinishSeconds < 0 {
			t.Errorf("setup %v + solve %v + finish %v s, but %v s in all", s.SetupSeconds, s.SolveSeconds, s.FinishSeconds, wall)
		}
	} else {
		line := ""
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "time       ") && strings.Contains(l, " s solving") {
				line = l
			}
		}
		if line == "" {
			return
		}
		num := func(re string) float64 {
			m := regexp.MustCompile(re).FindStringSubmatch(line)
			if m == nil {
				return 0
			}
			v, _ := strconv.ParseFloat(m[1], 64)
			return v
		}
		fit, fits, wall = num(`([0-9.e+-]+) s solving`)+num(`([0-9.e+-]+) s initializing it`)+num(`([0-9.e+-]+) s polishing`), num(`([0-9.e+-]+) s in [0-9]+ other fits?`), num(`([0-9.e+-]+) s in all`)
		parts := fit + fits + num(`([0-9.e+-]+) s choosing`) + num(`([0-9.e+-]+) s reading`) + num(`([0-9.e+-]+) s evaluating`)
		if math.Abs(parts-wall) > 0.01*wall+0.01 {
			t.Errorf("the time line's parts add up to %.3g s, its whole is %.3g s: %s", parts, wall, line)
		}
		solve = wall // the text gives no call's time: the checks below hold against the whole
	}
	if math.Abs(wall-d.Seconds()) > 1 {
		t.Errorf("the report says %.3g s in all, the command took %.3g s", wall, d.Seconds())
	}
	if rest := solve - fit - fits; rest < -0.01 || rest > 1 {
		t.Errorf("of the library call's %.3g s, the fit returned took %.3g s and the other fits %.3g s: %.3g s unaccounted for",
			solve, fit, fits, rest)
	}
}

func TestSolveJSON(t *testing.T) {
	for _, args := range [][]string{
		{"--problem", "qs", "--n", "20", "--r", "2", "--ps", "0.2", "--kappa", "5"},
		{"--problem", "ms", "--n", "10", "--n2", "14", "--r", "2", "--ps", "0.1", "--kappa", "5"},
	} {
		code, out, errs := cli(t, append([]string{"solve", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d, stderr %s", args, code, errs)
		}
		var rep map[string]any
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v: output is not one JSON object: %v\n%s", args, err, out)
		}
		for _, key := range []string{"iterations", "rel_error", "status", "seconds"} {
			if _, ok := rep[key]; !ok {
				t.Errorf("%v: JSON lacks %q", args, key)
			}
		}
		if rep["status"] != "converged" || rep["rel_error"].(float64) > 1e-12 {
			t.Errorf("%v: status %v, error %v", args, rep["status"], rep["rel_error"])
		}
		if rep["snr_db"] != nil {
			t.Errorf("%v: snr_db = %v without --snr, want null", args, rep["snr_db"])
		}
	}
}

// TestSolveMethodsAndLosses reaches every method, loss and step rule from
// the command line and checks what each run reports and how it ends.
func TestSolveMethodsAndLosses(t *testing.T) {
	base := []string{"solve", "--json", "--n", "20", "--r", "2", "--kappa", "3"}
	cases := []struct {
		args               []string
		method, loss, step string
		status             string
		maxError           float64
		eta, trim          any
	}{
		{[]string{"--ps", "0.1"}, "scaledsm", "l1", "polyak", "converged", 1e-12, nil, "0.1"},
		{[]string{"--ps", "0.1", "--step", "auto"}, "scaledsm", "l1", "auto", "converged", 1e-12, nil, "median"},
		{[]string{"--ps", "0.1", "--method", "vanillasm", "--step", "auto", "--trim", "0.1"}, "vanillasm", "l1", "auto", "converged", 1e-12, nil, "0.1"},
		{[]string{"--loss", "l2", "--step", "auto", "--tol", "1e-10"}, "scaledsm", "l2", "auto", "converged", 1e-10, nil, "median"},
		{[]string{"--loss", "l2sq", "--tol", "1e-10"}, "scaledsm", "l2sq", "polyak", "converged", 1e-10, nil, "none"},
		{[]string{"--method", "scaledgd", "--tol", "1e-8"}, "scaledgd", "l2sq", "constant", "converged", 1e-8, 0.05, "none"},
		{[]string{"--method", "scaledgd", "--eta", "0.02", "--tol", "1e-8"}, "scaledgd", "l2sq", "constant", "converged", 1e-8, 0.02, "none"},
		{[]string{"--method", "gd", "--tol", "1e-8", "--iters", "3000"}, "gd", "l2sq", "constant", "converged", 1e-8, nil, "none"},
		{[]string{"--method", "gd", "--step", "auto", "--tol", "1e-8"}, "gd", "l2sq", "auto", "converged", 1e-8, nil, "median"},
		{[]string{"--problem", "ms", "--method", "scaledgd", "--tol", "1e-8"}, "scaledgd", "l2sq", "constant", "converged", 1e-8, 0.5, "none"},
		// Least squares do not survive outliers.
		{[]string{"--ps", "0.2", "--method", "scaledgd", "--iters", "200"}, "scaledgd", "l2sq", "constant", "iteration-limit", math.Inf(1), 0.05, "0.2"},
	}
	for _, c := range cases {
		code, out, errs := cli(t, append(base, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errs)
		}
		if warned := strings.Contains(errs, "warning: stopped at the iteration limit"); warned != (c.status == "iteration-limit") {
			t.Errorf("%v: status %s, stderr %q", c.args, c.status, errs)
		}
		var rep map[string]any
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if rep["method"] != c.method || rep["loss"] != c.loss || rep["step"] != c.step || rep["status"] != c.status || rep["init_trim"] != c.trim {
			t.Errorf("%v: method %v, loss %v, step %v, status %v, trim %v; want %v %v %v %v %v", c.args,
				rep["method"], rep["loss"], rep["step"], rep["status"], rep["init_trim"], c.method, c.loss, c.step, c.status, c.trim)
		}
		if e, ok := rep["rel_error"].(float64); !ok || e > c.maxError {
			t.Errorf("%v: relative error %v, want at most %g", c.args, rep["rel_error"], c.maxError)
		}
		if c.status == "iteration-limit" && rep["rel_error"].(float64) < 0.1 {
			t.Errorf("%v: least squares with outliers reached %v", c.args, rep["rel_error"])
		}
		if c.eta != nil && rep["eta"] != c.eta {
			t.Errorf("%v: eta %v, want %v", c.args, rep["eta"], c.eta)
		}
		if (c.step == "constant") != (rep["eta"] != nil) {
			t.Errorf("%v: eta %v with step %v", c.args, rep["eta"], c.step)
		}
	}
}

func TestSolveSummaryAndTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.csv")
	code, out, errs := cli(t, "solve", "--n", "20", "--r", "2", "--step", "geometric", "--lambda", "1", "--q", "0.9", "--iters", "30", "--trace", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"quadratic sampling", "geometric steps (lambda=1, q=0.9)", "status", "iteration-limit after 30 iterations", "trace      " + path + "\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rows[0], ","); got != "iteration,rel_error,change,loss,gap,step,step_length" {
		t.Errorf("trace header %q", got)
	}
	if len(rows) != 32 {
		t.Fatalf("trace has %d rows, want header + 31", len(rows))
	}
	for i, row := range rows[1:] {
		if row[0] != strconv.Itoa(i) {
			t.Fatalf("row %d has iteration %s", i, row[0])
		}
		if _, err := strconv.ParseFloat(row[1], 64); err != nil {
			t.Fatalf("row %d: rel_error %q: %v", i, row[1], err)
		}
	}
	if rows[1][2] != "" || rows[31][5] != "" || rows[1][4] != "" {
		t.Errorf("change at iteration 0 (%q), step at the last (%q) and the gap of geometric steps (%q) should be empty", rows[1][2], rows[31][5], rows[1][4])
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("trace directory holds %d entries, want only trace.csv", len(entries))
	}
}

// TestBadArguments runs each bad argument through the command line: one
// line naming the flag, exit status 2, no output.
func TestBadArguments(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--problem", "xx"}, "--problem xx"},
		{[]string{"--n", "0"}, "--n 0"},
		{[]string{"--n", "-3"}, "--n -3"},
		{[]string{"--problem", "ms", "--n2", "0"}, "--n2 0"},
		{[]string{"--problem", "qs", "--n", "10", "--n2", "12"}, "--n2 12"},
		{[]string{"--n", "10", "--r", "0"}, "--r 0"},
		{[]string{"--n", "10", "--r", "11"}, "--r 11"},
		{[]string{"--problem", "ms", "--n", "10", "--n2", "4", "--r", "5"}, "--r 5"},
		{[]string{"--m", "0"}, "--m 0"},
		{[]string{"--kappa", "0.5"}, "--kappa 0.5"},
		{[]string{"--kappa", "NaN"}, "--kappa NaN"},
		{[]string{"--ps", "0.5"}, "--ps 0.5"},
		{[]string{"--ps", "-0.1"}, "--ps -0.1"},
		{[]string{"--snr", "NaN"}, "--snr NaN"},
		{[]string{"--method", "newton"}, "--method newton"},
		{[]string{"--loss", "l3"}, "--loss l3"},
		{[]string{"--method", "scaledgd", "--loss", "l1"}, "--loss l1: scaledgd is a gradient method"},
		{[]string{"--method", "gd", "--loss", "l2"}, "--loss l2: gd is a gradient method"},
		{[]string{"--step", "constant"}, "--step constant: a constant step does not converge on the nonsmooth l1 loss"},
		{[]string{"--loss", "l2", "--step", "constant"}, "--step constant: a constant step does not converge on the nonsmooth l2 loss"},
		{[]string{"--method", "scaledgd", "--eta", "0"}, "--eta 0"},
		{[]string{"--method", "gd", "--eta", "-1"}, "--eta -1"},
		{[]string{"--method", "gd", "--eta", "Inf"}, "--eta +Inf"},
		{[]string{"--eta", "0.3"}, "--eta 0.3: applies to --step constant, not polyak"},
		{[]string{"--step", "auto", "--lambda", "3"}, "--lambda 3: applies to --step geometric, not auto"},
		{[]string{"--method", "scaledgd", "--q", "0.5"}, "--q 0.5: applies to --step geometric, not constant"},
		{[]string{"--trim", "0.5"}, "--trim 0.5"},
		{[]string{"--trim", "mean"}, "--trim mean"},
		{[]string{"--step", "armijo"}, "--step armijo"},
		{[]string{"--step", "geometric", "--lambda", "0"}, "--lambda 0"},
		{[]string{"--step", "geometric", "--lambda", "-1"}, "--lambda -1"},
		{[]string{"--step", "geometric", "--q", "1"}, "--q 1"},
		{[]string{"--step", "geometric", "--q", "0"}, "--q 0"},
		{[]string{"--iters", "0"}, "--iters 0"},
		{[]string{"--iters", "-5"}, "--iters -5"},
		{[]string{"--tol", "-1"}, "--tol -1"},
		{[]string{"--precision", "f16"}, "--precision f16"},
		{[]string{"--kernel", "sse9"}, "--kernel sse9: unknown implementation"},
		{[]string{"--n", "ten"}, "--n ten: not a valid value of this flag"},
		{[]string{"--n"}, "--n: needs a value"},
		{[]string{"--out", "--json"}, "--out --json: needs a value (it took the flag --json as its value)"},
		{[]string{"--out", "-h"}, "--out -h: needs a value"},
		{[]string{"--out", "--iters", "5"}, "--out --iters: needs a value"},
		{[]string{"--trace", "-seed=3"}, "--trace -seed=3: needs a value"},
		{[]string{"--json=maybe"}, "--json maybe"},
		{[]string{"--frobnicate"}, "--frobnicate: no such flag"},
		{[]string{"stray"}, "unexpected argument \"stray\""},
	}
	for _, c := range cases {
		code, out, errs := cli(t, append([]string{"solve"}, c.args...)...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2", c.args, code)
		}
		if out != "" {
			t.Errorf("%v: wrote to stdout: %q", c.args, out)
		}
		if strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) || !strings.HasSuffix(errs, `(run "scaledsm solve --help")`+"\n") {
			t.Errorf("%v: stderr %q is not one line with %q and where to find help", c.args, errs, c.want)
		}
		if strings.Contains(errs, "panic") || strings.Contains(errs, "goroutine") {
			t.Errorf("%v: stderr shows a panic:\n%s", c.args, errs)
		}
	}
}

func TestHelpAndUnknownCommand(t *testing.T) {
	if code, out, _ := cli(t, "help"); code != 0 || !strings.Contains(out, "solve") {
		t.Errorf("help: exit %d, output %q", code, out)
	}
	code, help, errs := cli(t, "solve", "--help")
	if code != 0 || !strings.Contains(help, "--kappa") || errs != "" {
		t.Errorf("solve --help: exit %d, stdout %q, stderr %q", code, help, errs)
	}
	if code, out, _ := cli(t, "help", "solve"); code != 0 || out != help {
		t.Errorf("help solve: exit %d, output differs from solve --help:\n%s", code, out)
	}
	if code, out, _ := cli(t, "help", "help"); code != 0 || !strings.Contains(out, "solve") {
		t.Errorf("help help: exit %d, output %q", code, out)
	}
	if code, _, errs := cli(t, "help", "frob"); code != 2 || !strings.Contains(errs, "unknown command \"frob\"") {
		t.Errorf("help frob: exit %d, stderr %q", code, errs)
	}
	if code, _, errs := cli(t, "frob"); code != 2 || !strings.Contains(errs, "unknown command \"frob\"") {
		t.Errorf("unknown command: exit %d, stderr %q", code, errs)
	}
	if code, _, _ := cli(t); code != 2 {
		t.Errorf("no command: exit %d, want 2", code)
	}
}

func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("the demo takes a couple of seconds")
	}
	code, out, errs := cli(t, "demo")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "scaledsm  converged") || !strings.Contains(out, "S ScaledSM") {
		t.Errorf("demo output:\n%s", out)
	}
}

// TestTable1Command runs the quick Table 1 from the command line: every
// output file is written, nothing else is left in the directory, and the
// table is printed.
func TestTable1Command(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	code, out, errs := cli(t, "table1", "--quick", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "table1.csv table1.md table1.png table1.svg table1_steps.csv" {
		t.Errorf("output directory holds %s", got)
	}
	md, err := os.ReadFile(filepath.Join(dir, "table1.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, string(md)) || !strings.Contains(out, "exponent of κ") {
		t.Errorf("printed table differs from table1.md:\n%s", out)
	}
	plainFile := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(plainFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--quick"}, "--out is required"},
		{[]string{"--out", dir, "--n", "0"}, "--n 0"},
		{[]string{"--out", dir, "--r", "50"}, "--r 50"},
		{[]string{"--out", dir, "--iters", "0"}, "--iters 0"},
		{[]string{"--quick", "--out", filepath.Join(plainFile, "sub")}, "--out "}, // below a file: bad input, exit 2 as elsewhere
	} {
		code, _, errs := cli(t, append([]string{"table1"}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", c.args, code, errs, c.want)
		}
	}
}

// TestExperimentFolds checks experiment movielens' --folds before any
// file is read: a fold out of 1 to 5, or one given twice (whose mean
// would count it twice), is one line, exit 2.
func TestExperimentFolds(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ folds, want string }{
		{"1,7", "--folds 1,7: want folds among 1,2,3,4,5"},
		{"1,2,1", "--folds 1,2,1: fold 1 given twice"},
	} {
		code, _, errs := cli(t, "experiment", "movielens", "--data", dir, "--folds", c.folds)
		if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("--folds %s: exit %d, %q; want exit 2 and one line with %q", c.folds, code, errs, c.want)
		}
	}
}
