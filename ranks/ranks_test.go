package ranks_test

import (
	"bytes"
	"sync"
	"testing"

	"github.com/scaledsm/scaledsm/ranks"
)

// TestLocalSum sums, gathers and broadcasts over three in-process ranks
// and checks every rank's result.
func TestLocalSum(t *testing.T) {
	const p = 3
	reds := ranks.NewLocal(p)
	sums, alls, casts := make([][]float64, p), make([][]float64, p), make([][]float64, p)
	var wg sync.WaitGroup
	for me := range p {
		wg.Go(func() {
			r := reds[me]
			if r.Rank() != me || r.Size() != p {
				t.Errorf("rank %d of %d says %d of %d", me, p, r.Rank(), r.Size())
			}
			x := []float64{float64(me), 1}
			r.Sum(x)
			sums[me] = x
			all := make([]float64, 2*p)
			r.Gather(all, []float64{float64(10 * me), float64(me)})
			alls[me] = all
			c := []float64{float64(me + 7)}
			r.Broadcast(c)
			casts[me] = c
		})
	}
	wg.Wait()
	for me := range p {
		if sums[me][0] != 3 || sums[me][1] != 3 {
			t.Errorf("rank %d: sum %v, want [3 3]", me, sums[me])
		}
		for k := range p {
			if alls[me][2*k] != float64(10*k) || alls[me][2*k+1] != float64(k) {
				t.Errorf("rank %d: gathered %v", me, alls[me])
			}
		}
		if casts[me][0] != 7 {
			t.Errorf("rank %d: broadcast %v, want rank 0's [7]", me, casts[me])
		}
	}
}

// TestLocalExchange sends each in-process rank a message naming the sender
// and the receiver, of a length that differs between pairs (none from a
// rank to itself), and checks what each receives.
func TestLocalExchange(t *testing.T) {
	const p = 3
	reds := ranks.NewLocal(p)
	msg := func(from, to int) []byte {
		if from == to {
			return nil
		}
		return bytes.Repeat([]byte{byte(16*from + to)}, 1+from+3*to)
	}
	got := make([][][]byte, p)
	var wg sync.WaitGroup
	for me := range p {
		wg.Go(func() {
			send := make([][]byte, p)
			for to := range p {
				send[to] = msg(me, to)
			}
			got[me] = reds[me].(ranks.Exchanger).Exchange(send)
		})
	}
	wg.Wait()
	for me := range p {
		for from := range p {
			if !bytes.Equal(got[me][from], msg(from, me)) {
				t.Errorf("rank %d got %v from rank %d, want %v", me, got[me][from], from, msg(from, me))
			}
		}
	}
}
