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

// chosen is what a validation chose: what it measured, the settings of
// the final fit and, for a refit, its burn-in; for the Bayesian model, the
// chosen chain to continue on all the ratings.
type chosen struct {
	sel  *Selection
	s    Settings
	burn int
	// The chosen chain: its sampler, the validation ratings still held
	// out, and its posterior mean; made counts the sweeps of every chain,
	// which number the continuation's.
	smp  *sampler
	post *posterior
	made int
}

// How the Bayesian selection runs its chains. Each chain stops when its
// held-out RMSE has not improved by chainTol standard deviations of the
// ratings in chainPatience sweeps, or in half as many as came before its
// last gain if that is fewer (chainMinPatience at least, and chainMin in
// all). It keeps the posterior mean of its sweeps from the first on and
// from chainBurn on (see chainSpec.alsoBurn), every chainThin-th sweep,
// held at chainRankMul times the rank. The chosen chain is then continued
// on all the ratings for contFrac of the sweeps it made, or for as many as
// contBudget multiply-adds allow where that is more (on ml-latest-small,
// 206 sweeps at rank 5 for 0.8348 against 50 for 0.8371, 0.6 s more; on
// MovieLens 100k and beyond, no more than contFrac's), those sweeps added
// to its mean. On MovieLens 100k's splits this predicts with test RMSE
// 0.8995 on average in 0.8 to 2.0 s a split, where chains to 1e-4 and a
// refit from scratch on all the ratings took 4.4 to 6.4 s for 0.8975
// (scaledsm experiment movielens; docs/recommend.md).
const (
	chainPatience    = 30
	chainMin         = 20
	chainMinPatience = 10
	chainTol         = 2e-4
	chainThin        = 4
	chainRankMul     = 2
	contFrac         = 0.5
	contBudget       = 6e8
	chainBurn        = 20
)

// choose chooses by validation what the settings leave open, on the
// table of all the ratings with some held out.
func choose(ctx context.Context, t *table, s Settings) (*chosen, error) {
	if s.Validation == 0 {
		s.Validation = min(DefaultValidation, DefaultHeldOut/float64(len(t.y)))
	}
	held, p := holdOut(t, s.Validation, s.Seed)
	nv := len(p.values)
	if nv < 1 || nv >= len(t.y) {
		return nil, &InputError{Input: "ratings", Reason: "too few ratings to hold some out for validation: give the rank and the number of sweeps"}
	}
	lo, hi := float64(slices.Min(t.y)), float64(slices.Max(t.y))
	// The spread of the fitted ratings scales the tolerances.
	fitted := func(yield func(float64)) {
		for pos, v := range t.y {
			if held[pos>>6]>>(pos&63)&1 == 0 {
				yield(float64(v))
			}
		}
	}
	var sum, sq fsum.Sum
	fitted(sum.Add)
	n := float64(len(t.y) - nv)
	mean := sum.Value() / n
	fitted(func(v float64) { sq.Add((v - mean) * (v - mean)) })
	sd := math.Sqrt(sq.Value() / n)
	if !(sd > 0) {
		sd = 1
	}
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
	ch := &chosen{sel: sel}
	var last *sampler
	// try runs a chain of rank k (and ridge penalty lam) on the split.
	try := func(k int, lam float64) (float64, error) {
		begin := time.Now()
		// The chains share one pair of weight buffers: the kept chain's
		// continuation starts from the last chain's weights, a start as
		// good as any, redrawn in its first sweep.
		smp := newSamplerFrom(t, k, s.Nu, s.Seed, s.Workers, last)
		smp.red = s.Reducer
		last = smp
		smp.hold(held, nv)
		b := burns
		if s.Method == Ridge {
			smp.noise, smp.nu, smp.lambda = false, math.Inf(1), lam
			b = nil // the last iterate
		}
		spec := chainSpec{sweeps: s.Sweeps, first: ch.made, val: newScores(p, lo, hi, t.mean, b),
			patience: chainPatience, scaled: true, minPatience: chainMinPatience, minSweeps: chainMin, tol: chainTol * sd}
		if s.Method == Bayes {
			spec.keep, spec.alsoBurn, spec.thin, spec.maxRank = true, chainBurn, chainThin, chainRankMul*k
		}
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
		ch.made += out.sweeps
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
			if s.Method == Bayes {
				ch.smp, ch.post = smp, out.post
			}
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
			return nil, err
		}
		for moved := true; moved; {
			moved = false
			for _, j := range []int{at - 1, at + 1} {
				if j < 0 || j >= len(lambdas) {
					continue
				}
				v, err := eval(j)
				if err != nil {
					return nil, err
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
		return nil, &InputError{Input: "ratings", Reason: fmt.Sprintf("%d ratings are too few for a rank-%d model of %d users and %d items", len(t.y)-nv, ranks[0], t.n1, t.n2)}
	}
	sel.Chosen = best
	c := sel.Candidates[best]
	s.Rank, s.Sweeps = c.Rank, c.Sweeps
	if s.Method == Ridge {
		s.Lambda = c.Lambda
		bestBurn = c.Sweeps - 1
	} else {
		// Half the chain's sweeps, or on few ratings as many as
		// contBudget multiply-adds of the rows' Grams allow (at most 4
		// times the chain's): the average gains from more sweeps where
		// they are cheap.
		d := float64(c.Rank + 1)
		s.Sweeps = max(1, int(contFrac*float64(c.Sweeps-bestBurn)), min(4*c.Sweeps, int(contBudget/(float64(len(t.y))*d*d))))
	}
	ch.s, ch.burn = s, bestBurn
	return ch, nil
}

// holdOut chooses the ratings of the table held out for validation, each
// with probability fraction (a draw of seed's stream per rating, in user
// order), and returns them as a bit per position and as pairs: a rating
// is held out only if its user and its item keep another, so that the
// chosen chain fits every row and goes on with all the ratings. It needs
// no copy of the ratings: a bit each.
func holdOut(t *table, fraction float64, seed uint64) ([]uint64, pairs) {
	left1, left2 := make([]int32, t.n1), make([]int32, t.n2)
	for u := range t.n1 {
		left1[u] = int32(t.uStart[u+1] - t.uStart[u])
	}
	for i := range t.n2 {
		left2[i] = int32(t.iStart[i+1] - t.iStart[i])
	}
	held := make([]uint64, (len(t.y)+63)/64)
	var p pairs
	st := newStream()
	st.seed(seed, 0, streamSplit, 0)
	for u := range t.n1 {
		for pos := t.uStart[u]; pos < t.uStart[u+1]; pos++ {
			i := t.uItem[pos]
			if !(st.rng.Float64() < fraction) || left1[u] < 2 || left2[i] < 2 {
				continue
			}
			left1[u]--
			left2[i]--
			held[pos>>6] |= 1 << (pos & 63)
			p.users = append(p.users, int32(u))
			p.items = append(p.items, i)
			p.values = append(p.values, float64(t.y[pos]))
		}
	}
	return held, p
}

// maxRank is the largest rank worth fitting to the table: a rank-k model
// has (n1 + n2) k unknowns, which should not exceed the ratings.
func maxRank(t *table) int {
	return max(1, min(t.n1, t.n2, len(t.y)/(t.n1+t.n2)))
}
