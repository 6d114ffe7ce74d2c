//go:build amd64 && !purego

package kernel

import (
	"math"
	"testing"
	"time"
)

// BenchmarkBatchLimits measures, on one core, how close each level of the
// batched pass comes to the arithmetic peak, taking the best of the calls
// of each (the least disturbed by other processes on a shared machine):
//
//   - tile: one register tile of DotBatch (8 rows x 3 runs for avx512,
//     4 x 3 for avx2) over a column block of 256, everything in L1;
//   - DotBatch, AxpyBatch: a block of BatchRows rows of the paper's
//     length with 54 runs (half the sweep, what one core gets), the rows
//     in the caches ("cache") or read from memory, a new block every call
//     ("memory").
//
// Every call is timed beside one of MultiplyAdds (independent fused
// multiply-adds in registers, the peak), and the benchmark reports the
// best GFMA/s of each and their ratio, "of-peak".
func BenchmarkBatchLimits(b *testing.B) {
	a64, _ := paperData()
	const runs = 54
	x, s, z := batchVectors(runs)
	blockFMA := float64(BatchRows) * paperN * runs
	for _, impl := range []int{implAVX2, implAVX512} {
		if supported(impl) != nil {
			continue
		}
		mr, nr, lanes := dotMRAvx2, dotNRAvx2, lanesAvx2
		if impl == implAVX512 {
			mr, nr, lanes = dotMRAvx512, dotNRAvx512, lanesAvx512
		}
		acc := make([]float64, mr*nr*lanes)
		const tileN = 256
		cases := []struct {
			name string
			fma  float64
			call func(k int)
		}{
			{"tile", float64(mr * nr * tileN * 64), func(int) {
				for range 64 {
					if impl == implAVX512 {
						dotTileAvx512(mr, nr, &acc[0], nr*lanes, &a64[0], tileN, &x[0], tileN, tileN, &a64[0])
					} else {
						dotTileAvx2(mr, nr, &acc[0], nr*lanes, &a64[0], tileN, &x[0], tileN, tileN, &a64[0])
					}
				}
			}},
			{"DotBatch/cache", blockFMA, func(int) { dotBatch(impl, z, runs, a64, nil, paperN, BatchRows, paperN, x, paperN, runs) }},
			{"DotBatch/memory", blockFMA, func(k int) {
				dotBatch(impl, z, runs, a64[k%(paperM/BatchRows)*BatchRows*paperN:], nil, paperN, BatchRows, paperN, x, paperN, runs)
			}},
			{"AxpyBatch/cache", blockFMA, func(int) { axpyBatch(impl, s, paperN, z, runs, a64, nil, paperN, BatchRows, paperN, runs) }},
			{"AxpyBatch/memory", blockFMA, func(k int) {
				axpyBatch(impl, s, paperN, z, runs, a64[k%(paperM/BatchRows)*BatchRows*paperN:], nil, paperN, BatchRows, paperN, runs)
			}},
		}
		for _, c := range cases {
			b.Run(implNames[impl]+"/"+c.name, func(b *testing.B) {
				defer Use(Active())
				Use(implNames[impl])
				best, peak := math.Inf(1), 0.0
				k := 0
				for b.Loop() {
					t0 := time.Now()
					done := MultiplyAdds(1 << 16)
					peak = max(peak, done/time.Since(t0).Seconds())
					t0 = time.Now()
					c.call(k)
					best = min(best, time.Since(t0).Seconds())
					k += 7 // another block of rows next time, not the next one
				}
				rate := c.fma / best
				b.ReportMetric(rate/1e9, "best-GFMA/s")
				b.ReportMetric(peak/1e9, "peak-GFMA/s")
				b.ReportMetric(rate/peak, "of-peak")
			})
		}
	}
}
