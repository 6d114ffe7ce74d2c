//go:build mpi

package mpi_test

import (
	"fmt"
	"testing"

	"github.com/scaledsm/scaledsm/mpi"
)

// BenchmarkCollectives times the collectives of a solve on the job's ranks
// for the latency-bandwidth model of docs/scale.md: a Sum (reduce and
// broadcast) of 1 to 10^6 values and a Gather of 4 values a rank. Run it
// with a fixed count on every rank, e.g.
//
//	mpirun -np 2 ./mpi.test -test.run '^$' -test.bench . -test.benchtime 200x
func BenchmarkCollectives(b *testing.B) {
	red, err := mpi.World()
	if err != nil {
		b.Fatal(err)
	}
	if red == nil {
		b.Skip("one rank: run under mpirun")
	}
	for _, n := range []int{1, 256, 10000, 100000, 1000000} {
		b.Run(fmt.Sprintf("sum-%d", n), func(b *testing.B) {
			x := make([]float64, n)
			b.SetBytes(int64(8 * n))
			for b.Loop() {
				red.Sum(x)
			}
		})
	}
	b.Run("gather-4", func(b *testing.B) {
		x := make([]float64, 4)
		all := make([]float64, 4*red.Size())
		for b.Loop() {
			red.Gather(all, x)
		}
	})
}
