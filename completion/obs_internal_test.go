package completion

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/scaledsm/scaledsm"
	"gonum.org/v1/gonum/mat"
)

// TestY32SameBits: a problem whose observations are held as float32
// (Problem.Y32) is solved to the bit as the same values held as float64,
// by every path that reads them: the default completion (spectral start,
// trimmed loss, the pass's float32 kernel, the evidence and AutoRidge's
// validation), gross outliers (the lifts and the refit of marked rows),
// AutoRank, ScaledSM with Polyak's step and a truth (the gap from the
// fits), and the random and convex starts; every other case's float32
// solve on one core, the float64 one on all.
func TestY32SameBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 32))
	n1, n2, r := 80, 60, 3
	lt, rt := randomFactor(rng, n1, r), randomFactor(rng, n2, r)
	truth := scaledsm.Factors{L: lt, R: rt}
	noisy := func(i, j int) float64 { // ratings: halves from 0.5 to 5
		v := 3 + mat.Dot(lt.RowView(i), rt.RowView(j)) + 0.3*rng.NormFloat64()
		return math.Max(0.5, math.Min(5, math.Round(2*v)/2))
	}
	exact := func(i, j int) float64 { // float32 values of X*, 8% gross outliers
		v := mat.Dot(lt.RowView(i), rt.RowView(j))
		if rng.Float64() < 0.08 {
			v += 10 * rng.NormFloat64()
		}
		return float64(float32(v))
	}
	ctx := context.Background()
	for i, c := range []struct {
		name  string
		value func(i, j int) float64
		rank  int
		s     func() Settings
		truth bool
	}{
		{"ratings, defaults", noisy, r, DefaultSettings, false},
		{"ratings, rank auto", noisy, scaledsm.AutoRank, DefaultSettings, false},
		{"outliers, defaults", exact, r, DefaultSettings, false},
		{"outliers, ScaledSM Polyak with the truth", exact, r, func() Settings {
			return Settings{Settings: scaledsm.Settings{Step: scaledsm.Polyak{}, MaxIter: 200}}
		}, true},
		{"ratings, random start", noisy, r, func() Settings { s := DefaultSettings(); s.Start = scaledsm.RandomStart; s.Seed = 3; return s }, false},
		{"ratings, convex start", noisy, r, func() Settings { s := DefaultSettings(); s.Start = scaledsm.ConvexStart; return s }, false},
	} {
		e, y := randomEntries(t, rng, n1, n2, 0.4, c.value)
		y32 := make([]float32, len(y))
		for k, v := range y {
			y32[k] = float32(v)
		}
		p64, p32 := scaledsm.Problem{Op: e, Y: y, Rank: c.rank}, scaledsm.Problem{Op: e, Y32: y32, Rank: c.rank}
		if c.truth {
			p64.Truth, p32.Truth = truth, truth
		}
		a, err := Solve(ctx, p64, c.s())
		if err != nil {
			t.Fatalf("%s: float64: %v", c.name, err)
		}
		procs := runtime.GOMAXPROCS(0)
		if i%2 == 1 {
			runtime.GOMAXPROCS(1)
		}
		b, err := Solve(ctx, p32, c.s())
		runtime.GOMAXPROCS(procs)
		if err != nil {
			t.Fatalf("%s: float32: %v", c.name, err)
		}
		if a.Status != b.Status || a.Iterations != b.Iterations || len(a.Fits) != len(b.Fits) || a.FitFraction != b.FitFraction ||
			!mat.Equal(a.L, b.L) || !mat.Equal(a.R, b.R) {
			t.Errorf("%s: float64 %v after %d iterations (%d other fits), float32 %v after %d (%d), factors equal %v",
				c.name, a.Status, a.Iterations, len(a.Fits), b.Status, b.Iterations, len(b.Fits), mat.Equal(a.L, b.L))
		}
		t.Logf("%s: %v after %d iterations, %d other fits", c.name, a.Status, a.Iterations, len(a.Fits))
	}
}

// TestY32Refused: Y32 is for the entries on one process, and given once.
func TestY32Refused(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	e, y := randomEntries(t, rng, 10, 8, 0.8, func(i, j int) float64 { return float64(i + j) })
	y32 := make([]float32, len(y))
	for _, c := range []struct {
		p    scaledsm.Problem
		want string
	}{
		{scaledsm.Problem{Op: e, Y: y, Y32: y32, Rank: 1}, "given with y"},
		{scaledsm.Problem{Op: e, Y32: y32[1:], Rank: 1}, "want m"},
		{scaledsm.Problem{Op: e, Y32: []float32{}, Rank: 1}, "no observations"},
		{scaledsm.Problem{Op: sensing(t, 12, 4, 3), Y32: make([]float32, 12), Rank: 1}, "matrix completion"},
	} {
		y32[2] = float32(math.NaN())
		_, err := Solve(context.Background(), c.p, Settings{})
		if err == nil || !strings.Contains(err.Error(), "y32") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v", c.want, err)
		}
	}
	y32 = make([]float32, len(y))
	y32[2] = float32(math.Inf(1))
	if _, err := Solve(context.Background(), scaledsm.Problem{Op: e, Y32: y32, Rank: 1}, Settings{}); err == nil || !strings.Contains(err.Error(), "observation 2") {
		t.Errorf("an infinite observation: %v", err)
	}
}

// sensing returns a Gaussian sensing operator of m measurements of n1×n2
// matrices.
func sensing(t *testing.T, m, n1, n2 int) *scaledsm.Sensing {
	rng := rand.New(rand.NewPCG(2, 2))
	a := make([]float64, m*n1*n2)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	s, err := scaledsm.NewSensing(m, n1, n2, a)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
