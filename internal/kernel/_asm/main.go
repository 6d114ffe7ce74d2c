// Command asm generates the amd64 assembly kernels of package kernel
// (kernel_amd64.s) and their Go declarations (kernel_amd64_decl.go).
//
// Run it from package kernel with `go generate` (see gen.go there), or by
// hand:
//
//	cd internal/kernel/_asm && go run . -out ..
//
// It has no dependencies: it prints Go assembler text. Each kernel is
// emitted twice, once for AVX2+FMA (ymm registers, 4 float64 lanes) and once
// for AVX-512 (zmm registers, 8 float64 lanes, opmask tails).
//
// Summation orders are part of the contract of package kernel, so every
// generator below keeps them fixed:
//   - a dot product of one row with one vector keeps one vector accumulator;
//     element j goes to lane j mod L in increasing j, the last partial
//     vector is masked, and the lanes are reduced by the fixed tree of
//     reduce() (mirrored in Go by reduce4/reduce8);
//   - a scaled addition of rows updates each element of y with one fused
//     multiply-add per row, rows in increasing order.
//
// Hence the multi-row, single-row and batched (tile) kernels of one
// instruction set give the same bits for the same row and vector.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"path/filepath"
	"strings"
)

type isa struct {
	name string // suffix of the Go names: "Avx2" or "Avx512"
	L    int    // float64 lanes of a vector register
	vr   string // "Y" or "Z"
	// tile shapes of the batched kernels
	dotMR, dotNR   int // rows x runs of the dot tile
	axpyNR, axpyV  int // runs x vectors of the axpy tile
	evex           bool
	reductionTemp  int // vector register used by reductions
	vectorsPerLoad int
}

var (
	avx2   = isa{name: "Avx2", L: 4, vr: "Y", dotMR: 4, dotNR: 3, axpyNR: 4, axpyV: 3, reductionTemp: 13}
	avx512 = isa{name: "Avx512", L: 8, vr: "Z", dotMR: 8, dotNR: 3, axpyNR: 6, axpyV: 4, evex: true, reductionTemp: 13}
)

func (s isa) v(i int) string { return fmt.Sprintf("%s%d", s.vr, i) }
func y(i int) string         { return fmt.Sprintf("Y%d", i) }
func x(i int) string         { return fmt.Sprintf("X%d", i) }

// half returns the register holding half a vector of s: the float32 source
// of one float64 vector (X for AVX2, Y for AVX-512).
func (s isa) half(i int) string {
	if s.evex {
		return y(i)
	}
	return x(i)
}

type dtype struct {
	suf  string // "" or "32"
	size int    // bytes per element
	goT  string
}

var (
	f64 = dtype{"", 8, "float64"}
	f32 = dtype{"32", 4, "float32"}
)

func log2(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	if 1<<k != n {
		panic("not a power of two")
	}
	return k
}

var (
	asm  bytes.Buffer
	decl bytes.Buffer
)

func p(format string, args ...any) { fmt.Fprintf(&asm, "\t"+format+"\n", args...) }
func label(l string)               { fmt.Fprintf(&asm, "%s:\n", l) }

type arg struct{ name, typ string }

// text starts a function. Every argument is 8 bytes wide.
func text(name, doc string, args []arg, ret string) {
	size := 8 * len(args)
	if ret != "" {
		size += 8
	}
	fmt.Fprintf(&asm, "\n// func %s\nTEXT ·%s(SB), NOSPLIT, $0-%d\n", sig(name, args, ret), name, size)
	fmt.Fprintf(&decl, "\n// %s\n//\n//go:noescape\nfunc %s\n", doc, sig(name, args, ret))
}

func sig(name string, args []arg, ret string) string {
	var parts []string
	for _, a := range args {
		parts = append(parts, a.name+" "+a.typ)
	}
	s := name + "(" + strings.Join(parts, ", ") + ")"
	if ret != "" {
		s += " " + ret
	}
	return s
}

// rowPtr lists the general registers that hold row pointers (up to 8).
var rowPtr = []string{"SI", "R8", "R9", "R10", "R11", "R12", "R13", "DX"}

// chainPointers sets regs[i] = regs[0] + i*stride (stride in CX, bytes).
func chainPointers(regs []string) {
	for i := 1; i < len(regs); i++ {
		p("LEAQ (%s)(CX*1), %s", regs[i-1], regs[i])
	}
}

// reduce sums the lanes of vector register r into the low lane of X(r),
// with the fixed tree ((l0+l4)+(l2+l6))+((l1+l5)+(l3+l7)) for 8 lanes and
// (l0+l2)+(l1+l3) for 4 lanes.
func reduce(s isa, r int) {
	t := s.reductionTemp
	if s.evex {
		p("VEXTRACTF64X4 $1, %s, %s", s.v(r), y(t))
		p("VADDPD %s, %s, %s", y(t), y(r), y(r))
	}
	p("VEXTRACTF128 $1, %s, %s", y(r), x(t))
	p("VADDPD %s, %s, %s", x(t), x(r), x(r))
	p("VUNPCKHPD %s, %s, %s", x(r), x(r), x(t))
	p("VADDSD %s, %s, %s", x(t), x(r), x(r))
}

// loadA loads (and widens) one vector of row data at mem into register dst.
func loadA(s isa, d dtype, mem, dst string) {
	if d.size == 8 {
		p("VMOVUPD %s, %s", mem, dst)
	} else {
		p("VCVTPS2PD %s, %s", mem, dst)
	}
}

// avx2Masks loads the AVX2 tail masks for CX (1..3) remaining elements:
// Y14 for float64 lanes and, for float32 data, X15 for float32 lanes.
// It clobbers BX and CX.
func avx2Masks(d dtype) {
	p("LEAQ mask64<>+32(SB), BX")
	p("SHLQ $3, CX")
	p("SUBQ CX, BX")
	p("VMOVDQU (BX), Y14")
	if d.size == 4 {
		p("LEAQ mask32<>+16(SB), BX")
		p("SHRQ $1, CX")
		p("SUBQ CX, BX")
		p("VMOVDQU (BX), X15")
	}
}

// avx512Mask sets K1 to the low CX bits. It clobbers BX.
func avx512Mask() {
	p("MOVL $1, BX")
	p("SHLL CX, BX")
	p("DECL BX")
	p("KMOVW BX, K1")
}

// loadTail loads the masked last partial vector of row data at mem into dst
// (zero in the lanes past the end). AVX2 masks must be set (avx2Masks), and
// AVX-512's K1 (avx512Mask).
func loadTail(s isa, d dtype, mem, dst string) {
	switch {
	case s.evex && d.size == 8:
		p("VMOVUPD.Z %s, K1, %s", mem, dst)
	case s.evex:
		p("VCVTPS2PD.Z %s, K1, %s", mem, dst)
	case d.size == 8:
		p("VMASKMOVPD %s, Y14, %s", mem, dst)
	default:
		xd := "X" + strings.TrimPrefix(dst, "Y")
		p("VMASKMOVPS %s, X15, %s", mem, xd)
		p("VCVTPS2PD %s, %s", xd, dst)
	}
}

// loadXTail loads the masked last partial vector of x (float64) at mem.
func loadXTail(s isa, mem, dst string) {
	if s.evex {
		p("VMOVUPD.Z %s, K1, %s", mem, dst)
	} else {
		p("VMASKMOVPD %s, Y14, %s", mem, dst)
	}
}

// fmaTail is acc += a*x for the masked last vector. AVX-512 merges under K1
// so that the lanes past the end keep their value; AVX2 adds 0*0 there.
func fmaTail(s isa, a, xv, acc string) {
	if s.evex {
		p("VFMADD231PD %s, %s, K1, %s", a, xv, acc)
	} else {
		p("VFMADD231PD %s, %s, %s", a, xv, acc)
	}
}

// scale is the factor from the byte offset of row data to that of float64 x.
func scale(d dtype) int { return 8 / d.size }

// fullLimit computes in BX the byte offset (in row data) of the end of the
// full vectors of n elements, from n in BX; it keeps n in CX.
func fullLimit(s isa, d dtype) {
	p("MOVQ BX, CX")
	p("SHRQ $%d, BX", log2(s.L))
	p("SHLQ $%d, BX", log2(s.L)+log2(d.size))
}

func dotRows(s isa, d dtype, g int) {
	name := fmt.Sprintf("dotRows%d%s%s", g, d.suf, s.name)
	text(name, fmt.Sprintf("%s sets out[r] = sum_{j<n} a[r*stride+j]*x[j] for r < %d.", name, g),
		[]arg{{"out", "*float64"}, {"a", "*" + d.goT}, {"stride", "int"}, {"n", "int"}, {"x", "*float64"}}, "")
	rows := rowPtr[:g]
	xs := scale(d)
	p("MOVQ a+8(FP), SI")
	p("MOVQ stride+16(FP), CX")
	p("SHLQ $%d, CX", log2(d.size))
	chainPointers(rows)
	p("MOVQ x+32(FP), DI")
	p("MOVQ n+24(FP), BX")
	fullLimit(s, d)
	for r := 0; r < g; r++ {
		p("VXORPD %s, %s, %s", s.v(r), s.v(r), s.v(r))
	}
	p("XORQ AX, AX")
	p("TESTQ BX, BX")
	p("JZ tail")
	label("loop")
	if d.size == 4 {
		// The float32 loop spends about three instructions per 8 bytes
		// of each row, so the out-of-order window alone keeps few
		// memory requests in flight: prefetch each row prefetchDist
		// bytes ahead, once per cache line.
		step := s.L * d.size
		if step < 64 {
			p("TESTQ $%d, AX", 64-step)
			p("JNZ nopf")
		}
		for r := 0; r < g; r++ {
			p("PREFETCHT0 %d(%s)(AX*1)", prefetchDist, rows[r])
		}
		if step < 64 {
			label("nopf")
		}
	}
	p("VMOVUPD (DI)(AX*%d), %s", xs, s.v(8))
	for r := 0; r < g; r++ {
		mem := fmt.Sprintf("(%s)(AX*1)", rows[r])
		if d.size == 8 {
			p("VFMADD231PD %s, %s, %s", mem, s.v(8), s.v(r))
		} else {
			t := s.v(9 + r%4)
			loadA(s, d, mem, t)
			p("VFMADD231PD %s, %s, %s", t, s.v(8), s.v(r))
		}
	}
	p("ADDQ $%d, AX", s.L*d.size)
	p("CMPQ AX, BX")
	p("JB loop")
	label("tail")
	p("ANDQ $%d, CX", s.L-1)
	p("JZ reduce")
	if s.evex {
		avx512Mask()
	} else {
		avx2Masks(d)
	}
	loadXTail(s, fmt.Sprintf("(DI)(AX*%d)", xs), s.v(8))
	for r := 0; r < g; r++ {
		t := s.v(9 + r%4)
		loadTail(s, d, fmt.Sprintf("(%s)(AX*1)", rows[r]), t)
		fmaTail(s, t, s.v(8), s.v(r))
	}
	label("reduce")
	p("MOVQ out+0(FP), DI")
	for r := 0; r < g; r++ {
		reduce(s, r)
		p("VMOVSD %s, %d(DI)", x(r), 8*r)
	}
	p("VZEROUPPER")
	p("RET")
}

func axpyRows(s isa, d dtype, g int) {
	name := fmt.Sprintf("axpyRows%d%s%s", g, d.suf, s.name)
	text(name, fmt.Sprintf("%s adds sum_{r<%d} alpha[r]*a[r*stride+j] to y[j] for j < n, rows in order.", name, g),
		[]arg{{"y", "*float64"}, {"alpha", "*float64"}, {"a", "*" + d.goT}, {"stride", "int"}, {"n", "int"}}, "")
	rows := rowPtr[:g]
	xs := scale(d)
	p("MOVQ alpha+8(FP), BX")
	for r := 0; r < g; r++ {
		p("VBROADCASTSD %d(BX), %s", 8*r, s.v(r))
	}
	p("MOVQ a+16(FP), SI")
	p("MOVQ stride+24(FP), CX")
	p("SHLQ $%d, CX", log2(d.size))
	chainPointers(rows)
	p("MOVQ y+0(FP), DI")
	p("MOVQ n+32(FP), BX")
	fullLimit(s, d)
	p("XORQ AX, AX")
	p("TESTQ BX, BX")
	p("JZ tail")
	label("loop")
	p("VMOVUPD (DI)(AX*%d), %s", xs, s.v(8))
	for r := 0; r < g; r++ {
		mem := fmt.Sprintf("(%s)(AX*1)", rows[r])
		if d.size == 8 {
			p("VFMADD231PD %s, %s, %s", mem, s.v(r), s.v(8))
		} else {
			t := s.v(9 + r%4)
			loadA(s, d, mem, t)
			p("VFMADD231PD %s, %s, %s", t, s.v(r), s.v(8))
		}
	}
	p("VMOVUPD %s, (DI)(AX*%d)", s.v(8), xs)
	p("ADDQ $%d, AX", s.L*d.size)
	p("CMPQ AX, BX")
	p("JB loop")
	label("tail")
	p("ANDQ $%d, CX", s.L-1)
	p("JZ done")
	// One element at a time: the same fused multiply-adds as the vector
	// loop, so the bits do not depend on where the vectors end.
	label("scalar")
	p("VMOVSD (DI)(AX*%d), X8", xs)
	for r := 0; r < g; r++ {
		mem := fmt.Sprintf("(%s)(AX*1)", rows[r])
		if d.size == 8 {
			p("VFMADD231SD %s, %s, X8", mem, x(r))
		} else {
			p("VCVTSS2SD %s, X9, X9", mem)
			p("VFMADD231SD X9, %s, X8", x(r))
		}
	}
	p("VMOVSD X8, (DI)(AX*%d)", xs)
	p("ADDQ $%d, AX", d.size)
	p("DECQ CX")
	p("JNZ scalar")
	label("done")
	p("VZEROUPPER")
	p("RET")
}

// dotTile accumulates an r x c tile of dot products of rows of a with rows
// of x into vector accumulators in memory: acc + (i*accs + k*L) holds the L
// lanes of (row i, run k).
func dotTile(s isa, r, c int) {
	name := fmt.Sprintf("dotTile%dx%d%s", r, c, s.name)
	text(name, fmt.Sprintf("%s adds to the lane accumulators acc[i*accs+k*%d:][:%d] the lane-wise products of a[i*lda+j] and x[k*ldx+j], j < n, for i < %d, k < %d.", name, s.L, s.L, r, c),
		[]arg{{"acc", "*float64"}, {"accs", "int"}, {"a", "*float64"}, {"lda", "int"}, {"x", "*float64"}, {"ldx", "int"}, {"n", "int"}, {"pf", "*float64"}}, "")
	arow := []string{"SI", "R8", "R9", "R10", "R11", "R12", "R13", "R14"}[:r]
	// R14 and R15 are free here: the Go wrappers of ABI0 functions restore
	// g (R14), and R15 is only special around global accesses with
	// -dynlink, which only the AVX2 tails make (mask tables), so AVX2
	// (at most 4 rows) takes R11 and R12 instead.
	xrow := []string{"DI", "R15", "DX"}[:c]
	if !s.evex {
		xrow = []string{"DI", "R11", "R12"}[:c]
	}
	acc := func(i, k int) string { return s.v(i*c + k) }
	var xreg, atmp func(int) string
	if s.evex {
		xreg = func(k int) string { return s.v(24 + k) }
		atmp = func(i int) string { return s.v(27 + i%5) }
	} else {
		xreg = func(k int) string { return s.v(12 + k) }
		atmp = func(int) string { return s.v(15) }
	}
	accMem := func(store bool) {
		p("MOVQ acc+0(FP), DX")
		p("MOVQ accs+8(FP), CX")
		p("SHLQ $3, CX")
		for i := 0; i < r; i++ {
			for k := 0; k < c; k++ {
				if store {
					p("VMOVUPD %s, %d(DX)", acc(i, k), 8*s.L*k)
				} else {
					p("VMOVUPD %d(DX), %s", 8*s.L*k, acc(i, k))
				}
			}
			if i < r-1 {
				p("ADDQ CX, DX")
			}
		}
	}
	accMem(false)
	p("MOVQ a+16(FP), SI")
	p("MOVQ lda+24(FP), CX")
	p("SHLQ $3, CX")
	chainPointers(arow)
	p("MOVQ x+32(FP), DI")
	p("MOVQ ldx+40(FP), CX")
	p("SHLQ $3, CX")
	chainPointers(xrow)
	p("MOVQ n+48(FP), BX")
	p("SHRQ $%d, BX", log2(s.L))
	p("SHLQ $%d, BX", log2(s.L)+3)
	// CX walks pf, n elements that the caller wants in the caches soon
	// (a row of the next tile of rows): one cache line per 64 bytes of j.
	p("MOVQ pf+56(FP), CX")
	p("XORQ AX, AX")
	p("TESTQ BX, BX")
	p("JZ tail")
	label("loop")
	if s.evex {
		// PREFETCHT1 rather than T0: DotBatch with its rows from memory
		// measured 0.68-0.73 of the peak against 0.66 (three pairs of
		// BenchmarkBatchLimits on Zen 5), the same from the caches.
		p("PREFETCHT1 (CX)(AX*1)")
	} else {
		// Steps are half a line: prefetch on every other one.
		p("TESTQ $32, AX")
		p("JNZ nopf")
		p("PREFETCHT0 (CX)(AX*1)")
		label("nopf")
	}
	for k := 0; k < c; k++ {
		p("VMOVUPD (%s)(AX*1), %s", xrow[k], xreg(k))
	}
	for i := 0; i < r; i++ {
		p("VMOVUPD (%s)(AX*1), %s", arow[i], atmp(i))
		for k := 0; k < c; k++ {
			p("VFMADD231PD %s, %s, %s", atmp(i), xreg(k), acc(i, k))
		}
	}
	p("ADDQ $%d, AX", 8*s.L)
	p("CMPQ AX, BX")
	p("JB loop")
	label("tail")
	p("MOVQ n+48(FP), CX")
	p("ANDQ $%d, CX", s.L-1)
	p("JZ store")
	if s.evex {
		avx512Mask()
		for k := 0; k < c; k++ {
			loadXTail(s, fmt.Sprintf("(%s)(AX*1)", xrow[k]), xreg(k))
		}
		for i := 0; i < r; i++ {
			loadTail(s, f64, fmt.Sprintf("(%s)(AX*1)", arow[i]), atmp(i))
			for k := 0; k < c; k++ {
				fmaTail(s, atmp(i), xreg(k), acc(i, k))
			}
		}
	} else {
		// Registers are short: reload per run. Y14 is the mask, Y12 and
		// Y13 the x and a vectors.
		avx2Masks(f64)
		for k := 0; k < c; k++ {
			loadXTail(s, fmt.Sprintf("(%s)(AX*1)", xrow[k]), y(12))
			for i := 0; i < r; i++ {
				loadTail(s, f64, fmt.Sprintf("(%s)(AX*1)", arow[i]), y(13))
				fmaTail(s, y(13), y(12), acc(i, k))
			}
		}
	}
	label("store")
	accMem(true)
	p("VZEROUPPER")
	p("RET")
}

// axpyTile adds to an c x (v*L) tile of s (runs x columns) the sum over
// rows k of w[k*ldw+run] * a[k*lda+col]; one fused multiply-add per row, in
// row order. v == 0 means one column, done with scalar instructions.
func axpyTile(s isa, c, v int) {
	var name string
	width := v * s.L
	if v == 0 {
		name = fmt.Sprintf("axpyTile%dx1s%s", c, s.name)
		width = 1
	} else {
		name = fmt.Sprintf("axpyTile%dx%d%s", c, v, s.name)
	}
	text(name, fmt.Sprintf("%s adds sum_{k<rows} w[k*ldw+b]*a[k*lda+j] to s[b*lds+j] for b < %d, j < %d, one fused multiply-add per row in row order; the full-width tiles prefetch the same columns of each row pfo bytes further.", name, c, width),
		[]arg{{"s", "*float64"}, {"lds", "int"}, {"w", "*float64"}, {"ldw", "int"}, {"a", "*float64"}, {"lda", "int"}, {"rows", "int"}, {"pfo", "int"}}, "")
	nv := v
	if v == 0 {
		nv = 1
	}
	acc := func(b, j int) string {
		if v == 0 {
			return x(b)
		}
		return s.v(b*nv + j)
	}
	var areg, wreg func(int) string
	if s.evex {
		areg = func(j int) string { return s.v(24 + j) }
		wreg = func(b int) string { return s.v(28 + b%4) }
	} else {
		areg = func(j int) string { return s.v(12 + j) }
		wreg = func(int) string { return s.v(15) }
	}
	accMem := func(store bool) {
		p("MOVQ s+0(FP), DX")
		p("MOVQ lds+8(FP), CX")
		p("SHLQ $3, CX")
		for b := 0; b < c; b++ {
			for j := 0; j < nv; j++ {
				mov := "VMOVUPD"
				if v == 0 {
					mov = "VMOVSD"
				}
				if store {
					p("%s %s, %d(DX)", mov, acc(b, j), 8*s.L*j)
				} else {
					p("%s %d(DX), %s", mov, 8*s.L*j, acc(b, j))
				}
			}
			if b < c-1 {
				p("ADDQ CX, DX")
			}
		}
	}
	accMem(false)
	if v == s.axpyV {
		// Prefetch the tile of s to the right, which the next call is
		// likely to use: s comes from L3 and each call touches it once.
		p("MOVQ s+0(FP), DX")
		for b := 0; b < c; b++ {
			for l := 0; l < width*8; l += 64 {
				p("PREFETCHT0 %d(DX)", width*8+l)
			}
			if b < c-1 {
				p("ADDQ CX, DX")
			}
		}
	}
	p("MOVQ w+16(FP), DI")
	p("MOVQ ldw+24(FP), R9")
	p("SHLQ $3, R9")
	p("MOVQ a+32(FP), SI")
	p("MOVQ lda+40(FP), R8")
	p("SHLQ $3, R8")
	p("MOVQ rows+48(FP), BX")
	// R10 is the offset, in bytes, at which each row's columns are
	// prefetched: those of the next column block, which the caller's
	// next calls read from L3 (0 prefetches the ones being read).
	p("MOVQ pfo+56(FP), R10")
	p("TESTQ BX, BX")
	p("JZ store")
	label("loop")
	if v == s.axpyV {
		for l := 0; l < width*8; l += 64 {
			p("PREFETCHT0 %d(SI)(R10*1)", l)
		}
	}
	if v == 0 {
		p("VMOVSD (SI), X8")
		for b := 0; b < c; b++ {
			p("VFMADD231SD %d(DI), X8, %s", 8*b, acc(b, 0))
		}
	} else {
		for j := 0; j < nv; j++ {
			p("VMOVUPD %d(SI), %s", 8*s.L*j, areg(j))
		}
		for b := 0; b < c; b++ {
			p("VBROADCASTSD %d(DI), %s", 8*b, wreg(b))
			for j := 0; j < nv; j++ {
				p("VFMADD231PD %s, %s, %s", areg(j), wreg(b), acc(b, j))
			}
		}
	}
	p("ADDQ R8, SI")
	p("ADDQ R9, DI")
	p("DECQ BX")
	p("JNZ loop")
	label("store")
	accMem(true)
	p("VZEROUPPER")
	p("RET")
}

// sum is the streaming-read floor used by the benchmarks: the sum of the
// elements of one stream (a[j], j < n) or of four (a[i*stride+j], i < 4,
// j < n), into eight vector accumulators. n must be a multiple of 8*L/streams.
func sum(s isa, d dtype, streams int) {
	name := fmt.Sprintf("sum%d%s%s", streams, d.suf, s.name)
	text(name, fmt.Sprintf("%s returns the sum of a[i*stride+j], i < %d, j < n (n a multiple of %d); it only serves to measure a streaming read.", name, streams, 8*s.L/streams),
		[]arg{{"a", "*" + d.goT}, {"stride", "int"}, {"n", "int"}}, "float64")
	rows := rowPtr[:streams]
	per := 8 / streams
	p("MOVQ a+0(FP), SI")
	p("MOVQ stride+8(FP), CX")
	p("SHLQ $%d, CX", log2(d.size))
	chainPointers(rows)
	p("MOVQ n+16(FP), BX")
	p("SHLQ $%d, BX", log2(d.size))
	for i := 0; i < 8; i++ {
		p("VXORPD %s, %s, %s", s.v(i), s.v(i), s.v(i))
	}
	p("XORQ AX, AX")
	p("TESTQ BX, BX")
	p("JZ reduce")
	label("loop")
	for i := 0; i < 8; i++ {
		mem := fmt.Sprintf("%d(%s)(AX*1)", (i%per)*s.L*d.size, rows[i/per])
		if d.size == 8 {
			p("VADDPD %s, %s, %s", mem, s.v(i), s.v(i))
		} else {
			loadA(s, d, mem, s.v(8+i))
			p("VADDPD %s, %s, %s", s.v(8+i), s.v(i), s.v(i))
		}
	}
	p("ADDQ $%d, AX", per*s.L*d.size)
	p("CMPQ AX, BX")
	p("JB loop")
	label("reduce")
	for i := 1; i < 8; i++ {
		p("VADDPD %s, %s, %s", s.v(i), s.v(0), s.v(0))
	}
	reduce(s, 0)
	p("VMOVSD X0, ret+24(FP)")
	p("VZEROUPPER")
	p("RET")
}

// fmaChains is the number of independent accumulators of multiplyAdds:
// enough to cover the latency of a fused multiply-add on both FMA units.
const fmaChains = 12

// multiplyAdds is the arithmetic floor used by the benchmarks: n rounds of
// fmaChains independent vector fused multiply-adds acc = acc*1 + 1, so
// that every lane ends at n and the sum of all lanes, returned, is the
// number of multiply-adds done.
func multiplyAdds(s isa) {
	name := "multiplyAdds" + s.name
	text(name, fmt.Sprintf("%s does n rounds of %d independent %d-lane fused multiply-adds and returns their number, %d*n; it only serves to measure the arithmetic floor.", name, fmaChains, s.L, fmaChains*s.L),
		[]arg{{"n", "int"}}, "float64")
	one := s.v(14)
	p("MOVQ $0x3ff0000000000000, AX")
	p("VMOVQ AX, %s", x(14))
	p("VBROADCASTSD %s, %s", x(14), one)
	for i := 0; i < fmaChains; i++ {
		p("VXORPD %s, %s, %s", s.v(i), s.v(i), s.v(i))
	}
	p("MOVQ n+0(FP), BX")
	p("TESTQ BX, BX")
	p("JLE reduce")
	label("loop")
	for i := 0; i < fmaChains; i++ {
		p("VFMADD231PD %s, %s, %s", one, one, s.v(i))
	}
	p("DECQ BX")
	p("JNZ loop")
	label("reduce")
	for i := 1; i < fmaChains; i++ {
		p("VADDPD %s, %s, %s", s.v(i), s.v(0), s.v(0))
	}
	reduce(s, 0)
	p("VMOVSD X0, ret+8(FP)")
	p("VZEROUPPER")
	p("RET")
}

// dotAxpyRows is dotRows of g rows of a and axpyRows of g rows of b in one
// sweep over the columns: the rows of a are read from memory while the rows
// of b, whose weights are known, are read from the caches, so memory loads
// stay in flight all along. Every element of out and y gets exactly the
// operations of dotRows and axpyRows, in the same order, so the bits are
// theirs.
//
// Registers: the row pointers advance with the columns (SI for b, R8 for
// a), and the rows are reached from them through the stride multiples
// R13 (1), R9 (3), R10 (5) and R11 (7); DX walks x, R12 walks y, BX counts
// the full vectors.
func dotAxpyRows(s isa, d dtype, g int) {
	name := fmt.Sprintf("dotAxpyRows%d%s%s", g, d.suf, s.name)
	text(name, fmt.Sprintf("%s sets out[r] = sum_{j<n} a[r*stride+j]*x[j] and adds sum_{r<%d} alpha[r]*b[r*stride+j] to y[j] for r < %d, j < n, rows in order.", name, g, g),
		[]arg{{"out", "*float64"}, {"a", "*" + d.goT}, {"y", "*float64"}, {"alpha", "*float64"}, {"b", "*" + d.goT}, {"stride", "int"}, {"n", "int"}, {"x", "*float64"}}, "")
	row := func(base string, r, disp int) string {
		idx := [...]string{"", "(R13*1)", "(R13*2)", "(R9*1)", "(R13*4)", "(R10*1)", "(R9*2)", "(R11*1)"}[r]
		if disp != 0 {
			return fmt.Sprintf("%d(%s)%s", disp, base, idx)
		}
		return fmt.Sprintf("(%s)%s", base, idx)
	}
	// Vector registers: dot accumulators 0 to g-1, x 8, y 9, then the
	// weights and the widened float32 data.
	var alphaR, dotT, axpyT func(int) int
	if s.evex {
		alphaR = func(r int) int { return 16 + r }
		dotT = func(r int) int { return 10 + r%3 }
		axpyT = func(r int) int { return 24 + r%4 }
	} else {
		alphaR = func(r int) int { return 4 + r }
		dotT = func(r int) int { return 10 + r%2 }
		axpyT = func(int) int { return 12 }
	}
	p("MOVQ alpha+24(FP), BX")
	for r := 0; r < g; r++ {
		p("VBROADCASTSD %d(BX), %s", 8*r, s.v(alphaR(r)))
		p("VXORPD %s, %s, %s", s.v(r), s.v(r), s.v(r))
	}
	p("MOVQ a+8(FP), R8")
	p("MOVQ b+32(FP), SI")
	p("MOVQ stride+40(FP), R13")
	p("SHLQ $%d, R13", log2(d.size))
	if g > 2 {
		p("LEAQ (R13)(R13*2), R9")
	}
	if g > 4 {
		p("LEAQ (R13)(R13*4), R10")
		p("LEAQ (R9)(R13*4), R11")
	}
	p("MOVQ x+56(FP), DX")
	p("MOVQ y+16(FP), R12")
	p("MOVQ n+48(FP), BX")
	p("SHRQ $%d, BX", log2(s.L))
	p("JZ tail")
	step := s.L * d.size
	label("loop")
	if fusedPrefetch > 0 {
		// Once per cache line of each row of a.
		if step < 64 {
			p("TESTQ $%d, R8", 64-step)
			p("JNZ nopf")
		}
		for r := 0; r < g; r++ {
			p("%s %s", fusedPrefetchOp, row("R8", r, fusedPrefetch))
		}
		if step < 64 {
			label("nopf")
		}
	}
	p("VMOVUPD (DX), %s", s.v(8))
	p("VMOVUPD (R12), %s", s.v(9))
	for r := 0; r < g; r++ {
		if d.size == 8 {
			p("VFMADD231PD %s, %s, %s", row("R8", r, 0), s.v(8), s.v(r))
			p("VFMADD231PD %s, %s, %s", row("SI", r, 0), s.v(alphaR(r)), s.v(9))
		} else {
			loadA(s, d, row("R8", r, 0), s.v(dotT(r)))
			p("VFMADD231PD %s, %s, %s", s.v(dotT(r)), s.v(8), s.v(r))
			loadA(s, d, row("SI", r, 0), s.v(axpyT(r)))
			p("VFMADD231PD %s, %s, %s", s.v(axpyT(r)), s.v(alphaR(r)), s.v(9))
		}
	}
	p("VMOVUPD %s, (R12)", s.v(9))
	p("ADDQ $%d, R8", step)
	p("ADDQ $%d, SI", step)
	p("ADDQ $%d, DX", 8*s.L)
	p("ADDQ $%d, R12", 8*s.L)
	p("DECQ BX")
	p("JNZ loop")
	label("tail")
	p("MOVQ n+48(FP), CX")
	p("ANDQ $%d, CX", s.L-1)
	p("JZ reduce")
	// The dot products' masked last vector, as in dotRows.
	if s.evex {
		avx512Mask()
	} else {
		avx2Masks(d)
	}
	loadXTail(s, "(DX)", s.v(8))
	for r := 0; r < g; r++ {
		t := s.v(dotT(r))
		loadTail(s, d, row("R8", r, 0), t)
		fmaTail(s, t, s.v(8), s.v(r))
	}
	// The additions' last elements one at a time, as in axpyRows.
	p("MOVQ n+48(FP), CX")
	p("ANDQ $%d, CX", s.L-1)
	label("scalar")
	p("VMOVSD (R12), X9")
	for r := 0; r < g; r++ {
		if d.size == 8 {
			p("VFMADD231SD %s, %s, X9", row("SI", r, 0), x(alphaR(r)))
		} else {
			t := x(axpyT(r))
			p("VCVTSS2SD %s, %s, %s", row("SI", r, 0), t, t)
			p("VFMADD231SD %s, %s, X9", t, x(alphaR(r)))
		}
	}
	p("VMOVSD X9, (R12)")
	p("ADDQ $%d, SI", d.size)
	p("ADDQ $8, R12")
	p("DECQ CX")
	p("JNZ scalar")
	label("reduce")
	p("MOVQ out+0(FP), DI")
	for r := 0; r < g; r++ {
		reduce(s, r)
		p("VMOVSD %s, %d(DI)", x(r), 8*r)
	}
	p("VZEROUPPER")
	p("RET")
}

// fusedGroups returns the row counts of the dotAxpyRows kernels of s: AVX2
// has registers for 4 rows of weights and 4 accumulators at most.
func fusedGroups(s isa) []int {
	if s.evex {
		return []int{1, 2, 4, 8}
	}
	return []int{1, 2, 4}
}

// fusedPrefetch is how far ahead, in bytes, dotAxpyRows prefetches the rows
// it reads from memory (0: not at all), and fusedPrefetchOp with which
// instruction. PREFETCHT1 (into L2 on Zen 4) 2048 bytes ahead measured
// best on Zen 4 for float32 data; PREFETCHT0, which holds a miss buffer of
// L1 per line, or no prefetch at all made the fused pass slower than
// DotRows then AxpyRows.
var (
	fusedPrefetch   = 2048
	fusedPrefetchOp = "PREFETCHT1"
)

var groups = []int{1, 2, 4, 8}

// prefetchDist is how far ahead, in bytes, the float32 row kernels
// prefetch each row.
var prefetchDist = 512

// axpyShapes lists the column widths, in vectors, of the axpy tiles that
// AxpyBatch uses: the full tile, one vector, and 0 for one scalar column.
func axpyShapes(s isa) []int { return []int{0, 1, s.axpyV} }

func main() {
	out := flag.String("out", "..", "directory of package kernel")
	flag.IntVar(&prefetchDist, "pf", prefetchDist, "prefetch distance in bytes of the float32 row kernels")
	flag.IntVar(&fusedPrefetch, "fpf", fusedPrefetch, "prefetch distance in bytes of the fused row kernels (0: none)")
	flag.StringVar(&fusedPrefetchOp, "fpfop", fusedPrefetchOp, "prefetch instruction of the fused row kernels")
	flag.Parse()
	asm.WriteString("// Code generated by internal/kernel/_asm; DO NOT EDIT.\n\n//go:build amd64 && !purego\n\n#include \"textflag.h\"\n\n")
	asm.WriteString("// mask64<>+32-8*t holds t all-ones quadwords then zeros; mask32<>+16-4*t\n// the same in doublewords (AVX2 tails of t < 4 elements).\n")
	for i := 0; i < 8; i++ {
		v := "$0xffffffffffffffff"
		if i >= 4 {
			v = "$0"
		}
		fmt.Fprintf(&asm, "DATA mask64<>+%d(SB)/8, %s\n", 8*i, v)
	}
	asm.WriteString("GLOBL mask64<>(SB), RODATA|NOPTR, $64\n")
	for i := 0; i < 8; i++ {
		v := "$0xffffffff"
		if i >= 4 {
			v = "$0"
		}
		fmt.Fprintf(&asm, "DATA mask32<>+%d(SB)/4, %s\n", 4*i, v)
	}
	asm.WriteString("GLOBL mask32<>(SB), RODATA|NOPTR, $32\n")
	entriesConsts()

	decl.WriteString("// Code generated by internal/kernel/_asm; DO NOT EDIT.\n\n//go:build amd64 && !purego\n\npackage kernel\n")

	for _, s := range []isa{avx2, avx512} {
		for _, d := range []dtype{f64, f32} {
			for _, g := range groups {
				dotRows(s, d, g)
			}
			for _, g := range groups {
				axpyRows(s, d, g)
			}
			for _, g := range fusedGroups(s) {
				dotAxpyRows(s, d, g)
			}
			sum(s, d, 1)
			sum(s, d, 4)
		}
		multiplyAdds(s)
		for r := 1; r <= s.dotMR; r++ {
			for c := 1; c <= s.dotNR; c++ {
				dotTile(s, r, c)
			}
		}
		for c := 1; c <= s.axpyNR; c++ {
			for _, v := range axpyShapes(s) {
				axpyTile(s, c, v)
			}
		}
		for mode := range modeNames {
			for v := 1; v <= maxEntryVectors(s); v++ {
				entriesRow(s, mode, v)
			}
		}
		dispatch(s)
		entriesDispatch(s)
	}
	coordSums(avx2)
	coordMoves(avx2)
	coordMoves(avx512)
	gatherRows(avx2, 4)
	gatherRows(avx2, 2)
	gramTile(avx2)
	axpyIndexedAll()

	src, err := format.Source(decl.Bytes())
	if err != nil {
		log.Fatalf("formatting declarations: %v\n%s", err, decl.Bytes())
	}
	if err := os.WriteFile(filepath.Join(*out, "kernel_amd64.s"), asm.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*out, "kernel_amd64_decl.go"), src, 0o644); err != nil {
		log.Fatal(err)
	}
}

// dispatch writes Go functions that call the kernel of a given shape
// directly (no function values, so that arguments need not escape).
func dispatch(s isa) {
	d := &decl
	fmt.Fprintf(d, "\n// Tile shapes of the %s batched kernels.\nconst (\n", s.name)
	fmt.Fprintf(d, "lanes%s = %d\ndotMR%s = %d\ndotNR%s = %d\naxpyNR%s = %d\naxpyV%s = %d\n)\n",
		s.name, s.L, s.name, s.dotMR, s.name, s.dotNR, s.name, s.axpyNR, s.name, s.axpyV)
	for _, dt := range []dtype{f64, f32} {
		fmt.Fprintf(d, "\nfunc dotRowsG%s%s(g int, out *float64, a *%s, stride, n int, x *float64) {\nswitch g {\n", dt.suf, s.name, dt.goT)
		for _, g := range groups {
			fmt.Fprintf(d, "case %d:\ndotRows%d%s%s(out, a, stride, n, x)\n", g, g, dt.suf, s.name)
		}
		fmt.Fprintf(d, "default:\npanic(\"kernel: bad row group\")\n}\n}\n")
		fmt.Fprintf(d, "\nfunc axpyRowsG%s%s(g int, y, alpha *float64, a *%s, stride, n int) {\nswitch g {\n", dt.suf, s.name, dt.goT)
		for _, g := range groups {
			fmt.Fprintf(d, "case %d:\naxpyRows%d%s%s(y, alpha, a, stride, n)\n", g, g, dt.suf, s.name)
		}
		fmt.Fprintf(d, "default:\npanic(\"kernel: bad row group\")\n}\n}\n")
		fmt.Fprintf(d, "\nfunc dotAxpyRowsG%s%s(g int, out *float64, a *%s, y, alpha *float64, b *%s, stride, n int, x *float64) {\nswitch g {\n", dt.suf, s.name, dt.goT, dt.goT)
		for _, g := range fusedGroups(s) {
			fmt.Fprintf(d, "case %d:\ndotAxpyRows%d%s%s(out, a, y, alpha, b, stride, n, x)\n", g, g, dt.suf, s.name)
		}
		fmt.Fprintf(d, "default:\npanic(\"kernel: bad row group\")\n}\n}\n")
	}
	fg := fusedGroups(s)
	fmt.Fprintf(d, "\n// maxFused%s is the largest row count of the dotAxpyRows kernels.\nconst maxFused%s = %d\n", s.name, s.name, fg[len(fg)-1])
	fmt.Fprintf(d, "\nfunc dotTile%s(r, c int, acc *float64, accs int, a *float64, lda int, x *float64, ldx, n int, pf *float64) {\nswitch r*16 + c {\n", s.name)
	for r := 1; r <= s.dotMR; r++ {
		for c := 1; c <= s.dotNR; c++ {
			fmt.Fprintf(d, "case %d:\ndotTile%dx%d%s(acc, accs, a, lda, x, ldx, n, pf)\n", r*16+c, r, c, s.name)
		}
	}
	fmt.Fprintf(d, "default:\npanic(\"kernel: bad tile\")\n}\n}\n")
	fmt.Fprintf(d, "\n// axpyTile%s calls the c x v tile; v == 0 is the one-column scalar tile.\nfunc axpyTile%s(c, v int, s *float64, lds int, w *float64, ldw int, a *float64, lda, rows, pfo int) {\nswitch c*8 + v {\n", s.name, s.name)
	for c := 1; c <= s.axpyNR; c++ {
		for _, v := range axpyShapes(s) {
			n := fmt.Sprintf("axpyTile%dx%d%s", c, v, s.name)
			if v == 0 {
				n = fmt.Sprintf("axpyTile%dx1s%s", c, s.name)
			}
			fmt.Fprintf(d, "case %d:\n%s(s, lds, w, ldw, a, lda, rows, pfo)\n", c*8+v, n)
		}
	}
	fmt.Fprintf(d, "default:\npanic(\"kernel: bad tile\")\n}\n}\n")
}
