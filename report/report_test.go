package report

import (
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/completion"
)

// TestFitLine: the fit line never rounds unfitted measurements up to
// 100.0%, names how many, and where they gather.
func TestFitLine(t *testing.T) {
	s := &Summary{Draw: &Draw{}}
	s.Status, s.FitFraction, s.Unfitted, s.UnfittedCols, s.GrossCols = "partial", 0.99989, 113, 1, 1
	var b strings.Builder
	s.Print(&b, "")
	for _, want := range []string{
		"fit        99.9% of the measurements fitted exactly (residual below 1e-09·median|y|), 113 not: 1 column mostly unfitted, 1 column found gross",
		"status     partial after 0 iterations (X stopped changing, but on data declared free of outliers it leaves 1 column mostly unfitted, 1 column found gross",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("want %q in\n%s", want, b.String())
		}
	}
	if got := percent(1, false) + " " + percent(0.99951, true) + " " + rowsCols(2, 3); got != "100.0 99.9 2 rows and 3 columns" {
		t.Errorf("got %q", got)
	}
}

// TestEntriesReport: a 3×2 matrix with a row of no entry, two entries
// held out (one predicted exactly), and a sparse part of two entries, one
// of them an outlier.
func TestEntriesReport(t *testing.T) {
	op, _, err := completion.NewEntries(3, 2, []int32{0, 0, 2}, []int32{0, 1, 0}, []float64{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	r := NewEntries(op)
	if r.EmptyRows != 1 || r.EmptyCols != 0 || r.Observed != 0.5 {
		t.Errorf("%+v", r)
	}
	f := scaledsm.Factors{L: mat.NewDense(3, 1, []float64{1, 2, 3}), R: mat.NewDense(2, 1, []float64{1, 1})}
	r.SetTest(f, completion.HeldOut{Rows: []int32{1, 1}, Cols: []int32{0, 1}, Y: []float64{2, 5}})
	if *r.TestEntries != 2 || *r.TestMAE != 1.5 || *r.TestFit != 0.5 || *r.TestRMSE != 3/1.4142135623730951 {
		t.Errorf("RMSE %v, MAE %v, fit %v", *r.TestRMSE, *r.TestMAE, *r.TestFit)
	}
	r.SetSupport([]float64{0, 4, 0, 1}, []bool{false, true, true, false})
	if *r.OutliersFound != 2 || *r.OutlierPrecision != 0.5 || *r.OutlierRecall != 0.5 {
		t.Errorf("found %v, precision %v, recall %v", *r.OutliersFound, *r.OutlierPrecision, *r.OutlierRecall)
	}
}

// TestNewRunDefaults: the settings' zeros are recorded as the defaults
// Solve runs with (an iteration limit of 1000 and a tolerance of 1e-12,
// not none), and settings with no loss do not panic.
func TestNewRunDefaults(t *testing.T) {
	r := NewRun(scaledsm.Settings{}, &completion.Result{})
	def, _ := scaledsm.Settings{}.Resolved()
	if r.MaxIter != def.MaxIter || r.Tol != def.Tol || r.MaxIter == 0 || r.Loss == "" {
		t.Errorf("zero settings recorded as max_iter %d, tol %v, loss %q; want %d, %v", r.MaxIter, r.Tol, r.Loss, def.MaxIter, def.Tol)
	}
}
