package predict

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm/dataio"
)

// save writes the factors L (3×2) and R (2×2) of X = L Rᵀ to a new
// directory, with ids when given.
func save(t *testing.T, rowIDs, colIDs []int64) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name string, fn func(*bytes.Buffer) error) {
		var b bytes.Buffer
		if err := fn(&b); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("L.npy", func(b *bytes.Buffer) error { return dataio.WriteFloat64(b, []int{3, 2}, []float64{1, 2, 3, 4, 5, 6}) })
	write("R.npy", func(b *bytes.Buffer) error { return dataio.WriteFloat64(b, []int{2, 2}, []float64{1, 0, 0, 10}) })
	if rowIDs != nil {
		write("row_ids.npy", func(b *bytes.Buffer) error { return dataio.WriteInt64(b, []int{len(rowIDs)}, rowIDs) })
		write("col_ids.npy", func(b *bytes.Buffer) error { return dataio.WriteInt64(b, []int{len(colIDs)}, colIDs) })
	}
	return dir
}

func TestFactorsPredict(t *testing.T) {
	m, err := Load(save(t, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	p, err := m.Predict([]int64{0, 2}, []int64{1, 0})
	if err != nil {
		t.Fatal(err)
	}
	if p.Values[0] != 20 || p.Values[1] != 5 || p.Header != "row,col,prediction" || p.Unseen != 0 {
		t.Errorf("%+v, want [20 5]", p)
	}
	var pe *PairError
	if _, err := m.Predict([]int64{0, 3}, []int64{0, 0}); !errors.As(err, &pe) || pe.Pair != 1 || !strings.Contains(err.Error(), "row 3 lies outside the 3 rows") {
		t.Errorf("a row outside: %v", err)
	}

	ided, err := Load(save(t, []int64{10, 20, 30}, []int64{7, 9}))
	if err != nil {
		t.Fatal(err)
	}
	if p, err := ided.Predict([]int64{30}, []int64{9}); err != nil || p.Values[0] != 60 {
		t.Errorf("by ids: %v, %v, want 60", p.Values, err)
	}
	if _, err := ided.Predict([]int64{20}, []int64{8}); !errors.As(err, &pe) || !strings.Contains(err.Error(), "col id 8 is not in the factors' cols") {
		t.Errorf("an unknown id: %v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := save(t, []int64{1, 1, 2}, []int64{1, 2})
	var le *LoadError
	if _, err := Load(dir); !errors.As(err, &le) || le.Dir != dir || !strings.Contains(err.Error(), "row_ids.npy is not increasing at [1]") {
		t.Errorf("ids not increasing: %v", err)
	}
	if _, err := Load(t.TempDir()); !errors.As(err, &le) || !strings.Contains(err.Error(), "L.npy: ") {
		t.Errorf("no factors: %v", err)
	}
	// A factor not finite (a fit that failed) is refused by its entry,
	// not turned into predictions of NaN.
	nan := save(t, nil, nil)
	var b bytes.Buffer
	if err := dataio.WriteFloat64(&b, []int{2, 2}, []float64{1, 0, math.NaN(), 10}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(nan, "R.npy"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(nan); !errors.As(err, &le) || !strings.Contains(err.Error(), "R.npy: entry (1, 0) is NaN") {
		t.Errorf("a NaN in R: %v", err)
	}
}

// TestWrite writes predictions as CSV and as NumPy.
func TestWrite(t *testing.T) {
	p := Predictions{Values: []float64{0.5, 2}, Header: "row,col,prediction"}
	csv := filepath.Join(t.TempDir(), "p.csv")
	if err := Write(csv, []int64{1}, []int64{3, 4}, p); err == nil || !strings.Contains(err.Error(), "1 rows and 2 columns for 2 predictions") {
		t.Errorf("a pair short: %v", err) // it panicked, and left a temporary file
	}
	if names, _ := filepath.Glob(filepath.Join(filepath.Dir(csv), "*")); len(names) != 0 {
		t.Errorf("a pair short left %v", names)
	}
	if err := Write(csv, []int64{1, 2}, []int64{3, 4}, p); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(csv); string(b) != "row,col,prediction\n1,3,0.5\n2,4,2\n" {
		t.Errorf("CSV %q", b)
	}
	npy := filepath.Join(t.TempDir(), "p.npy")
	if err := Write(npy, []int64{1, 2}, []int64{3, 4}, p); err != nil {
		t.Fatal(err)
	}
	if v, shape, err := dataio.ReadFile(npy); err != nil || len(shape) != 1 || !mat.EqualApprox(mat.NewVecDense(2, v), mat.NewVecDense(2, p.Values), 0) {
		t.Errorf("npy %v %v %v", v, shape, err)
	}
}
