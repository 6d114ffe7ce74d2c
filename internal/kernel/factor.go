package kernel

import (
	"fmt"
	"math"
	"unsafe"
)

// The inner loops of a coordinate-wise sweep over factor rows (package
// recommend): a row's ratings gathered by dimension with their residuals
// (Gather), then one pass over them per coordinate (CoordSums).

// GatherRow is one row of a factor sweep: its factor values X (k of them),
// and its ratings, the other side's row offsets Idx, or Idx16 when Idx is
// nil (times D in Other, whose rows hold k factor values then a bias at
// position k), and values Vals. Gather sets Cols[j*n+e] to the other
// row's value j of rating e (the rows by dimension, k columns of n, the
// ratings) and Res[e] to the residual Vals[e] - Base - bias_e - X·row_e
// (NaN for a NaN value). Idx16 holds the offsets in 2 bytes each where the
// other side has at most 2^16 rows (package recommend's tables).
type GatherRow struct {
	Cols, Res []float64
	X         []float64
	Idx       []int32
	Idx16     []uint16
	Vals      []float32
	Other     []float64
	D         int
	Base      float64
}

// ratings returns the number of the row's ratings: len(Idx), or
// len(Idx16) when Idx is nil.
func (g *GatherRow) ratings() int {
	if g.Idx == nil {
		return len(g.Idx16)
	}
	return len(g.Idx)
}

// gatherArgs are GatherRow's pointers for the assembly kernel, at the
// fixed offsets that _asm/factor.go names: every field 8 bytes wide.
type gatherArgs struct {
	zc    *float64
	n     int
	res   *float64
	x     *float64
	k4    int
	idx   unsafe.Pointer // *int32, or *uint16 for gatherRows16
	vals  *float32
	other *float64
	d     int
	base  float64
	m     int
	bias  int
}

// check panics unless the row's slices hold what Gather reads and writes.
// (Each offset's row is not checked against Other, which would cost a
// pass over them: the caller's indices are those of Other's rows.)
func (g *GatherRow) check() {
	n, k := g.ratings(), len(g.X)
	if len(g.Vals) < n || len(g.Res) < n || len(g.Cols) < n*k || g.D <= k {
		panic(fmt.Sprintf("kernel: Gather: %d ratings, rank %d, row width %d: Vals %d, Res %d, Cols %d", n, k, g.D, len(g.Vals), len(g.Res), len(g.Cols)))
	}
}

// Gather gathers a row's ratings (see GatherRow): the offsets Idx (or
// Idx16) must be those of rows of Other.
func Gather(g *GatherRow) {
	g.check()
	gather(int(active.Load()), g)
}

// CoordSums moves each residual res[e] by the last coordinate's change,
// res[e] -= delta·zp[e] (by delta alone when zp is nil: a bias), and
// returns the next coordinate's sums a = Σ w[e] z[e]² and
// b = Σ w[e] z[e] res[e] over the moved residuals (0 and 0 when z is nil).
// w, zp and z must be at least as long as res.
func CoordSums(res, w, zp, z []float64, delta float64) (a, b float64) {
	n := len(res)
	if len(w) < n || (zp != nil && len(zp) < n) || (z != nil && len(z) < n) {
		panic("kernel: CoordSums: a slice shorter than res")
	}
	if n == 0 {
		return 0, 0
	}
	if zp == nil {
		for e := range res {
			res[e] -= delta
		}
		if z == nil {
			return 0, 0
		}
		zp, delta = z, 0 // the residuals moved: res - 0·z is res
	}
	if z == nil {
		Axpy(-delta, zp[:n], res)
		return 0, 0
	}
	return coordSums(int(active.Load()), res, w, zp, z, delta)
}

// Moves is the rest of a row's coordinate-wise Gibbs update once its bias
// has moved (package recommend's sampler): its ratings' residuals Res and
// weights W (n of them), the other side's rows by dimension Cols (k
// columns of n, as Gather lays them out), the column Prev whose change
// Delta the residuals have not yet taken (Delta 0 when they have), the
// row X (k values, then the bias), the Gaussian prior's precision Lam (d
// × d, d = k+1) and its precision times its mean LamMu (d), and Norm, a
// standard normal draw for each of the k coordinates.
type Moves struct {
	Res, W, Cols, Prev []float64
	Delta              float64
	X, Lam, LamMu      []float64
	Norm               []float64
}

// movesArgs are Moves's pointers for the assembly kernel, at the fixed
// offsets that _asm/factor.go names: every field 8 bytes wide.
type movesArgs struct {
	res, w, prev, cols *float64
	n, k8              int
	x, lam, lamMu      *float64
	norm               *float64
	d8                 int
	delta              float64
	_                  int // the kernel's scratch: the dot product's full vectors
}

// CoordMoves draws the row's coordinates j = 0, ..., k-1 in turn, each
// from its conditional given the others: with a and b the sums that
// CoordSums returns after moving the residuals by the last coordinate's
// change (Prev's for j = 0, column j-1's after), and λ = Lam's row j,
//
//	num = LamMu[j] + b + old·a − (λ·X − λ_j·old),  h = λ_j + a,
//	X[j] = num/h + Norm[j]/√h,
//
// old X[j]'s value before. It returns the last coordinate's change,
// which the residuals have not taken (CoordSums with column k-1 and a nil
// z takes it). The arithmetic is CoordSums's and Dot's, in one call for
// the whole row where the kernels allow: a short row's update had paid
// two calls a coordinate. The assembly rounds the move as the Go code
// does built below GOAMD64=v3 (unfused); from v3 on the compiler fuses
// the Go code's multiply-adds and the two differ in the last bits.
func CoordMoves(m *Moves) float64 {
	n, k, d := len(m.Res), len(m.Norm), len(m.X)
	if len(m.W) < n || len(m.Prev) < n || len(m.Cols) < n*k || d != k+1 || len(m.Lam) < d*d || len(m.LamMu) < d {
		panic(fmt.Sprintf("kernel: CoordMoves: %d ratings, rank %d: W %d, Prev %d, Cols %d, X %d, Lam %d, LamMu %d", n, k, len(m.W), len(m.Prev), len(m.Cols), d, len(m.Lam), len(m.LamMu)))
	}
	if k == 0 {
		return m.Delta
	}
	return coordMoves(int(active.Load()), m)
}

// coordMovesGeneric is CoordMoves made of the kernels of implementation
// impl, a call each.
func coordMovesGeneric(impl int, m *Moves) float64 {
	n, d, x := len(m.Res), len(m.X), m.X
	prev, delta := m.Prev, m.Delta
	for j := range m.Norm {
		z := m.Cols[j*n : j*n+n]
		var a, b float64
		if n > 0 {
			a, b = coordSums(impl, m.Res, m.W, prev, z, delta)
		}
		old := x[j]
		lc := m.Lam[j*d : j*d+d]
		num := m.LamMu[j] + b + old*a - (dot1(impl, lc, x) - lc[j]*old)
		h := lc[j] + a
		x[j] = num/h + m.Norm[j]/math.Sqrt(h)
		delta, prev = x[j]-old, z
	}
	return delta
}

// coordSumsGeneric is CoordSums's loop from element e0 on, adding to a
// and b, two elements at a time into two pairs of sums.
func coordSumsGeneric(res, w, zp, z []float64, delta float64, e0 int, a, b float64) (float64, float64) {
	n := len(res)
	w, zp, z = w[:n], zp[:n], z[:n]
	var a1, b1 float64
	e := e0
	for ; e+1 < n; e += 2 {
		r0, r1 := res[e]-delta*zp[e], res[e+1]-delta*zp[e+1]
		res[e], res[e+1] = r0, r1
		wz0, wz1 := w[e]*z[e], w[e+1]*z[e+1]
		a += wz0 * z[e]
		a1 += wz1 * z[e+1]
		b += wz0 * r0
		b1 += wz1 * r1
	}
	if e < n {
		r := res[e] - delta*zp[e]
		res[e] = r
		wz := w[e] * z[e]
		a += wz * z[e]
		b += wz * r
	}
	return a + a1, b + b1
}

// gatherGeneric is Gather's loop from rating e0 on.
func gatherGeneric(g *GatherRow, e0 int) {
	if g.Idx == nil {
		gatherIdx(g, g.Idx16, e0)
		return
	}
	gatherIdx(g, g.Idx, e0)
}

// gatherIdx is Gather's loop over the offsets idx from rating e0 on, four
// ratings at a time.
func gatherIdx[I int32 | uint16](g *GatherRow, idx []I, e0 int) {
	n, k, d, x, other := len(idx), len(g.X), g.D, g.X, g.Other
	zc, res := g.Cols, g.Res
	e := e0
	for ; e+4 <= n; e += 4 {
		z0 := other[int(idx[e])*d:][:d]
		z1 := other[int(idx[e+1])*d:][:d]
		z2 := other[int(idx[e+2])*d:][:d]
		z3 := other[int(idx[e+3])*d:][:d]
		var f0, f1, f2, f3 float64
		for j, xj := range x {
			col := zc[j*n+e:][:4]
			v0, v1, v2, v3 := z0[j], z1[j], z2[j], z3[j]
			col[0], col[1], col[2], col[3] = v0, v1, v2, v3
			f0 += xj * v0
			f1 += xj * v1
			f2 += xj * v2
			f3 += xj * v3
		}
		r, y := res[e:][:4], g.Vals[e:][:4]
		r[0] = float64(y[0]) - g.Base - z0[k] - f0
		r[1] = float64(y[1]) - g.Base - z1[k] - f1
		r[2] = float64(y[2]) - g.Base - z2[k] - f2
		r[3] = float64(y[3]) - g.Base - z3[k] - f3
	}
	for ; e < n; e++ {
		z := other[int(idx[e])*d:][:d]
		var f float64
		for j, xj := range x {
			zc[j*n+e] = z[j]
			f += xj * z[j]
		}
		res[e] = float64(g.Vals[e]) - g.Base - z[k] - f
	}
}

// GramTile adds to the 4×8 block acc (row-major) of a Gram the products
// of nr rows of x, stride elements apart: acc[a*8+b] += x_r[i+a]·x_r[j+b]
// for each row x_r in order, each product rounded and then added, so that
// every implementation gives each entry the bits of the loop over the
// rows.
func GramTile(acc *[32]float64, x []float64, stride, nr, i, j int) {
	if nr <= 0 {
		return
	}
	if i < 0 || j < 0 || (nr > 1 && stride < max(i+4, j+8)) || len(x) < (nr-1)*stride+max(i+4, j+8) {
		panic(fmt.Sprintf("kernel: GramTile: %d rows of stride %d, columns %d and %d, in %d elements", nr, stride, i, j, len(x)))
	}
	gramTile(int(active.Load()), acc, x, stride, nr, i, j)
}

// gramTileGeneric is GramTile's loop, by gramPair's blocks.
func gramTileGeneric(acc *[32]float64, x []float64, stride, nr, i, j int) {
	for a := 0; a < 4; a += 2 {
		for b := 0; b < 8; b += 4 {
			var p [8]float64
			copy(p[:4], acc[a*8+b:])
			copy(p[4:], acc[(a+1)*8+b:(a+1)*8+b+4])
			gramPair(&p, x, stride, nr, i+a, j+b)
			copy(acc[a*8+b:a*8+b+4], p[:4])
			copy(acc[(a+1)*8+b:(a+1)*8+b+4], p[4:])
		}
	}
}

// gramPair is the generic GramTile's block of two rows (i, i+1) by four
// columns (from j), acc's first four entries row i, the next four row
// i+1: the eight sums in registers.
func gramPair(acc *[8]float64, x []float64, stride, nr, i, j int) {
	a0, a1, a2, a3 := acc[0], acc[1], acc[2], acc[3]
	b0, b1, b2, b3 := acc[4], acc[5], acc[6], acc[7]
	for r := range nr {
		xr := x[r*stride:]
		u, v, y := xr[i], xr[i+1], xr[j:j+4]
		a0 += float64(u * y[0]) // rounded, never fused
		a1 += float64(u * y[1])
		a2 += float64(u * y[2])
		a3 += float64(u * y[3])
		b0 += float64(v * y[0])
		b1 += float64(v * y[1])
		b2 += float64(v * y[2])
		b3 += float64(v * y[3])
	}
	acc[0], acc[1], acc[2], acc[3] = a0, a1, a2, a3
	acc[4], acc[5], acc[6], acc[7] = b0, b1, b2, b3
}

// AxpyGather adds to y[:l] the rows of a (l wide, row r at a[r*l:])
// chosen by idx, times alpha: for each e in order whose alpha[e] is not
// 0, y[j] += alpha[e]·a[idx[e]*l+j], the product rounded and then added,
// so that every implementation, on every architecture, gives the bits of
// that loop without fused multiply-adds (as Go builds the spectral
// start's loop it replaced for amd64 below GOAMD64=v3). It
// is the users' half of a randomized range finder's product with sparse
// residuals (package recommend's spectral start). Each idx[e] must name a
// row of a: the assembly reads it unchecked.
func AxpyGather(y, alpha []float64, idx []int32, a []float64, l int) {
	axpyIndexedCheck("AxpyGather", y, alpha, idx, l)
	axpyGather(int(active.Load()), y, alpha, idx, a, l)
}

// AxpyScatter is AxpyGather's other half: for each e in order whose
// alpha[e] is not 0, it adds alpha[e]·x[:l] to the row of y chosen by
// idx[e] (l wide, row r at y[r*l:]), each product rounded and then added.
// Each idx[e] must name a row of y: the assembly writes it unchecked.
func AxpyScatter(y, alpha []float64, idx []int32, x []float64, l int) {
	axpyIndexedCheck("AxpyScatter", x, alpha, idx, l)
	axpyScatter(int(active.Load()), y, alpha, idx, x, l)
}

// axpyIndexedCheck panics unless v holds l values and idx an index for
// each alpha. (The rows idx names are not checked against the matrix,
// which would cost a pass over them: the caller's indices are its rows.)
func axpyIndexedCheck(name string, v, alpha []float64, idx []int32, l int) {
	if l < 0 || len(v) < l || len(idx) < len(alpha) {
		panic(fmt.Sprintf("kernel: %s: %d columns, %d values, %d scales, %d indices", name, l, len(v), len(alpha), len(idx)))
	}
}

// axpyGatherGeneric is AxpyGather's loop.
func axpyGatherGeneric(y, alpha []float64, idx []int32, a []float64, l int) {
	y = y[:l]
	for e, v := range alpha {
		if v != 0 {
			for j, w := range a[int(idx[e])*l:][:l] {
				y[j] += float64(v * w) // rounded, never fused
			}
		}
	}
}

// axpyScatterGeneric is AxpyScatter's loop.
func axpyScatterGeneric(y, alpha []float64, idx []int32, x []float64, l int) {
	x = x[:l]
	for e, v := range alpha {
		if v != 0 {
			o := y[int(idx[e])*l:][:l]
			for j, w := range x {
				o[j] += float64(v * w)
			}
		}
	}
}
