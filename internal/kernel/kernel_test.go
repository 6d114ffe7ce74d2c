package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// forEachImpl runs f as a subtest under every implementation this CPU and
// build support, then goes back to the default.
func forEachImpl(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	defer func() {
		if err := Use("auto"); err != nil {
			t.Fatal(err)
		}
	}()
	for _, name := range Available() {
		if err := Use(name); err != nil {
			t.Fatal(err)
		}
		t.Run(name, f)
	}
}

// twoSum and twoProd are error-free transformations: a+b = s+e, a*b = p+e.
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return
}

func twoProd(a, b float64) (p, e float64) {
	p = a * b
	e = math.FMA(a, b, -p)
	return
}

// refDot returns sum_j a[j]*x[j] in double-double precision and the sum of
// the absolute values of the products.
func refDot(a []float64, x []float64) (float64, float64) {
	var hi, lo, abs float64
	for j := range a {
		p, pe := twoProd(a[j], x[j])
		s, se := twoSum(hi, p)
		hi = s
		lo += se + pe
		abs += math.Abs(p)
	}
	return hi + lo, abs
}

// tol is the error bound the tests allow for a sum of n terms whose
// absolute values add up to abs.
func tol(n int, abs float64) float64 {
	return float64(n+4) * 0x1p-52 * abs
}

func widen64(a []float32) []float64 {
	w := make([]float64, len(a))
	for i, v := range a {
		w[i] = float64(v)
	}
	return w
}

// rowData returns rows rows of n random elements, stride apart, starting at
// offset off of the returned slice; the padding holds NaNs so that a kernel
// reading outside the rows shows it.
func rowData(rng *rand.Rand, off, rows, stride, n int) []float64 {
	a := make([]float64, off+rows*stride+3)
	for i := range a {
		a[i] = math.NaN()
	}
	for k := range rows {
		for j := range n {
			a[off+k*stride+j] = rng.NormFloat64()
		}
	}
	return a[off:]
}

func to32(a []float64) []float32 {
	b := make([]float32, len(a))
	for i, v := range a {
		b[i] = float32(v)
	}
	return b
}

func vec(rng *rand.Rand, off, n int) []float64 {
	v := make([]float64, off+n+5)
	for i := range v {
		v[i] = math.NaN()
	}
	for j := range n {
		v[off+j] = rng.NormFloat64()
	}
	return v[off:]
}

var lengths = []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 15, 16, 17, 23, 31, 32, 33, 47, 63, 64, 65, 100, 255, 256, 257, 300, 513}

func same(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

func TestUse(t *testing.T) {
	defer Use("auto")
	if err := Use("bogus"); err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Errorf("Use(bogus) = %v, want an error naming it", err)
	}
	av := Available()
	if !slices.Contains(av, "generic") {
		t.Errorf("Available() = %v lacks generic", av)
	}
	for _, name := range []string{"generic", "avx2", "avx512"} {
		err := Use(name)
		if slices.Contains(av, name) {
			if err != nil {
				t.Errorf("Use(%s): %v", name, err)
			} else if Active() != name {
				t.Errorf("after Use(%s), Active() = %s", name, Active())
			}
		} else if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("Use(%s) on a build or CPU without it = %v, want an error naming it", name, err)
		}
	}
	if err := Use("auto"); err != nil {
		t.Fatal(err)
	}
	if want := av[len(av)-1]; Active() != want {
		t.Errorf("auto picked %s, want %s", Active(), want)
	}
	t.Logf("available %v, auto = %s", av, Active())
}

func TestDotRows(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 2))
		for _, n := range lengths {
			for _, rows := range []int{1, 2, 3, 4, 5, 7, 8, 9, 13, 17} {
				for _, pad := range []int{0, 3} {
					off := (n + rows + pad) % 5
					stride := n + pad
					a := rowData(rng, off, rows, stride, n)
					x := vec(rng, off%3, n)
					a32 := to32(a)
					out := make([]float64, rows+1)
					out[rows] = 42
					out32 := make([]float64, rows)
					DotRows(out[:rows], a, stride, n, x)
					DotRows32(out32, a32, stride, n, x)
					if out[rows] != 42 {
						t.Fatalf("DotRows wrote past out")
					}
					for k := range rows {
						row := a[k*stride : k*stride+n]
						want, abs := refDot(row, x[:n])
						if d := math.Abs(out[k] - want); d > tol(n, abs) || math.IsNaN(out[k]) {
							t.Fatalf("n=%d rows=%d stride=%d: DotRows out[%d] = %v, want %v (error %g > %g)", n, rows, stride, k, out[k], want, d, tol(n, abs))
						}
						if d := Dot(row, x); !same(d, out[k]) {
							t.Fatalf("n=%d rows=%d: Dot = %v, DotRows = %v: not the same bits", n, rows, d, out[k])
						}
						row32 := a32[k*stride : k*stride+n]
						want, abs = refDot(widen64(row32), x[:n])
						if d := math.Abs(out32[k] - want); d > tol(n, abs) || math.IsNaN(out32[k]) {
							t.Fatalf("n=%d rows=%d stride=%d: DotRows32 out[%d] = %v, want %v", n, rows, stride, k, out32[k], want)
						}
						if d := Dot32(row32, x); !same(d, out32[k]) {
							t.Fatalf("n=%d rows=%d: Dot32 = %v, DotRows32 = %v: not the same bits", n, rows, d, out32[k])
						}
					}
					again := make([]float64, rows)
					DotRows(again, a, stride, n, x)
					for k := range rows {
						if !same(again[k], out[k]) {
							t.Fatalf("n=%d rows=%d: DotRows not deterministic", n, rows)
						}
					}
				}
			}
		}
	})
}

func TestAxpyRows(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 4))
		for _, n := range lengths {
			for _, rows := range []int{1, 2, 3, 4, 5, 7, 8, 9, 13, 17} {
				pad := 1 + n%3
				stride := n + pad
				off := (n + rows) % 3
				a := rowData(rng, off, rows, stride, n)
				a32 := to32(a)
				alpha := make([]float64, rows)
				for k := range alpha {
					alpha[k] = rng.NormFloat64()
				}
				for _, is32 := range []bool{false, true} {
					y0 := vec(rng, off%2, n)
					y := slices.Clone(y0)
					ref := slices.Clone(y0)
					if is32 {
						AxpyRows32(y, alpha, a32, stride, n)
						for k := range rows {
							Axpy32(alpha[k], a32[k*stride:k*stride+n], ref)
						}
					} else {
						AxpyRows(y, alpha, a, stride, n)
						for k := range rows {
							Axpy(alpha[k], a[k*stride:k*stride+n], ref)
						}
					}
					for j := range y {
						if j >= n {
							if !math.IsNaN(y[j]) {
								t.Fatalf("n=%d: AxpyRows wrote y[%d] past n", n, j)
							}
							continue
						}
						if !same(y[j], ref[j]) {
							t.Fatalf("n=%d rows=%d 32=%v: AxpyRows y[%d] = %v, successive Axpy %v: not the same bits", n, rows, is32, j, y[j], ref[j])
						}
						terms := []float64{y0[j]}
						ones := []float64{1}
						for k := range rows {
							v := a[k*stride+j]
							if is32 {
								v = float64(a32[k*stride+j])
							}
							terms = append(terms, v)
							ones = append(ones, alpha[k])
						}
						want, abs := refDot(terms, ones)
						if d := math.Abs(y[j] - want); d > tol(rows, abs) {
							t.Fatalf("n=%d rows=%d 32=%v: y[%d] = %v, want %v", n, rows, is32, j, y[j], want)
						}
					}
				}
			}
		}
	})
}

func TestBatch(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 6))
		for _, n := range []int{0, 1, 3, 7, 8, 9, 31, 33, 64, 255, 256, 257, 300, 531, 777} {
			for _, rows := range []int{1, 2, 3, 4, 5, 8, 9, 13} {
				for _, runs := range []int{1, 2, 3, 4, 5, 6, 7, 9, 13} {
					testBatch(t, rng, n, rows, runs)
				}
			}
		}
		// Enough runs for the calls past the first run tiles to prefetch
		// the next column block, and the sweep's block shape.
		testBatch(t, rng, 600, 17, 40)
		testBatch(t, rng, 1000, 64, 55)
	})
}

func testBatch(t *testing.T, rng *rand.Rand, n, rows, runs int) {
	t.Helper()
	lda, ldx, lds := n+1+n%3, n+2, n+3
	ldo, ldw := runs+1, runs+2
	a := rowData(rng, n%3, rows, lda, n)
	a32 := to32(a)
	x := rowData(rng, 1, runs, ldx, n)
	out := make([]float64, rows*ldo)
	out32 := make([]float64, rows*ldo)
	for i := range out {
		out[i], out32[i] = -1, -1
	}
	DotBatch(out, ldo, a, lda, rows, n, x, ldx, runs)
	DotBatch32(out32, ldo, a32, lda, rows, n, x, ldx, runs)
	col := make([]float64, rows)
	for b := range runs {
		xb := x[b*ldx : b*ldx+n]
		DotRows(col, a, lda, n, xb)
		for k := range rows {
			if !same(out[k*ldo+b], col[k]) {
				t.Fatalf("n=%d rows=%d runs=%d: DotBatch[%d][%d] = %v, DotRows %v: not the same bits", n, rows, runs, k, b, out[k*ldo+b], col[k])
			}
			want, abs := refDot(a[k*lda:k*lda+n], xb)
			if d := math.Abs(col[k] - want); d > tol(n, abs) {
				t.Fatalf("n=%d: DotRows = %v, want %v", n, col[k], want)
			}
		}
		DotRows32(col, a32, lda, n, xb)
		for k := range rows {
			if !same(out32[k*ldo+b], col[k]) {
				t.Fatalf("n=%d rows=%d runs=%d: DotBatch32[%d][%d] = %v, DotRows32 %v: not the same bits", n, rows, runs, k, b, out32[k*ldo+b], col[k])
			}
		}
	}
	for k := range rows {
		for i := runs; i < ldo; i++ {
			if out[k*ldo+i] != -1 {
				t.Fatalf("DotBatch wrote out past runs")
			}
		}
	}

	w := make([]float64, rows*ldw)
	for i := range w {
		w[i] = rng.NormFloat64()
	}
	for _, is32 := range []bool{false, true} {
		s := rowData(rng, 2, runs, lds, n)
		ref := slices.Clone(s)
		if is32 {
			AxpyBatch32(s, lds, w, ldw, a32, lda, rows, n, runs)
		} else {
			AxpyBatch(s, lds, w, ldw, a, lda, rows, n, runs)
		}
		alpha := make([]float64, rows)
		for b := range runs {
			for k := range rows {
				alpha[k] = w[k*ldw+b]
			}
			sb := ref[b*lds : b*lds+n]
			if is32 {
				AxpyRows32(sb, alpha, a32, lda, n)
			} else {
				AxpyRows(sb, alpha, a, lda, n)
			}
		}
		for i := range s {
			if !same(s[i], ref[i]) && !(math.IsNaN(s[i]) && math.IsNaN(ref[i])) {
				t.Fatalf("n=%d rows=%d runs=%d 32=%v: AxpyBatch s[%d] = %v, AxpyRows %v: not the same bits", n, rows, runs, is32, i, s[i], ref[i])
			}
		}
	}
}

func TestDeterministic(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(7, 8))
		const rows, runs, n = 11, 7, 1001
		a := rowData(rng, 0, rows, n, n)
		x := rowData(rng, 0, runs, n, n)
		first := make([]float64, rows*runs)
		DotBatch(first, runs, a, n, rows, n, x, n, runs)
		s1 := slices.Clone(x)
		AxpyBatch(s1, n, first, runs, a, n, rows, n, runs)
		for range 3 {
			out := make([]float64, rows*runs)
			DotBatch(out, runs, a, n, rows, n, x, n, runs)
			s2 := slices.Clone(x)
			AxpyBatch(s2, n, first, runs, a, n, rows, n, runs)
			for i := range out {
				if !same(out[i], first[i]) {
					t.Fatal("DotBatch not deterministic")
				}
			}
			for i := range s2 {
				if !same(s1[i], s2[i]) {
					t.Fatal("AxpyBatch not deterministic")
				}
			}
		}
	})
}

// TestImplementationsAgree checks that the implementations agree to
// rounding on one larger problem.
func TestImplementationsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const rows, n = 5, 10000
	a := rowData(rng, 0, rows, n, n)
	x := vec(rng, 0, n)
	results := map[string][]float64{}
	forEachImpl(t, func(t *testing.T) {
		out := make([]float64, rows)
		DotRows(out, a, n, n, x)
		results[Active()] = out
	})
	g := results["generic"]
	for name, r := range results {
		for k := range r {
			_, abs := refDot(a[k*n:k*n+n], x)
			if d := math.Abs(r[k] - g[k]); d > 2*tol(n, abs) {
				t.Errorf("%s and generic differ by %g on row %d", name, d, k)
			}
		}
	}
}

func TestPanics(t *testing.T) {
	cases := map[string]func(){
		"short x":         func() { DotRows(make([]float64, 2), make([]float64, 20), 10, 10, make([]float64, 9)) },
		"short a":         func() { DotRows(make([]float64, 3), make([]float64, 20), 10, 10, make([]float64, 10)) },
		"short stride":    func() { AxpyRows(make([]float64, 10), make([]float64, 2), make([]float64, 20), 5, 10) },
		"short out":       func() { DotBatch(make([]float64, 5), 3, make([]float64, 20), 10, 2, 10, make([]float64, 30), 10, 3) },
		"short s":         func() { AxpyBatch(make([]float64, 25), 10, make([]float64, 6), 3, make([]float64, 20), 10, 2, 10, 3) },
		"negative rounds": func() { MultiplyAdds(-1) },
	}
	for name, f := range cases {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func ExampleDotBatch() {
	// Two rows of length 3, two runs.
	a := []float64{1, 2, 3, 4, 5, 6}
	x := []float64{1, 0, 0, 0, 1, 1}
	out := make([]float64, 4)
	DotBatch(out, 2, a, 3, 2, 3, x, 3, 2)
	fmt.Println(out)
	// Output: [1 5 4 11]
}

func TestStreamSum(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for _, n := range []int{0, 5, 64, 255, 256, 1000, 4099} {
			a := make([]float64, n)
			var want float64
			for i := range a {
				a[i] = float64(i%7) - 3
				want += a[i]
			}
			if got := Sum(a); got != want {
				t.Errorf("n=%d: Sum = %v, want %v", n, got, want)
			}
			if got := Sum32(to32(a)); got != want {
				t.Errorf("n=%d: Sum32 = %v, want %v", n, got, want)
			}
			for _, streams := range []int{1, 4} {
				if got := streamSum(a, streams); got != want {
					t.Errorf("n=%d streams=%d: streamSum = %v, want %v", n, streams, got, want)
				}
				if got := streamSum32(to32(a), streams); got != want {
					t.Errorf("n=%d streams=%d: streamSum32 = %v, want %v", n, streams, got, want)
				}
			}
		}
	})
}

// TestMultiplyAdds checks that the arithmetic floor's kernels do what they
// count: every chain of every lane adds one per round.
func TestMultiplyAdds(t *testing.T) {
	perRound := map[string]float64{"generic": 8, "avx2": 12 * 4, "avx512": 12 * 8}
	forEachImpl(t, func(t *testing.T) {
		k := perRound[Active()]
		if k == 0 {
			t.Fatalf("no count known for %s", Active())
		}
		for _, rounds := range []int{0, 1, 7, 1000} {
			if got, want := MultiplyAdds(rounds), k*float64(rounds); got != want {
				t.Errorf("MultiplyAdds(%d) = %v, want %v", rounds, got, want)
			}
		}
	})
}
