package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOverSpecifiedRankCLI: --rank above --r converges in at most three
// times the exact rank's iterations and reports the effective rank; with
// the default m, the tool warns before solving.
func TestOverSpecifiedRankCLI(t *testing.T) {
	common := []string{"solve", "--json", "--problem", "ms", "--n", "20", "--r", "2", "--kappa", "100", "--ps", "0.1",
		"--step", "polyak", "--tol", "1e-10", "--iters", "3000", "--seed", "3"}
	iters := map[string]float64{}
	for _, k := range []string{"2", "6"} {
		code, out, errs := cli(t, append(common, "--m", "960", "--rank", k)...)
		if code != 0 || errs != "" {
			t.Fatalf("--rank %s: exit %d, stderr %q", k, code, errs)
		}
		rep := jsonOf(t, out)
		if rep["status"] != "converged" || rep["effective_rank"].(float64) != 2 || rep["true_rank"].(float64) != 2 {
			t.Errorf("--rank %s: %v, effective rank %v, true rank %v", k, rep["status"], rep["effective_rank"], rep["true_rank"])
		}
		if sv := rep["singular_values"].([]any); len(sv) != int(rep["fit_rank"].(float64)) || k == "6" && len(sv) != 6 {
			t.Errorf("--rank %s: %d singular values for fit rank %v", k, len(sv), rep["fit_rank"])
		}
		iters[k] = rep["iterations"].(float64)
	}
	if iters["6"] > 3*iters["2"] {
		t.Errorf("rank 6 took %v iterations, rank 2 %v: more than 3×", iters["6"], iters["2"])
	}
	_, _, errs := cli(t, append(common, "--rank", "6", "--iters", "1")...)
	if !strings.Contains(errs, "warning: rank 6 has (n1+n2)·r = 240 unknowns") {
		t.Errorf("default m with --rank 6: stderr %q, want the warning", errs)
	}
}

// TestRandomInitCLI: --init random reaches 1e-10 on both models.
func TestRandomInitCLI(t *testing.T) {
	for _, p := range [][]string{{"--problem", "qs", "--n", "30", "--r", "2"}, {"--problem", "ms", "--n", "20", "--r", "2"}} {
		code, out, errs := cli(t, append([]string{"solve", "--json", "--kappa", "10", "--ps", "0.1", "--init", "random", "--tol", "1e-10", "--iters", "3000"}, p...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", p, code, errs)
		}
		rep := jsonOf(t, out)
		if rep["status"] != "converged" || rep["init"] != "random" || rep["init_scale"].(float64) != 1e-3 {
			t.Errorf("%v: %v, init %v scale %v", p, rep["status"], rep["init"], rep["init_scale"])
		}
	}
}

// TestAutoRankCLI: --rank auto finds r = 3 on a synthetic problem and on
// the same problem read from files, with and without the truth, and
// writes factors of that rank.
func TestAutoRankCLI(t *testing.T) {
	args := []string{"--problem", "ms", "--n", "20", "--r", "3", "--m", "1440", "--kappa", "10", "--ps", "0.1", "--seed", "2"}
	code, out, errs := cli(t, append([]string{"solve", "--json", "--rank", "auto", "--tol", "1e-10", "--iters", "3000"}, args...)...)
	if code != 0 {
		t.Fatalf("synthetic: exit %d: %s", code, errs)
	}
	rep := jsonOf(t, out)
	if rep["rank"].(float64) != 3 || rep["status"] != "converged" || rep["rel_error"].(float64) > 1e-10 {
		t.Errorf("synthetic: rank %v, %v at %v", rep["rank"], rep["status"], rep["rel_error"])
	}
	dir := t.TempDir()
	gen := filepath.Join(dir, "gen")
	generate(t, gen, args...)
	for _, truth := range []bool{true, false} {
		out := filepath.Join(dir, "out")
		a := []string{"solve", "--sensing", filepath.Join(gen, "A.npy"), "--y", filepath.Join(gen, "y.npy"), "--rank", "auto",
			"--ps", "0.1", "--tol", "1e-10", "--iters", "3000", "--out", out}
		if truth {
			a = append(a, "--truth", filepath.Join(gen, "X_star.npy"))
		}
		if code, _, errs := cli(t, a...); code != 0 {
			t.Fatalf("files (truth %v): exit %d: %s", truth, code, errs)
		}
		s := readSummary(t, filepath.Join(out, "summary.json"))
		if s["rank"].(float64) != 3 || s["effective_rank"].(float64) != 3 {
			t.Errorf("files (truth %v): rank %v, effective %v", truth, s["rank"], s["effective_rank"])
		}
		l := readMatrix(t, filepath.Join(out, "L.npy"))
		r := readMatrix(t, filepath.Join(out, "R.npy"))
		if _, c := l.Dims(); c != 3 {
			t.Errorf("files (truth %v): L has %d columns", truth, c)
		}
		if e := relError(l, r, readMatrix(t, filepath.Join(gen, "X_star.npy"))); e > 1e-9 {
			t.Errorf("files (truth %v): the factors written are at relative error %.3g", truth, e)
		}
	}
}

func TestRankFlagsBad(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--init-scale", "0.1"}, "--init-scale 0.1: applies to --init random"},
		{[]string{"--init", "random", "--init-scale", "0"}, "--init-scale 0: must be positive and finite"},
		{[]string{"--init", "zeros"}, "--init zeros: want spectral, random or convex"},
		{[]string{"--damping", "-2"}, "--damping -2: a fixed λ must be positive and finite"},
		{[]string{"--damping", "lots"}, "--damping lots: want auto, none, or a fixed λ > 0"},
		{[]string{"--rank", "auto", "--method", "gd"}, "--rank auto: needs a method"},
	} {
		code, _, errs := cli(t, append([]string{"solve", "--n", "10", "--r", "2", "--iters", "1"}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", c.args, code, errs, c.want)
		}
	}
}

// TestOverSpecCommand runs the study and checks that every claim holds and
// that --out holds the table.
func TestOverSpecCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("a few seconds")
	}
	dir := t.TempDir()
	code, out, errs := cli(t, "overspec", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.Contains(out, "| false |") || strings.Count(out, "| true |") != 10 {
		t.Errorf("not every claim holds:\n%s", out)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "overspec.md")); err != nil || string(b) != out {
		t.Errorf("overspec.md differs from the output (%v)", err)
	}
}

// TestInitSeedOfSeedZero: a random start of a synthetic problem of seed 0
// draws from seed 0, as --init-seed 0 does (it drew from 1, the files'
// seed, and said nothing).
func TestInitSeedOfSeedZero(t *testing.T) {
	run := func(extra ...string) any {
		args := append([]string{"solve", "--json", "--problem", "ms", "--n", "20", "--r", "2", "--seed", "0", "--init", "random", "--iters", "20"}, extra...)
		code, out, errs := cli(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, errs)
		}
		return jsonOf(t, out)["rel_error"]
	}
	if a, b, c := run(), run("--init-seed", "0"), run("--init-seed", "1"); a != b || a == c {
		t.Errorf("--seed 0: %v; with --init-seed 0: %v, 1: %v", a, b, c)
	}
}
