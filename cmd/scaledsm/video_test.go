package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVideoFailures: video's bad inputs exit 2 with one line that names
// the input and the reason, before any work; nothing is written.
func TestVideoFailures(t *testing.T) {
	dir := blobVideo(t, 1)
	in := filepath.Join(dir, "Y.npy")
	nan := filepath.Join(t.TempDir(), "nan.npy")
	writeNpy(t, nan, []int{2, 3}, []float64{1, 2, 3, 4, math.NaN(), 6})
	cases := []struct {
		args []string
		want string
	}{
		{nil, "--in is required"},
		{[]string{"--in", filepath.Join(dir, "missing.npy")}, "missing.npy: cannot open"},
		{[]string{"--in", in, "--rank", "81"}, "--rank 81: must lie in [1, min(n1, n2)] = [1, 80]"},
		{[]string{"--in", in, "--rank", "0"}, "--rank 0"},
		{[]string{"--in", in, "--budget", "0"}, "--budget 0"},
		{[]string{"--in", in, "--sweeps", "-1"}, "--sweeps -1"},
		{[]string{"--in", in, "--sweeps", "0"}, "--sweeps 0: must be at least 1"}, // not the default's 10
		{[]string{"--in", nan}, "entry (1, 1) is NaN"},
		{[]string{"--in", filepath.Join(dir, "L_star.npy"), "--out", dir, "--rank", "3"}, "--rank 3"},
		{[]string{"--in", dir}, "video takes the matrix of a whole video, pixels × frames, as a .npy"}, // a folder of frames
	}
	for _, c := range cases {
		code, stdout, stderr := cli(t, append([]string{"video", "--quiet"}, c.args...)...)
		if code != exitBadInput || stdout != "" || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("video %v: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", c.args, code, stdout, stderr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "background.npy")); err == nil {
		t.Error("a failed video wrote background.npy")
	}
}

// TestVideoText: video's report as text, with its progress on stderr.
func TestVideoText(t *testing.T) {
	dir := blobVideo(t, 3)
	code, stdout, stderr := cli(t, "video", "--in", filepath.Join(dir, "Y.npy"), "--budget", "12000", "--sweeps", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"1200×80, rank 2", "one row in 8 (150 rows)", "polished", "88.83% of the entries", "after 1 sweep of least", " an entry\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the report lacks %q:\n%s", want, stdout)
		}
	}
	for _, want := range []string{"read ", "fitted the sample", "fitted every row", "sweep 1:"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the progress lacks %q:\n%s", want, stderr)
		}
	}
}

// TestVideoFramesAsRows: a matrix whose rows are the shorter side is
// refused when the sample would hold too few of them, in one line.
func TestVideoFramesAsRows(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "Yt.npy")
	writeNpy(t, in, []int{80, 1200}, make([]float64, 80*1200))
	code, _, stderr := cli(t, "video", "--quiet", "--in", in, "--budget", "12000")
	if code != exitBadInput || !strings.Contains(stderr, "holds 10 of the 80 rows (one in 8), fewer than 100") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want exit 2 and why", code, stderr)
	}
}

// TestVideoNotLowRank: on a matrix that is not low rank plus outliers
// the report says so instead of calling the misfit the foreground.
func TestVideoNotLowRank(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "noise.npy")
	v := make([]float64, 300*40)
	for k := range v {
		v[k] = math.Sin(float64(k*k) * 0.37)
	}
	writeNpy(t, in, []int{300, 40}, v)
	code, stdout, stderr := cli(t, "video", "--quiet", "--in", in, "--sweeps", "1")
	if code != 0 || !strings.Contains(stdout, "not a matrix of rank 2 plus outliers") {
		t.Errorf("exit %d: %s%s", code, stdout, stderr)
	}
}
