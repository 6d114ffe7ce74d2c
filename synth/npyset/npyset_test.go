package npyset

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scaledsm/scaledsm/dataio"
	"github.com/scaledsm/scaledsm/synth"
)

// written writes the files into a new directory and returns their
// contents by name, and the directory.
func written(t *testing.T, files []File) (map[string][]byte, string) {
	t.Helper()
	dir := t.TempDir()
	out := map[string][]byte{}
	for _, f := range files {
		var b bytes.Buffer
		if err := f.Write(&b); err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		out[f.Name] = b.Bytes()
		if err := os.WriteFile(filepath.Join(dir, f.Name), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return out, dir
}

// TestEntries: a completion problem's set holds its COO triplets, sorted
// by row, and the truth's factors; problem.json names every file and the
// command that solves them.
func TestEntries(t *testing.T) {
	cfg := synth.Config{Kind: synth.Completion, N1: 30, N2: 20, Rank: 2, P: 0.5, Seed: 3}
	files, meta, err := Entries(cfg, synth.Setting{Kappa: 2, PS: 0.1, SNR: math.Inf(1)}, "D")
	if err != nil {
		t.Fatal(err)
	}
	got, dir := written(t, WithMeta(files, &meta))
	rows, _, err := dataio.ReadInts(filepath.Join(dir, "rows.npy"))
	if err != nil {
		t.Fatal(err)
	}
	values, _, err := dataio.ReadFile(filepath.Join(dir, "values.npy"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != meta.M || len(values) != meta.M || meta.Outliers == 0 {
		t.Errorf("%d rows, %d values, m = %d, %d outliers", len(rows), len(values), meta.M, meta.Outliers)
	}
	for k := 1; k < len(rows); k++ {
		if rows[k] < rows[k-1] {
			t.Fatalf("rows not sorted at %d", k)
		}
	}
	var back Meta
	if err := json.Unmarshal(got["problem.json"], &back); err != nil {
		t.Fatal(err)
	}
	if want := "rows.npy cols.npy values.npy L_star.npy R_star.npy problem.json"; strings.Join(back.Files, " ") != want ||
		!strings.Contains(back.Solve, "--rows D/rows.npy") || !strings.Contains(back.Solve, "--ps 0.1") {
		t.Errorf("problem.json: files %v, solve %q", back.Files, back.Solve)
	}
	cfg.P = 0.05 // 30 entries, fewer than the (30+20)·2 unknowns
	if _, _, err := Entries(cfg, synth.Setting{Kappa: 2, SNR: math.Inf(1)}, "D"); err == nil || !strings.Contains(err.Error(), "unknowns") {
		t.Errorf("too few entries: %v", err)
	}
}

// TestOperator: a sensing problem's set in float32, Fortran order.
func TestOperator(t *testing.T) {
	cfg := synth.Config{Kind: synth.Sensing, N1: 6, N2: 5, Rank: 1, M: 40, Seed: 1, Precision: synth.Float32}
	files, meta, err := Operator(cfg, synth.Setting{Kappa: 1, SNR: math.Inf(1)}, "D", "float32", "F")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := written(t, files)
	h, err := dataio.ReadHeader(bytes.NewReader(got["A.npy"]))
	if err != nil {
		t.Fatal(err)
	}
	if h.Dtype != "<f4" || !h.Fortran || len(h.Shape) != 3 || h.Shape[0] != 40 || meta.Dtype != "float32" || meta.Order != "F" {
		t.Errorf("A.npy header %+v, meta %s %s", h, meta.Dtype, meta.Order)
	}
	for _, name := range []string{"y.npy", "X_star.npy", "L_star.npy", "R_star.npy", "outliers.npy"} {
		if len(got[name]) == 0 {
			t.Errorf("no %s", name)
		}
	}
}
