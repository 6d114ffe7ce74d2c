package completion

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"unsafe"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/internal/kernel"
	"github.com/scaledsm/scaledsm/internal/testkit"
)

// BenchmarkEntriesAccess measures the memory limits of a pass of Entries
// over 10^7 entries in random columns of a 100,000-column matrix at rank
// 10, on two cores, each core half the entries: the streaming read of the
// stored entries (a column and an observation each, the bench's floor),
// the gathers of R's rows at the entries' columns (each row summed), the
// scattered additions w·L_i to rows of a partial GR (one per core), and
// both, the traffic of the pass without its arithmetic, also with the rows
// of the next 64 entries prefetched (as the pass does a row ahead):
//
//	go test -run '^$' -bench EntriesAccess -benchtime 5x .
func BenchmarkEntriesAccess(b *testing.B) {
	const m, n2, r = 10_000_000, 100_000, 10
	rng := rand.New(rand.NewPCG(1, 2))
	cols, y := make([]int32, m), make([]float64, m)
	for k := range cols {
		cols[k], y[k] = int32(rng.IntN(n2)), rng.Float64()
	}
	R := make([]float64, n2*r)
	for i := range R {
		R[i] = rng.Float64()
	}
	parts := [2][]float64{make([]float64, n2*r), make([]float64, n2*r)}
	li := R[:r]
	var sink [2 * 8]float64
	for _, c := range []struct {
		name string
		f    func(h, lo, hi int)
	}{
		{"stream", func(h, lo, hi int) {
			c32 := unsafe.Slice((*float32)(unsafe.Pointer(&cols[lo])), hi-lo)
			sink[8*h] += kernel.Sum(y[lo:hi]) + kernel.Sum32(c32)
		}},
		{"gather", func(h, lo, hi int) {
			var s0, s1 float64
			for k := lo; k < hi; k++ {
				rj := R[int(cols[k])*r:][:r]
				for a := 0; a+1 < r; a += 2 {
					s0 += rj[a]
					s1 += rj[a+1]
				}
			}
			sink[8*h] += s0 + s1
		}},
		{"scatter", func(h, lo, hi int) {
			p := parts[h]
			for k := lo; k < hi; k++ {
				w := y[k]
				gj := p[int(cols[k])*r:][:r]
				for a, v := range li {
					gj[a] += w * v
				}
			}
		}},
		{"gather+scatter prefetched", func(h, lo, hi int) {
			p := parts[h]
			const ahead = 64
			for k := lo; k < hi; k++ {
				if (k-lo)%ahead == 0 && k+2*ahead <= hi {
					next := cols[k+ahead : k+2*ahead]
					kernel.PrefetchRows(R, next, r, r)
					kernel.PrefetchRows(p, next, r, r)
				}
				j := int(cols[k])
				w := y[k]
				rj, gj := R[j*r:][:r], p[j*r:][:r]
				for a, v := range rj {
					gj[a] += w * v
				}
			}
		}},
		{"gather+scatter", func(h, lo, hi int) {
			p := parts[h]
			for k := lo; k < hi; k++ {
				j := int(cols[k])
				w := y[k]
				rj, gj := R[j*r:][:r], p[j*r:][:r]
				for a, v := range rj {
					gj[a] += w * v
				}
			}
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				var wg sync.WaitGroup
				for h := range 2 {
					wg.Go(func() { c.f(h, h*m/2, (h+1)*m/2) })
				}
				wg.Wait()
			}
			b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms")
			b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/m, "ns/entry")
		})
	}
	_ = fmt.Sprint(sink[0])
}

// BenchmarkEntriesEvaluate measures one pass of Entries (residuals, both
// factor products) over 2·10^6 entries in random columns of a
// 100,000 × 100,000 matrix at rank 10, with the l1 weight:
//
//	go test -run '^$' -bench EntriesEvaluate -benchtime 10x .
func BenchmarkEntriesEvaluate(b *testing.B) {
	const n, m, r = 100_000, 2_000_000, 10
	rng := rand.New(rand.NewPCG(3, 4))
	rows, cols := make([]int32, m), make([]int32, m)
	seen := make(map[[2]int32]bool, m)
	for k := 0; k < m; {
		i, j := int32(rng.IntN(n)), int32(rng.IntN(n))
		if seen[[2]int32{i, j}] {
			continue
		}
		seen[[2]int32{i, j}] = true
		rows[k], cols[k] = i, j
		k++
	}
	vals := make([]float64, m)
	for k := range vals {
		vals[k] = rng.NormFloat64()
	}
	op, y, err := NewEntries(n, n, rows, cols, vals)
	if err != nil {
		b.Fatal(err)
	}
	ev := scaledsm.NewEvaluation(op, r)
	ev.L, ev.R, ev.Y, ev.Weight = randomFactor(rng, n, r), randomFactor(rng, n, r), y, scaledsm.SignWeight
	op.Evaluate(ev)
	b.ResetTimer()
	for range b.N {
		op.Evaluate(ev)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/m, "ns/entry")
}

// randomFactor returns an n×r matrix of standard Gaussian entries.
func randomFactor(rng *rand.Rand, n, r int) *mat.Dense { return testkit.Gaussian(rng, n, r, 1) }

// BenchmarkEntriesOrder measures the arithmetic and traffic of a pass
// (each entry's fit from L_i and R_j, then w·R_j added to GL_i and w·L_i
// to GR_j) over 10^7 entries of a 100,000 × 100,000 matrix at rank 10,
// 100 in random columns of each row, on two cores, in two storage orders:
// by row (Entries' order; GR partial per core, the next row's R and GR
// rows prefetched, as Evaluate does), and by tiles of 3,000 columns, each
// tile's entries by row (each core its own tiles, so GR needs no partial;
// a GL partial per core), where a tile's rows of R and GR stay in L2 and
// L and GL are read tile after tile in order; and the same arithmetic
// on rows that stay in L1 (8 rows of each factor), the pass's arithmetic
// alone:
//
//	go test -run '^$' -bench EntriesOrder -benchtime 5x .
func BenchmarkEntriesOrder(b *testing.B) {
	const n, per, r, tile = 100_000, 100, 10, 3_000
	m := n * per
	rng := rand.New(rand.NewPCG(5, 6))
	rows, cols := make([]int32, m), make([]int32, m)
	for k := range m {
		rows[k], cols[k] = int32(k/per), int32(rng.IntN(n))
	}
	L, R := make([]float64, n*r), make([]float64, n*r)
	for i := range L {
		L[i], R[i] = rng.NormFloat64(), rng.NormFloat64()
	}
	y := make([]float64, m)
	gl := [2][]float64{make([]float64, n*r), make([]float64, n*r)}
	gr := [2][]float64{make([]float64, n*r), make([]float64, n*r)}
	entry := func(i, j int, yk float64, g, h []float64) {
		li, rj := L[i*r:][:r], R[j*r:][:r]
		var s float64
		for a, v := range li {
			s += v * rj[a]
		}
		w := s - yk
		gi, gj := g[i*r:][:r], h[j*r:][:r]
		for a := range r {
			gi[a] += w * rj[a]
			gj[a] += w * li[a]
		}
	}
	// The tiled order: entries by tile of columns, then by row.
	ntiles := (n + tile - 1) / tile
	tstart := make([]int, ntiles+1)
	for _, j := range cols {
		tstart[int(j)/tile+1]++
	}
	for t := range ntiles {
		tstart[t+1] += tstart[t]
	}
	trows, tcols := make([]int32, m), make([]int32, m)
	next := slices.Clone(tstart[:ntiles])
	for k, j := range cols { // rows ascending already
		t := int(j) / tile
		trows[next[t]], tcols[next[t]] = rows[k], j
		next[t]++
	}
	for _, c := range []struct {
		name string
		f    func(h int)
	}{
		{"by row", func(h int) {
			g, p := gl[h], gr[h]
			lo, hi := h*m/2, (h+1)*m/2
			for k := lo; k < hi; k++ {
				if k%per == 0 && k+2*per <= hi {
					next := cols[k+per : k+2*per]
					kernel.PrefetchRows(R, next, r, r)
					kernel.PrefetchRows(p, next, r, r)
				}
				entry(int(rows[k]), int(cols[k]), y[k], g, p)
			}
		}},
		{"in L1", func(h int) {
			g, p := gl[h], gr[h]
			for k := h * m / 2; k < (h+1)*m/2; k++ {
				entry(int(rows[k]%8), int(cols[k]%8), y[k], g, p)
			}
		}},
		{"by tile", func(h int) {
			g, p := gl[h], gr[h]
			for t := h * ntiles / 2; t < (h+1)*ntiles/2; t++ {
				for k := tstart[t]; k < tstart[t+1]; k++ {
					entry(int(trows[k]), int(tcols[k]), y[k], g, p)
				}
			}
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				var wg sync.WaitGroup
				for h := range 2 {
					wg.Go(func() { c.f(h) })
				}
				wg.Wait()
			}
			b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms")
			b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/float64(m), "ns/entry")
		})
	}
}
