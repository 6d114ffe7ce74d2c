//go:build amd64 && !purego

package kernel

import (
	"errors"
	"unsafe"
)

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
func xgetbv() (eax, edx uint32)

// CPU features, read before the init functions run.
var hasAVX2, hasAVX512 = detect()

// detect reports whether the CPU has AVX2 and FMA, and AVX-512 F, DQ, BW and
// VL, with the operating system saving the ymm (and zmm and opmask)
// registers.
func detect() (avx2, avx512 bool) {
	maxID, _, _, _ := cpuid(0, 0)
	if maxID < 7 {
		return false, false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const fma, osxsave, avx = 1 << 12, 1 << 27, 1 << 28
	if ecx1&(fma|osxsave|avx) != fma|osxsave|avx {
		return false, false
	}
	xcr0, _ := xgetbv()
	if xcr0&0x6 != 0x6 { // SSE and AVX state
		return false, false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	avx2 = ebx7&(1<<5) != 0
	const f, dq, bw, vl = 1 << 16, 1 << 17, 1 << 30, 1 << 31
	avx512 = avx2 && ebx7&(f|dq|bw|vl) == f|dq|bw|vl &&
		xcr0&0xe0 == 0xe0 // opmask, upper halves of zmm0-15, zmm16-31
	return avx2, avx512
}

func supported(impl int) error {
	switch impl {
	case implGeneric:
		return nil
	case implAVX2:
		if !hasAVX2 {
			return errors.New("the CPU lacks AVX2 or FMA, or the operating system does not save ymm registers")
		}
		return nil
	case implAVX512:
		if !hasAVX512 {
			return errors.New("the CPU lacks one of AVX-512 F, DQ, BW and VL, or the operating system does not save zmm registers")
		}
		return nil
	}
	return errors.New("unknown implementation")
}

// group returns the number of rows an assembly multi-row kernel handles next.
func group(r int) int {
	switch {
	case r >= 8:
		return 8
	case r >= 4:
		return 4
	case r >= 2:
		return 2
	}
	return 1
}

// dot1 is dotRows of one row, its kernel called without the rows' loop
// (the row's update calls it once a coordinate, see recommend).
func dot1(impl int, a, x []float64) float64 {
	var out [1]float64
	switch impl {
	case implAVX512:
		dotRows1Avx512(&out[0], &a[0], len(a), len(a), &x[0])
	case implAVX2:
		dotRows1Avx2(&out[0], &a[0], len(a), len(a), &x[0])
	default:
		dotRowsGeneric(out[:], a, len(a), len(a), x)
	}
	return out[0]
}

func dotRows(impl int, out []float64, a []float64, stride, n int, x []float64) {
	switch impl {
	case implAVX512:
		for k := 0; k < len(out); {
			g := group(len(out) - k)
			dotRowsGAvx512(g, &out[k], &a[k*stride], stride, n, &x[0])
			k += g
		}
	case implAVX2:
		for k := 0; k < len(out); {
			g := group(len(out) - k)
			dotRowsGAvx2(g, &out[k], &a[k*stride], stride, n, &x[0])
			k += g
		}
	default:
		dotRowsGeneric(out, a, stride, n, x)
	}
}

func dotRows32(impl int, out []float64, a []float32, stride, n int, x []float64) {
	switch impl {
	case implAVX512:
		for k := 0; k < len(out); {
			g := group(len(out) - k)
			dotRowsG32Avx512(g, &out[k], &a[k*stride], stride, n, &x[0])
			k += g
		}
	case implAVX2:
		for k := 0; k < len(out); {
			g := group(len(out) - k)
			dotRowsG32Avx2(g, &out[k], &a[k*stride], stride, n, &x[0])
			k += g
		}
	default:
		dotRowsGeneric(out, a, stride, n, x)
	}
}

func axpyRows(impl int, y, alpha []float64, a []float64, stride, n int) {
	switch impl {
	case implAVX512:
		for k := 0; k < len(alpha); {
			g := group(len(alpha) - k)
			axpyRowsGAvx512(g, &y[0], &alpha[k], &a[k*stride], stride, n)
			k += g
		}
	case implAVX2:
		for k := 0; k < len(alpha); {
			g := group(len(alpha) - k)
			axpyRowsGAvx2(g, &y[0], &alpha[k], &a[k*stride], stride, n)
			k += g
		}
	default:
		axpyRowsGeneric(y, alpha, a, stride, n)
	}
}

func axpyRows32(impl int, y, alpha []float64, a []float32, stride, n int) {
	switch impl {
	case implAVX512:
		for k := 0; k < len(alpha); {
			g := group(len(alpha) - k)
			axpyRowsG32Avx512(g, &y[0], &alpha[k], &a[k*stride], stride, n)
			k += g
		}
	case implAVX2:
		for k := 0; k < len(alpha); {
			g := group(len(alpha) - k)
			axpyRowsG32Avx2(g, &y[0], &alpha[k], &a[k*stride], stride, n)
			k += g
		}
	default:
		axpyRowsGeneric(y, alpha, a, stride, n)
	}
}

// dotAxpyRows runs the fused kernels on the rows the two blocks have in
// common, as many at a time as the implementation can (rows of b in
// increasing order), then the unfused kernels on the rest of either block.
func dotAxpyRows(impl int, out []float64, a64 []float64, a32 []float32, y, alpha []float64, b64 []float64, b32 []float32, stride, n int, x []float64) {
	maxG := 0
	switch impl {
	case implAVX512:
		maxG = maxFusedAvx512
	case implAVX2:
		maxG = maxFusedAvx2
	default:
		dotAxpyRowsGeneric(out, a64, a32, y, alpha, b64, b32, stride, n, x)
		return
	}
	k, common := 0, min(len(out), len(alpha))
	for k < common {
		g := min(group(common-k), maxG)
		switch {
		case impl == implAVX512 && a32 != nil:
			dotAxpyRowsG32Avx512(g, &out[k], &a32[k*stride], &y[0], &alpha[k], &b32[k*stride], stride, n, &x[0])
		case impl == implAVX512:
			dotAxpyRowsGAvx512(g, &out[k], &a64[k*stride], &y[0], &alpha[k], &b64[k*stride], stride, n, &x[0])
		case a32 != nil:
			dotAxpyRowsG32Avx2(g, &out[k], &a32[k*stride], &y[0], &alpha[k], &b32[k*stride], stride, n, &x[0])
		default:
			dotAxpyRowsGAvx2(g, &out[k], &a64[k*stride], &y[0], &alpha[k], &b64[k*stride], stride, n, &x[0])
		}
		k += g
	}
	if k < len(alpha) {
		if b32 != nil {
			axpyRows32(impl, y, alpha[k:], b32[k*stride:], stride, n)
		} else {
			axpyRows(impl, y, alpha[k:], b64[k*stride:], stride, n)
		}
	}
	if k < len(out) {
		if a32 != nil {
			dotRows32(impl, out[k:], a32[k*stride:], stride, n, x)
		} else {
			dotRows(impl, out[k:], a64[k*stride:], stride, n, x)
		}
	}
}

// Column blocks of the batched kernels: DotBatch works on dotNC columns of
// all its rows at a time (each run's x segment is then reused by every
// row tile from L1), AxpyBatch on axpyNC columns (the rows' segment is then
// reused by every run tile from L1 or L2). Multiples of 32.
const (
	dotNC  = 256
	axpyNC = 256
)

// reduce8 and reduce4 are the lane reductions of the assembly kernels.
func reduce8(v []float64) float64 {
	v = v[:8]
	return ((v[0] + v[4]) + (v[2] + v[6])) + ((v[1] + v[5]) + (v[3] + v[7]))
}

func reduce4(v []float64) float64 {
	v = v[:4]
	return (v[0] + v[2]) + (v[1] + v[3])
}

func dotBatch(impl int, out []float64, ldo int, a64 []float64, a32 []float32, lda, rows, n int, x []float64, ldx, runs int) {
	var lanes, mr, nr int
	switch impl {
	case implAVX512:
		lanes, mr, nr = lanesAvx512, dotMRAvx512, dotNRAvx512
	case implAVX2:
		lanes, mr, nr = lanesAvx2, dotMRAvx2, dotNRAvx2
	default:
		dotBatchGeneric(out, ldo, a64, a32, lda, rows, n, x, ldx, runs)
		return
	}
	accp := getScratch(rows * runs * lanes)
	acc := *accp
	clear(acc)
	var wide *[]float64
	if a32 != nil {
		wide = getScratch(rows * min(dotNC, n))
	}
	for j0 := 0; j0 < n; j0 += dotNC {
		nc := min(dotNC, n-j0)
		ap, off, ld := a64, j0, lda
		if a32 != nil {
			widen(*wide, a32, lda, rows, j0, nc)
			ap, off, ld = *wide, 0, nc
		}
		// The tile of mr rows (mr*nc*8 bytes) stays in L1 while the
		// runs' segments stream from L2. The calls for the first run
		// tiles prefetch, one row each, the next tile of rows (the next
		// rows, or the first ones in the next column block), which comes
		// from memory; the calls for the other run tiles prefetch, one
		// run each, the runs' segments of the next column block (run q
		// next), which come from L3. (On one Zen 5 core, 64 rows of 10000
		// and 54 runs: 40-45 against 35-39 GFMA/s without, the peak 57;
		// one column block in L2 runs at 50-54.)
		q := 0
		for k0 := 0; k0 < rows; k0 += mr {
			r := min(mr, rows-k0)
			for bi, b0 := 0, 0; b0 < runs; bi, b0 = bi+1, b0+nr {
				c := min(nr, runs-b0)
				pf := &ap[k0*ld+off]
				if bi < mr {
					if nk := k0 + mr + bi; nk < rows {
						pf = &ap[nk*ld+off]
					} else if nk -= rows; a32 == nil && j0+nc < n && nk < min(mr, rows) {
						pf = &a64[nk*lda+j0+nc]
					}
				} else if q < runs && j0+nc < n {
					pf = &x[q*ldx+j0+nc]
					q++
				}
				if impl == implAVX512 {
					dotTileAvx512(r, c, &acc[(k0*runs+b0)*lanes], runs*lanes, &ap[k0*ld+off], ld, &x[b0*ldx+j0], ldx, nc, pf)
				} else {
					dotTileAvx2(r, c, &acc[(k0*runs+b0)*lanes], runs*lanes, &ap[k0*ld+off], ld, &x[b0*ldx+j0], ldx, nc, pf)
				}
			}
		}
	}
	for k := range rows {
		o := out[k*ldo : k*ldo+runs]
		v := acc[k*runs*lanes : (k+1)*runs*lanes]
		for b := range o {
			if lanes == 8 {
				o[b] = reduce8(v[b*8:])
			} else {
				o[b] = reduce4(v[b*4:])
			}
		}
	}
	putScratch(accp)
	if wide != nil {
		putScratch(wide)
	}
}

func axpyBatch(impl int, s []float64, lds int, w []float64, ldw int, a64 []float64, a32 []float32, lda, rows, n, runs int) {
	var lanes, nr, nv int
	switch impl {
	case implAVX512:
		lanes, nr, nv = lanesAvx512, axpyNRAvx512, axpyVAvx512
	case implAVX2:
		lanes, nr, nv = lanesAvx2, axpyNRAvx2, axpyVAvx2
	default:
		axpyBatchGeneric(s, lds, w, ldw, a64, a32, lda, rows, n, runs)
		return
	}
	width := nv * lanes
	var wide *[]float64
	if a32 != nil {
		wide = getScratch(rows * min(axpyNC, n))
	}
	for j0 := 0; j0 < n; j0 += axpyNC {
		jend := min(j0+axpyNC, n)
		ap, off, ld := a64, 0, lda
		if a32 != nil {
			widen(*wide, a32, lda, rows, j0, jend-j0)
			ap, off, ld = *wide, -j0, jend-j0
		}
		// Each run tile walks its rows of s sequentially (the kernels
		// prefetch the next tile); the rows' segment (rows x axpyNC) is
		// read from L1/L2 once per run tile.
		// The first run tile prefetches the rows' next column block,
		// which DotBatch read last from memory: the run tiles after it
		// read the block from L2, but the first one from L3. (On one
		// Zen 5 core, 64 rows of 10000 and 54 runs: 44-47 against 41-45
		// GFMA/s without.)
		next := 0
		if a32 == nil && jend < n {
			next = 8 * axpyNC
		}
		for b0 := 0; b0 < runs; b0 += nr {
			c := min(nr, runs-b0)
			j := j0
			for ; j+width <= jend; j += width {
				axpyTile(impl, c, nv, &s[b0*lds+j], lds, &w[b0], ldw, &ap[j+off], ld, rows, next)
			}
			for ; j+lanes <= jend; j += lanes {
				axpyTile(impl, c, 1, &s[b0*lds+j], lds, &w[b0], ldw, &ap[j+off], ld, rows, 0)
			}
			for ; j < jend; j++ {
				axpyTile(impl, c, 0, &s[b0*lds+j], lds, &w[b0], ldw, &ap[j+off], ld, rows, 0)
			}
			next = 0
		}
	}
	if wide != nil {
		putScratch(wide)
	}
}

func axpyTile(impl, c, v int, s *float64, lds int, w *float64, ldw int, a *float64, lda, rows, pfo int) {
	if impl == implAVX512 {
		axpyTileAvx512(c, v, s, lds, w, ldw, a, lda, rows, pfo)
	} else {
		axpyTileAvx2(c, v, s, lds, w, ldw, a, lda, rows, pfo)
	}
}

// streamSum is the streaming-read floor of the benchmarks: the sum of the
// elements with the widest loads available, reading one sequential stream
// or four at once (streams = 1 or 4).
func streamSum(a []float64, streams int) float64 {
	if streams == 4 {
		return streamSumT(a, 4, sum4Avx512, sum4Avx2)
	}
	return streamSumT(a, 1, sum1Avx512, sum1Avx2)
}

func streamSum32(a []float32, streams int) float64 {
	if streams == 4 {
		return streamSumT(a, 4, sum432Avx512, sum432Avx2)
	}
	return streamSumT(a, 1, sum132Avx512, sum132Avx2)
}

func streamSumT[T real](a []T, streams int, wide, narrow func(*T, int, int) float64) float64 {
	f := narrow
	switch active.Load() {
	case implAVX512:
		f = wide
	case implAVX2:
	default:
		return sumGeneric(a)
	}
	q := len(a) / streams &^ 63 // elements per stream
	if q == 0 {
		return sumGeneric(a)
	}
	return f(&a[0], q, q) + sumGeneric(a[streams*q:])
}

func multiplyAdds(rounds int) float64 {
	switch active.Load() {
	case implAVX512:
		return multiplyAddsAvx512(rounds)
	case implAVX2:
		return multiplyAddsAvx2(rounds)
	}
	return multiplyAddsGeneric(rounds)
}

// entriesAsm runs the assembly kernel of EvaluateEntries when one takes the
// rank, and reports whether it did.
func entriesAsm(impl, mode int, a *entriesArgs) bool {
	switch impl {
	case implAVX512:
		v := (a.r + lanesAvx512 - 1) / lanesAvx512
		if v > maxEntryVectorsAvx512 {
			return false
		}
		entriesRowAvx512(mode, v, a)
		return true
	case implAVX2:
		v := (a.r + lanesAvx2 - 1) / lanesAvx2
		if v > maxEntryVectorsAvx2 {
			return false
		}
		entriesRowAvx2(mode, v, a)
		return true
	}
	return false
}

// gather runs the assembly on the groups of four ratings and the generic
// code on the rest.
func gather(impl int, g *GatherRow) {
	n, k := g.ratings(), len(g.X)
	if impl == implGeneric || n < 4 {
		gatherGeneric(g, 0)
		return
	}
	m, k4 := n&^3, k&^3
	a := gatherArgs{n: n, res: &g.Res[0], k4: k4, vals: &g.Vals[0],
		other: &g.Other[0], d: g.D, base: g.Base, m: m, bias: k}
	if k > 0 {
		a.zc, a.x = &g.Cols[0], &g.X[0]
	}
	if g.Idx == nil {
		a.idx = unsafe.Pointer(&g.Idx16[0])
		gatherRows16Avx2(&a)
	} else {
		a.idx = unsafe.Pointer(&g.Idx[0])
		gatherRowsAvx2(&a)
	}
	gatherGeneric(g, m)
}

// coordSums runs the assembly (the AVX2 code for the AVX-512
// implementation too), whose last n mod 8 elements are the generic code's
// (built below GOAMD64=v3, which fuses its multiply-adds).
func coordSums(impl int, res, w, zp, z []float64, delta float64) (float64, float64) {
	if impl == implGeneric {
		return coordSumsGeneric(res, w, zp, z, delta, 0, 0, 0)
	}
	var out [2]float64
	coordSumsAvx2(&res[0], &w[0], &zp[0], &z[0], len(res), delta, &out[0])
	return out[0], out[1]
}

// coordMoves runs the assembly of impl (its dot products in impl's
// order, its sums coordSums's), or the generic code's calls.
func coordMoves(impl int, m *Moves) float64 {
	n := len(m.Res)
	if impl == implGeneric || n == 0 {
		return coordMovesGeneric(impl, m)
	}
	a := movesArgs{res: &m.Res[0], w: &m.W[0], prev: &m.Prev[0], cols: &m.Cols[0], n: n, k8: 8 * len(m.Norm),
		x: &m.X[0], lam: &m.Lam[0], lamMu: &m.LamMu[0], norm: &m.Norm[0], d8: 8 * len(m.X), delta: m.Delta}
	if impl == implAVX512 {
		coordMovesAvx512(&a)
	} else {
		coordMovesAvx2(&a)
	}
	return a.delta
}

// gramTile runs the assembly (AVX2 for the AVX-512 implementation too).
func gramTile(impl int, acc *[32]float64, x []float64, stride, nr, i, j int) {
	if impl == implGeneric {
		gramTileGeneric(acc, x, stride, nr, i, j)
		return
	}
	gramTileAvx2(&acc[0], &x[i], &x[j], 8*stride, nr)
}

// axpyGather runs the assembly (AVX2 for the AVX-512 implementation too)
// band by band of columns.
func axpyGather(impl int, y, alpha []float64, idx []int32, a []float64, l int) {
	if impl == implGeneric || len(alpha) == 0 || l == 0 || len(a) < l {
		axpyGatherGeneric(y, alpha, idx, a, l)
		return
	}
	for c := 0; c < l; c += axpyIndexedBand {
		w := min(axpyIndexedBand, l-c)
		axpyGatherBand(w, &y[c], &alpha[0], &idx[0], &a[c], len(alpha), 8*l)
	}
}

// axpyScatter is axpyGather for AxpyScatter.
func axpyScatter(impl int, y, alpha []float64, idx []int32, x []float64, l int) {
	if impl == implGeneric || len(alpha) == 0 || l == 0 || len(y) < l {
		axpyScatterGeneric(y, alpha, idx, x, l)
		return
	}
	for c := 0; c < l; c += axpyIndexedBand {
		w := min(axpyIndexedBand, l-c)
		axpyScatterBand(w, &y[c], &alpha[0], &idx[0], &x[c], len(alpha), 8*l)
	}
}
