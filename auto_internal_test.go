package scaledsm

import (
	"math"
	"testing"
)

// TestStagnant checks Auto's count of stagnant iterations against a direct
// count, on loss histories that converge, zigzag, sit at a floor, or do
// both.
func TestStagnant(t *testing.T) {
	direct := func(loss []float64, margin float64) int {
		n := 0
		for s := autoWindow; s < len(loss); s++ {
			before, recent := math.Inf(1), math.Inf(1)
			for u := 0; u <= s-autoWindow; u++ {
				before = min(before, loss[u])
			}
			for u := s - autoWindow + 1; u <= s; u++ {
				recent = min(recent, loss[u])
			}
			if recent >= before-margin {
				n++
			}
		}
		return n
	}
	histories := map[string][]float64{}
	var converging, zigzag, floor, both []float64
	for s := range 200 {
		converging = append(converging, math.Pow(0.9, float64(s)))
		z := math.Pow(0.95, float64(s))
		if s%2 == 1 {
			z *= 3 // every other step overshoots
		}
		zigzag = append(zigzag, z)
		floor = append(floor, 1+0.1*math.Sin(float64(s)))
		both = append(both, math.Max(math.Pow(0.8, float64(s)), 1e-6)+1e-7*math.Sin(float64(7*s)))
	}
	histories["converging"], histories["zigzag"], histories["floor"], histories["both"] = converging, zigzag, floor, both
	want := map[string]int{"converging": 0, "zigzag": 0}
	for name, h := range histories {
		// Auto's margin is 1% of its gap estimate, which tracks the loss
		// where these histories converge.
		for _, margin := range []float64{0, autoProgress * h[len(h)-1]} {
			trace := make([]Iteration, len(h)-1)
			for i := range trace {
				trace[i].Gap = h[i]
			}
			got := stagnant(trace, h[len(h)-1], margin)
			if d := direct(h, margin); got != d {
				t.Errorf("%s, margin %g: %d stagnant iterations, direct count %d", name, margin, got, d)
			}
			if w, ok := want[name]; ok && got != w {
				t.Errorf("%s, margin %g: %d stagnant iterations, want %d", name, margin, got, w)
			}
			if name == "floor" && got < len(h)-2*autoWindow {
				t.Errorf("floor, margin %g: only %d of %d iterations stagnant", margin, got, len(h))
			}
		}
	}
	// "both" converges for 62 iterations (0.8^62 ≈ 1e-6) and then sits at
	// the floor: stagnation starts about a window later.
	trace := make([]Iteration, len(both)-1)
	for i := range trace {
		trace[i].Gap = both[i]
	}
	if got := stagnant(trace, both[len(both)-1], 1e-8); got < 200-62-2*autoWindow || got > 200-62 {
		t.Errorf("converge then floor: %d stagnant iterations, want about %d", got, 200-62-autoWindow)
	}
}

// TestAutoSize checks the step Auto computes from a context by hand: the
// inliers' l1 loss over the squared norm, the outlier bound applied, and
// the damping of a stagnant history.
func TestAutoSize(t *testing.T) {
	// Twenty residuals of magnitude 1, 2, ..., with five outliers of
	// magnitude 1000: the lower quartile is 3 (index 6 of 24 sorted), the
	// threshold 30, p̂ = 5/25.
	var z []float64
	var inl float64
	for i := 1; i <= 20; i++ {
		z = append(z, float64(i)*math.Pow(-1, float64(i)))
		inl += float64(i)
	}
	for range 5 {
		z = append(z, 1000)
	}
	p := 5.0 / 25
	gap := inl * (1 - 2*p) / (1 - p)
	if got := AutoGap(L1, z); math.Abs(got-gap) > 1e-12*gap {
		t.Fatalf("AutoGap = %g, want %g", got, gap)
	}
	c := &StepContext{Iter: 0, Loss: L1.Value(z), Norm: 2, Residuals: z, Objective: L1}
	if got := (Auto{}).Size(c); math.Abs(got-gap/4) > 1e-12*gap {
		t.Errorf("Size = %g, want %g", got, gap/4)
	}
	// A flat history of 30 records: iterations 25 to 30 are stagnant.
	for i := range 30 {
		c.Trace = append(c.Trace, Iteration{Iter: i, Loss: c.Loss, Gap: gap})
	}
	c.Iter = 30
	c = &StepContext{Iter: 30, Loss: c.Loss, Norm: 2, Residuals: z, Objective: L1, Trace: c.Trace}
	if got, want := (Auto{}).Size(c), math.Pow(autoDamping, 6)*gap/4; math.Abs(got-want) > 1e-12*want {
		t.Errorf("Size after a flat history = %g, want %g", got, want)
	}
	c = &StepContext{Iter: 30, Loss: c.Loss, Norm: 0, Residuals: z, Objective: L1, Trace: c.Trace}
	if got := (Auto{}).Size(c); got != 0 {
		t.Errorf("Size with a zero subgradient = %g, want 0", got)
	}
}
