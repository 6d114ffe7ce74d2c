package completion

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/obs"
	"gonum.org/v1/gonum/mat"
)

// tiledEntries returns entries of a 400 × 3000 matrix, about 60 a row in
// random columns, their values, and a function that sets the pass's tile
// size to bytes (restored when the test ends).
func tiledEntries(t *testing.T, rng *rand.Rand) (*Entries, []float64, func(bytes int)) {
	t.Helper()
	n1, n2 := 400, 3000
	e, y := randomEntries(t, rng, n1, n2, 0.02, func(int, int) float64 { return rng.NormFloat64() })
	old := passTileBytes
	t.Cleanup(func() { passTileBytes = old })
	return e, y, func(bytes int) { passTileBytes = bytes }
}

// TestTiledPassSameBits: a pass in tiles of columns gives the bits of a
// pass row after row (residuals, fits, GL, GR and the trimmed sums), under
// every weight, with and without the residuals kept, for float64 and
// float32 observations.
func TestTiledPassSameBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	e, y, setTile := tiledEntries(t, rng)
	_, n1, n2 := e.Dims()
	r := 5
	l, rr := randomFactor(rng, n1, r), randomFactor(rng, n2, r)
	bounds := &Bounds{Rows: make([]float64, n1), Cols: make([]float64, n2)}
	for i := range bounds.Rows {
		bounds.Rows[i] = 2 * rng.Float64()
	}
	for j := range bounds.Cols {
		bounds.Cols[j] = 2 * rng.Float64()
	}
	y32 := make([]float32, len(y))
	for k := range y {
		y32[k] = float32(y[k])
	}
	pass := func(weight scaledsm.Weight, trim, residuals, fits, single bool) *scaledsm.Evaluation {
		ev := scaledsm.NewEvaluation(e, r)
		if !residuals {
			ev.Z = nil
		}
		ev.L, ev.R, ev.Weight = l, rr, weight
		if trim {
			passStateOf(ev).bounds = &trimBounds{Bounds: *bounds}
		}
		if single {
			ev.Y32 = y32
		} else {
			ev.Y = y
		}
		if fits {
			ev.Fit = make([]float64, len(y))
		}
		e.Evaluate(ev)
		return ev
	}
	for _, mode := range []struct {
		weight scaledsm.Weight
		trim   bool
	}{{scaledsm.LinearWeight, false}, {scaledsm.SignWeight, false}, {scaledsm.LinearWeight, true}} {
		weight := mode.weight
		for _, c := range []struct{ residuals, fits, single bool }{{true, false, false}, {false, false, true}, {true, true, false}} {
			setTile(1 << 40)
			want := pass(weight, mode.trim, c.residuals, c.fits, c.single)
			if tl := e.tiles(passTiles(n2, 2*r+2)); tl.n != 1 {
				t.Fatalf("%d tiles with the tiles' size unbounded", tl.n)
			}
			setTile(32 << 10)
			if tl := e.tiles(passTiles(n2, 2*r+2)); tl.n < 3 {
				t.Fatalf("%d tiles: the test needs several", tl.n)
			}
			got := pass(weight, mode.trim, c.residuals, c.fits, c.single)
			same := slices.Equal(got.Z, want.Z) && slices.Equal(got.Fit, want.Fit) &&
				mat.Equal(got.GL, want.GL) && mat.Equal(got.GR, want.GR) &&
				slices.Equal(passStateOf(got).kept.rows, passStateOf(want).kept.rows) &&
				slices.Equal(passStateOf(got).kept.cols, passStateOf(want).kept.cols)
			if !same {
				t.Errorf("%+v %+v: the tiled pass differs from the pass row after row", mode, c)
			}
		}
	}
}

// TestTiledProductsSameBits: the spectral start's products with the sparse
// matrix, M x and Mᵀ x, give the same bits in tiles of columns as without,
// and M x is the product formed entry by entry.
func TestTiledProductsSameBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 9))
	e, y, setTile := tiledEntries(t, rng)
	_, n1, n2 := e.Dims()
	k := 7
	xr, xl := randomFactor(rng, n2, k), randomFactor(rng, n1, k)
	v := keptValues{v: obs.Obs{F64: y}, below: 1.5}
	products := func() (*mat.Dense, *mat.Dense) {
		a, b := mat.NewDense(n1, k, nil), mat.NewDense(n2, k, nil)
		e.mulSparse(a, v, xr, 0.5)
		e.mulSparseT(b, v, xl, 0.5)
		return a, b
	}
	setTile(1 << 40)
	a0, b0 := products()
	setTile(16 << 10)
	if tl := e.tiles(passTiles(n2, k)); tl.n < 3 {
		t.Fatalf("%d tiles: the test needs several", tl.n)
	}
	a1, b1 := products()
	if !mat.Equal(a0, a1) || !mat.Equal(b0, b1) {
		t.Error("the tiled products differ from the products row after row")
	}
	// M x entry by entry, in column order within a row.
	for i := range n1 {
		for c := range k {
			var s float64
			for p := e.start[i]; p < e.start[i+1]; p++ {
				if math.Abs(y[p]) < v.below {
					s += 0.5 * y[p] * xr.At(int(e.cols[p]), c)
				}
			}
			if d := math.Abs(s - a1.At(i, c)); d > 1e-12*(1+math.Abs(s)) {
				t.Fatalf("(M x)[%d, %d] = %v, want %v", i, c, a1.At(i, c), s)
			}
		}
	}
}
