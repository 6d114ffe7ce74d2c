package main

import "fmt"

// The kernels of a coordinate-wise factor sweep (package recommend's
// sampler), AVX2 only: they serve the AVX-512 implementation too, their
// work being four-wide transposes and short sums.

// Offsets of the fields of kernel.gatherArgs (every field 8 bytes).
const (
	gaZC    = 0
	gaN     = 8
	gaRes   = 16
	gaX     = 24
	gaK4    = 32
	gaIdx   = 40
	gaVals  = 48
	gaOther = 56
	gaD     = 64
	gaBase  = 72
	gaM     = 80
	gaBias  = 88
)

// gatherAhead is how many groups of four ratings ahead gatherRows fetches
// rows.
const gatherAhead = 2

// coordSums emits coordSumsAvx2(res, w, zp, z *float64, n int, delta
// float64, out *float64): for e < n8 = n &^ 7, res[e] -= delta * zp[e]
// (one fused multiply-add), then a = Σ w[e] z[e]² and b = Σ w[e] z[e]
// res[e], each with two vector accumulators (elements e in vector e/4 mod
// 2, lane e mod 4), added, and their lanes reduced by reduce's tree; then
// the n - n8 elements left in coordSumsGeneric's order and roundings as
// the compiler builds it below GOAMD64=v3 (scalar, unfused: two elements
// at a time into a, a1 and b, b1, the odd one into a and b), out[0] =
// a + a1 and out[1] = b + b1.
func coordSums(s isa) {
	name := "coordSums" + s.name
	text(name, name+" moves the residuals by the last coordinate's change and sums the next coordinate's statistics (kernel.CoordSums).",
		[]arg{{"res", "*float64"}, {"w", "*float64"}, {"zp", "*float64"}, {"z", "*float64"}, {"n", "int"}, {"delta", "float64"}, {"out", "*float64"}}, "")
	p("MOVQ res+0(FP), DI")
	p("MOVQ w+8(FP), SI")
	p("MOVQ zp+16(FP), R8")
	p("MOVQ z+24(FP), R9")
	p("MOVQ n+32(FP), DX")
	p("SHLQ $3, DX")
	p("MOVQ DX, CX")
	p("ANDQ $-64, CX")
	p("VBROADCASTSD delta+40(FP), Y15")
	coordSumsBody()
	p("MOVQ out+48(FP), DX")
	p("VMOVSD X0, (DX)")
	p("VMOVSD X2, 8(DX)")
	p("VZEROUPPER")
	p("RET")
}

// coordSumsBody emits coordSums's loops, once in a function (its labels
// are fixed): DI res, SI w, R8 zp, R9 z, DX n in bytes, CX n8 in bytes,
// Y15 delta in every lane; a in X0 and b in X2 (the upper lanes of X0 to
// X3 cleared), AX, BX, Y1 and Y3 to Y13 clobbered.
func coordSumsBody() {
	for i := 0; i < 4; i++ {
		p("VXORPD %s, %s, %s", y(i), y(i), y(i))
	}
	p("XORQ AX, AX")
	p("TESTQ CX, CX")
	p("JZ reduced")
	label("loop")
	for h := 0; h < 2; h++ {
		off := 32 * h
		r, z, wz := y(4+h), y(6+h), y(8+h)
		p("VMOVUPD %d(DI)(AX*1), %s", off, r)
		p("VFNMADD231PD %d(R8)(AX*1), Y15, %s", off, r)
		p("VMOVUPD %s, %d(DI)(AX*1)", r, off)
		p("VMOVUPD %d(R9)(AX*1), %s", off, z)
		p("VMULPD %d(SI)(AX*1), %s, %s", off, z, wz)
		p("VFMADD231PD %s, %s, %s", wz, z, y(h))
		p("VFMADD231PD %s, %s, %s", wz, r, y(2+h))
	}
	p("ADDQ $64, AX")
	p("CMPQ AX, CX")
	p("JB loop")
	p("VADDPD Y1, Y0, Y0")
	p("VADDPD Y3, Y2, Y2")
	reduce(avx2, 0)
	reduce(avx2, 2)
	label("reduced")
	// The tail: X0 a, X1 a1, X2 b, X3 b1 (the VEX xors clear the upper
	// lanes too), X15 delta.
	p("VXORPD X1, X1, X1")
	p("VXORPD X3, X3, X3")
	// step emits one element's update at byte offset off into the sums
	// x(h) and x(2+h), in registers of its own for each h.
	step := func(off, h int) {
		r, t, wz, q := x(4+2*h), x(5+2*h), x(8+h), x(10+h)
		p("VMULSD %d(R8)(AX*1), X15, %s", off, t)
		p("VMOVSD %d(DI)(AX*1), %s", off, r)
		p("VSUBSD %s, %s, %s", t, r, r)
		p("VMOVSD %s, %d(DI)(AX*1)", r, off)
		p("VMOVSD %d(SI)(AX*1), %s", off, wz)
		p("VMULSD %d(R9)(AX*1), %s, %s", off, wz, wz)
		p("VMULSD %d(R9)(AX*1), %s, %s", off, wz, q)
		p("VADDSD %s, %s, %s", q, x(h), x(h))
		p("VMULSD %s, %s, %s", r, wz, q)
		p("VADDSD %s, %s, %s", q, x(2+h), x(2+h))
	}
	label("pair")
	p("LEAQ 16(AX), BX")
	p("CMPQ BX, DX")
	p("JA single")
	step(0, 0)
	step(8, 1)
	p("MOVQ BX, AX")
	p("JMP pair")
	label("single")
	p("CMPQ AX, DX")
	p("JAE done")
	step(0, 0)
	label("done")
	p("VADDSD X1, X0, X0")
	p("VADDSD X3, X2, X2")
}

// Offsets of the fields of kernel.movesArgs (every field 8 bytes).
const (
	maRes   = 0
	maW     = 8
	maPrev  = 16
	maCols  = 24
	maN     = 32
	maK8    = 40
	maX     = 48
	maLam   = 56
	maLamMu = 64
	maNorm  = 72
	maD8    = 80
	maDelta = 88
	maFull  = 96
)

// coordMoves emits coordMoves<isa>(a *movesArgs), kernel.CoordMoves: for
// each coordinate j < k in turn, coordSums's loops (the AVX2 code for
// both instruction sets) on the residuals with the column before (the
// given one for j = 0) and column j, then the prior's pull, the dot
// product of row j of the precision with the row x in dotRows1's order
// and roundings for s (one accumulator, the last partial vector masked,
// reduce's tree), then the move as package recommend's Go code rounds it
// below GOAMD64=v3 (unfused, in its order):
//
//	num = ((lamMu[j] + b) + old*a) - (dot - lam[j][j]*old)
//	h = lam[j][j] + a
//	x[j] = num/h + norm[j]/sqrt(h)
//	delta = x[j] - old
//
// and the last delta back in a.delta.
//
// Registers: R12 the arguments; coordSumsBody's (DI, SI, R8, R9, DX, CX,
// AX, BX; Y15 delta); R10 x, R11 the precision's row j, R13 lamMu, R14
// norm, R15 j in bytes; the dot product in Y1/Z1 (Y3/Z3 x, Y4/Z4 the
// row's tail, K1 or Y14 the tail's mask, set once); the move in X5 to X9.
func coordMoves(s isa) {
	name := "coordMoves" + s.name
	text(name, name+" draws a row's coordinates in turn (kernel.CoordMoves).",
		[]arg{{"a", "*movesArgs"}}, "")
	p("MOVQ a+0(FP), R12")
	// The dot product's full vectors end at byte full; its tail's mask.
	p("MOVQ %d(R12), CX", maD8)
	p("MOVQ CX, BX")
	p("ANDQ $%d, BX", -8*s.L)
	p("MOVQ BX, %d(R12)", maFull)
	p("SHRQ $3, CX")
	p("ANDQ $%d, CX", s.L-1)
	if s.evex {
		avx512Mask()
	} else {
		avx2Masks(f64)
	}
	p("MOVQ %d(R12), DI", maRes)
	p("MOVQ %d(R12), SI", maW)
	p("MOVQ %d(R12), R8", maPrev)
	p("MOVQ %d(R12), R9", maCols)
	p("MOVQ %d(R12), DX", maN)
	p("SHLQ $3, DX")
	p("MOVQ DX, CX")
	p("ANDQ $-64, CX")
	p("MOVQ %d(R12), R10", maX)
	p("MOVQ %d(R12), R11", maLam)
	p("MOVQ %d(R12), R13", maLamMu)
	p("MOVQ %d(R12), R14", maNorm)
	p("VMOVSD %d(R12), X15", maDelta)
	p("XORQ R15, R15")
	label("coord")
	p("VBROADCASTSD X15, Y15")
	coordSumsBody()
	// The prior's pull: dot = lam[j]·x.
	p("VXORPD %s, %s, %s", s.v(1), s.v(1), s.v(1))
	p("XORQ AX, AX")
	p("MOVQ %d(R12), BX", maFull)
	p("TESTQ BX, BX")
	p("JZ dtail")
	label("dloop")
	p("VMOVUPD (R10)(AX*1), %s", s.v(3))
	p("VFMADD231PD (R11)(AX*1), %s, %s", s.v(3), s.v(1))
	p("ADDQ $%d, AX", 8*s.L)
	p("CMPQ AX, BX")
	p("JB dloop")
	label("dtail")
	p("TESTQ $%d, %d(R12)", 8*s.L-8, maD8)
	p("JZ dreduce")
	loadXTail(s, "(R10)(AX*1)", s.v(3))
	loadTail(s, f64, "(R11)(AX*1)", s.v(4))
	fmaTail(s, s.v(4), s.v(3), s.v(1))
	label("dreduce")
	reduce(s, 1)
	// The move: X5 old, X6 lam[j][j] then h, X7 num then x[j].
	p("VMOVSD (R10)(R15*1), X5")
	p("VMOVSD (R11)(R15*1), X6")
	p("VMOVSD (R13)(R15*1), X7")
	p("VADDSD X2, X7, X7")
	p("VMULSD X0, X5, X8")
	p("VADDSD X8, X7, X7")
	p("VMULSD X5, X6, X8")
	p("VSUBSD X8, X1, X9")
	p("VSUBSD X9, X7, X7")
	p("VADDSD X0, X6, X6")
	p("VDIVSD X6, X7, X7")
	p("VSQRTSD X6, X6, X8")
	p("VMOVSD (R14)(R15*1), X9")
	p("VDIVSD X8, X9, X9")
	p("VADDSD X9, X7, X7")
	p("VMOVSD X7, (R10)(R15*1)")
	p("VSUBSD X5, X7, X15")
	// The next coordinate: its column, the precision's next row.
	p("MOVQ R9, R8")
	p("ADDQ DX, R9")
	p("ADDQ %d(R12), R11", maD8)
	p("ADDQ $8, R15")
	p("CMPQ R15, %d(R12)", maK8)
	p("JB coord")
	p("VMOVSD X15, %d(R12)", maDelta)
	p("VZEROUPPER")
	p("RET")
}

// gatherRows emits gatherRowsAvx2(a *gatherArgs) for 4-byte signed
// offsets idx (w 4), or gatherRows16Avx2 for 2-byte unsigned ones (w 2):
// for each group of four ratings e < m (a multiple of 4), the rows R_i = other[idx[e+i]*d:] of
// the other side, their first k = bias values stored by dimension,
// zc[j*n + e + i] = R_i[j] (four-by-four transposes for the first k4, a
// multiple of 4, then one by one), and the residual res[e+i] = vals[e+i] -
// base - R_i[k] - x·R_i[:k] (one vector accumulator per rating for the
// first k4 dimensions, dimension j in lane j mod 4, the lanes reduced by
// reduce's tree, then a scalar one for the rest, added last).
//
// Registers: AX the arguments (whose m and idx fields the kernel steps),
// DI zc at rating e, SI res, R8 x, R9 idx (in a group: the column
// pointer), R10 vals, R11 other, R12 d in bytes (in a group: k4 in
// bytes), R13 n in bytes, CX the ratings left (in a group: the
// dimension's byte offset, then the bias's), R14, R15, DX and BX the four
// rows. Vectors: Y0-Y3 the dot accumulators, Y4-Y7 the rows, Y8-Y11 the
// transposes, Y12 x, Y14 base, Y13 the reduction temporary.
func gatherRows(s isa, w int) {
	load, name := "MOVLQSX", "gatherRows"+s.name
	if w == 2 {
		load, name = "MOVWQZX", "gatherRows16"+s.name
	}
	text(name, name+" gathers four ratings' rows at a time by dimension, with their residuals (kernel.GatherRows).",
		[]arg{{"a", "*gatherArgs"}}, "")
	p("MOVQ a+0(FP), AX")
	p("MOVQ %d(AX), DI", gaZC)
	p("MOVQ %d(AX), SI", gaRes)
	p("MOVQ %d(AX), R8", gaX)
	p("MOVQ %d(AX), R9", gaIdx)
	p("MOVQ %d(AX), R10", gaVals)
	p("MOVQ %d(AX), R11", gaOther)
	p("MOVQ %d(AX), R12", gaD)
	p("SHLQ $3, R12")
	p("MOVQ %d(AX), R13", gaN)
	p("SHLQ $3, R13")
	p("MOVQ %d(AX), CX", gaBias)
	p("SHLQ $3, CX")
	p("MOVQ CX, %d(AX)", gaBias) // k in bytes from here on
	p("VBROADCASTSD %d(AX), Y14", gaBase)
	p("MOVQ %d(AX), CX", gaM)
	p("TESTQ CX, CX")
	p("JZ done")
	rows := []string{"R14", "R15", "DX", "BX"}
	label("group")
	// The four rows' addresses.
	for i, r := range rows {
		p("%s %d(R9), %s", load, w*i, r)
		p("IMULQ R12, %s", r)
		p("ADDQ R11, %s", r)
	}
	for i := 0; i < 4; i++ {
		p("VXORPD %s, %s, %s", y(i), y(i), y(i))
		p("VXORPD %s, %s, %s", y(8+i), y(8+i), y(8+i))
	}
	// The ratings left wait in the arguments while CX steps the
	// dimensions.
	p("MOVQ CX, %d(AX)", gaM)
	// The rows of the group after next, fetched while this one is made
	// (their first and last bytes).
	p("CMPQ CX, $%d", 4*(gatherAhead+1))
	p("JB fetched")
	for i := range 4 {
		p("%s %d(R9), CX", load, w*(4*gatherAhead+i))
		p("IMULQ R12, CX")
		p("ADDQ R11, CX")
		p("PREFETCHT0 (CX)")
		p("PREFETCHT0 -8(CX)(R12*1)")
	}
	label("fetched")
	p("XORQ CX, CX")
	p("MOVQ DI, R9") // the column pointer: zc + j*n + e
	p("MOVQ %d(AX), R12", gaK4)
	p("SHLQ $3, R12") // k4 in bytes
	p("TESTQ R12, R12")
	p("JZ tail")
	label("dims")
	p("VMOVUPD (R8)(CX*1), Y12")
	for i, r := range rows {
		p("VMOVUPD (%s)(CX*1), %s", r, y(4+i))
		p("VFMADD231PD Y12, %s, %s", y(4+i), y(i))
	}
	p("VUNPCKLPD Y5, Y4, Y8")
	p("VUNPCKHPD Y5, Y4, Y9")
	p("VUNPCKLPD Y7, Y6, Y10")
	p("VUNPCKHPD Y7, Y6, Y11")
	p("VPERM2F128 $0x20, Y10, Y8, Y4")
	p("VPERM2F128 $0x20, Y11, Y9, Y5")
	p("VPERM2F128 $0x31, Y10, Y8, Y6")
	p("VPERM2F128 $0x31, Y11, Y9, Y7")
	for c := 0; c < 4; c++ {
		p("VMOVUPD %s, (R9)", y(4+c))
		p("ADDQ R13, R9")
	}
	p("ADDQ $32, CX")
	p("CMPQ CX, R12")
	p("JB dims")
	p("VXORPD Y8, Y8, Y8") // the transposes' registers, now the scalar sums
	p("VXORPD Y9, Y9, Y9")
	p("VXORPD Y10, Y10, Y10")
	p("VXORPD Y11, Y11, Y11")
	label("tail")
	// The dimensions from k4 to k, one at a time.
	p("CMPQ CX, %d(AX)", gaBias)
	p("JAE residuals")
	p("VMOVSD (R8)(CX*1), X12")
	for i, r := range rows {
		p("VMOVSD (%s)(CX*1), %s", r, x(4+i))
		p("VMOVSD %s, %d(R9)", x(4+i), 8*i)
		p("VFMADD231SD X12, %s, %s", x(4+i), x(8+i))
	}
	p("ADDQ R13, R9")
	p("ADDQ $8, CX")
	p("JMP tail")
	label("residuals")
	// The residuals: vals - base - bias - dot.
	p("MOVQ %d(AX), CX", gaBias)
	for i, r := range rows {
		reduce(s, i)
		p("VADDSD %s, %s, %s", x(8+i), x(i), x(i))
		p("VCVTSS2SD %d(R10), X8, X8", 4*i)
		p("VSUBSD X14, X8, X8")
		p("VSUBSD (%s)(CX*1), X8, X8", r)
		p("VSUBSD %s, X8, X8", x(i))
		p("VMOVSD X8, %d(SI)", 8*i)
	}
	// Restore the pointers that the group moved, and step to the next.
	p("MOVQ %d(AX), R12", gaD)
	p("SHLQ $3, R12")
	p("MOVQ %d(AX), R9", gaIdx)
	p("ADDQ $%d, R9", 4*w)
	p("MOVQ R9, %d(AX)", gaIdx)
	p("ADDQ $16, R10")
	p("ADDQ $32, SI")
	p("ADDQ $32, DI")
	p("MOVQ %d(AX), CX", gaM)
	p("SUBQ $4, CX")
	p("JNZ group")
	label("done")
	p("VZEROUPPER")
	p("RET")
}

// gramTile emits gramTileAvx2(acc, xi, xj *float64, stride, nr int): for
// each of nr rows, stride bytes apart, acc[a*8+b] += xi[a]·xj[b] for a < 4
// and b < 8, the product rounded and then added (VMULPD, VADDPD: the bits
// of the scalar loop over the rows). Registers: DI acc, SI xi, R8 xj, DX
// the stride, CX the rows left; Y0-Y7 the accumulators (row a in Y2a and
// Y2a+1), Y8 and Y9 the row's eight columns, Y10 xi[a], Y11 and Y12 the
// products.
func gramTile(s isa) {
	name := "gramTile" + s.name
	text(name, name+" adds a 4×8 block of a Gram's products over rows (kernel.GramTile).",
		[]arg{{"acc", "*float64"}, {"xi", "*float64"}, {"xj", "*float64"}, {"stride", "int"}, {"nr", "int"}}, "")
	p("MOVQ acc+0(FP), DI")
	p("MOVQ xi+8(FP), SI")
	p("MOVQ xj+16(FP), R8")
	p("MOVQ stride+24(FP), DX")
	p("MOVQ nr+32(FP), CX")
	for a := range 8 {
		p("VMOVUPD %d(DI), %s", 32*a, y(a))
	}
	p("TESTQ CX, CX")
	p("JZ done")
	label("loop")
	p("VMOVUPD (R8), Y8")
	p("VMOVUPD 32(R8), Y9")
	for a := range 4 {
		p("VBROADCASTSD %d(SI), Y10", 8*a)
		p("VMULPD Y8, Y10, Y11")
		p("VADDPD Y11, %s, %s", y(2*a), y(2*a))
		p("VMULPD Y9, Y10, Y12")
		p("VADDPD Y12, %s, %s", y(2*a+1), y(2*a+1))
	}
	p("ADDQ DX, SI")
	p("ADDQ DX, R8")
	p("DECQ CX")
	p("JNZ loop")
	label("done")
	for a := range 8 {
		p("VMOVUPD %s, %d(DI)", y(a), 32*a)
	}
	p("VZEROUPPER")
	p("RET")
}

// axpyIndexedVectors is the most full vectors of columns (of four) one
// call of the AxpyGather and AxpyScatter kernels takes.
const axpyIndexedVectors = 8

// axpyIndexed emits the AVX2 kernels of AxpyGather and AxpyScatter over a
// band of v full vectors of columns and t (0 to 3) more: for each e < n in
// order whose alpha[e] is not 0 (a NaN is not), gather adds alpha[e]·a_row
// to y and scatter adds alpha[e]·x to the row of y, the row that of idx[e]
// (ld bytes apart), each product rounded and then added (VMULPD, VADDPD;
// VMULSD, VADDSD on the t last columns, with no masked stores, which cost
// a row what its vectors do): the bits of the scalar loop. Registers: DI
// y, SI alpha, R8 idx, R9 a (gather) or the rows of y (scatter), CX the
// ratings left, DX ld, R10 the row; Y0-Y7 the band's vectors and X8-X10
// its last columns (the sums of gather, x for scatter), X13 zero, Y15
// alpha[e], Y11 and Y12 the products.
func axpyIndexed(scatter bool, v, t int) {
	kind := "Gather"
	if scatter {
		kind = "Scatter"
	}
	name := fmt.Sprintf("axpy%s%dx%dAvx2", kind, v, t)
	text(name, name+" is kernel.Axpy"+kind+" on a band of columns (see axpyIndexed in _asm).",
		[]arg{{"y", "*float64"}, {"alpha", "*float64"}, {"idx", "*int32"}, {"a", "*float64"}, {"n", "int"}, {"ld", "int"}}, "")
	p("MOVQ y+0(FP), DI")
	p("MOVQ alpha+8(FP), SI")
	p("MOVQ idx+16(FP), R8")
	p("MOVQ a+24(FP), R9")
	p("MOVQ n+32(FP), CX")
	p("MOVQ ld+40(FP), DX")
	band := "DI" // gather's sums, scatter's x
	if scatter {
		band = "R9"
	}
	for j := range v {
		p("VMOVUPD %d(%s), %s", 32*j, band, y(j))
	}
	for c := range t {
		p("VMOVSD %d(%s), %s", 32*v+8*c, band, x(8+c))
	}
	if scatter {
		p("MOVQ DI, R9") // R9 now the rows of y
	}
	p("VXORPD X13, X13, X13")
	p("TESTQ CX, CX")
	p("JZ done")
	label("loop")
	p("VMOVSD (SI), X15")
	p("VUCOMISD X13, X15")
	p("JNE row")
	p("JPS row") // a NaN: added
	p("JMP next")
	label("row")
	p("MOVLQSX (R8), R10")
	p("IMULQ DX, R10")
	p("ADDQ R9, R10")
	p("VBROADCASTSD X15, Y15")
	for j := range v {
		if scatter {
			p("VMULPD %s, Y15, Y12", y(j))
			p("VADDPD %d(R10), Y12, Y12", 32*j)
			p("VMOVUPD Y12, %d(R10)", 32*j)
		} else {
			p("VMULPD %d(R10), Y15, Y12", 32*j)
			p("VADDPD Y12, %s, %s", y(j), y(j))
		}
	}
	for c := range t {
		off := 32*v + 8*c
		if scatter {
			p("VMULSD %s, X15, X11", x(8+c))
			p("VADDSD %d(R10), X11, X11", off)
			p("VMOVSD X11, %d(R10)", off)
		} else {
			p("VMULSD %d(R10), X15, X11", off)
			p("VADDSD X11, %s, %s", x(8+c), x(8+c))
		}
	}
	label("next")
	p("ADDQ $8, SI")
	p("ADDQ $4, R8")
	p("DECQ CX")
	p("JNZ loop")
	label("done")
	if !scatter {
		for j := range v {
			p("VMOVUPD %s, %d(DI)", y(j), 32*j)
		}
		for c := range t {
			p("VMOVSD %s, %d(DI)", x(8+c), 32*v+8*c)
		}
	}
	p("VZEROUPPER")
	p("RET")
}

// axpyIndexedAll emits the bands of the AxpyGather and AxpyScatter
// kernels, 0 to axpyIndexedVectors full vectors and 0 to 3 more columns,
// and the Go switches that call them.
func axpyIndexedAll() {
	for _, scatter := range []bool{false, true} {
		for v := 0; v <= axpyIndexedVectors; v++ {
			for t := range 4 {
				if v+t > 0 {
					axpyIndexed(scatter, v, t)
				}
			}
		}
	}
	d := &decl
	fmt.Fprintf(d, "\n// axpyIndexedBand is the most columns of one call of the AxpyGather and\n// AxpyScatter kernels.\nconst axpyIndexedBand = %d\n", 4*axpyIndexedVectors)
	for _, kind := range []string{"Gather", "Scatter"} {
		fmt.Fprintf(d, "\n// axpy%sBand calls the kernel of w columns.\nfunc axpy%sBand(w int, y, alpha *float64, idx *int32, a *float64, n, ld int) {\nswitch w {\n", kind, kind)
		for w := 1; w <= 4*axpyIndexedVectors; w++ {
			fmt.Fprintf(d, "case %d:\naxpy%s%dx%dAvx2(y, alpha, idx, a, n, ld)\n", w, kind, w/4, w%4)
		}
		fmt.Fprintf(d, "default:\npanic(\"kernel: bad band\")\n}\n}\n")
	}
}
