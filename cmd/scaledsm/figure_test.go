package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/scaledsm/scaledsm/internal/experiment"
)

// TestFigureCommand runs "figure 4" at a small size, then "figure 2" into
// the same directory: both figures' files are written, nothing else is
// left behind, and the report covers both.
func TestFigureCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out") // created by the command
	code, out, errs := cli(t, "figure", "4", "--out", dir, "--n", "10", "--r", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if errs != "" {
		t.Errorf("stderr is not a terminal, yet the command wrote to it: %q", errs)
	}
	for _, want := range []string{"figure 4: quadratic sampling, n=10, r=2, m=160, seed 1: 12 runs", "claims hold", "report " + filepath.Join(dir, "index.html") + " (figures 4)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The figure number may also come last.
	if code, out, errs = cli(t, "figure", "--out", dir, "--n", "10", "--r", "2", "2"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "(figures 2, 4)") {
		t.Errorf("the report does not cover both figures:\n%s", out)
	}
	// At n=10 figure 2's VanillaSM slows less than the paper's claim asks:
	// the line says what was expected, and that the size is not the paper's.
	for _, want := range []string{"FAILS  VanillaSM slows with κ", "; expected at least 2.5× the iterations", "(the claims are the paper's, at its n=100, r=5"} {
		if !strings.Contains(out, want) {
			t.Errorf("figure 2 at n=10 lacks %q:\n%s", want, out)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{"figure2.csv", "figure2.json", "figure2a.png", "figure2a.svg", "figure2b.png", "figure2b.svg",
		"figure4.csv", "figure4.json", "figure4a.png", "figure4a.svg", "figure4b.png", "figure4b.svg", "index.html"}
	if !slices.Equal(names, want) {
		t.Errorf("directory holds %v, want %v", names, want)
	}
	f, err := os.Open(filepath.Join(dir, "figure4.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 || strings.Join(rows[0], ",") != strings.Join(experiment.Header, ",") {
		t.Errorf("figure4.csv: %d rows, %v", len(rows), err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="figure2"`, `id="figure4"`, "scaledsm figure 4 --out DIR --n 10 --r 2"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("index.html lacks %q", want)
		}
	}

	// "report" rebuilds the panels and the page from the CSVs alone, to
	// the same bytes.
	before := map[string][]byte{}
	for _, name := range want[2:] {
		if strings.HasSuffix(name, ".csv") || strings.HasSuffix(name, ".json") {
			continue
		}
		path := filepath.Join(dir, name)
		if before[name], err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
		os.Remove(path)
	}
	if code, out, errs = cli(t, "report", "--out", dir); code != 0 || !strings.Contains(out, "(figures 2, 4)") {
		t.Fatalf("report: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	for name, b := range before {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("report did not rebuild %s: %v", name, err)
		} else if !bytes.Equal(got, b) {
			t.Errorf("report rebuilt %s differently", name)
		}
	}
}

// TestReproduceCommand runs all six figures at a small size.
func TestReproduceCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("six figures take several seconds")
	}
	dir := t.TempDir()
	code, out, errs := cli(t, "reproduce", "--out", dir, "--n", "10", "--r", "2", "--seed", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "(figures 1, 2, 3, 4, 5, 6)") || !strings.Contains(out, "left out with --n or --r") {
		t.Errorf("output:\n%s", out)
	}
	pngs, _ := filepath.Glob(filepath.Join(dir, "*.png"))
	svgs, _ := filepath.Glob(filepath.Join(dir, "*.svg"))
	csvs, _ := filepath.Glob(filepath.Join(dir, "*.csv"))
	if len(pngs) != 16 || len(svgs) != 16 || len(csvs) != 6 {
		t.Errorf("%d PNGs, %d SVGs, %d CSVs; want 16, 16, 6", len(pngs), len(svgs), len(csvs))
	}
	if _, err := os.Stat(filepath.Join(dir, "index.html")); err != nil {
		t.Error(err)
	}
}

// TestFigureBadArguments: one line naming the input and the reason, exit
// status 2, nothing written.
func TestFigureBadArguments(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"figure", "7", "--out", tmp}, `no figure 7: the paper's figures are 1 to 6`},
		{[]string{"figure", "0", "--out", tmp}, `no figure 0: the paper's figures are 1 to 6`},
		{[]string{"figure", "--out", tmp, "7"}, `no figure 7: the paper's figures are 1 to 6`},
		{[]string{"figure", "two", "--out", tmp}, `figure "two": the paper's figures are 1 to 6`},
		{[]string{"figure", "--out", tmp}, "missing the figure number"},
		{[]string{"figure", "1", "2", "--out", tmp}, `unexpected argument "2"`},
		{[]string{"figure", "--n", "40", "2", "--out", tmp}, `unexpected argument "2": the figure number goes first or last`},
		{[]string{"figure", "--bogus", "1", "--out", tmp}, "--bogus: no such flag"}, // not the number's hint
		{[]string{"figure", "2", "--out", tmp, "--n", "100000"}, "--n 100000: the default m = 4(n1+n2)r = 4e+06 measurements of 100000 values each are too many to store: give a smaller n or r (run"},
		{[]string{"figure", "3"}, "--out is required"},
		{[]string{"reproduce"}, "--out is required"},
		{[]string{"reproduce", "stray", "--out", tmp}, `unexpected argument "stray"`},
		{[]string{"figure", "1", "--out", filepath.Join(file, "sub")}, "--out " + filepath.Join(file, "sub") + ": cannot mkdir: not a directory"},
		{[]string{"reproduce", "--out", file}, "--out " + file + ": cannot"},
		{[]string{"figure", "1", "--out", tmp, "--n", "-4"}, "--n -4: must be positive"},
		{[]string{"figure", "1", "--out", tmp, "--n", "0"}, "--n 0: must be positive"}, // not the paper's size
		{[]string{"figure", "1", "--out", tmp, "--r", "0"}, "--r 0: must be positive"},
		{[]string{"figure", "1", "--out", tmp, "--r", "-1"}, "--r -1: must be positive"},
		{[]string{"report"}, "--out is required"},
		{[]string{"report", "--out", filepath.Join(tmp, "none")}, "--out " + filepath.Join(tmp, "none") + ": not a directory"},
		{[]string{"figure", "2", "--out", tmp, "--n", "4", "--r", "5"}, "--r 5: rank must lie in [1, n] = [1, 4]"},
		{[]string{"figure", "2", "--out", tmp, "--n", "4"}, "--n 4: figure 2's rank 5 needs n ≥ 5 (or a smaller --r)"},
		{[]string{"reproduce", "--out", tmp, "--n", "7"}, "--n 7: figure 1's rank 10 needs n ≥ 10"},
	}
	for _, c := range cases {
		code, out, errs := cli(t, c.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", c.args, code, errs)
		}
		if out != "" {
			t.Errorf("%v: wrote to stdout: %q", c.args, out)
		}
		lines := strings.Split(strings.TrimSpace(errs), "\n")
		if len(lines) != 1 || !strings.Contains(lines[0], c.want) {
			t.Errorf("%v: stderr %q, want one line containing %q", c.args, errs, c.want)
		}
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 1 {
		t.Errorf("bad arguments left %d entries in the output directory", len(entries))
	}
	if code, out, _ := cli(t, "figure", "--help"); code != 0 || !strings.Contains(out, "--out") || !strings.Contains(out, "--seed") {
		t.Errorf("figure --help: exit %d, stdout %q", code, out)
	}
	// A directory without figures is not a report.
	empty := filepath.Join(tmp, "empty")
	os.Mkdir(empty, 0o755)
	if code, _, errs := cli(t, "report", "--out", empty); code != 2 || !strings.Contains(errs, "holds no figure") || strings.Count(errs, "\n") != 1 {
		t.Errorf("report on an empty directory: exit %d, stderr %q", code, errs)
	}
	// Nor is one whose only figure cannot be read: said once, in one line.
	os.WriteFile(filepath.Join(empty, "figure2.json"), []byte("{}"), 0o644)
	if code, _, errs := cli(t, "report", "--out", empty); code != 2 || !strings.Contains(errs, "holds no figure that can be read: figure 2") || strings.Count(errs, "\n") != 1 {
		t.Errorf("report on an unreadable figure: exit %d, stderr %q", code, errs)
	}
}

func TestProgressBarQuietWhenNotATerminal(t *testing.T) {
	var buf bytes.Buffer
	b := newProgressBar(&buf, "figure 1")
	b.update(experiment.Progress{Runs: 2, RunsDone: 2, Iterations: 10})
	b.done()
	if buf.Len() != 0 {
		t.Errorf("bar wrote %q to a buffer", buf.String())
	}
	// Drawn (as on a terminal), it shows the runs and iterations done.
	b = &progressBar{w: &buf, label: "figure 5"}
	b.update(experiment.Progress{Runs: 109, RunsDone: 40, Iterations: 31234, Bound: 85000})
	b.done()
	if got := buf.String(); !strings.Contains(got, "figure 5 [###########-------------------] 40/109 runs, 31234 iterations") || !strings.HasSuffix(got, "\r\033[K") {
		t.Errorf("bar drew %q", got)
	}
}

// TestCompletionCommand runs the studies beyond the paper at a small size:
// their files are written, the report shows them, and report rebuilds it
// from the directory alone.
func TestCompletionCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("the studies take seconds")
	}
	dir := t.TempDir()
	code, out, errs := cli(t, "completion", "--out", dir, "--n", "100", "--r", "2", "--p", "0.5", "--image-rank", "2", "--image-iters", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"completion study:", "image study:", "(the completion study; the image study)", "| ScaledGD l2trim (default) | 1 |"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, name := range []string{"completion.json", "completion.md", "completion_a.png", "completion_e.svg", "image.json",
		"astronaut_original.png", "astronaut_corrupted.png", "astronaut_default.png", "astronaut_l2sq.png", "astronaut_l1.png", "index.html"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	page, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	if !strings.Contains(string(page), "Beyond the paper: a photograph") {
		t.Error("index.html lacks the image study")
	}
	os.Remove(filepath.Join(dir, "index.html"))
	os.Remove(filepath.Join(dir, "completion_b.png"))
	if code, out, errs := cli(t, "report", "--out", dir); code != 0 || !strings.Contains(out, "the completion study; the image study") {
		t.Fatalf("report: exit %d: %s%s", code, out, errs)
	}
	for _, name := range []string{"index.html", "completion_b.png"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("report did not rebuild %s: %v", name, err)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"completion"}, "--out is required"},
		{[]string{"completion", "--out", dir, "--n", "0"}, "completion study: n = 0 and r = 5"},
		{[]string{"completion", "--out", dir, "--p", "1.5"}, "p = 1.5 must lie in (0, 1]"},
		{[]string{"completion", "--out", dir, "--image-rank", "0"}, "image study: rank 0 must be positive"},
	} {
		code, _, errs := cli(t, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%v: exit %d, %q; want 2 and one line with %q", tc.args, code, errs, tc.want)
		}
	}
}
