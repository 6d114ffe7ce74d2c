package par

import (
	"sync/atomic"
	"testing"
)

// TestDo checks that every index is run exactly once, whatever the number
// of workers.
func TestDo(t *testing.T) {
	for _, workers := range []int{0, 1, 2, 7, 100} {
		for _, n := range []int{0, 1, 5, 1000} {
			counts := make([]atomic.Int32, n)
			Do(workers, n, func(i int) { counts[i].Add(1) })
			for i := range counts {
				if c := counts[i].Load(); c != 1 {
					t.Fatalf("workers %d, n %d: index %d ran %d times", workers, n, i, c)
				}
			}
		}
	}
}
