package recommend

import (
	"context"
	"math"
	"slices"
)

// pairs are (user, item) index pairs of a table, -1 for an id the table
// does not have, with their ratings when known.
type pairs struct {
	users, items []int32
	values       []float64
}

// scores tracks the RMSE on a set of pairs of the averages of the sweeps'
// predictions from several burn-ins on: the average from sweep b on, for
// each b in burns, so that one chain tells which burn-in and which length
// predict best.
type scores struct {
	p      pairs
	lo, hi float64 // the rating scale: predictions are clipped to it
	mean   float64 // the table's mean
	burns  []int   // the first sweep each average takes
	sums   [][]float64
	counts []int
	cur    []float64 // this sweep's predictions
}

func newScores(p pairs, lo, hi, mean float64, burns []int) *scores {
	sc := &scores{p: p, lo: lo, hi: hi, mean: mean, burns: burns, counts: make([]int, len(burns)), cur: make([]float64, len(p.values))}
	sc.sums = make([][]float64, len(burns))
	for j := range burns {
		sc.sums[j] = make([]float64, len(p.values))
	}
	return sc
}

// add adds sweep n's predictions and returns the RMSE of each average
// (NaN for one that has not started); with no burns, the RMSE of this
// sweep's predictions alone.
func (sc *scores) add(s *sampler, n int) []float64 {
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
	if len(sc.burns) == 0 {
		var sq float64
		for e, v := range sc.cur {
			r := min(max(sc.mean+v, sc.lo), sc.hi) - sc.p.values[e]
			sq += r * r
		}
		return []float64{math.Sqrt(sq / float64(len(sc.cur)))}
	}
	out := make([]float64, len(sc.burns))
	for j, b := range sc.burns {
		if n < b {
			out[j] = math.NaN()
			continue
		}
		sc.counts[j]++
		sum := sc.sums[j]
		for e, v := range sc.cur {
			sum[e] += v
		}
		out[j] = sc.rmse(j)
	}
	return out
}

// rmse returns the RMSE of average j, clipped to the scale.
func (sc *scores) rmse(j int) float64 {
	n := float64(sc.counts[j])
	var sq float64
	for e, s := range sc.sums[j] {
		p := min(max(sc.mean+s/n, sc.lo), sc.hi)
		r := p - sc.p.values[e]
		sq += r * r
	}
	return math.Sqrt(sq / float64(len(sc.sums[j])))
}

// chainSpec says how long to run a chain and what to do with it.
type chainSpec struct {
	sweeps int // at most this many sweeps
	first  int // the number of the first sweep, which seeds its draws
	burn   int // the posterior mean takes the sweeps from this one on
	keep   bool
	post   *posterior // when keeping: the posterior mean to add to; nil for a new one
	// alsoBurn, when above burn, keeps a second posterior mean from that
	// sweep on, until the chain has made 3 alsoBurn sweeps (or ends): then the one whose average of predictions does better on val
	// is kept, the other dropped. The early sweeps, from a small start,
	// shrink the average usefully on few ratings, and stray from the
	// posterior on many.
	alsoBurn int
	thin     int // the posterior mean takes every thin-th sweep from burn on
	maxRank  int // the posterior mean's rank
	// Early stopping: stop when no average has improved its RMSE on val
	// by more than tol in the last patience sweeps, or, with scaled, in
	// the last half as many sweeps as preceded the last gain (at least
	// minPatience), and at least minSweeps ran.
	val         *scores
	patience    int
	scaled      bool
	minPatience int
	minSweeps   int
	tol         float64
	progress    func(sweep int, rmse float64)
}

// chainOut is what a chain did.
type chainOut struct {
	post      *posterior
	sweeps    int     // sweeps made
	bestRMSE  float64 // the best validation RMSE
	bestBurn  int     // of the average from this sweep on
	bestSweep int     // to this sweep (1-based)
	noiseSD   float64 // the mean of 1/√α over the sweeps of the posterior mean
}

// run runs the sampler s for spec and returns what it did.
func run(ctx context.Context, s *sampler, spec chainSpec) (chainOut, error) {
	out := chainOut{bestRMSE: math.Inf(1), post: spec.post}
	if spec.keep && out.post == nil {
		out.post = newPosterior(s.t.n1, s.t.n2, s.k, spec.maxRank)
	}
	var alt *posterior
	if spec.keep && spec.alsoBurn > spec.burn {
		alt = newPosterior(s.t.n1, s.t.n2, s.k, spec.maxRank)
	}
	lastGain, kept := 0, 0
	var sdSum float64
	for n := 0; n < spec.sweeps; n++ {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		s.sweep(spec.first + n)
		out.sweeps = n + 1
		if alt != nil && n >= spec.alsoBurn && (n-spec.alsoBurn)%max(spec.thin, 1) == 0 {
			alt.add(s)
		}
		if alt != nil && n+1 >= 3*spec.alsoBurn {
			out.post, alt = spec.pick(out.post, alt), nil
		}
		if out.post != nil && n >= spec.burn && (n-spec.burn)%max(spec.thin, 1) == 0 {
			out.post.add(s)
			sdSum += 1 / math.Sqrt(s.alpha)
			kept++
			out.noiseSD = sdSum / float64(kept)
		}
		if spec.val == nil {
			continue
		}
		best := math.Inf(1)
		for j, r := range spec.val.add(s, n) {
			if r < best {
				best = r
			}
			if r < out.bestRMSE-spec.tol {
				lastGain = n
			}
			if r < out.bestRMSE {
				out.bestRMSE, out.bestSweep = r, n+1
				if j < len(spec.val.burns) {
					out.bestBurn = spec.val.burns[j]
				}
			}
		}
		if spec.progress != nil {
			spec.progress(n, best)
		}
		patience := spec.patience
		if spec.scaled {
			patience = min(patience, max(spec.minPatience, lastGain/2))
		}
		if n+1 >= spec.minSweeps && n-lastGain >= patience {
			break
		}
	}
	out.post = spec.pick(out.post, alt)
	return out, nil
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
