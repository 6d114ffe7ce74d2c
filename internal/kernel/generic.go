package kernel

// The portable implementation. Products are wrapped in float64() so that no
// compiler fuses them with the following addition: the generic code rounds
// the same way on every architecture.

// real is the element type of the stored rows.
type real interface{ ~float32 | ~float64 }

// dotGeneric returns sum_j a[j]*x[j] over 4 lanes (j mod 4), the tail in
// lane 0, reduced as (s0+s1)+(s2+s3).
func dotGeneric[T real](a []T, x []float64) float64 {
	x = x[:len(a)]
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+4 <= len(a); j += 4 {
		aa := a[j : j+4 : j+4]
		xx := x[j : j+4 : j+4]
		s0 += float64(float64(aa[0]) * xx[0])
		s1 += float64(float64(aa[1]) * xx[1])
		s2 += float64(float64(aa[2]) * xx[2])
		s3 += float64(float64(aa[3]) * xx[3])
	}
	for ; j < len(a); j++ {
		s0 += float64(float64(a[j]) * x[j])
	}
	return (s0 + s1) + (s2 + s3)
}

// dot2Generic is dotGeneric of two rows with the same x, in one pass.
func dot2Generic[T real](a0, a1 []T, x []float64) (float64, float64) {
	a0 = a0[:len(x)]
	a1 = a1[:len(x)]
	var s0, s1, s2, s3, t0, t1, t2, t3 float64
	j := 0
	for ; j+4 <= len(x); j += 4 {
		xx := x[j : j+4 : j+4]
		p := a0[j : j+4 : j+4]
		q := a1[j : j+4 : j+4]
		s0 += float64(float64(p[0]) * xx[0])
		t0 += float64(float64(q[0]) * xx[0])
		s1 += float64(float64(p[1]) * xx[1])
		t1 += float64(float64(q[1]) * xx[1])
		s2 += float64(float64(p[2]) * xx[2])
		t2 += float64(float64(q[2]) * xx[2])
		s3 += float64(float64(p[3]) * xx[3])
		t3 += float64(float64(q[3]) * xx[3])
	}
	for ; j < len(x); j++ {
		s0 += float64(float64(a0[j]) * x[j])
		t0 += float64(float64(a1[j]) * x[j])
	}
	return (s0 + s1) + (s2 + s3), (t0 + t1) + (t2 + t3)
}

func dotRowsGeneric[T real](out []float64, a []T, stride, n int, x []float64) {
	x = x[:n]
	k := 0
	for ; k+2 <= len(out); k += 2 {
		out[k], out[k+1] = dot2Generic(a[k*stride:k*stride+n], a[(k+1)*stride:(k+1)*stride+n], x)
	}
	if k < len(out) {
		out[k] = dotGeneric(a[k*stride:k*stride+n], x)
	}
}

// axpyRowsGeneric adds the rows four at a time; each element gets the
// rows' products added one by one in row order.
func axpyRowsGeneric[T real](y, alpha []float64, a []T, stride, n int) {
	y = y[:n]
	k := 0
	for ; k+4 <= len(alpha); k += 4 {
		al := alpha[k : k+4 : k+4]
		al0, al1, al2, al3 := al[0], al[1], al[2], al[3]
		a0 := a[k*stride : k*stride+n]
		a1 := a[(k+1)*stride : (k+1)*stride+n]
		a2 := a[(k+2)*stride : (k+2)*stride+n]
		a3 := a[(k+3)*stride : (k+3)*stride+n]
		a0, a1, a2, a3 = a0[:len(y)], a1[:len(y)], a2[:len(y)], a3[:len(y)]
		for j := range y {
			t := y[j]
			t += float64(al0 * float64(a0[j]))
			t += float64(al1 * float64(a1[j]))
			t += float64(al2 * float64(a2[j]))
			t += float64(al3 * float64(a3[j]))
			y[j] = t
		}
	}
	for ; k < len(alpha); k++ {
		al := alpha[k]
		ak := a[k*stride : k*stride+n]
		ak = ak[:len(y)]
		for j := range y {
			y[j] += float64(al * float64(ak[j]))
		}
	}
}

// dotAxpyRowsGeneric is axpyRowsGeneric of the rows of b then
// dotRowsGeneric of the rows of a (a64, b64 or a32, b32).
func dotAxpyRowsGeneric(out []float64, a64 []float64, a32 []float32, y, alpha []float64, b64 []float64, b32 []float32, stride, n int, x []float64) {
	if len(alpha) > 0 {
		if b32 != nil {
			axpyRowsGeneric(y, alpha, b32, stride, n)
		} else {
			axpyRowsGeneric(y, alpha, b64, stride, n)
		}
	}
	if len(out) > 0 {
		if a32 != nil {
			dotRowsGeneric(out, a32, stride, n, x)
		} else {
			dotRowsGeneric(out, a64, stride, n, x)
		}
	}
}

// dotBatchGeneric runs DotRows of the whole block for each run in turn.
func dotBatchGeneric(out []float64, ldo int, a64 []float64, a32 []float32, lda, rows, n int, x []float64, ldx, runs int) {
	tp := getScratch(rows)
	tmp := *tp
	for b := range runs {
		xb := x[b*ldx : b*ldx+n]
		if a32 != nil {
			dotRowsGeneric(tmp, a32, lda, n, xb)
		} else {
			dotRowsGeneric(tmp, a64, lda, n, xb)
		}
		for k, v := range tmp {
			out[k*ldo+b] = v
		}
	}
	putScratch(tp)
}

// axpyBatchGeneric runs AxpyRows of the whole block for each run in turn.
func axpyBatchGeneric(s []float64, lds int, w []float64, ldw int, a64 []float64, a32 []float32, lda, rows, n, runs int) {
	tp := getScratch(rows)
	alpha := *tp
	for b := range runs {
		for k := range alpha {
			alpha[k] = w[k*ldw+b]
		}
		sb := s[b*lds : b*lds+n]
		if a32 != nil {
			axpyRowsGeneric(sb, alpha, a32, lda, n)
		} else {
			axpyRowsGeneric(sb, alpha, a64, lda, n)
		}
	}
	putScratch(tp)
}

// sumGeneric returns the sum of the elements of a over 4 lanes.
func sumGeneric[T real](a []T) float64 {
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+4 <= len(a); j += 4 {
		aa := a[j : j+4 : j+4]
		s0 += float64(aa[0])
		s1 += float64(aa[1])
		s2 += float64(aa[2])
		s3 += float64(aa[3])
	}
	for ; j < len(a); j++ {
		s0 += float64(a[j])
	}
	return (s0 + s1) + (s2 + s3)
}

// genericOne is 1, in a variable so that the compiler cannot fold the
// products of multiplyAddsGeneric.
var genericOne = 1.0

// multiplyAddsGeneric does rounds rounds of 8 independent chains
// s = s*1 + 1, a multiplication and an addition each as in the generic
// kernels, and returns their number, 8*rounds.
func multiplyAddsGeneric(rounds int) float64 {
	one := genericOne
	var s0, s1, s2, s3, s4, s5, s6, s7 float64
	for range rounds {
		s0 = float64(s0*one) + one
		s1 = float64(s1*one) + one
		s2 = float64(s2*one) + one
		s3 = float64(s3*one) + one
		s4 = float64(s4*one) + one
		s5 = float64(s5*one) + one
		s6 = float64(s6*one) + one
		s7 = float64(s7*one) + one
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}
