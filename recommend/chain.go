package recommend

import (
	"context"
	"math"
	"slices"
)

// pairs are (user, item) index pairs of a table, -1 for an id the table
// does not have, with their ratings when known, 20 bytes a pair: the
// validation pairs are a twentieth of the ratings by default, beside the
// table's 6 to 16 bytes a rating.
type pairs struct {
	users, items []int32
	values       []float32 // as the table holds them
	// Of a table's ratings: their offsets in their user's row and in their
	// item's row (see table.positions).
	uOff, iOff []int32
	// On the ranks of a shared table (see holdOut), a rank's pairs are
	// those of its users, iOff -1 for each of them; n counts every rank's
	// pairs, and others are the positions in item order and the values of
	// every rank's pairs (its own among them) of this rank's items. Alone,
	// n is the number of pairs.
	n      int
	others []itemPos
}

// reserve makes room for n pairs held out of a table.
func (p *pairs) reserve(n int) {
	p.users, p.items, p.values = make([]int32, 0, n), make([]int32, 0, n), make([]float32, 0, n)
	p.uOff, p.iOff = make([]int32, 0, n), make([]int32, 0, n)
}

// itemPos is a rating's position in a table's item order, and its value.
type itemPos struct {
	q int
	v float32
}

// scores tracks the RMSE on a set of pairs of the averages of the sweeps'
// predictions from several burn-ins on: the average from sweep b on, for
// each b in burns, so that one chain tells which burn-in and which length
// predict best.
type scores struct {
	p pairs
	// relay is the table's: the squares are added over every rank's pairs.
	relay  func(state []float64, f func())
	lo, hi float64     // the rating scale: predictions are clipped to it
	mean   float64     // the table's mean
	burns  []int       // the first sweep each average takes
	sums   [][]float64 // of the predictions of each average; nil until it starts
	counts []int
	cur    []float64 // this sweep's predictions
}

func newScores(p pairs, t *table, lo, hi, mean float64, burns []int) *scores {
	sc := &scores{p: p, relay: t.relay, lo: lo, hi: hi, mean: mean, burns: slices.Clone(burns), counts: make([]int, len(burns)), cur: make([]float64, len(p.values))}
	sc.sums = make([][]float64, len(burns)) // each made when its average starts
	return sc
}

// add adds sweep n's predictions and returns the RMSE of each average
// (NaN for one that has not started); with no burns, the RMSE of this
// sweep's predictions alone.
func (sc *scores) add(s *sampler, n int) []float64 {
	sc.predict(s)
	if len(sc.burns) == 0 {
		return sc.rmses([][]float64{sc.cur}, []float64{1}, nil)
	}
	sums, counts := make([][]float64, len(sc.burns)), make([]float64, len(sc.burns))
	for j, b := range sc.burns {
		if n < b {
			continue
		}
		sc.counts[j]++
		if sc.sums[j] == nil {
			sc.sums[j] = make([]float64, len(sc.cur))
		}
		sum := sc.sums[j]
		for e, v := range sc.cur {
			sum[e] += v
		}
		sums[j], counts[j] = sum, float64(sc.counts[j])
	}
	return sc.rmses(sums, counts, nil)
}

// peek returns what add(s, n) would, bit for bit, without adding sweep
// n's predictions to the averages.
func (sc *scores) peek(s *sampler, n int) []float64 {
	sc.predict(s)
	if len(sc.burns) == 0 {
		return sc.rmses([][]float64{sc.cur}, []float64{1}, nil)
	}
	sums, counts := make([][]float64, len(sc.burns)), make([]float64, len(sc.burns))
	for j, b := range sc.burns {
		if n >= b {
			sums[j], counts[j] = sc.sums[j], float64(sc.counts[j]+1)
		}
	}
	return sc.rmses(sums, counts, sc.cur)
}

// predict sets cur to the sampler's predictions of the pairs (less the
// table's mean).
func (sc *scores) predict(s *sampler) {
	d, k := s.d, s.k
	for e := range sc.cur {
		u, i := sc.p.users[e], sc.p.items[e]
		var v float64
		if u >= 0 {
			xu := s.u[int(u)*d : int(u)*d+d]
			v += xu[k]
			if i >= 0 {
				v += dot(xu[:k], s.v[int(i)*d:])
			}
		}
		if i >= 0 {
			v += s.v[int(i)*d+k]
		}
		sc.cur[e] = v
	}
}

// start begins an average from sweep n on, unless one does.
func (sc *scores) start(n int) {
	if slices.Contains(sc.burns, n) {
		return
	}
	sc.burns = append(sc.burns, n)
	sc.sums = append(sc.sums, nil)
	sc.counts = append(sc.counts, 0)
}

// rmse returns the RMSE of average j, clipped to the scale.
func (sc *scores) rmse(j int) float64 {
	return sc.rmses([][]float64{sc.sums[j]}, []float64{float64(sc.counts[j])}, nil)[0]
}

// rmses returns the RMSE of each sum of predictions over counts[j] sweeps,
// clipped to the scale (NaN where counts[j] is 0), plus added to each
// sum when not nil (a nil sum is then zeros): the squares added in the
// pairs' order, relayed over the ranks' pairs in rank order.
func (sc *scores) rmses(sums [][]float64, counts []float64, plus []float64) []float64 {
	sq := make([]float64, len(sums))
	sc.relay(sq, func() {
		for j, sum := range sums {
			if counts[j] == 0 {
				continue
			}
			for e, y := range sc.p.values {
				var s float64
				if sum != nil {
					s = sum[e]
				}
				if plus != nil {
					s += plus[e]
				}
				p := min(max(sc.mean+s/counts[j], sc.lo), sc.hi)
				r := p - float64(y)
				sq[j] += r * r
			}
		}
	})
	for j := range sums {
		sq[j] = math.Sqrt(sq[j] / float64(sc.p.n))
		if counts[j] == 0 {
			sq[j] = math.NaN()
		}
	}
	return sq
}

// chainSpec says how to run a chain and what to keep of it.
type chainSpec struct {
	first int // the number of the chain's first sweep, which seeds its draws
	burn  int // the posterior mean takes the sweeps from this one on
	keep  bool
	post  *posterior // when keeping: the posterior mean to add to; nil for a new one
	// alsoBurn, when above burn, keeps a second posterior mean from that
	// sweep on, until the chain has made 3 alsoBurn sweeps (or ends): then
	// the one whose average of predictions does better on val is kept, the
	// other dropped. The early sweeps shrink the average usefully on few
	// ratings, and stray from the posterior on many.
	alsoBurn int
	thin     int // the posterior mean takes every thin-th sweep from burn on
	maxRank  int // the posterior mean's rank
	// Early stopping of a stage (see chain.stage): stop when no average
	// has improved its RMSE on val by more than tol in the last patience
	// sweeps, or, with scaled, in the last half as many sweeps as the
	// stage made before its last gain (at least minPatience), and at least
	// minSweeps ran in the stage.
	val         *scores
	patience    int
	scaled      bool
	minPatience int
	minSweeps   int
	tol         float64
	// rate, when positive, also stops a stage when its best RMSE has
	// gained less than rate a sweep over the last rateWindow sweeps: a
	// stage whose sweeps cost much stops once they buy little.
	rate float64
	// A trial of a larger rank stops after trialSweeps sweeps whose best
	// RMSE is not below trialBelow (no stop when trialSweeps is 0): a rank
	// that has not made a fair share of the gain it must pay for by then
	// will not.
	trialSweeps int
	trialBelow  float64
	// keepBelow is the best RMSE below which a stage's rank is kept
	// whatever its later sweeps do (-Inf: none): the chain then lets go of
	// the snapshot that would undo it (see chain.undo).
	keepBelow float64
	progress  func(sweep int, rmse float64)
}

// chain is a sampler run for a spec, in stages: each stage runs until its
// own stop, and the chain keeps its posterior means and its scores from
// one stage to the next (the rank may change in between).
type chain struct {
	spec      chainSpec
	s         *sampler
	post, alt *posterior
	n         int     // sweeps made
	bestRMSE  float64 // the best validation RMSE
	bestBurn  int     // of the average from this sweep on
	bestSweep int     // to this sweep (1-based)
	kept      int     // sweeps in the posterior mean
	sdSum     float64 // their 1/√α
	// undo is the snapshot taken before the chain grew, until the grown
	// rank is sure to be kept (chainSpec.keepBelow): shared, the mean
	// takes a copy of its own when the trial's sweeps go in (see ownMean).
	undo *chainSnapshot
}

func newChain(s *sampler, spec chainSpec) *chain {
	c := &chain{spec: spec, s: s, bestRMSE: math.Inf(1), post: spec.post}
	if spec.keep && c.post == nil {
		c.post = newPosterior(s.t, spec.maxRank)
	}
	if spec.keep && spec.alsoBurn > spec.burn {
		c.alt = newPosterior(s.t, spec.maxRank)
	}
	return c
}

// stageOut is what a stage of a chain did.
type stageOut struct {
	sweeps   int     // made in the stage
	bestRMSE float64 // the best validation RMSE of the chain's averages during the stage
}

// stage runs at most sweeps sweeps of the chain, stopped early on its
// validation RMSE (see chainSpec).
func (c *chain) stage(ctx context.Context, sweeps int) (stageOut, error) {
	spec, s := &c.spec, c.s
	out := stageOut{bestRMSE: math.Inf(1)}
	lastGain := 0       // the stage's sweep of its last gain
	var bests []float64 // the stage's best RMSE after each sweep
	for m := 0; m < sweeps; m++ {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		n := c.n
		s.sweep(spec.first + n)
		c.n++
		out.sweeps = m + 1
		// A trial that stops on its share is undone (see growChain): its
		// last sweep's factors, which at 10^8 ratings would be the peak's
		// last 80 MB, are not copied for its means.
		undone := skipUndone && m+1 == spec.trialSweeps && spec.val != nil && spec.trialStops(m, min(out.bestRMSE, leastOf(spec.val.peek(s, n))))
		sf := &sweepFactors{s: s} // shared by the two means
		if !undone && c.alt != nil && n >= spec.alsoBurn && (n-spec.alsoBurn)%max(spec.thin, 1) == 0 {
			c.alt.add(sf)
		}
		if c.alt != nil && n+1 >= 3*spec.alsoBurn {
			c.pick()
		}
		if !undone && c.post != nil && n >= spec.burn && (n-spec.burn)%max(spec.thin, 1) == 0 {
			c.post.add(sf)
			c.sdSum += 1 / math.Sqrt(s.alpha)
			c.kept++
		}
		if spec.val == nil {
			if spec.progress != nil {
				spec.progress(n, math.NaN())
			}
			continue
		}
		best := math.Inf(1)
		for j, r := range spec.val.add(s, n) {
			if !(r < best) { // NaN for an average not started
				continue
			}
			best = r
			if r < out.bestRMSE-spec.tol {
				lastGain = m
			}
			if r < out.bestRMSE {
				out.bestRMSE = r
			}
			if r < c.bestRMSE {
				c.bestRMSE, c.bestSweep = r, n+1
				if j < len(spec.val.burns) {
					c.bestBurn = spec.val.burns[j]
				}
			}
		}
		if spec.progress != nil {
			spec.progress(n, best)
		}
		bests = append(bests, out.bestRMSE)
		if c.undo != nil && out.bestRMSE < spec.keepBelow {
			c.undo.letGo() // the rank is kept: its snapshot (and the mean copied) is garbage
			c.undo = nil
		}
		if spec.stops(bests, lastGain) {
			break
		}
		if m+1 == spec.trialSweeps && c.post != nil {
			c.ownMean()
			c.post.resume() // the trial made its share: the mean takes its sweeps
		}
	}
	return out, nil
}

// stops reports whether a stage stops after its sweep m = len(bests)-1
// (from 0), bests[j] its best RMSE after its sweep j, lastGain the sweep
// of its last gain by more than tol: on patience, on its trial's share
// (trialSweeps), or on its rate.
func (spec *chainSpec) stops(bests []float64, lastGain int) bool {
	m := len(bests) - 1
	patience := spec.patience
	if spec.scaled {
		patience = min(patience, max(spec.minPatience, lastGain/2))
	}
	if m+1 >= spec.minSweeps && m-lastGain >= patience {
		return true
	}
	if spec.trialStops(m, bests[m]) {
		return true
	}
	return spec.rate > 0 && m+1 >= spec.minSweeps && m >= rateWindow && bests[m-rateWindow]-bests[m] < spec.rate*rateWindow
}

// trialStops reports whether a trial stops after its sweep m (from 0),
// best its best RMSE then: at its trialSweeps-th sweep, when best has not
// made the trial's share (trialBelow).
func (spec *chainSpec) trialStops(m int, best float64) bool {
	return m+1 == spec.trialSweeps && !(best < spec.trialBelow)
}

// leastOf returns the least of rmses, +Inf when none is a number.
func leastOf(rmses []float64) float64 {
	b := math.Inf(1)
	for _, r := range rmses {
		if r < b {
			b = r
		}
	}
	return b
}

// finish returns the chain's posterior mean, having picked between its
// two (see chainSpec.alsoBurn) if it still has both.
func (c *chain) finish() *posterior {
	c.pick()
	return c.post
}

// noiseSD returns the mean of 1/√α over the sweeps of the posterior mean.
func (c *chain) noiseSD() float64 {
	if c.kept == 0 {
		return 0
	}
	return c.sdSum / float64(c.kept)
}

// pick returns of the posterior means post (from sweep burn on) and alt
// (from alsoBurn on) the one whose average did better on val, post when
// there is no alt or no val.
func (spec *chainSpec) pick(post, alt *posterior) *posterior {
	if alt == nil || spec.val == nil {
		return post
	}
	a, b := slices.Index(spec.val.burns, spec.burn), slices.Index(spec.val.burns, spec.alsoBurn)
	if a >= 0 && b >= 0 && spec.val.counts[b] > 0 && spec.val.rmse(b) < spec.val.rmse(a) {
		post.busy.Wait()
		return alt
	}
	alt.busy.Wait()
	return post
}

// restart begins, at the chain's next sweep (the first of the rank k it
// has grown to), a second posterior mean and an average of the
// validation's predictions of their own, so that a rank that predicts
// better is not judged by averages that its predecessors' sweeps dilute
// (a held-out generator's rank-12 clusters took 360 sweeps at rank 10 to
// show through averages from the chain's first sweeps). The chain keeps
// the better mean when it picks (see pick).
func (c *chain) restart(k int) {
	c.pick()
	if c.spec.val == nil {
		return
	}
	c.spec.val.start(c.n)
	c.spec.alsoBurn = c.n
	c.alt = newPosterior(c.s.t, chainRankMul*k)
}

// pick keeps the better of the chain's two posterior means (see
// chainSpec.pick), whose first sweep becomes the chain's burn.
func (c *chain) pick() {
	if c.alt == nil {
		return
	}
	p := c.spec.pick(c.post, c.alt)
	if p == c.alt {
		c.spec.burn = c.spec.alsoBurn
	}
	c.post, c.alt = p, nil
}

// chainSnapshot is a chain's state before it grew: its sampler's, its
// posterior means and their first sweeps and ranks, and their noise
// levels. A shared snapshot holds the chain's means themselves, not
// copies (see chain.postpone).
type chainSnapshot struct {
	s              *snapshot
	post, alt      *posterior
	shared         bool
	ranks          [2]int // of post and alt
	burn, alsoBurn int
	kept           int
	sdSum          float64
	gone           bool // let go (see letGo)
}

// snapshot returns the chain's state, its posterior means copied unless
// shared: a chain that postpones its mean's sweeps (see postpone) until
// it is restored or resumes changes neither of them.
func (c *chain) snapshot(shared bool) *chainSnapshot {
	sn := &chainSnapshot{s: c.s.snapshot(), shared: shared, kept: c.kept, sdSum: c.sdSum, burn: c.spec.burn, alsoBurn: c.spec.alsoBurn}
	for j, p := range []*posterior{c.post, c.alt} {
		if p == nil {
			continue
		}
		if !shared {
			p = p.clone()
		}
		if j == 0 {
			sn.post = p
		} else {
			sn.alt = p
		}
		sn.ranks[j] = p.maxRank
	}
	c.undo = sn
	return sn
}

// ownMean gives the shared snapshot a copy of the posterior mean that the
// chain's trial is about to add its sweeps to, as it was (a postponing
// mean has changed in nothing but its rank since, which restore sets
// back): a trial that made its share can still be undone at the end of
// its stage, not having made the whole gain, and the chain restored must
// then go on with a mean that has none of its sweeps. The copy is of the
// smaller rank's mean, and only for a trial that goes on past its share
// (the taste clusters of docs/recommend.md: 14 MB when the means were
// float64's; a trial undone on its share, as at 10^8 ratings, copies
// nothing).
func (c *chain) ownMean() {
	sn := c.undo
	if sn == nil || !sn.shared {
		return
	}
	if sn.post == c.post {
		sn.post = c.post.clone()
	}
	if sn.alt == c.post {
		sn.alt = c.post.clone()
	}
}

// letGo drops what the snapshot holds, which can then no longer be
// restored.
func (sn *chainSnapshot) letGo() {
	*sn = chainSnapshot{gone: true}
}

// restore puts the chain back in the state of a snapshot; the sweeps go on
// being numbered from where they are.
func (c *chain) restore(sn *chainSnapshot) {
	if sn.gone {
		panic("recommend: a snapshot let go is restored") // keepBelow is the keep rule's own threshold
	}
	c.undo = nil
	for _, p := range []*posterior{c.post, c.alt} {
		if p != nil {
			p.busy.Wait()
		}
	}
	c.s.restore(sn.s)
	c.post, c.alt, c.kept, c.sdSum = sn.post, sn.alt, sn.kept, sn.sdSum
	c.spec.burn, c.spec.alsoBurn = sn.burn, sn.alsoBurn
	for j, p := range []*posterior{c.post, c.alt} {
		if p != nil && sn.shared {
			p.drop()
			p.hold(sn.ranks[j]) // the rank grow gave it
		}
	}
}

// postpone makes the chain's posterior mean hold the sweeps it takes
// until the stage's trial has made its share (chainSpec.trialSweeps),
// when it adds them, or the chain is restored: a trial that stops on its
// share is undone (its share is a quarter of the gain it must make to be
// kept), and the mean it did not change need not have been copied. The
// trial's own mean (alt, from its first sweep) takes them as they come.
func (c *chain) postpone() {
	if c.post != nil {
		c.post.postpone()
	}
}

// grow raises the chain's rank to k in place (see sampler.grow), its
// posterior means held at chainRankMul times it.
func (c *chain) grow(k int) {
	c.s.grow(k)
	for _, p := range []*posterior{c.post, c.alt} {
		if p != nil {
			p.hold(chainRankMul * k)
		}
	}
}
