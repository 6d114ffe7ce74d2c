package kernel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGather: under every implementation, Gather lays out every rating's
// other row by dimension exactly and computes each residual to within
// rounding of the exact one (NaN for a NaN value), for every number of
// ratings and ranks around the kernels' blocks of four and past the rows
// it fetches ahead; the same offsets given in 2 bytes (Idx16) give the
// same bits.
func TestGather(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 2))
		for n := 0; n <= 21; n++ {
			for k := 0; k <= 9; k++ {
				d := k + 1 + n%2 // rows wider than rank + 1 too
				rows := 7
				other := make([]float64, rows*d)
				for i := range other {
					other[i] = rng.NormFloat64()
				}
				g := GatherRow{Cols: make([]float64, n*k), Res: make([]float64, n), X: make([]float64, k),
					Idx: make([]int32, n), Vals: make([]float32, n), Other: other, D: d, Base: 0.25}
				for j := range g.X {
					g.X[j] = rng.NormFloat64()
				}
				for e := range g.Idx {
					g.Idx[e] = int32(rng.IntN(rows))
					g.Vals[e] = float32(1 + rng.IntN(5))
				}
				if n > 2 {
					g.Vals[2] = float32(math.NaN())
				}
				Gather(&g)
				for e, o := range g.Idx {
					row := other[int(o)*d:][:d]
					want := float64(g.Vals[e]) - g.Base - row[k]
					var mag float64
					for j := range k {
						if g.Cols[j*n+e] != row[j] {
							t.Fatalf("n %d, k %d: Cols[%d][%d] = %v, want %v", n, k, j, e, g.Cols[j*n+e], row[j])
						}
						want -= g.X[j] * row[j]
						mag += math.Abs(g.X[j] * row[j])
					}
					got := g.Res[e]
					if e == 2 {
						if got == got {
							t.Fatalf("n %d, k %d: the residual of a NaN value is %v", n, k, got)
						}
						continue
					}
					if math.Abs(got-want) > 1e-14*(mag+8) {
						t.Fatalf("n %d, k %d: Res[%d] = %v, want %v", n, k, e, got, want)
					}
				}
				if g16 := gather16(g); !slices.Equal(g16.Cols, g.Cols) || !sameBits(g16.Res, g.Res) {
					t.Fatalf("n %d, k %d: 2-byte offsets gather %v and %v, 4-byte %v and %v", n, k, g16.Cols, g16.Res, g.Cols, g.Res)
				}
			}
		}
	})
}

// TestCoordSums: under every implementation, CoordSums moves the
// residuals and returns the sums of the moved ones to within rounding,
// for lengths around the kernels' blocks of eight, with a previous
// coordinate, a bias (zp nil) and no next one (z nil).
func TestCoordSums(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 4))
		vec := func(n int) []float64 {
			v := make([]float64, n)
			for i := range v {
				v[i] = rng.NormFloat64()
			}
			return v
		}
		for n := 0; n <= 35; n++ {
			for _, kind := range []string{"dimension", "bias", "last"} {
				res, w, zp, z := vec(n), vec(n), vec(n), vec(n)
				for i := range w {
					w[i] = math.Abs(w[i])
				}
				delta := 0.3
				want := make([]float64, n)
				var a, b, mag float64
				for e := range res {
					switch kind {
					case "bias":
						want[e] = res[e] - delta
					default:
						want[e] = res[e] - delta*zp[e]
					}
					a += w[e] * z[e] * z[e]
					b += w[e] * z[e] * want[e]
					mag += math.Abs(w[e] * z[e] * want[e])
				}
				var ga, gb float64
				switch kind {
				case "bias":
					ga, gb = CoordSums(res, w, nil, z, delta)
				case "last":
					ga, gb = CoordSums(res, w, zp, nil, delta)
					a, b = 0, 0
				default:
					ga, gb = CoordSums(res, w, zp, z, delta)
				}
				for e := range res {
					if math.Abs(res[e]-want[e]) > 1e-15*(math.Abs(want[e])+1) {
						t.Fatalf("%s, n %d: res[%d] = %v, want %v", kind, n, e, res[e], want[e])
					}
				}
				if math.Abs(ga-a) > 1e-13*(a+1) || math.Abs(gb-b) > 1e-13*(mag+1) {
					t.Fatalf("%s, n %d: sums %v, %v, want %v, %v", kind, n, ga, gb, a, b)
				}
			}
		}
	})
}

// TestGramTile: under every implementation, GramTile gives each entry of
// its block the bits of the loop over the rows that adds each rounded
// product in turn, for no row, one, and many, the columns overlapping
// the rows' or not.
func TestGramTile(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(11, 12))
		for _, nr := range []int{0, 1, 2, 37} {
			for _, ij := range [][2]int{{0, 0}, {4, 4}, {1, 9}, {12, 3}} {
				i, j, stride := ij[0], ij[1], 23
				x := make([]float64, max(1, nr)*stride)
				for e := range x {
					x[e] = rng.NormFloat64() * math.Exp(4*rng.NormFloat64())
				}
				var acc, want [32]float64
				for e := range acc {
					acc[e] = rng.NormFloat64()
				}
				want = acc
				for r := range nr {
					for a := range 4 {
						for b := range 8 {
							want[a*8+b] += float64(x[r*stride+i+a] * x[r*stride+j+b])
						}
					}
				}
				GramTile(&acc, x, stride, nr, i, j)
				for e := range acc {
					if math.Float64bits(acc[e]) != math.Float64bits(want[e]) {
						t.Fatalf("%d rows, i %d, j %d: entry %d = %v, want %v", nr, i, j, e, acc[e], want[e])
					}
				}
			}
		}
	})
}

// TestCoordMoves: under every implementation, CoordMoves draws each
// coordinate from its Gaussian conditional given the others: checked
// against the conditional's mean and precision computed from scratch (the
// residuals of the row's start, less every coordinate's change so far),
// the normal draw added at the conditional's scale, for ranks around the
// vector widths and rows of 0 to 20 ratings; and it returns the last
// coordinate's change, not taken into the residuals.
func TestCoordMoves(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(7, 8))
		for _, k := range []int{1, 2, 3, 4, 7, 8, 9, 15, 16, 20} {
			d := k + 1
			for _, n := range []int{0, 1, 5, 8, 13, 20} {
				cols := make([]float64, n*k)
				for i := range cols {
					cols[i] = rng.NormFloat64()
				}
				res, w, prev := make([]float64, n), make([]float64, n), make([]float64, n)
				for e := range res {
					res[e], w[e], prev[e] = 2*rng.NormFloat64(), 0.5+rng.Float64(), rng.NormFloat64()
				}
				// A precision: I + B Bᵀ/d.
				lam := make([]float64, d*d)
				bm := make([]float64, d*d)
				for i := range bm {
					bm[i] = rng.NormFloat64()
				}
				for i := range d {
					for j := range d {
						for l := range d {
							lam[i*d+j] += bm[i*d+l] * bm[j*d+l] / float64(d)
						}
					}
					lam[i*d+i]++
				}
				x, lamMu, norm := make([]float64, d), make([]float64, d), make([]float64, k)
				for i := range x {
					x[i], lamMu[i] = rng.NormFloat64(), rng.NormFloat64()
				}
				for i := range norm {
					norm[i] = rng.NormFloat64()
				}
				delta := 0.7
				x0, res0 := slices.Clone(x), slices.Clone(res)
				m := &Moves{Res: res, W: w, Cols: cols, Prev: prev, Delta: delta, X: x, Lam: lam, LamMu: lamMu, Norm: norm}
				last := CoordMoves(m)
				// From scratch: the residual of rating e before
				// coordinate j is res0 - delta·prev - Σ_{l<j} (x_l - x0_l) z_l.
				want := slices.Clone(x0)
				for j := range k {
					var a, b float64
					for e := range n {
						r := res0[e] - delta*prev[e]
						for l := range j {
							r -= (want[l] - x0[l]) * cols[l*n+e]
						}
						z := cols[j*n+e]
						a += w[e] * z * z
						b += w[e] * z * r
					}
					var pull float64 // Σ_{l≠j} λ_jl x_l
					for l := range d {
						if l != j {
							pull += lam[j*d+l] * want[l]
						}
					}
					h := lam[j*d+j] + a
					// b is at residuals that still hold x0[j]'s prediction.
					mean := (lamMu[j] + b + x0[j]*a - pull) / h
					want[j] = mean + norm[j]/math.Sqrt(h)
					if math.Abs(x[j]-want[j]) > 1e-10*(math.Abs(want[j])+1) {
						t.Fatalf("rank %d, %d ratings: x[%d] = %v, want %v", k, n, j, x[j], want[j])
					}
				}
				if math.Abs(last-(want[k-1]-x0[k-1])) > 1e-10*(math.Abs(last)+1) {
					t.Fatalf("rank %d, %d ratings: last change %v, want %v", k, n, last, want[k-1]-x0[k-1])
				}
				if x[k] != x0[k] {
					t.Fatalf("rank %d, %d ratings: the bias moved", k, n)
				}
				// The residuals have taken every change but the last.
				for e := range n {
					r := res0[e] - delta*prev[e]
					for l := range k - 1 {
						r -= (want[l] - x0[l]) * cols[l*n+e]
					}
					if math.Abs(res[e]-r) > 1e-10*(math.Abs(r)+1) {
						t.Fatalf("rank %d, %d ratings: res[%d] = %v, want %v", k, n, e, res[e], r)
					}
				}
			}
		}
	})
}

// TestAxpyIndexed: under every implementation, AxpyGather and AxpyScatter
// give each entry the bits of the loop that adds each rounded product in
// the order of the scales, skipping a zero scale and adding a NaN's, for
// widths around the kernels' vectors and bands, and rows named twice.
func TestAxpyIndexed(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(13, 14))
		for _, l := range []int{1, 2, 3, 4, 5, 8, 10, 16, 17, 20, 25, 33, 40} {
			for _, n := range []int{0, 1, 2, 7, 60} {
				const rows = 9
				big := func(k int) []float64 {
					x := make([]float64, k)
					for e := range x {
						x[e] = rng.NormFloat64() * math.Exp(4*rng.NormFloat64())
					}
					return x
				}
				a, x, y0 := big(rows*l), big(l), big(rows*l)
				alpha := big(n)
				idx := make([]int32, n)
				for e := range idx {
					idx[e] = int32(rng.IntN(rows))
					switch rng.IntN(6) {
					case 0:
						alpha[e] = 0
					case 1:
						alpha[e] = math.Copysign(0, -1)
					}
				}
				if n == 60 {
					alpha[17] = math.NaN()
				}
				// The loops, each product rounded (a conversion is never
				// fused), then added.
				gather, scatter := slices.Clone(y0[:l]), slices.Clone(y0)
				for e, v := range alpha {
					if v == 0 {
						continue
					}
					for j := range l {
						gather[j] += float64(v * a[int(idx[e])*l+j])
						scatter[int(idx[e])*l+j] += float64(v * x[j])
					}
				}
				got := slices.Clone(y0[:l])
				AxpyGather(got, alpha, idx, a, l)
				for j, v := range got {
					if math.Float64bits(v) != math.Float64bits(gather[j]) {
						t.Fatalf("AxpyGather: %d columns, %d scales: column %d = %v, want %v", l, n, j, v, gather[j])
					}
				}
				got = slices.Clone(y0)
				AxpyScatter(got, alpha, idx, x, l)
				for j, v := range got {
					if math.Float64bits(v) != math.Float64bits(scatter[j]) {
						t.Fatalf("AxpyScatter: %d columns, %d scales: entry %d = %v, want %v", l, n, j, v, scatter[j])
					}
				}
			}
		}
	})
}

// gather16 returns the row g (with 4-byte offsets) gathered again with
// its offsets in 2 bytes, into Cols and Res of its own.
func gather16(g GatherRow) GatherRow {
	n, k := len(g.Idx), len(g.X)
	g16 := g
	g16.Idx, g16.Idx16 = nil, make([]uint16, n)
	g16.Cols, g16.Res = make([]float64, n*k), make([]float64, n)
	for e, o := range g.Idx {
		g16.Idx16[e] = uint16(o)
	}
	Gather(&g16)
	return g16
}

// sameBits reports whether a and b hold the same bits, NaNs included.
func sameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// TestGatherHighOffsets: under every implementation, offsets from 2^15 to
// 2^16 - 1 (where a sign-extending or a byte-wide load of the 2-byte form
// would go wrong) gather the same bits in 2 bytes as in 4, and their
// prefetch changes nothing.
func TestGatherHighOffsets(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(9, 9))
		const rows = 1 << 16
		for _, k := range []int{0, 3, 4, 8} {
			d := k + 1
			other := make([]float64, rows*d)
			for j := range other {
				other[j] = rng.NormFloat64()
			}
			want := slices.Clone(other)
			for _, n := range []int{4, 13, 40} {
				g := GatherRow{X: make([]float64, k), Vals: make([]float32, n), Other: other, D: d, Base: 0.5,
					Cols: make([]float64, n*k), Res: make([]float64, n), Idx: make([]int32, n)}
				for e := range n {
					g.Idx[e] = int32(1<<15 + rng.IntN(1<<15))
					if e%5 == 0 {
						g.Idx[e] = rows - 1
					}
					g.Vals[e] = float32(rng.NormFloat64())
				}
				for j := range g.X {
					g.X[j] = rng.NormFloat64()
				}
				Gather(&g)
				g16 := gather16(g)
				if !slices.Equal(g16.Cols, g.Cols) || !sameBits(g16.Res, g.Res) {
					t.Fatalf("k %d, n %d: 2-byte offsets gather other bits than 4-byte ones", k, n)
				}
				for e, o := range g.Idx { // the first of each row, exactly
					if k > 0 && g.Cols[e] != other[int(o)*d] {
						t.Fatalf("k %d, n %d: Cols[0][%d] = %v, want row %d's %v", k, n, e, g.Cols[e], o, other[int(o)*d])
					}
				}
				PrefetchRows16(other, g16.Idx16, d, d)
			}
			if !slices.Equal(other, want) {
				t.Fatalf("k %d: the gathers or the prefetch changed the rows", k)
			}
		}
	})
}
