package main

import "fmt"

// Offsets of the fields of kernel.entriesArgs (every field 8 bytes).
const (
	erCols     = 0
	erN        = 8
	erY        = 16
	erZ        = 24
	erL        = 32
	erR        = 40
	erRD       = 48
	erLD       = 56
	erG        = 64
	erGR       = 72
	erS        = 80
	erRowBound = 88
	erColBound = 96
	erSums     = 104
	erR8       = 112 // r*8, the byte offset of a GR row's kept sums
)

// Modes of entriesRow: the weight of a residual, and with modeY32 added,
// float32 observations.
const (
	modeLinear  = 0
	modeSign    = 1
	modeTrimmed = 2
	modeY32     = 3
)

var modeNames = [...]string{"Linear", "Sign", "Trimmed", "Linear32", "Sign32", "Trimmed32"}

// maxEntryVectors is the most vectors a factor row of entriesRow spans:
// ranks up to 16 on AVX-512 (2 zmm), up to 12 on AVX2 (3 ymm), where the
// sixteen registers run out.
func maxEntryVectors(s isa) int {
	if s.evex {
		return 2
	}
	return 3
}

// entriesRow evaluates the entries (i, j) of one row segment of the
// completion operator, as Entries.evaluateRow does: for each entry, the
// fit L_i·R_j (one vector accumulator, element a in lane a mod L, the
// lanes reduced by reduce's tree: the bits of dotRows), the residual
// z = fit - y stored, its weight w (z; sign(z); or, trimmed, z where |z|
// is within max(rowBound, colBound[j]), whose |z|, count and z² (fused)
// then add
// to the row's sums and |z| and 1 to the column's past GR's row j), then
// g += w·R_j (kept in registers) and GR_j += w·L_i, one fused
// multiply-add per element in entry order. V is the number of vectors of
// the rank r (the last masked to r - (V-1)L lanes).
//
// Registers: AX the arguments, R8 cols, R9 the entry, R10 colBound, R11
// y, R12 z, R13 R's data, DX R's stride and SI GR's stride in bytes, DI GR,
// BX R_j, CX GR_j. Vectors: L_i in 0..V-1, g in V..2V-1, the fit in 2V,
// w in 2V+1, a temporary 2V+2; row sums |z|, count, z² in X9, X10, X11;
// X12 and X15 scalar temporaries; 13 the reduction temporary, Y14 AVX2's
// tail mask. The modes from modeY32 on read float32 observations (y
// converted to float64 exactly) and weigh as mode - modeY32.
func entriesRow(s isa, mode, V int) {
	name := fmt.Sprintf("entriesRow%s%d%s", modeNames[mode], V, s.name)
	y32 := mode >= modeY32
	mode %= modeY32
	text(name, fmt.Sprintf("%s evaluates a row segment's entries (kernel.entriesArgs) for ranks of %d vectors.", name, V),
		[]arg{{"a", "*entriesArgs"}}, "")
	li := func(v int) string { return s.v(v) }
	gv := func(v int) string { return s.v(V + v) }
	acc, wv, tmp := 2*V, 2*V+1, 2*V+2
	last := V - 1
	off := func(v int) int { return v * s.L * 8 }
	// masked loads and stores of the last vector
	loadLast := func(mem, dst string) {
		if s.evex {
			p("VMOVUPD.Z %s, K1, %s", mem, dst)
		} else {
			p("VMASKMOVPD %s, Y14, %s", mem, dst)
		}
	}
	storeLast := func(src, mem string) {
		if s.evex {
			p("VMOVUPD %s, K1, %s", src, mem)
		} else {
			p("VMASKMOVPD %s, Y14, %s", src, mem)
		}
	}
	p("MOVQ a+0(FP), AX")
	// The last vector's mask: t = r - (V-1)L lanes, 1..L.
	p("MOVQ %d(AX), CX", erR)
	if last > 0 {
		p("SUBQ $%d, CX", last*s.L)
	}
	if s.evex {
		avx512Mask()
	} else {
		avx2Masks(f64)
	}
	p("MOVQ %d(AX), BX", erL)
	for v := 0; v < last; v++ {
		p("VMOVUPD %d(BX), %s", off(v), li(v))
	}
	loadLast(fmt.Sprintf("%d(BX)", off(last)), li(last))
	p("MOVQ %d(AX), BX", erG)
	for v := 0; v < last; v++ {
		p("VMOVUPD %d(BX), %s", off(v), gv(v))
	}
	loadLast(fmt.Sprintf("%d(BX)", off(last)), gv(last))
	if mode == modeTrimmed {
		p("MOVQ %d(AX), BX", erSums)
		p("VMOVSD 0(BX), X9")
		p("VMOVSD 8(BX), X10")
		p("VMOVSD 16(BX), X11")
		p("MOVQ %d(AX), R10", erColBound)
	}
	p("MOVQ %d(AX), R8", erCols)
	p("MOVQ %d(AX), R11", erY)
	p("MOVQ %d(AX), R12", erZ)
	p("MOVQ %d(AX), R13", erRD)
	p("MOVQ %d(AX), DX", erLD)
	p("SHLQ $3, DX")
	p("MOVQ %d(AX), DI", erGR)
	p("MOVQ %d(AX), SI", erS)
	p("SHLQ $3, SI")
	p("XORQ R9, R9")
	p("CMPQ R9, %d(AX)", erN)
	p("JGE done")
	label("loop")
	p("MOVLQSX (R8)(R9*4), BX")
	if mode == modeTrimmed {
		// the bound of (i, j), before BX turns into R_j
		p("VMOVSD (R10)(BX*8), X15")
		p("VMAXSD %d(AX), X15, X15", erRowBound)
	}
	p("MOVQ BX, CX")
	p("IMULQ DX, BX")
	p("ADDQ R13, BX")
	p("IMULQ SI, CX")
	p("ADDQ DI, CX")
	// the fit
	a := s.v(acc)
	if last == 0 {
		if s.evex {
			p("VMULPD.Z (BX), %s, K1, %s", li(0), a)
		} else {
			loadLast("(BX)", s.v(tmp))
			p("VMULPD %s, %s, %s", s.v(tmp), li(0), a)
		}
	} else {
		p("VMULPD (BX), %s, %s", li(0), a)
		for v := 1; v < last; v++ {
			p("VFMADD231PD %d(BX), %s, %s", off(v), li(v), a)
		}
		if s.evex {
			p("VFMADD231PD %d(BX), %s, K1, %s", off(last), li(last), a)
		} else {
			loadLast(fmt.Sprintf("%d(BX)", off(last)), s.v(tmp))
			p("VFMADD231PD %s, %s, %s", s.v(tmp), li(last), a)
		}
	}
	reduce(s, acc)
	r := x(acc)
	if y32 {
		p("VCVTSS2SD (R11)(R9*4), X12, X12")
		p("VSUBSD X12, %s, %s", r, r)
	} else {
		p("VSUBSD (R11)(R9*8), %s, %s", r, r)
	}
	p("VMOVSD %s, (R12)(R9*8)", r)
	switch mode {
	case modeTrimmed:
		// |z| in X12; kept if |z| <= bound (a NaN is not)
		p("VANDPD absmask<>(SB), %s, X12", r)
		p("VUCOMISD X15, X12")
		p("JA next")
		p("JP next")
		p("VADDSD X12, X9, X9")
		p("VADDSD one<>(SB), X10, X10")
		p("VFMADD231SD %s, %s, X11", r, r)
		p("ADDQ %d(AX), CX", erR8)
		p("VADDSD (CX), X12, X12")
		p("VMOVSD X12, (CX)")
		p("VMOVSD 8(CX), X12")
		p("VADDSD one<>(SB), X12, X12")
		p("VMOVSD X12, 8(CX)")
		p("SUBQ %d(AX), CX", erR8)
	}
	// a zero weight adds nothing; a NaN residual is added, but weighs 0
	// under the sign (as scaledsm's weigh has it)
	p("VXORPD X12, X12, X12")
	p("VUCOMISD X12, %s", r)
	if mode == modeSign {
		p("JP next")
	} else {
		p("JP weigh")
	}
	p("JE next")
	label("weigh")
	if mode == modeSign {
		p("VANDPD signmask<>(SB), %s, %s", r, r)
		p("VORPD one<>(SB), %s, %s", r, r)
	}
	w := s.v(wv)
	p("VBROADCASTSD %s, %s", r, w)
	// g += w·R_j
	for v := 0; v < last; v++ {
		p("VFMADD231PD %d(BX), %s, %s", off(v), w, gv(v))
	}
	if s.evex {
		p("VFMADD231PD %d(BX), %s, K1, %s", off(last), w, gv(last))
	} else {
		loadLast(fmt.Sprintf("%d(BX)", off(last)), s.v(tmp))
		p("VFMADD231PD %s, %s, %s", s.v(tmp), w, gv(last))
	}
	// GR_j += w·L_i
	t := s.v(tmp)
	for v := 0; v < last; v++ {
		p("VMOVUPD %d(CX), %s", off(v), t)
		p("VFMADD231PD %s, %s, %s", li(v), w, t)
		p("VMOVUPD %s, %d(CX)", t, off(v))
	}
	loadLast(fmt.Sprintf("%d(CX)", off(last)), t)
	p("VFMADD231PD %s, %s, %s", li(last), w, t)
	storeLast(t, fmt.Sprintf("%d(CX)", off(last)))
	label("next")
	p("INCQ R9")
	p("CMPQ R9, %d(AX)", erN)
	p("JLT loop")
	label("done")
	p("MOVQ %d(AX), BX", erG)
	for v := 0; v < last; v++ {
		p("VMOVUPD %s, %d(BX)", gv(v), off(v))
	}
	storeLast(gv(last), fmt.Sprintf("%d(BX)", off(last)))
	if mode == modeTrimmed {
		p("MOVQ %d(AX), BX", erSums)
		p("VMOVSD X9, 0(BX)")
		p("VMOVSD X10, 8(BX)")
		p("VMOVSD X11, 16(BX)")
	}
	p("VZEROUPPER")
	p("RET")
}

// entriesConsts are the constants of entriesRow.
func entriesConsts() {
	asm.WriteString("DATA absmask<>+0(SB)/8, $0x7fffffffffffffff\nDATA absmask<>+8(SB)/8, $0x7fffffffffffffff\nGLOBL absmask<>(SB), RODATA|NOPTR, $16\n")
	asm.WriteString("DATA signmask<>+0(SB)/8, $0x8000000000000000\nDATA signmask<>+8(SB)/8, $0x8000000000000000\nGLOBL signmask<>(SB), RODATA|NOPTR, $16\n")
	asm.WriteString("DATA one<>+0(SB)/8, $0x3ff0000000000000\nDATA one<>+8(SB)/8, $0x3ff0000000000000\nGLOBL one<>(SB), RODATA|NOPTR, $16\n")
}

// entriesDispatch writes the Go function that calls the kernel of a mode
// and a vector count.
func entriesDispatch(s isa) {
	d := &decl
	fmt.Fprintf(d, "\n// maxEntryVectors%s is the most vectors of a factor row that entriesRow%s takes.\nconst maxEntryVectors%s = %d\n", s.name, s.name, s.name, maxEntryVectors(s))
	fmt.Fprintf(d, "\nfunc entriesRow%s(mode, v int, a *entriesArgs) {\nswitch mode*8 + v {\n", s.name)
	for mode := range modeNames {
		for v := 1; v <= maxEntryVectors(s); v++ {
			fmt.Fprintf(d, "case %d:\nentriesRow%s%d%s(a)\n", mode*8+v, modeNames[mode], v, s.name)
		}
	}
	fmt.Fprintf(d, "default:\npanic(\"kernel: bad entries kernel\")\n}\n}\n")
}
