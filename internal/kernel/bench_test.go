package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/scaledsm/scaledsm/internal/cputime"
)

// Paper size: m rows of N elements.
const (
	paperM = 8000
	paperN = 10000
	// batched sweep: sweepM rows, sweepB runs
	sweepM = 1000
	sweepB = 109
)

var (
	benchOnce sync.Once
	mat64     []float64
	mat32     []float32
)

// paperData returns the 8000 x 10000 matrix as float64 and float32 (640 MB
// and 320 MB), filled once with values in [-1, 1). With the environment
// variable SCALEDSM_BENCH_HUGEPAGES set (Linux), they are in mappings
// advised to use transparent huge pages.
func paperData() ([]float64, []float32) {
	benchOnce.Do(func() {
		mat64, mat32 = hugeAlloc(paperM * paperN)
		if mat64 == nil {
			mat64 = make([]float64, paperM*paperN)
			mat32 = make([]float32, paperM*paperN)
		}
		var wg sync.WaitGroup
		for h := range 2 {
			wg.Go(func() {
				st := uint64(h + 1)
				for i := h * len(mat64) / 2; i < (h+1)*len(mat64)/2; i++ {
					st = st*6364136223846793005 + 1442695040888963407
					v := float64(int64(st>>11))/float64(1<<52) - 1
					mat64[i] = v
					mat32[i] = float32(v)
				}
			})
		}
		wg.Wait()
	})
	return mat64, mat32
}

func benchVec(n int, seed float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Sin(float64(i)*0.37+seed) * 0.5
	}
	return v
}

// forEachImplB runs f as a sub-benchmark under every available implementation.
func forEachImplB(b *testing.B, f func(b *testing.B)) {
	defer Use("auto")
	for _, name := range Available() {
		if err := Use(name); err != nil {
			b.Fatal(err)
		}
		b.Run(name, f)
	}
}

// BenchmarkStream is the floor: one streaming read of the paper-size matrix
// (sum of all elements with the widest loads), on one core and on two,
// each core reading one sequential stream or four at once (more memory
// requests in flight: the multi-row kernels read several rows at once too).
func BenchmarkStream(b *testing.B) {
	a64, a32 := paperData()
	for _, cores := range []int{1, 2} {
		for _, streams := range []int{1, 4} {
			b.Run(fmt.Sprintf("f64/cores=%d/streams=%d", cores, streams), func(b *testing.B) {
				b.SetBytes(int64(len(a64)) * 8)
				var sink float64
				for b.Loop() {
					sink += parallelSum(cores, len(a64), func(lo, hi int) float64 { return streamSum(a64[lo:hi], streams) })
				}
				_ = sink
			})
			b.Run(fmt.Sprintf("f32/cores=%d/streams=%d", cores, streams), func(b *testing.B) {
				b.SetBytes(int64(len(a32)) * 4)
				var sink float64
				for b.Loop() {
					sink += parallelSum(cores, len(a32), func(lo, hi int) float64 { return streamSum32(a32[lo:hi], streams) })
				}
				_ = sink
			})
		}
	}
}

// BenchmarkMultiplyAdds is the arithmetic floor: independent fused
// multiply-adds in registers, on one core and on two, in G per second.
func BenchmarkMultiplyAdds(b *testing.B) {
	const rounds = 1 << 16
	forEachImplB(b, func(b *testing.B) {
		for _, cores := range []int{1, 2} {
			b.Run(fmt.Sprintf("cores=%d", cores), func(b *testing.B) {
				var done float64
				for b.Loop() {
					done += parallelSum(cores, cores, func(int, int) float64 { return MultiplyAdds(rounds) })
				}
				b.ReportMetric(done/b.Elapsed().Seconds()/1e9, "GFMA/s")
			})
		}
	})
}

func parallelSum(cores, n int, f func(lo, hi int) float64) float64 {
	if cores == 1 {
		return f(0, n)
	}
	var wg sync.WaitGroup
	parts := make([]float64, cores)
	for h := range cores {
		wg.Go(func() { parts[h] = f(h*n/cores, (h+1)*n/cores) })
	}
	wg.Wait()
	var s float64
	for _, p := range parts {
		s += p
	}
	return s
}

// BenchmarkDotRows and BenchmarkAxpyRows run one kernel over the whole
// paper-size matrix on one core, BlockRows rows per call.
func BenchmarkDotRows(b *testing.B) {
	a64, a32 := paperData()
	x := benchVec(paperN, 1)
	out := make([]float64, BlockRows)
	forEachImplB(b, func(b *testing.B) {
		b.Run("f64", func(b *testing.B) {
			b.SetBytes(int64(len(a64)) * 8)
			for b.Loop() {
				for r := 0; r < paperM; r += BlockRows {
					DotRows(out, a64[r*paperN:], paperN, paperN, x)
				}
			}
		})
		b.Run("f32", func(b *testing.B) {
			b.SetBytes(int64(len(a32)) * 4)
			for b.Loop() {
				for r := 0; r < paperM; r += BlockRows {
					DotRows32(out, a32[r*paperN:], paperN, paperN, x)
				}
			}
		})
	})
}

func BenchmarkAxpyRows(b *testing.B) {
	a64, a32 := paperData()
	y := make([]float64, paperN)
	alpha := benchVec(BlockRows, 2)
	for i := range alpha {
		alpha[i] *= 1e-6
	}
	forEachImplB(b, func(b *testing.B) {
		b.Run("f64", func(b *testing.B) {
			b.SetBytes(int64(len(a64)) * 8)
			for b.Loop() {
				for r := 0; r < paperM; r += BlockRows {
					AxpyRows(y, alpha, a64[r*paperN:], paperN, paperN)
				}
			}
		})
		b.Run("f32", func(b *testing.B) {
			b.SetBytes(int64(len(a32)) * 4)
			for b.Loop() {
				for r := 0; r < paperM; r += BlockRows {
					AxpyRows32(y, alpha, a32[r*paperN:], paperN, paperN)
				}
			}
		})
	})
}

// BenchmarkRowsInCache runs the multi-row kernels on one block of
// BlockRows rows that stays in L2: the kernels' own speed.
func BenchmarkRowsInCache(b *testing.B) {
	a64, a32 := paperData()
	x := benchVec(paperN, 1)
	y := make([]float64, paperN)
	out := make([]float64, BlockRows)
	alpha := benchVec(BlockRows, 2)
	forEachImplB(b, func(b *testing.B) {
		b.Run("DotRows", func(b *testing.B) {
			b.SetBytes(BlockRows * paperN * 8)
			for b.Loop() {
				DotRows(out, a64, paperN, paperN, x)
			}
		})
		b.Run("DotRows32", func(b *testing.B) {
			b.SetBytes(BlockRows * paperN * 4)
			for b.Loop() {
				DotRows32(out, a32, paperN, paperN, x)
			}
		})
		b.Run("AxpyRows", func(b *testing.B) {
			b.SetBytes(BlockRows * paperN * 8)
			for b.Loop() {
				AxpyRows(y, alpha, a64, paperN, paperN)
			}
		})
		b.Run("AxpyRows32", func(b *testing.B) {
			b.SetBytes(BlockRows * paperN * 4)
			for b.Loop() {
				AxpyRows32(y, alpha, a32, paperN, paperN)
			}
		})
		// Both blocks of the fused kernel in L2: bytes of both counted.
		b.Run("DotAxpyRows", func(b *testing.B) {
			b.SetBytes(2 * FusedRows * paperN * 8)
			for b.Loop() {
				DotAxpyRows(out[:FusedRows], a64[FusedRows*paperN:], y, alpha[:FusedRows], a64, paperN, paperN, x)
			}
		})
		b.Run("DotAxpyRows32", func(b *testing.B) {
			b.SetBytes(2 * FusedRows * paperN * 4)
			for b.Loop() {
				DotAxpyRows32(out[:FusedRows], a32[FusedRows*paperN:], y, alpha[:FusedRows], a32, paperN, paperN, x)
			}
		})
	})
}

// fusedPass is one iteration of the single-run operator: for every row,
// z = dot(a_i, x)/m - y_i, then s += sign(z)/m * a_i; two goroutines over
// half the rows each, in blocks of BlockRows rows (DotRows, then AxpyRows
// on the same block while it is in L2), partial sums reduced in order.
func fusedPass(a64 []float64, a32 []float32, m, n int, x, y []float64, parts [2][]float64, s []float64) {
	var wg sync.WaitGroup
	for h := range 2 {
		wg.Go(func() {
			sh := parts[h]
			clear(sh)
			var z, alpha [BlockRows]float64
			for r0 := h * m / 2; r0 < (h+1)*m/2; r0 += BlockRows {
				k := min(BlockRows, (h+1)*m/2-r0)
				if a32 != nil {
					DotRows32(z[:k], a32[r0*n:], n, n, x)
				} else {
					DotRows(z[:k], a64[r0*n:], n, n, x)
				}
				for i := range k {
					alpha[i] = math.Copysign(1/float64(m), z[i]/float64(m)-y[r0+i])
				}
				if a32 != nil {
					AxpyRows32(sh, alpha[:k], a32[r0*n:], n, n)
				} else {
					AxpyRows(sh, alpha[:k], a64[r0*n:], n, n)
				}
			}
		})
	}
	wg.Wait()
	copy(s, parts[0])
	Axpy(1, parts[1], s)
}

// pipelinedPass is fusedPass with the software-pipelined kernel: blocks of
// FusedRows rows, DotAxpyRows adding block k (weights known, from the
// caches) while it forms the dot products of block k+1 (from memory).
func pipelinedPass(a64 []float64, a32 []float32, m, n int, x, y []float64, parts [2][]float64, s []float64) {
	var wg sync.WaitGroup
	for h := range 2 {
		wg.Go(func() {
			sh := parts[h]
			clear(sh)
			var z, alpha [FusedRows]float64
			lo, hi := h*m/2, (h+1)*m/2
			k := min(FusedRows, hi-lo)
			if a32 != nil {
				DotRows32(z[:k], a32[lo*n:], n, n, x)
			} else {
				DotRows(z[:k], a64[lo*n:], n, n, x)
			}
			for r0 := lo; r0 < hi; r0 += k {
				k = min(FusedRows, hi-r0)
				for i := range k {
					alpha[i] = math.Copysign(1/float64(m), z[i]/float64(m)-y[r0+i])
				}
				next := min(FusedRows, hi-r0-k)
				if a32 != nil {
					DotAxpyRows32(z[:next], a32[(r0+k)*n:], sh, alpha[:k], a32[r0*n:], n, n, x)
				} else {
					DotAxpyRows(z[:next], a64[(r0+k)*n:], sh, alpha[:k], a64[r0*n:], n, n, x)
				}
			}
		})
	}
	wg.Wait()
	copy(s, parts[0])
	Axpy(1, parts[1], s)
}

// BenchmarkFused is the fused single-run pass over the paper-size matrix
// on two cores; compare with BenchmarkStream/*/cores=2, or better with
// BenchmarkFusedVsStream, which interleaves the two.
func BenchmarkFused(b *testing.B) {
	a64, a32 := paperData()
	x := benchVec(paperN, 3)
	y := benchVec(paperM, 4)
	parts := [2][]float64{make([]float64, paperN), make([]float64, paperN)}
	s := make([]float64, paperN)
	forEachImplB(b, func(b *testing.B) {
		b.Run("f64", func(b *testing.B) {
			b.SetBytes(int64(len(a64)) * 8)
			for b.Loop() {
				fusedPass(a64, nil, paperM, paperN, x, y, parts, s)
			}
		})
		b.Run("f32", func(b *testing.B) {
			b.SetBytes(int64(len(a32)) * 4)
			for b.Loop() {
				fusedPass(nil, a32, paperM, paperN, x, y, parts, s)
			}
		})
	})
}

// BenchmarkFusedVsStream times, in every iteration, the streaming-read
// floor (two cores, one and four streams each) and the fused pass with the
// active implementation, over the same buffer, and reports the
// milliseconds of each and the ratio of the pass to the faster floor.
// Interleaving them cancels the drift of a shared machine; the cpu-*
// metrics (CPU time of the two threads, halved) also discount the time
// other processes hold the cores.
func BenchmarkFusedVsStream(b *testing.B) {
	a64, a32 := paperData()
	x := benchVec(paperN, 3)
	y := benchVec(paperM, 4)
	parts := [2][]float64{make([]float64, paperN), make([]float64, paperN)}
	s := make([]float64, paperN)
	for _, is32 := range []bool{false, true} {
		name := "f64"
		if is32 {
			name = "f32"
		}
		b.Run(name, func(b *testing.B) {
			var wall, cpu [4]time.Duration
			var sink float64
			for b.Loop() {
				for k := range 4 {
					t0, c0 := time.Now(), cputime.Process()
					switch {
					case k < 2 && is32:
						sink += parallelSum(2, len(a32), func(lo, hi int) float64 { return streamSum32(a32[lo:hi], 1+3*k) })
					case k < 2:
						sink += parallelSum(2, len(a64), func(lo, hi int) float64 { return streamSum(a64[lo:hi], 1+3*k) })
					case k == 3 && is32:
						pipelinedPass(nil, a32, paperM, paperN, x, y, parts, s)
					case k == 3:
						pipelinedPass(a64, nil, paperM, paperN, x, y, parts, s)
					case is32:
						fusedPass(nil, a32, paperM, paperN, x, y, parts, s)
					default:
						fusedPass(a64, nil, paperM, paperN, x, y, parts, s)
					}
					wall[k] += time.Since(t0)
					cpu[k] += cputime.Process() - c0
				}
			}
			_ = sink
			ms := func(d time.Duration) float64 { return d.Seconds() * 1e3 / float64(b.N) }
			for k, what := range []string{"stream1", "stream4", "fused", "pipelined"} {
				b.ReportMetric(ms(wall[k]), "ms-"+what)
			}
			b.ReportMetric(float64(wall[2])/float64(min(wall[0], wall[1])), "fused/floor")
			b.ReportMetric(float64(wall[3])/float64(min(wall[0], wall[1])), "pipelined/floor")
			if cpu[0] > 0 {
				for k, what := range []string{"stream1", "stream4", "fused", "pipelined"} {
					b.ReportMetric(ms(cpu[k])/2, "cpu-ms-"+what)
				}
				b.ReportMetric(float64(cpu[2])/float64(min(cpu[0], cpu[1])), "cpu-fused/floor")
				b.ReportMetric(float64(cpu[3])/float64(min(cpu[0], cpu[1])), "cpu-pipelined/floor")
			}
		})
	}
}

// BenchmarkBatchKernels runs DotBatch and AxpyBatch on one core for one
// block of BatchRows rows of length 10000 and 109 runs (the block and the
// runs' vectors are in the caches after the first call).
func BenchmarkBatchKernels(b *testing.B) {
	a64, a32 := paperData()
	x, s, z := batchVectors(sweepB)
	fma := float64(BatchRows) * paperN * sweepB
	forEachImplB(b, func(b *testing.B) {
		for _, name := range []string{"DotBatch", "DotBatch32", "AxpyBatch", "AxpyBatch32"} {
			b.Run(name, func(b *testing.B) {
				c0 := cputime.Process()
				for b.Loop() {
					switch name {
					case "DotBatch":
						DotBatch(z, sweepB, a64, paperN, BatchRows, paperN, x, paperN, sweepB)
					case "DotBatch32":
						DotBatch32(z, sweepB, a32, paperN, BatchRows, paperN, x, paperN, sweepB)
					case "AxpyBatch":
						AxpyBatch(s, paperN, z, sweepB, a64, paperN, BatchRows, paperN, sweepB)
					case "AxpyBatch32":
						AxpyBatch32(s, paperN, z, sweepB, a32, paperN, BatchRows, paperN, sweepB)
					}
				}
				b.ReportMetric(fma*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFMA/s")
				reportCPU(b, c0, fma)
			})
		}
	})
}

// reportCPU reports the work per CPU second since c0 (GFMA per CPU second
// for fma fused multiply-adds per op): per core, and unaffected by the
// time other processes hold the cores.
func reportCPU(b *testing.B, c0 time.Duration, fma float64) {
	if d := cputime.Process() - c0; d > 0 {
		b.ReportMetric(fma*float64(b.N)/d.Seconds()/1e9, "GFMA/cpu-s")
	}
}

// sweep is one iteration of the batched operator over m rows for B runs:
// per block of BatchRows rows, Z = A X^T (DotBatch), W = sign(Z/m - y)/m,
// S += W^T A (AxpyBatch). Two goroutines each own half of the runs, so
// the result does not depend on the number of cores.
func sweep(a64 []float64, a32 []float32, m, n, runs int, x, y, s []float64) {
	sweepK(BatchRows, a64, a32, m, n, runs, x, y, s)
}

// sweepK is sweep with K rows per block.
func sweepK(K int, a64 []float64, a32 []float32, m, n, runs int, x, y, s []float64) {
	var wg sync.WaitGroup
	for h := range 2 {
		wg.Go(func() {
			b0, b1 := h*runs/2, (h+1)*runs/2
			nb := b1 - b0
			xh, sh := x[b0*n:], s[b0*n:]
			clear(sh[:nb*n])
			z := make([]float64, K*nb)
			for r0 := 0; r0 < m; r0 += K {
				k := min(K, m-r0)
				if a32 != nil {
					DotBatch32(z, nb, a32[r0*n:], n, k, n, xh, n, nb)
				} else {
					DotBatch(z, nb, a64[r0*n:], n, k, n, xh, n, nb)
				}
				for i := range k {
					for b := range nb {
						z[i*nb+b] = math.Copysign(1/float64(m), z[i*nb+b]/float64(m)-y[r0+i])
					}
				}
				if a32 != nil {
					AxpyBatch32(sh, n, z, nb, a32[r0*n:], n, k, n, nb)
				} else {
					AxpyBatch(sh, n, z, nb, a64[r0*n:], n, k, n, nb)
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkSweep is the batched pass: sweepB runs over sweepM rows of the
// paper's length, on two cores. It reports GFMA/s (2*m*N*B fused
// multiply-adds per pass) and the time per run-iteration extrapolated to
// the paper's m = 8000.
func BenchmarkSweep(b *testing.B) {
	a64, a32 := paperData()
	x := make([]float64, sweepB*paperN)
	for i := range x {
		x[i] = math.Sin(float64(i)) * 1e-3
	}
	y := benchVec(sweepM, 5)
	s := make([]float64, sweepB*paperN)
	fma := 2 * float64(sweepM) * paperN * sweepB
	forEachImplB(b, func(b *testing.B) {
		for _, is32 := range []bool{false, true} {
			name := "f64"
			if is32 {
				name = "f32"
			}
			b.Run(name, func(b *testing.B) {
				c0 := cputime.Process()
				for b.Loop() {
					if is32 {
						sweep(nil, a32, sweepM, paperN, sweepB, x, y, s)
					} else {
						sweep(a64, nil, sweepM, paperN, sweepB, x, y, s)
					}
				}
				sec := b.Elapsed().Seconds() / float64(b.N)
				b.ReportMetric(fma/sec/1e9, "GFMA/s")
				b.ReportMetric(sec*1e3*paperM/sweepM/sweepB, "ms/run-iter@8000")
				reportCPU(b, c0, fma)
			})
		}
	})
}

// batchVectors returns the runs' vectors of a batched benchmark over rows
// of paperN values: x (runs × paperN), the adjoint's sums s (zero) and
// the weights z (BatchRows × runs, small enough to leave s near zero).
func batchVectors(runs int) (x, s, z []float64) {
	x = make([]float64, runs*paperN)
	for i := range x {
		x[i] = math.Sin(float64(i))
	}
	s = make([]float64, runs*paperN)
	z = make([]float64, BatchRows*runs)
	for i := range z {
		z[i] = 1e-9 * math.Cos(float64(i))
	}
	return x, s, z
}

// BenchmarkGather gathers rows of 128 ratings at rank 20 from 10,700
// other rows (a user's row of generate's 9 × 10^6 ratings), the offsets
// in 4 bytes and in 2, which should cost the same.
func BenchmarkGather(b *testing.B) {
	const n, k, rows = 128, 20, 10700
	d := k + 2
	rng := rand.New(rand.NewPCG(7, 8))
	other := make([]float64, rows*d)
	for i := range other {
		other[i] = rng.NormFloat64()
	}
	const nrows = 512 // rows of ratings, their offsets at random
	idx := make([]int32, nrows*n)
	idx16 := make([]uint16, nrows*n)
	for e := range idx {
		idx[e] = int32(rng.IntN(rows))
		idx16[e] = uint16(idx[e])
	}
	g := GatherRow{Cols: make([]float64, n*k), Res: make([]float64, n), X: make([]float64, k), Vals: make([]float32, n), Other: other, D: d}
	forEachImplB(b, func(b *testing.B) {
		for _, wide := range []bool{true, false} {
			name := "idx16"
			if wide {
				name = "idx32"
			}
			b.Run(name, func(b *testing.B) {
				r := 0
				for b.Loop() {
					g.Idx, g.Idx16 = nil, nil
					if wide {
						g.Idx = idx[r*n : r*n+n]
					} else {
						g.Idx16 = idx16[r*n : r*n+n]
					}
					Gather(&g)
					r = (r + 1) % nrows
				}
			})
		}
	})
}
