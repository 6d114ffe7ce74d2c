package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestEvaluateEntries runs every implementation on random row segments of
// every rank up to 20 and every mode: the residuals have the bits of
// DotRows (the implementation's own) less y, and the gradients, sums and
// counts agree with the portable code to rounding.
func TestEvaluateEntries(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n2, nEnt = 50, 37
	for _, impl := range Available() {
		if err := Use(impl); err != nil {
			t.Fatal(err)
		}
		for r := 1; r <= 20; r++ {
			for mode := range 3 {
				s := r + 2 + rng.IntN(3)
				ld := r + rng.IntN(3)
				rd := randSlice(rng, n2*ld)
				li := randSlice(rng, r)
				cols := make([]int32, nEnt)
				for k := range cols {
					cols[k] = int32(rng.IntN(n2))
				}
				cols[0] = n2 - 1 // the last row of R, whose tail must not be read past
				y := randSlice(rng, nEnt)
				y[3] = 0
				colBound := randSlice(rng, n2)
				for k := range colBound {
					colBound[k] = math.Abs(colBound[k]) * 2
				}
				mk := func() *EntriesRow {
					return &EntriesRow{Cols: cols, Y: y, Z: make([]float64, nEnt), L: li, G: make([]float64, r),
						RD: rd[:(n2-1)*ld+r], LD: ld, GR: make([]float64, (n2-1)*s+r+2), S: s,
						RowBound: 1.5, ColBound: colBound, Sums: new([3]float64)}
				}
				// An exact fit: a zero weight.
				y[5] = dotOf(rd[int(cols[5])*ld:int(cols[5])*ld+r], li)
				got := mk()
				EvaluateEntries(mode, got)
				// The reference: the weights of got's own residuals (the
				// implementations' fits differ in their last bits, and a
				// sign flips at zero), added in entry order.
				want := mk()
				for k, c := range cols {
					j, res := int(c), got.Z[k]
					rj := rd[j*ld : j*ld+r]
					w := res
					switch mode {
					case EntriesTrimmed:
						abs := math.Abs(res)
						if !(abs <= max(want.RowBound, colBound[j])) {
							continue
						}
						want.Sums[0] += abs
						want.Sums[1]++
						want.Sums[2] = math.FMA(res, res, want.Sums[2])
						want.GR[j*s+r] += abs
						want.GR[j*s+r+1]++
					case EntriesSign:
						if res == 0 {
							continue
						}
						w = math.Copysign(1, res)
					}
					if w == 0 {
						continue
					}
					for a := range r {
						want.G[a] += w * rj[a]
						want.GR[j*s+a] += w * li[a]
					}
				}
				name := fmt.Sprintf("%s r=%d mode %d", impl, r, mode)
				for k, c := range cols {
					dot := make([]float64, 1)
					DotRows(dot, rd[int(c)*ld:int(c)*ld+r], r, r, li)
					if got.Z[k] != dot[0]-y[k] {
						t.Fatalf("%s: residual %d = %v, want DotRows' %v", name, k, got.Z[k], dot[0]-y[k])
					}
				}
				close := func(what string, a, b []float64) {
					for i := range a {
						if math.Abs(a[i]-b[i]) > 1e-12*(1+math.Abs(b[i])) {
							t.Fatalf("%s: %s[%d] = %v, want %v", name, what, i, a[i], b[i])
						}
					}
				}
				close("G", got.G, want.G)
				close("GR", got.GR, want.GR)
				close("sums", got.Sums[:], want.Sums[:])
			}
		}
	}
	Use("auto")
}

func randSlice(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

func dotOf(a, b []float64) float64 {
	out := make([]float64, 1)
	DotRows(out, a, len(a), len(a), b)
	return out[0]
}

// TestEvaluateEntriesY32: float32 observations give every implementation
// the bits of the same values held as float64, for every rank and mode.
func TestEvaluateEntriesY32(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n2, nEnt = 40, 29
	for _, impl := range Available() {
		if err := Use(impl); err != nil {
			t.Fatal(err)
		}
		for r := 1; r <= 20; r++ {
			for mode := range 3 {
				s, ld := r+2, r
				rd, li := randSlice(rng, n2*ld), randSlice(rng, r)
				cols := make([]int32, nEnt)
				y32 := make([]float32, nEnt)
				y := make([]float64, nEnt)
				for k := range cols {
					cols[k] = int32(rng.IntN(n2))
					y32[k] = float32(rng.IntN(9)) / 2 // ratings: 0, 0.5, ..., 4
					y[k] = float64(y32[k])
				}
				colBound := make([]float64, n2)
				for k := range colBound {
					colBound[k] = 3 * rng.Float64()
				}
				mk := func() *EntriesRow {
					return &EntriesRow{Cols: cols, Z: make([]float64, nEnt), L: li, G: make([]float64, r),
						RD: rd, LD: ld, GR: make([]float64, n2*s), S: s,
						RowBound: 1, ColBound: colBound, Sums: new([3]float64)}
				}
				a, b := mk(), mk()
				a.Y, b.Y32 = y, y32
				EvaluateEntries(mode, a)
				EvaluateEntries(mode, b)
				for _, c := range []struct {
					what string
					x, y []float64
				}{{"Z", a.Z, b.Z}, {"G", a.G, b.G}, {"GR", a.GR, b.GR}, {"sums", a.Sums[:], b.Sums[:]}} {
					for i := range c.x {
						if math.Float64bits(c.x[i]) != math.Float64bits(c.y[i]) {
							t.Fatalf("%s r=%d mode %d: %s[%d] %v with float64 values, %v with float32", impl, r, mode, c.what, i, c.x[i], c.y[i])
						}
					}
				}
			}
		}
	}
	Use("auto")
}
