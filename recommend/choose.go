package recommend

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/scaledsm/scaledsm/internal/fsum"
)

// burns are the first sweeps of the averages that a validation chain
// tracks.
var burns = []int{0, 5, 10, 20, 40, 80, 160}

// choose chooses by validation what the settings leave open: it returns
// what it measured, the settings of the final fit and its burn-in.
func choose(ctx context.Context, r Ratings, s Settings) (*Selection, Settings, int, error) {
	m := r.Len()
	nv := int(math.Ceil(s.Validation * float64(m)))
	if nv < 1 || m-nv < 1 {
		return nil, s, 0, &InputError{Input: "ratings", Reason: "too few ratings to hold some out for validation: give the rank and the number of sweeps"}
	}
	st := newStream()
	st.seed(s.Seed, 0, streamSplit, 0)
	perm := st.rng.Perm(m)
	val := r.subset(perm[:nv])
	train := r.subset(perm[nv:])
	users, rows := newIDs(train.Users)
	items, cols := newIDs(train.Items)
	t := newTable(len(users), len(items), rows, cols, train.Values)
	p := pairs{users: make([]int32, nv), items: make([]int32, nv), values: val.Values}
	for k := range nv {
		u, ok := users.Index(val.Users[k])
		p.users[k] = int32(u)
		if !ok {
			p.users[k] = -1
		}
		i, ok := items.Index(val.Items[k])
		p.items[k] = int32(i)
		if !ok {
			p.items[k] = -1
		}
	}
	lo, hi := slices.Min(r.Values), slices.Max(r.Values)
	sd := stdDev(train.Values)
	sel := &Selection{Fraction: s.Validation, Ratings: nv}

	ranks := Ranks
	if s.Rank > 0 {
		ranks = []int{s.Rank}
	}
	lambdas := []float64{s.Lambda}
	if s.Method == Ridge && s.Lambda == 0 {
		lambdas = Lambdas
	}
	best, bestBurn := -1, 0
	// try runs a chain of rank k (and ridge penalty lam) on the split.
	try := func(k int, lam float64) (float64, error) {
		begin := time.Now()
		smp := newSampler(t, k, s.Nu, s.Seed, s.Workers)
		b := burns
		if s.Method == Ridge {
			smp.noise, smp.nu, smp.lambda = false, math.Inf(1), lam
			b = nil // the last iterate
		}
		spec := chainSpec{sweeps: s.Sweeps, val: newScores(p, lo, hi, t.mean, b),
			patience: 30, minSweeps: 40, tol: 1e-4 * sd}
		if s.Method == Ridge {
			spec.patience, spec.minSweeps = 5, 10
		}
		if s.Sweeps == 0 {
			spec.sweeps = DefaultMaxSweeps
		} else {
			spec.patience = math.MaxInt // run them all
		}
		if s.Progress != nil {
			spec.progress = func(n int, rmse float64) {
				s.Progress(Progress{Stage: "validation", Rank: k, Sweep: n + 1, RMSE: rmse})
			}
		}
		out, err := run(ctx, smp, spec)
		if err != nil {
			return 0, err
		}
		// The chain ran past its best sweep while its RMSE stayed within
		// the tolerance of the best: as good by validation, and a
		// Bayesian average only gains from more sweeps, so the final fit
		// makes as many as the chain made. Ridge's is an iterate.
		c := Candidate{Rank: k, Sweeps: out.sweeps, Best: out.bestSweep, RMSE: out.bestRMSE, Seconds: time.Since(begin).Seconds()}
		if s.Method == Ridge {
			c.Sweeps, c.Lambda = out.bestSweep, lam
		}
		sel.Candidates = append(sel.Candidates, c)
		if best < 0 || c.RMSE < sel.Candidates[best].RMSE {
			best, bestBurn = len(sel.Candidates)-1, out.bestBurn
		}
		return c.RMSE, nil
	}
	// A larger rank is tried while the last one improved the held-out
	// RMSE: by RankGain for the Bayesian model, whose chains cost more,
	// by anything for ridge. Ridge's penalty walks on the grid Lambdas
	// from the best so far, to the better neighbour while there is one.
	gain := RankGain * sd
	if s.Method == Ridge {
		gain = 0
	}
	at := len(lambdas) / 2
	for _, k := range ranks {
		if k > maxRank(t) {
			break
		}
		before := math.Inf(1)
		if best >= 0 {
			before = sel.Candidates[best].RMSE
		}
		tried := map[int]float64{}
		eval := func(j int) (float64, error) {
			if v, ok := tried[j]; ok {
				return v, nil
			}
			v, err := try(k, lambdas[j])
			tried[j] = v
			return v, err
		}
		cur, err := eval(at)
		if err != nil {
			return nil, s, 0, err
		}
		for moved := true; moved; {
			moved = false
			for _, j := range []int{at - 1, at + 1} {
				if j < 0 || j >= len(lambdas) {
					continue
				}
				v, err := eval(j)
				if err != nil {
					return nil, s, 0, err
				}
				if v < cur {
					at, cur, moved = j, v, true
					break
				}
			}
		}
		if !(cur < before-gain) {
			break
		}
	}
	if best < 0 {
		return nil, s, 0, &InputError{Input: "ratings", Reason: fmt.Sprintf("%d ratings are too few for a rank-%d model of %d users and %d items", len(train.Values), ranks[0], t.n1, t.n2)}
	}
	sel.Chosen = best
	c := sel.Candidates[best]
	s.Rank, s.Sweeps = c.Rank, c.Sweeps
	if s.Method == Ridge {
		s.Lambda = c.Lambda
		bestBurn = c.Sweeps - 1
	}
	return sel, s, bestBurn, nil
}

// maxRank is the largest rank worth fitting to the table: a rank-k model
// has (n1 + n2) k unknowns, which should not exceed the ratings.
func maxRank(t *table) int {
	return max(1, min(t.n1, t.n2, len(t.y)/(t.n1+t.n2)))
}

// stdDev returns the standard deviation of v (1 when v is constant, so
// that it can scale tolerances).
func stdDev(v []float64) float64 {
	mean := fsum.Of(v) / float64(len(v))
	var s fsum.Sum
	for _, x := range v {
		s.Add((x - mean) * (x - mean))
	}
	sd := math.Sqrt(s.Value() / float64(len(v)))
	if !(sd > 0) {
		return 1
	}
	return sd
}
