package csvfmt

import (
	"math"
	"strconv"
	"testing"
)

func TestFloat(t *testing.T) {
	for _, v := range []float64{0, 1, -2.5, 1e-300, math.Pi, 9.974136119821071e-13, math.MaxFloat64, math.Inf(1), math.Inf(-1)} {
		s := Float(v)
		back, err := strconv.ParseFloat(s, 64)
		if err != nil || back != v {
			t.Errorf("Float(%v) = %q reads back as %v, %v", v, s, back, err)
		}
	}
	if s := Float(math.NaN()); s != "" {
		t.Errorf("Float(NaN) = %q, want empty", s)
	}
}
