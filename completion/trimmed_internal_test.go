package completion

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/obs"
	"github.com/scaledsm/scaledsm/internal/order"
	"github.com/scaledsm/scaledsm/internal/reduce"
)

// TestRebound: the bounds are c times each row's and each column's mean
// |z| over the residuals the previous bounds kept, 0 where none was kept,
// computed here entry by entry from the definition.
func TestRebound(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	n1, n2 := 30, 20
	var rows, cols []int32
	for i := range n1 {
		for j := range n2 {
			if rng.Float64() < 0.4 && i != 7 { // row 7 has no entry
				rows, cols = append(rows, int32(i)), append(cols, int32(j))
			}
		}
	}
	e, _, err := NewEntries(n1, n2, rows, cols, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := len(rows)
	z := make([]float64, m)
	for k := range z {
		z[k] = rng.NormFloat64()
		if rng.Float64() < 0.1 {
			z[k] *= 100
		}
	}
	b := newBounds(n1, n2, 0, 0)
	for i := range b.Rows {
		b.Rows[i] = 2 * rng.Float64()
	}
	for j := range b.Cols {
		b.Cols[j] = 2 * rng.Float64()
	}
	b.Rows[3] = 0
	b.Cols[5] = 0
	rs, rn := make([]float64, n1), make([]float64, n1)
	cs, cn := make([]float64, n2), make([]float64, n2)
	for i := range n1 {
		for k := e.start[i]; k < e.start[i+1]; k++ {
			j := int(e.cols[k])
			if math.Abs(z[k]) <= max(b.Rows[i], b.Cols[j]) {
				rs[i] += math.Abs(z[k])
				rn[i]++
				cs[j] += math.Abs(z[k])
				cn[j]++
			}
		}
	}
	e.rebound(b, z, 3, reduce.Ranks{}, nil)
	check := func(what string, got []float64, s, n []float64) {
		for k := range got {
			want := 0.0
			if n[k] > 0 {
				want = 3 * s[k] / n[k]
			}
			if math.Abs(got[k]-want) > 1e-12*want {
				t.Errorf("%s %d: %v, want %v", what, k, got[k], want)
			}
		}
	}
	check("row", b.Rows, rs, rn)
	check("column", b.Cols, cs, cn)
	if b.Rows[7] != 0 {
		t.Errorf("the empty row's bound is %v", b.Rows[7])
	}
}

// TestTrimmingFollowsProgress checks trimming's factor: held at
// trimFactor while the kept loss falls by more than 10% a pass, shrunk
// by 5% a pass to trimFactorMin while it stalls, and grown back by 5% a
// pass, never beyond trimFactor, once it falls again.
func TestTrimmingFollowsProgress(t *testing.T) {
	tr := newTrimming(0)
	sq := 2.0 // the first pass falls from +Inf
	for range 5 {
		sq *= 0.5
		tr.next(sq)
		if tr.factor != trimFactor {
			t.Fatalf("falling loss %g: factor %g, want %g", sq, tr.factor, float64(trimFactor))
		}
	}
	want := float64(trimFactor)
	for k := range 20 {
		sq *= 0.95 // falls by less than 10%
		tr.next(sq)
		want = max(trimFactorMin, want*trimStep)
		if math.Abs(tr.factor-want) > 1e-12 {
			t.Fatalf("stalled pass %d: factor %g, want %g", k, tr.factor, want)
		}
	}
	if tr.factor != trimFactorMin {
		t.Fatalf("after 20 stalled passes the factor is %g, want %g", tr.factor, trimFactorMin)
	}
	tr.next(math.NaN()) // no progress
	if tr.factor != trimFactorMin {
		t.Fatalf("NaN loss: factor %g, want %g", tr.factor, trimFactorMin)
	}
	sq = 1
	tr.next(sq)
	for k := range 20 {
		sq *= 0.5
		tr.next(sq)
		want = min(trimFactor, trimFactorMin/math.Pow(trimStep, float64(k+1)))
		if math.Abs(tr.factor-want) > 1e-12 {
			t.Fatalf("falling pass %d: factor %g, want %g", k, tr.factor, want)
		}
	}
	if tr.factor != trimFactor {
		t.Fatalf("after 20 falling passes the factor is %g, want %g", tr.factor, float64(trimFactor))
	}
	// A floor given: the factor shrinks down to it.
	tr = newTrimming(trimFloorExact)
	for range 60 {
		tr.next(1)
	}
	if tr.factor != trimFloorExact {
		t.Fatalf("floor %g: after 60 stalled passes the factor is %g", float64(trimFloorExact), tr.factor)
	}
}

// TestKeptSumsFromPass: the sums a pass under bounds leaves for
// rebound are, bit for bit, those of a separate pass over its residuals,
// and rebound uses them once.
func TestKeptSumsFromPass(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	n1, n2, r := 300, 200, 3
	e, y := randomEntries(t, rng, n1, n2, 0.3, func(int, int) float64 { return rng.NormFloat64() })
	ev := scaledsm.NewEvaluation(e, r)
	ev.L, ev.R, ev.Y, ev.Weight = randomFactor(rng, n1, r), randomFactor(rng, n2, r), y, scaledsm.LinearWeight
	tb := newBounds(n1, n2, 0, 0)
	st := passStateOf(ev)
	st.bounds = tb
	for i := range tb.Rows {
		tb.Rows[i] = 3 * rng.Float64()
	}
	for j := range tb.Cols {
		tb.Cols[j] = 3 * rng.Float64()
	}
	e.Evaluate(ev)
	if len(e.chunks) < 3 {
		t.Fatalf("%d chunks: the test needs partial sums to add", len(e.chunks)-1)
	}
	var want keptSums
	e.keptBy(&want, &tb.Bounds, ev.Z)
	if !st.kept.fresh || !slices.Equal(st.kept.rows, want.rows) || !slices.Equal(st.kept.cols, want.cols) {
		t.Fatal("the pass's kept sums differ from a separate pass's")
	}
	b2 := &trimBounds{Bounds: Bounds{Rows: slices.Clone(tb.Rows), Cols: slices.Clone(tb.Cols)}}
	sq := e.rebound(tb, ev.Z, 3, reduce.Ranks{}, &st.kept)
	sq2 := e.rebound(b2, ev.Z, 3, reduce.Ranks{}, nil)
	if sq.Value() != sq2.Value() || !slices.Equal(tb.Rows, b2.Rows) || !slices.Equal(tb.Cols, b2.Cols) {
		t.Error("rebound from the pass's sums differs from rebound from the residuals")
	}
	if st.kept.fresh {
		t.Error("rebound left the pass's sums fresh")
	}
}

// TestTrimSampledMedian: beyond 2^20 observations the median rule takes
// the median of an evenly strided sample instead of copying them all; it
// still drops every gross outlier and keeps the clean observations below
// three times the median (about 96% of Gaussian ones), and the sampled
// scale is within 1% of the exact median.
func TestTrimSampledMedian(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	m := obs.MedianSample + obs.MedianSample/2
	y := make([]float64, m)
	outlier := make([]bool, m)
	for i := range y {
		y[i] = rng.NormFloat64()
		if rng.Float64() < 0.05 {
			y[i], outlier[i] = 1e3*(1+rng.Float64()), true
		}
	}
	abs := make([]float64, m)
	for i, v := range y {
		abs[i] = math.Abs(v)
	}
	exact := order.Kth(abs, m/2)
	if s := obs.MedianAbs(y, obs.MedianSample); math.Abs(s-exact) > 0.01*exact {
		t.Errorf("sampled median %v, exact %v", s, exact)
	}
	if s := obs.MedianAbs(y, obs.ScaleSample); math.Abs(s-exact) > 0.01*exact {
		t.Errorf("sampled median %v, exact %v", s, exact)
	}
	kept, clean := 0, 0
	for _, i := range scaledsm.Truncated(y, scaledsm.Truncation{}) {
		if outlier[i] {
			t.Fatalf("observation %d, an outlier of %v, kept", i, y[i])
		}
		kept++
	}
	for _, o := range outlier {
		if !o {
			clean++
		}
	}
	if f := float64(kept) / float64(clean); f < 0.93 || f > 0.99 {
		t.Errorf("kept %.3f of the clean observations", f)
	}
}
