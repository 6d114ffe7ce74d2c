package recommend

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/scaledsm/scaledsm/internal/fsum"
	"github.com/scaledsm/scaledsm/internal/reduce"
)

// burns are the first sweeps of the averages that a validation chain
// tracks, counted from its first sweep.
var burns = []int{0, 5, 10, 20, 40, 80, 160}

// chosen is what a validation chose: what it measured, the settings of
// the final fit and, for a refit, its burn-in; for the Bayesian model, the
// chain to continue on all the ratings.
type chosen struct {
	sel  *Selection
	s    Settings
	burn int
	// The chain: its sampler at the chosen rank, and its posterior mean;
	// made counts the sweeps made, which number the continuation's.
	smp    *sampler
	post   *posterior
	made   int
	sweeps int    // of them, the chain's at its chosen rank and below
	held   *pairs // the validation ratings, to be given back
}

// How the Bayesian fit finds its rank and its number of sweeps, in one
// chain. At rank Ranks[0] the chain runs until its held-out RMSE has not
// improved by chainTol standard deviations of the ratings in chainPatience
// sweeps, or in half the sweeps before its last gain if fewer (at least
// chainMinPatience, and chainMin in all). It then grows in place to the
// next rank of Ranks (the new dimensions from the residuals' leading
// singular vectors) while the last rank gained RankGain standard
// deviations (more on many ratings, see rankCost), and undoes a rank that
// did not pay for its sweeps. Its posterior mean,
// held at chainRankMul times the rank, takes every chainThin-th sweep from
// the first and from chainBurn on (chainSpec.alsoBurn), then the sweeps on
// all the ratings: contFrac of those it made to its chosen rank, or as many
// as contBudget rating-dimensions allow where that is more (at most 4×).
// A sweep of the continuation buys more than one late in a stage: it fits
// the held-out ratings too and goes into an average already at the chosen
// rank. Jester's shape, 5 × 10^-4 for chainRate below: 4.3328 with 11
// continuing sweeps, 4.3574 with 4; with half its stages' sweeps
// continuing and stages stopped at twice the rate, 4.3381 in 45 sweeps
// where a quarter at 10^-4 took 103 for 4.3079 and 5 × 10^-4 56.
const (
	chainPatience    = 15
	chainMin         = 10
	chainMinPatience = 10
	chainTol         = 2e-4
	chainThin        = 2
	chainRankMul     = 2
	contFrac         = 0.5
	contBudget       = 1e8
	chainBurn        = 20
)

// How a stage that costs much stops early (see chainSpec.rate and
// chainSpec.trialSweeps). A stage stops when its gain over the last
// rateWindow sweeps falls below chainRate standard deviations of the
// ratings a sweep times the sweep's cost (sweepCost): on 10^7 ratings at
// rank 5 once it gains less than 6·10^-3 of RMSE a sweep, where the patience
// above would run it until it gains nothing; on Jester's shape (10^6
// ratings of spread 5.3) at rank 5 below 0.0035 a sweep, on MovieLens
// 100k's folds 5·10^-5. The sweeps a stage stops short of go to the
// continuation (contFrac), where they buy more. At 2·10^-3 MovieLens
// 100k's folds lost too much (a mean RMSE of 0.9009 where 0.8994 had
// been); at 10^-3 their mean is 0.8994. A trial of a larger rank
// whose sweeps cost more than rankBudget stops after trialSweeps sweeps
// unless it has gained trialShare of the gain it must make to be kept:
// generate's 9 × 10^6 ratings of a rank-5 truth tried rank 10 for 11
// sweeps to gain 0.0003, where 0.0099 was asked; a rank that helps shows
// it in its first sweeps (Jester's shape gained 0.003 in one at rank 10,
// 0.018 in five). Such a trial is led by trialWarm penalized sweeps, not
// warmSweeps: on 10^8 ratings six penalized sweeps at rank 5 took 13 s of
// the fit (a profile), and a sweep's cost grows with the rank.
const (
	chainRate   = 1e-3
	rateWindow  = 5
	trialSweeps = 3
	trialShare  = 0.25
	trialWarm   = 1 // the penalized sweeps that lead such a trial (see warmSweeps)
)

// rankBudget is the rating-dimensions, m·(k+1), of a sweep beyond which a
// rank must pay for its cost (see rankCost): a sweep of a few hundredths
// of a second on two cores, so that 10^7 ratings at rank 20 are asked 21
// times RankGain. A variable for the tests.
var rankBudget = 1e7

// postponeTrials makes a costly trial postpone the chain's posterior mean
// (chain.postpone) rather than copy it; the tests turn it off to compare.
var postponeTrials = true

// skipUndone makes the last sweep of a trial that stops on its share
// skip the posterior means (see chain.stage); the tests turn it off to
// compare.
var skipUndone = true

// rankCost is the factor of RankGain that rank k must gain on m ratings to
// be grown past, and beyond 1 (less 1) to be kept over the rank before it:
// 1 while its sweep is within rankBudget, its sweep's rating-dimensions
// over rankBudget beyond. A larger rank's continuation on 10^7 ratings
// costs seconds for the last ten-thousandths of RMSE it may buy.
func rankCost(m, k int) float64 {
	return max(1, sweepCost(m, k))
}

// sweepCost is the cost of a sweep of m ratings at rank k in units of
// rankBudget rating-dimensions.
func sweepCost(m, k int) float64 {
	return float64(m) * float64(k+1) / rankBudget
}

// choose chooses by validation what the settings leave open, on the
// table of all the ratings with some held out.
func choose(ctx context.Context, t *table, s Settings) (*chosen, error) {
	if s.Validation == 0 {
		s.Validation = min(DefaultValidation, DefaultHeldOut/float64(t.m))
	}
	lo, hi := t.y.valueRange(t.red)
	p := holdOut(t, s.Validation, s.Seed, streamSplit)
	nv := p.n
	if nv < 1 || nv >= t.m {
		return nil, &InputError{Source: "recommend", Input: "ratings", Reason: "too few ratings to hold some out for validation: give the rank and the number of sweeps"}
	}
	t.mark(&p, true)
	v := validation{p: &p, t: t, lo: lo, hi: hi, mean: t.mean, sd: fittedSD(t, nv)}
	sel := &Selection{Fraction: s.Validation, Ratings: nv}
	ch := &chosen{sel: sel, held: &p}
	var err error
	if s.Method == Bayes {
		err = growChain(ctx, t, s, v, ch)
	} else {
		err = ridgeGrid(ctx, t, s, v, ch)
		t.mark(&p, false) // a refit on all the ratings follows
	}
	if err != nil {
		t.mark(&p, false) // the table as it was given
		return nil, err
	}
	return ch, nil
}

// validation is what the chains are scored on: the held-out pairs, the
// scale, the table's mean and the spread of the fitted ratings, which
// scales the tolerances.
type validation struct {
	p        *pairs
	t        *table
	lo, hi   float64
	mean, sd float64
}

// scores returns a new scorer of averages from the given burns.
func (v validation) scores(b []int) *scores { return newScores(*v.p, v.t, v.lo, v.hi, v.mean, b) }

// fittedSD returns the standard deviation of the table's ratings not held
// out (nv of them are, NaN), 1 if it is 0: sums in the users' order, over
// the ranks as one process makes them.
func fittedSD(t *table, nv int) float64 {
	// sum adds f of each rating fitted, relayed from rank to rank.
	sum := func(f func(float64) float64) float64 {
		state := make([]float64, 2)
		t.relay(state, func() {
			s := fsum.Resume(state[0], state[1])
			for p := range t.y.len() {
				if v := t.y.at(p); v == v {
					s = s.Plus(f(float64(v)))
				}
			}
			state[0], state[1] = s.Parts()
		})
		return fsum.Resume(state[0], state[1]).Value()
	}
	n := float64(t.m - nv)
	mean := sum(func(v float64) float64 { return v }) / n
	if sd := math.Sqrt(sum(func(v float64) float64 { return (v - mean) * (v - mean) }) / n); sd > 0 {
		return sd
	}
	return 1
}

// validationSpec returns the chain spec of a validation run, numbered
// from first, stopped early unless the settings give the sweeps (see
// stageSweeps).
func validationSpec(s Settings, v validation, first int, b []int, rank *int) chainSpec {
	spec := chainSpec{first: first, val: v.scores(b),
		patience: chainPatience, scaled: true, minPatience: chainMinPatience, minSweeps: chainMin, tol: chainTol * v.sd}
	if s.Sweeps != 0 {
		spec.patience = math.MaxInt // run them all
	}
	if s.Progress != nil {
		spec.progress = func(n int, rmse float64) {
			s.Progress(Progress{Stage: "validation", Rank: *rank, Sweep: n + 1, RMSE: rmse})
		}
	}
	return spec
}

// stageSweeps is the most sweeps of a validation stage: the settings',
// or DefaultMaxSweeps, stopped early.
func stageSweeps(s Settings) int {
	if s.Sweeps != 0 {
		return s.Sweeps
	}
	return DefaultMaxSweeps
}

// growChain runs the Bayesian fit's one chain on the table with the
// validation ratings held out, growing its rank while that pays (see the
// constants above), and leaves in ch the chain at its best rank, with its
// posterior mean and the settings of its continuation.
func growChain(ctx context.Context, t *table, s Settings, v validation, ch *chosen) error {
	ranks := Ranks
	if s.Rank > 0 {
		ranks = []int{s.Rank}
	}
	limit := maxRank(t)
	if ranks[0] > limit {
		return &InputError{Source: "recommend", Input: "ratings", Reason: fmt.Sprintf("%d ratings are too few for a rank-%d model of %d users and %d items", t.m-v.p.n, ranks[0], t.n1, t.n2)}
	}
	k := ranks[0]
	smp := newSampler(t, k, s.Nu, s.Seed, s.Workers)
	smp.m = t.m - v.p.n
	smp.start()
	smp.warm(warmSweeps)
	spec := validationSpec(s, v, 0, burns, &k)
	spec.keep, spec.alsoBurn, spec.thin, spec.maxRank = true, chainBurn, chainThin, chainRankMul*k
	c := newChain(smp, spec)
	sel := ch.sel
	best := -1
	var before *chainSnapshot // the chain at the best rank, when it has grown past it
	for at := range ranks {
		if k = ranks[at]; k > limit {
			break
		}
		f := rankCost(t.m, k)
		must := (f - 1) * RankGain * v.sd // the gain a larger rank must make to be kept
		costly := at > 0 && s.Sweeps == 0 && f > 1
		if at > 0 {
			before = c.snapshot(costly && postponeTrials)
			c.grow(k)
			lead := warmSweeps
			if costly {
				lead = trialWarm
			}
			c.s.warm(lead)
			c.restart(k)
		}
		c.spec.rate, c.spec.trialSweeps, c.spec.keepBelow = 0, 0, math.Inf(-1)
		if best >= 0 {
			c.spec.keepBelow = sel.Candidates[best].RMSE - must // as the test after the stage
		}
		if s.Sweeps == 0 {
			c.spec.rate = chainRate * v.sd * sweepCost(t.m, k)
		}
		if costly {
			c.spec.trialSweeps = trialSweeps
			c.spec.trialBelow = sel.Candidates[best].RMSE - trialShare*must
			if postponeTrials {
				c.postpone()
			}
		}
		begin := time.Now()
		out, err := c.stage(ctx, stageSweeps(s))
		if err != nil {
			return err
		}
		sel.Candidates = append(sel.Candidates, Candidate{Rank: k, Sweeps: out.sweeps, Best: c.bestSweep, RMSE: out.bestRMSE, Seconds: time.Since(begin).Seconds()})
		if best >= 0 && !(out.bestRMSE < sel.Candidates[best].RMSE-must) {
			c.restore(before) // the larger rank did not pay for its sweeps: undo it
			break
		}
		if costly && c.post != nil {
			c.post.resume() // (it has when the trial made its share)
		}
		gained := best < 0 || out.bestRMSE < sel.Candidates[best].RMSE-f*RankGain*v.sd
		best, ch.sweeps = len(sel.Candidates)-1, c.n
		if !gained {
			break
		}
	}
	ch.made = c.n
	sel.Chosen = best
	r := sel.Candidates[best].Rank
	// Half the chain's sweeps (contFrac), or on few ratings as many as
	// contBudget rating-dimensions allow (at most 4 times as many): the
	// average gains from more sweeps where they are cheap.
	n := ch.sweeps
	s.Rank, s.Sweeps = r, max(1, int(contFrac*float64(n)), min(4*n, int(contBudget/(float64(t.m)*float64(r+1)))))
	ch.s, ch.smp, ch.post = s, c.s, c.finish()
	return nil
}

// ridgeGrid chooses the ridge fit's rank and penalty: a chain per setting,
// a larger rank tried while the last improved the held-out RMSE, the
// penalty walking on the grid Lambdas from the best so far to the better
// neighbour while there is one. The final fit is a refit (ch.burn).
func ridgeGrid(ctx context.Context, t *table, s Settings, v validation, ch *chosen) error {
	ranks := Ranks
	if s.Rank > 0 {
		ranks = []int{s.Rank}
	}
	lambdas := []float64{s.Lambda}
	if s.Lambda == 0 {
		lambdas = Lambdas
	}
	g := &ridgeSearch{ctx: ctx, t: t, s: s, v: v, ch: ch, best: -1}
	sel := ch.sel
	at := len(lambdas) / 2
	for _, k := range ranks {
		if k > maxRank(t) {
			break
		}
		before := math.Inf(1)
		if g.best >= 0 {
			before = sel.Candidates[g.best].RMSE
		}
		var cur float64
		var err error
		if at, cur, err = g.descend(k, lambdas, at); err != nil {
			return err
		}
		if !(cur < before) {
			break
		}
	}
	if g.best < 0 {
		return &InputError{Source: "recommend", Input: "ratings", Reason: fmt.Sprintf("%d ratings are too few for a rank-%d model of %d users and %d items", t.m-v.p.n, ranks[0], t.n1, t.n2)}
	}
	sel.Chosen = g.best
	c := sel.Candidates[g.best]
	s.Rank, s.Sweeps, s.Lambda = c.Rank, c.Sweeps, c.Lambda
	ch.s, ch.burn = s, c.Sweeps-1
	return nil
}

// ridgeSearch is ridgeGrid's search: the candidates it fits go to
// ch.sel, best is the index of the best so far (-1 before any).
type ridgeSearch struct {
	ctx  context.Context
	t    *table
	s    Settings
	v    validation
	ch   *chosen
	best int
}

// descend searches the penalties lambdas at rank k from index at, moving
// to a neighbour while it validates better, and returns the index where
// it stopped and its validation RMSE.
func (g *ridgeSearch) descend(k int, lambdas []float64, at int) (int, float64, error) {
	tried := map[int]float64{}
	eval := func(j int) (float64, error) {
		if r, ok := tried[j]; ok {
			return r, nil
		}
		r, err := g.try(k, lambdas[j])
		tried[j] = r
		return r, err
	}
	cur, err := eval(at)
	if err != nil {
		return at, cur, err
	}
	for moved := true; moved; {
		moved = false
		for _, j := range []int{at - 1, at + 1} {
			if j < 0 || j >= len(lambdas) {
				continue
			}
			r, err := eval(j)
			if err != nil {
				return at, cur, err
			}
			if r < cur {
				at, cur, moved = j, r, true
				break
			}
		}
	}
	return at, cur, nil
}

// try fits the penalized model of rank k and penalty lam on the ratings
// not held out, stopped at its best validation RMSE, which it returns;
// the fit is a candidate of the selection.
func (g *ridgeSearch) try(k int, lam float64) (float64, error) {
	s, v, ch, sel := g.s, g.v, g.ch, g.ch.sel
	begin := time.Now()
	smp := newSampler(g.t, k, s.Nu, s.Seed, s.Workers)
	smp.m = g.t.m - v.p.n
	smp.noise, smp.nu, smp.lambda = false, math.Inf(1), lam
	smp.start()
	spec := validationSpec(s, v, ch.made, nil, &k) // the last iterate
	if s.Sweeps == 0 {
		spec.patience, spec.minSweeps = 5, 10
	}
	c := newChain(smp, spec)
	out, err := c.stage(g.ctx, stageSweeps(s))
	if err != nil {
		return 0, err
	}
	ch.made += out.sweeps
	sel.Candidates = append(sel.Candidates, Candidate{Rank: k, Lambda: lam, Sweeps: c.bestSweep, Best: c.bestSweep, RMSE: out.bestRMSE, Seconds: time.Since(begin).Seconds()})
	if g.best < 0 || out.bestRMSE < sel.Candidates[g.best].RMSE {
		g.best = len(sel.Candidates) - 1
	}
	return out.bestRMSE, nil
}

// holdOut chooses the ratings of the table held out for validation, each
// with probability fraction (a draw per rating, in user order, of the
// stream of seed and kind: streamSplit for the ratings model's, streamLists
// for the lists'), and returns them as pairs with their positions: a rating is held
// out only if its user and its item keep another, so that the chain fits
// every row and goes on with all the ratings. On ranks, the draws and the
// items' counts are relayed from rank to rank; each rank keeps the pairs
// of its users, and the positions in item order of those of its items
// (see pairs).
func holdOut(t *table, fraction float64, seed uint64, kind int) pairs {
	u0, u1 := t.part(t.rank(), t.n1)
	i0, i1 := t.part(t.rank(), t.n2)
	// The state relayed: the items' ratings left, then the stream's.
	state := make([]float64, t.n2, t.n2+32)
	for i := i0; i < i1; i++ {
		state[i] = float64(t.iStart[i+1] - t.iStart[i])
	}
	t.share(state, t.n2, 1)
	st := newStream()
	st.seed(seed, 0, kind, 0)
	b, _ := st.pcg.MarshalBinary()
	for _, c := range b {
		state = append(state, float64(c))
	}
	// Room for the pairs that the draw is expected to hold out and a
	// hundredth more (the rule that leaves each row two ratings holds out
	// fewer than the fraction; append grows the slices in a draw beyond):
	// append's growth alone would leave up to a quarter unused.
	var p pairs
	if want := fraction * float64(t.uStart[u1]-t.uStart[u0]) * 1.01; want < float64(t.m) {
		p.reserve(int(want) + 64)
	}
	t.relay(state, func() {
		left2, b := state[:t.n2], make([]byte, len(state)-t.n2)
		for j, c := range state[t.n2:] {
			b[j] = byte(c)
		}
		_ = st.pcg.UnmarshalBinary(b) // its own bytes: it cannot fail
		for u := u0; u < u1; u++ {
			left1 := t.uStart[u+1] - t.uStart[u]
			for pos := t.uStart[u]; pos < t.uStart[u+1]; pos++ {
				i := t.uItem.at(pos)
				if !(st.rng.Float64() < fraction) || left1 < 2 || left2[i] < 2 {
					continue
				}
				left1--
				left2[i]--
				p.users = append(p.users, int32(u))
				p.items = append(p.items, i)
				p.values = append(p.values, t.y.at(pos))
				p.uOff = append(p.uOff, int32(pos-t.uStart[u]))
				p.iOff = append(p.iOff, -1)
			}
		}
		b, _ = st.pcg.MarshalBinary()
		for j, c := range b {
			state[t.n2+j] = float64(c)
		}
	})
	p.n = len(p.values)
	if t.red == nil {
		for e, i := range p.items {
			p.iOff[e] = int32(t.itemPos(p.users[e], i) - t.iStart[i])
		}
		return p
	}
	// Each pair's rating in item order is marked by the rank of its item.
	p.n = reduce.Count(t.red, p.n)
	x := &Indexed{Rows: p.users, Cols: p.items, Values: p.values}
	exchange(partSource(x), t.red, func(_, i int32) int { return owner(int(i), t.n2, t.red.Size()) }, func(_ int, u, i int32, v float32) {
		p.others = append(p.others, itemPos{t.itemPos(u, i), v})
	})
	return p
}

// maxRank is the largest rank worth fitting to the table: a rank-k model
// has (n1 + n2) k unknowns, which should not exceed the ratings.
func maxRank(t *table) int {
	return max(1, min(t.n1, t.n2, t.m/(t.n1+t.n2)))
}
