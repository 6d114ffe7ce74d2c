package scaledsm

import (
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/scaledsm/scaledsm/internal/cputime"
	"github.com/scaledsm/scaledsm/internal/kernel"
	"github.com/scaledsm/scaledsm/internal/mem"
	"github.com/scaledsm/scaledsm/internal/par"
)

// Paper size of matrix sensing: m = 8000 rows of n1·n2 = 10000.
const (
	paperM = 8000
	paperN = 10000
)

var (
	paperOnce sync.Once
	paper64   []float64
	paper32   []float32
)

func paperData() ([]float64, []float32) {
	paperOnce.Do(func() {
		paper64 = make([]float64, paperM*paperN)
		paper32 = make([]float32, paperM*paperN)
		var wg sync.WaitGroup
		for h := range 2 {
			wg.Go(func() {
				st := uint64(h + 1)
				for i := h * len(paper64) / 2; i < (h+1)*len(paper64)/2; i++ {
					st = st*6364136223846793005 + 1442695040888963407
					v := float64(int64(st>>11))/float64(1<<52) - 1
					paper32[i] = float32(v)
					paper64[i] = float64(paper32[i])
				}
			})
		}
		wg.Wait()
	})
	return paper64, paper32
}

// floorSum is the one-read floor: two goroutines each sum half the data.
func floorSum(a64 []float64, a32 []float32) float64 {
	var parts [2]float64
	var wg sync.WaitGroup
	for h := range 2 {
		wg.Go(func() {
			if a32 != nil {
				parts[h] = kernel.Sum32(a32[h*len(a32)/2 : (h+1)*len(a32)/2])
			} else {
				parts[h] = kernel.Sum(a64[h*len(a64)/2 : (h+1)*len(a64)/2])
			}
		})
	}
	wg.Wait()
	return parts[0] + parts[1]
}

// The design the chunks replaced, kept to measure it (BenchmarkPassDesigns):
// superblocks of superRows rows; the goroutines split a superblock's rows
// for the dot products, meet at a barrier, then split the columns of S and
// each adds all the superblock's rows to its columns (from the shared
// cache); the dot products of the next superblock are computed between the
// same two barriers. One summation order, no partial sums, but 250
// barriers per pass.
const superRows = 64

// barrier is a reusable barrier for n goroutines: a brief spin, a few
// yields, then a condition variable.
type barrier struct {
	n     int32
	count atomic.Int32
	gen   atomic.Uint32
	mu    sync.Mutex
	cond  sync.Cond
}

func (b *barrier) wait() {
	g := b.gen.Load()
	if b.count.Add(1) == b.n {
		b.count.Store(0)
		b.mu.Lock()
		b.gen.Add(1)
		b.mu.Unlock()
		b.cond.Broadcast()
		return
	}
	for range 4000 {
		if b.gen.Load() != g {
			return
		}
	}
	for range 8 {
		runtime.Gosched()
		if b.gen.Load() != g {
			return
		}
	}
	b.mu.Lock()
	for b.gen.Load() == g {
		b.cond.Wait()
	}
	b.mu.Unlock()
}

// colRange returns the columns of worker k of w, aligned to 8 elements.
func colRange(k, w, cols int) (lo, hi int) {
	align := func(c int) int {
		if c >= cols {
			return cols
		}
		return c &^ 7
	}
	return align(k * cols / w), align((k + 1) * cols / w)
}

func (s *Sensing) passSuperblocks(x, y []float64, weight Weight, z, alpha, sv []float64) {
	m, n := s.m, s.n1*s.n2
	inv := 1 / float64(m)
	w := par.TeamSize(m * n)
	supers := (m + superRows - 1) / superRows
	bar := &barrier{n: int32(w)}
	bar.cond.L = &bar.mu
	var wg sync.WaitGroup
	for k := range w {
		wg.Go(func() {
			c0, c1 := colRange(k, w, n)
			residuals := func(b int) {
				lo, hi := b*superRows, min((b+1)*superRows, m)
				r0, r1 := lo+k*(hi-lo)/w, lo+(k+1)*(hi-lo)/w
				for i := r0; i < r1; i += kernel.BlockRows {
					rows := min(kernel.BlockRows, r1-i)
					s.dotRows(z[i:i+rows], i, x)
					for j := i; j < i+rows; j++ {
						zj := z[j]*inv - y[j]
						z[j] = zj
						alpha[j] = weight.Of(zj) * inv
					}
				}
			}
			residuals(0)
			bar.wait()
			for b := range supers {
				if b+1 < supers {
					residuals(b + 1)
				}
				lo, hi := b*superRows, min((b+1)*superRows, m)
				if c1 > c0 {
					if s.a32 != nil {
						kernel.AxpyRows32(sv[c0:c1], alpha[lo:hi], s.a32[lo*n+c0:], n, c1-c0)
					} else {
						kernel.AxpyRows(sv[c0:c1], alpha[lo:hi], s.a[lo*n+c0:], n, c1-c0)
					}
				}
				bar.wait()
			}
		})
	}
	wg.Wait()
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s) == 0 {
		return math.NaN()
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// BenchmarkPassDesigns interleaves the floor and the designs of the single
// run sensing pass at the paper's size and reports the median
// milliseconds of each and its ratio to the floor's (wall and CPU time).
func BenchmarkPassDesigns(b *testing.B) {
	if testing.Short() {
		b.Skip("paper size")
	}
	a64, a32 := paperData()
	for _, is32 := range []bool{false, true} {
		name := "f64"
		var s *Sensing
		if is32 {
			name = "f32"
			s = &Sensing{m: paperM, n1: 100, n2: 100, a32: a32}
		} else {
			s = &Sensing{m: paperM, n1: 100, n2: 100, a: a64}
		}
		b.Run(name, func(b *testing.B) {
			x := make([]float64, paperN)
			for i := range x {
				x[i] = math.Sin(float64(i)) * 1e-2
			}
			y := make([]float64, paperM)
			for i := range y {
				y[i] = math.Cos(float64(i)) * 1e-4
			}
			z, alpha, sv := make([]float64, paperM), make([]float64, paperM), make([]float64, paperN)
			e := NewEvaluation(s, 1)
			e.L, e.R, e.Y = mat.NewDense(100, 1, x[:100]), mat.NewDense(100, 1, x[100:200]), y
			designs := []struct {
				name string
				f    func()
			}{
				{"floor", func() { floorSum(s.a, s.a32) }},
				{"chunks", func() { s.Evaluate(e) }},
				{"superblocks", func() { clear(sv); s.passSuperblocks(x, y, SignWeight, z, alpha, sv) }},
			}
			wall := make([][]float64, len(designs))
			cpu := make([][]float64, len(designs))
			for b.Loop() {
				for k, d := range designs {
					t0, c0 := time.Now(), cputime.Process()
					d.f()
					wall[k] = append(wall[k], time.Since(t0).Seconds()*1e3)
					cpu[k] = append(cpu[k], (cputime.Process()-c0).Seconds()*1e3)
				}
			}
			for k, d := range designs {
				b.ReportMetric(median(wall[k]), "ms-"+d.name)
				if k > 0 {
					b.ReportMetric(median(wall[k])/median(wall[0]), d.name+"/floor")
					b.ReportMetric(median(cpu[k])/median(cpu[0]), "cpu-"+d.name+"/floor")
				}
			}
		})
	}
}

// BenchmarkHugePages interleaves the pass and the floor over the
// paper-size data in ordinary memory (4 KB pages) and in a copy on
// transparent huge pages (see package mem; Linux), and reports the median
// milliseconds of each.
func BenchmarkHugePages(b *testing.B) {
	if testing.Short() {
		b.Skip("paper size")
	}
	a64, a32 := paperData()
	hp, h32 := mem.Make[float64](len(a64)), mem.Make[float32](len(a32))
	copy(hp, a64)
	copy(h32, a32)
	for _, is32 := range []bool{false, true} {
		name := "f64"
		ops := [2]*Sensing{{m: paperM, n1: 100, n2: 100, a: a64}, {m: paperM, n1: 100, n2: 100, a: hp}}
		if is32 {
			name = "f32"
			ops = [2]*Sensing{{m: paperM, n1: 100, n2: 100, a32: a32}, {m: paperM, n1: 100, n2: 100, a32: h32}}
		}
		b.Run(name, func(b *testing.B) {
			x := make([]float64, paperN)
			for i := range x {
				x[i] = math.Sin(float64(i)) * 1e-2
			}
			y := make([]float64, paperM)
			var pass, floor [2][]float64
			for b.Loop() {
				for k, s := range ops {
					e := NewEvaluation(s, 1)
					e.L, e.R, e.Y = mat.NewDense(100, 1, x[:100]), mat.NewDense(100, 1, x[100:200]), y
					t0 := time.Now()
					floorSum(s.a, s.a32)
					floor[k] = append(floor[k], time.Since(t0).Seconds()*1e3)
					t0 = time.Now()
					s.Evaluate(e)
					pass[k] = append(pass[k], time.Since(t0).Seconds()*1e3)
				}
			}
			for k, pages := range []string{"4k", "huge"} {
				b.ReportMetric(median(pass[k]), "ms-pass-"+pages)
				b.ReportMetric(median(floor[k]), "ms-floor-"+pages)
			}
		})
	}
}
