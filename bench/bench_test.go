package bench

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseCases(t *testing.T) {
	got, err := ParseCases(" mc-1e6,quadratic", "mf-train", true)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"mc-1e6", "quadratic", "libmf", "libmf-ratings", "mc-1e8", "netflix-1e8"}; !slices.Equal(got, want) {
		t.Errorf("cases %v, want %v", got, want)
	}
	if _, err := ParseCases("mc-1e6,fft", "", false); err == nil || !strings.Contains(err.Error(), `unknown case "fft"`) {
		t.Errorf("an unknown case: %v", err)
	}
}

// TestRunCaseQuick measures a case in this process: an iteration's time,
// its floor and their ratio.
func TestRunCaseQuick(t *testing.T) {
	r, err := RunCase("quadratic", Options{Quick: true, Iters: 5})
	if err != nil {
		t.Fatal(err)
	}
	if r.Case != "quadratic" || !(r.MsPerIter > 0) || !(r.FloorMs > 0) || r.Iterations != 5 || !r.Quick {
		t.Errorf("%+v", r)
	}
	if _, err := RunCase("fft", Options{Quick: true}); err == nil {
		t.Error("an unknown case ran")
	}
}

// TestPrintTable prints a case and the LIBMF anchor: ratios against the
// floor and against LIBMF, and whether the targets are met.
func TestPrintTable(t *testing.T) {
	var b strings.Builder
	PrintTable(&b, []Result{
		{Case: "mc-1e6", Size: "m=1e6", MsPerIter: 30, FloorMs: 2, RatioToFloor: 15, Target: "≤ 3 × floor", Kernel: "avx512", Procs: 2},
		{Case: "libmf", LIBMF: &libmfAnchor{Entries: 1000, Scaledsm: &libmfRun{MsPerIter: 10, PeakRSSMB: 60}, LIBMF: &libmfRun{MsPerIter: 20, PeakRSSMB: 15}}},
	}, 3*time.Second)
	for _, want := range []string{
		"| mc-1e6 | m=1e6 | 30 | 2 | 15.00 × floor | ≤ 3 × floor | **no** |",
		"| libmf | LIBMF's problem, 1000 entries | 10 (LIBMF 20 an epoch) | - | 0.50 × LIBMF | ≤ 1 × LIBMF | yes | 60 (LIBMF 15: 4.0 ×) | ≤ 3 × LIBMF | **no** |",
		"kernel avx512, GOMAXPROCS 2",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("want %q in\n%s", want, b.String())
		}
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		v    []float64
		want float64
	}{{[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 2, 3}, 2.5}, {nil, math.NaN()}} {
		if got := median(c.v); got != c.want && !(math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("median(%v) = %v, want %v", c.v, got, c.want)
		}
	}
}

// TestLIBMFRMSE reads the validation RMSE of mf-train's last epoch.
func TestLIBMFRMSE(t *testing.T) {
	out := "iter      tr_rmse      va_rmse          obj\n   0       1.0303       0.8516   1.1395e+07\n  49       0.7239       0.7570   6.6079e+06\n"
	if v, err := libmfRMSE(out); err != nil || v != 0.7570 {
		t.Errorf("%v, %v; want 0.757", v, err)
	}
	if _, err := libmfRMSE("real\n"); err == nil {
		t.Error("no figures: no error")
	}
}
