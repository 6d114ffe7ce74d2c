// Package par runs independent pieces of work on several goroutines.
package par

import (
	"sync"
	"sync/atomic"
)

// Do runs f(i) for i in [0, n) on up to workers goroutines, the caller's
// among them, handing out the indices one at a time in increasing order.
// Each f(i) must write results of its own, so that the schedule cannot
// change them. The caller starts at once: on a busy machine, where the
// other goroutines may wait for a core, it takes what they have not.
func Do(workers, n int, f func(i int)) {
	workers = min(workers, n)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	work := func() {
		for {
			i := int(next.Add(1) - 1)
			if i >= n {
				return
			}
			f(i)
		}
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
}
