package kernel

import (
	"fmt"
	"math"
	"unsafe"
)

// EntriesRow is one row segment of a pass over observed entries (matrix
// completion): the entries (i, j) of row i, j = Cols[k], with their
// observations Y[k] (or, when Y32 is set, Y32[k]: float32 observations,
// such as ratings, in half the memory), the factor row L (r values) and
// R's rows, row j at RD[j*LD:][:r]. EvaluateEntries sets Z[k] to the
// residual L·R_j - Y[k]
// and, with its weight w, adds w·R_j to G (r values) and w·L to GR's
// row j, GR[j*S:][:r].
type EntriesRow struct {
	Cols []int32
	Y, Z []float64
	Y32  []float32
	L, G []float64
	RD   []float64
	LD   int
	GR   []float64
	S    int
	// Trimmed only: an entry is kept when |z| <= max(RowBound,
	// ColBound[j]); a kept entry adds |z|, 1 and z² to Sums, and |z| and 1
	// to GR[j*S+r] and GR[j*S+r+1] (S >= r+2); one not kept has weight 0.
	RowBound float64
	ColBound []float64
	Sums     *[3]float64
}

// The weights of EvaluateEntries.
const (
	EntriesLinear  = 0 // w = z
	EntriesSign    = 1 // w = sign(z), 0 at 0
	EntriesTrimmed = 2 // w = z where kept, else 0

	entriesY32 = 3 // added to a weight: the assembly's kernel of float32 observations
)

// entriesArgs are EntriesRow's pointers for the assembly kernels, at the
// fixed offsets that _asm/entries.go names: every field 8 bytes wide.
type entriesArgs struct {
	cols     *int32
	n        int
	y        unsafe.Pointer // float64 or, with entriesY32, float32 values
	z        *float64
	l        *float64
	r        int
	rd       *float64
	ld       int
	g        *float64
	gr       *float64
	s        int
	rowBound float64
	colBound *float64
	sums     *[3]float64
	r8       int
}

// EvaluateEntries evaluates the row segment a with the weight mode
// (EntriesLinear, EntriesSign or EntriesTrimmed). Each fit has the bits of
// DotRows of R_j and L; w·R_j and w·L are added one entry at a time, in
// entry order. A zero weight adds nothing; a NaN residual is added, but
// weighs 0 under EntriesSign.
func EvaluateEntries(mode int, a *EntriesRow) {
	n, r := len(a.Cols), len(a.L)
	if n == 0 || r == 0 {
		return
	}
	ny := len(a.Y)
	if a.Y32 != nil {
		ny = len(a.Y32)
	}
	if ny < n || len(a.Z) < n || len(a.G) < r {
		panic(fmt.Sprintf("kernel: EvaluateEntries: %d entries, %d observations, %d residuals, rank %d, %d gradient values", n, ny, len(a.Z), r, len(a.G)))
	}
	minS := r
	if mode == EntriesTrimmed {
		minS = r + 2
	}
	if a.S < minS || a.LD < r {
		panic(fmt.Sprintf("kernel: EvaluateEntries: strides %d and %d for rank %d", a.LD, a.S, r))
	}
	lo, hi := a.Cols[0], a.Cols[0]
	for _, c := range a.Cols {
		lo, hi = min(lo, c), max(hi, c)
	}
	if j := int(hi); lo < 0 || j*a.LD+r > len(a.RD) || j*a.S+minS > len(a.GR) || (mode == EntriesTrimmed && j >= len(a.ColBound)) {
		panic(fmt.Sprintf("kernel: EvaluateEntries: columns %d to %d outside the rows given", lo, hi))
	}
	args := entriesArgs{cols: &a.Cols[0], n: n, z: &a.Z[0], l: &a.L[0], r: r, rd: &a.RD[0], ld: a.LD,
		g: &a.G[0], gr: &a.GR[0], s: a.S, rowBound: a.RowBound, sums: a.Sums, r8: 8 * r}
	if mode == EntriesTrimmed {
		args.colBound = &a.ColBound[0]
	}
	kind := mode
	if a.Y32 != nil {
		args.y, kind = unsafe.Pointer(&a.Y32[0]), mode+entriesY32
	} else {
		args.y = unsafe.Pointer(&a.Y[0])
	}
	impl := int(active.Load())
	if !entriesAsm(impl, kind, &args) {
		evaluateEntriesGo(impl, mode, a)
	}
}

// evaluateEntriesGo is EvaluateEntries in Go, the fits from the
// implementation's dotRows (so with its bits).
func evaluateEntriesGo(impl, mode int, a *EntriesRow) {
	if a.Y32 != nil {
		entriesGo(impl, mode, a, a.Y32)
	} else {
		entriesGo(impl, mode, a, a.Y)
	}
}

// entriesGo is evaluateEntriesGo of the observations y, compiled for each
// kind, with the slices' bounds checked once an entry. The portable
// implementation's dot product (dotGeneric's sums) and every
// implementation's additions to G and GR (a product, then a sum, each
// rounded, as the assembly's are not) are written out in the loop: Go
// inlines neither as a function, and at 10^7 entries of rank 10 on an
// AVX2 EPYC the two calls an entry cost about a tenth of the portable
// pass.
func entriesGo[T float32 | float64](impl, mode int, a *EntriesRow, y []T) {
	r := len(a.L)
	li, g := a.L, a.G[:r]
	y, z := y[:len(a.Cols)], a.Z[:len(a.Cols)]
	generic := impl == implGeneric
	var fit [1]float64
	for k, c := range a.Cols {
		j := int(c)
		rj := a.RD[j*a.LD : j*a.LD+r]
		rj = rj[:len(li)]
		if generic {
			// dotGeneric(rj, li)
			var s0, s1, s2, s3 float64
			i := 0
			for ; i+4 <= len(li); i += 4 {
				aa, xx := rj[i:i+4:i+4], li[i:i+4:i+4]
				s0 += float64(aa[0] * xx[0])
				s1 += float64(aa[1] * xx[1])
				s2 += float64(aa[2] * xx[2])
				s3 += float64(aa[3] * xx[3])
			}
			for ; i < len(li); i++ {
				s0 += float64(rj[i] * li[i])
			}
			fit[0] = (s0 + s1) + (s2 + s3)
		} else {
			dotRows(impl, fit[:], rj, r, r, li)
		}
		res := fit[0] - float64(y[k])
		z[k] = res
		w := res
		switch mode {
		case EntriesTrimmed:
			abs := math.Abs(res)
			if !(abs <= max(a.RowBound, a.ColBound[j])) {
				continue
			}
			a.Sums[0] += abs
			a.Sums[1]++
			a.Sums[2] = math.FMA(res, res, a.Sums[2]) // as the assembly adds it
			a.GR[j*a.S+r] += abs
			a.GR[j*a.S+r+1]++
		case EntriesSign:
			if res == 0 || res != res {
				continue
			}
			w = math.Copysign(1, res)
		}
		if w == 0 {
			continue
		}
		// g += w·rj, GR's row j += w·li
		h := a.GR[j*a.S : j*a.S+r]
		h, gg := h[:len(li)], g[:len(li)]
		i := 0
		for ; i+4 <= len(li); i += 4 {
			xx, ll, g4, h4 := rj[i:i+4:i+4], li[i:i+4:i+4], gg[i:i+4:i+4], h[i:i+4:i+4]
			g4[0] += float64(w * xx[0])
			h4[0] += float64(w * ll[0])
			g4[1] += float64(w * xx[1])
			h4[1] += float64(w * ll[1])
			g4[2] += float64(w * xx[2])
			h4[2] += float64(w * ll[2])
			g4[3] += float64(w * xx[3])
			h4[3] += float64(w * ll[3])
		}
		for ; i < len(li); i++ {
			gg[i] += float64(w * rj[i])
			h[i] += float64(w * li[i])
		}
	}
}

var _ = unsafe.Sizeof(entriesArgs{}) // the layout the assembly reads
