//go:build mpi

package mpi_test

import (
	"bytes"
	"context"
	"math"
	"os"
	"testing"

	"github.com/scaledsm/scaledsm"
	"github.com/scaledsm/scaledsm/mpi"
	"github.com/scaledsm/scaledsm/ranks"
	"github.com/scaledsm/scaledsm/synth"
)

// The tests run on the ranks of mpirun (see .ci/run): mpirun -np P on the
// compiled test binary. Alone (one rank) they check the single-rank path.

func TestMain(m *testing.M) {
	code := m.Run()
	if code != 0 {
		mpi.Abort(code)
	}
	mpi.Finalize()
	os.Exit(code)
}

// world returns the job's Reducer and its size (nil and 1 alone).
func world(t *testing.T) (ranks.Reducer, int) {
	t.Helper()
	red, err := mpi.World()
	if err != nil {
		t.Fatal(err)
	}
	if red == nil {
		return nil, 1
	}
	return red, red.Size()
}

// TestCollectives checks Sum, Gather and Broadcast on values that tell the
// ranks apart: rank k contributes k+1 and 2^-(k+1).
func TestCollectives(t *testing.T) {
	red, p := world(t)
	if red == nil {
		t.Skip("one rank: run under mpirun -np 2 or more")
	}
	k := float64(red.Rank())
	x := []float64{k + 1, math.Ldexp(1, -int(k)-1)}
	red.Sum(x)
	if want := float64(p * (p + 1) / 2); x[0] != want || x[1] != 1-math.Ldexp(1, -p) {
		t.Errorf("Sum = %v, want [%v %v]", x, want, 1-math.Ldexp(1, -p))
	}
	all := make([]float64, 2*p)
	red.Gather(all, []float64{k, -k})
	for j := range p {
		if all[2*j] != float64(j) || all[2*j+1] != -float64(j) {
			t.Errorf("Gather = %v", all)
			break
		}
	}
	b := []float64{k + 7}
	red.Broadcast(b)
	if b[0] != 7 {
		t.Errorf("Broadcast = %v, want 7", b[0])
	}
}

// TestExchange sends each rank a message that names the sender and the
// receiver, of a length that differs between pairs (none from a rank to
// itself), and checks what each rank receives.
func TestExchange(t *testing.T) {
	red, p := world(t)
	if red == nil {
		t.Skip("one rank: run under mpirun -np 2 or more")
	}
	ex, ok := red.(ranks.Exchanger)
	if !ok {
		t.Fatal("the MPI Reducer is not an Exchanger")
	}
	me := red.Rank()
	msg := func(from, to int) []byte {
		if from == to {
			return nil
		}
		return bytes.Repeat([]byte{byte(16*from + to)}, 1+from+3*to)
	}
	send := make([][]byte, p)
	for to := range p {
		send[to] = msg(me, to)
	}
	got := ex.Exchange(send)
	for from := range p {
		if !bytes.Equal(got[from], msg(from, me)) {
			t.Errorf("rank %d got %v from rank %d, want %v", me, got[from], from, msg(from, me))
		}
	}
}

// TestShardedSolvesOverMPI solves a sensing problem with outliers and a
// completion problem on the job's ranks, each drawing its shard, and alone on every
// rank: the iterations agree within one and both recover X* to the
// tolerance; the factors of every rank are the same bits (gathered and
// compared).
func TestShardedSolvesOverMPI(t *testing.T) {
	red, p := world(t)
	cases := []struct {
		c   synth.Config
		s   synth.Setting
		set scaledsm.Settings
	}{
		{synth.Config{Kind: synth.Sensing, N1: 20, Rank: 3, Seed: 7}, synth.Setting{Kappa: 10, PS: 0.1, SNR: math.Inf(1)}, scaledsm.Settings{Tol: 1e-11}},
		// ScaledGD: ScaledSM does not yet recover completion problems.
		{synth.Config{Kind: synth.Completion, N1: 200, N2: 150, Rank: 3, P: 0.3, Seed: 9}, synth.Setting{Kappa: 5, SNR: math.Inf(1)}, scaledsm.Settings{Tol: 1e-11, Method: scaledsm.ScaledGD, Step: scaledsm.Constant{Eta: 0.5}}},
	}
	for _, tc := range cases {
		set := tc.set
		solve := func(red ranks.Reducer) *scaledsm.Result {
			var d *synth.Draw
			var err error
			if red == nil {
				d, err = synth.New(tc.c)
			} else {
				d, err = synth.NewShard(tc.c, red)
			}
			if err != nil {
				t.Fatal(err)
			}
			in, err := d.Instance(tc.s)
			if err != nil {
				t.Fatal(err)
			}
			res, err := scaledsm.Solve(context.Background(), in.Problem(), set)
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		alone, shared := solve(nil), solve(red)
		t.Logf("%v on %d ranks: %v, %d iterations (alone %d), error %.3g (alone %.3g)", tc.c.Kind, p, shared.Status, shared.Iterations, alone.Iterations, shared.RelError, alone.RelError)
		if shared.Status != scaledsm.Converged || alone.Status != scaledsm.Converged {
			t.Errorf("%v: %v on %d ranks, %v alone", tc.c.Kind, shared.Status, p, alone.Status)
		}
		if d := shared.Iterations - alone.Iterations; d < -1 || d > 1 {
			t.Errorf("%v: %d iterations on %d ranks, %d alone", tc.c.Kind, shared.Iterations, p, alone.Iterations)
		}
		if red != nil {
			l := shared.L.RawMatrix().Data
			mine := []float64{l[0], l[len(l)-1], float64(shared.Iterations)}
			all := make([]float64, 3*p)
			red.Gather(all, mine)
			for k := range p {
				for j := range 3 {
					if all[3*k+j] != mine[j] && !(math.IsNaN(mine[j]) && math.IsNaN(all[3*k+j])) {
						t.Errorf("%v: rank %d ends with other factors than rank %d", tc.c.Kind, k, red.Rank())
					}
				}
			}
		}
	}
}
