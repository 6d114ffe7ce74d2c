package recommend

import (
	"math"
	"runtime"
	"slices"

	"github.com/scaledsm/scaledsm/internal/fsum"
	"github.com/scaledsm/scaledsm/internal/par"
	"github.com/scaledsm/scaledsm/ranks"
)

// The baselines that a recommender must beat, as models: every user and
// item unknown to a rating's prediction but through the mean, or through
// the biases.

// The penalties of the Biases baseline by default, Surprise's.
const (
	DefaultBiasUser = 15
	DefaultBiasItem = 10
)

// GlobalMean returns the model that predicts the mean rating for every
// pair.
func GlobalMean(r Ratings) (*Model, error) {
	return Biases(r, math.Inf(1), math.Inf(1))
}

// Biases returns the model of the mean and regularized user and item
// biases alone, r_ui ≈ mean + b_u + c_i: the minimizer of
//
//	Σ (r_ui - mean - b_u - c_i)² + lambdaUser Σ b_u² + lambdaItem Σ c_i²
//
// by alternating exact minimizations (items first, 20 rounds), as
// Surprise's BaselineOnly with its defaults, lambdaUser = 15 and
// lambdaItem = 10. Infinite penalties give the global mean.
func Biases(r Ratings, lambdaUser, lambdaItem float64) (*Model, error) {
	if err := r.checkHeld("ratings"); err != nil {
		return nil, err
	}
	m, err := BiasesIndexed(r.Index(), lambdaUser, lambdaItem)
	if m != nil {
		m.Min, m.Max = slices.Min(r.Values), slices.Max(r.Values)
	}
	return m, err
}

// itemParts is the number of blocks of users whose item sums the biases
// add apart on more than a million ratings.
const itemParts = 8

// BiasesIndexed is Biases of ratings in the compact form; the model shares
// their ids.
func BiasesIndexed(x *Indexed, lambdaUser, lambdaItem float64) (*Model, error) {
	if err := x.check("ratings"); err != nil {
		return nil, err
	}
	if x.Len() == 0 {
		return nil, &InputError{Source: "recommend", Input: "ratings", Reason: "no ratings"}
	}
	if err := checkPenalties(lambdaUser, lambdaItem); err != nil {
		return nil, err
	}
	m := &Model{Min: float64(slices.Min(x.Values)), Max: float64(slices.Max(x.Values)), Users: x.Users, Items: x.Items}
	// The mean over the ratings in their order, every sum compensated.
	var total fsum.Sum
	for _, v := range x.Values {
		total.Add(float64(v))
	}
	m.Mean = total.Value() / float64(x.Len())
	n1, n2 := len(x.Users), len(x.Items)
	if math.IsInf(lambdaUser, 1) && math.IsInf(lambdaItem, 1) {
		// The biases stay 0: the global mean.
		m.UserBias, m.ItemBias = make([]float64, n1), make([]float64, n2)
		m.Info = Info{Method: "mean", Ratings: x.Len()}
		return m, nil
	}
	// Above a million ratings the items' sums run in itemParts blocks of
	// users, on the cores, each block's sums then added in order: a number
	// of blocks that does not depend on the cores, so neither do the bits.
	parts := 1
	if x.Len() > 1<<20 {
		parts = itemParts
	}
	m.UserBias, m.ItemBias = biasRounds(userOrder(n1, n2, x.Rows, x.Cols, stored{f: x.Values}, runtime.GOMAXPROCS(0)), m.Mean, lambdaUser, lambdaItem, parts)
	m.Info = Info{Method: "biases", Lambda: lambdaItem, Ratings: x.Len()}
	return m, nil
}

// biasRounds returns the user and item biases of the table's ratings
// after 20 rounds of alternating exact minimizations, items first. The
// ratings are in user order (stable: a file listed by user keeps its
// order): the items' sums scatter in that order, in parts blocks of users
// added in order, each user's sum runs along its row, the users shared
// among the cores.
func biasRounds(t *table, mean, lambdaUser, lambdaItem float64, parts int) (b, c []float64) {
	n1, n2 := t.n1, t.n2
	b, c = make([]float64, n1), make([]float64, n2)
	ci, start := make([]float64, n2), t.uItem.counts(n2)
	for i := range ci {
		ci[i] = float64(start[i+1] - start[i])
	}
	si := make([][]fsum.Sum, parts)
	for q := range si {
		si[q] = make([]fsum.Sum, n2)
	}
	for range 20 {
		if parts == 1 && t.iStart != nil {
			itemBiases(t, b, c, mean, lambdaItem)
			userBiases(t, b, c, mean, lambdaUser, 0, n1)
			continue
		}
		par.Do(runtime.GOMAXPROCS(0), parts, func(q int) {
			sq := si[q]
			clear(sq)
			if h := t.uItem.h; h != nil {
				scatterItems(t, h, sq, b, mean, q*n1/parts, (q+1)*n1/parts)
			} else {
				scatterItems(t, t.uItem.w, sq, b, mean, q*n1/parts, (q+1)*n1/parts)
			}
		})
		for q := 1; q < parts; q++ {
			for i, v := range si[q] {
				si[0][i].Add(v.Value())
			}
		}
		for i := range c {
			c[i] = si[0][i].Value() / (ci[i] + lambdaItem)
		}
		userBiases(t, b, c, mean, lambdaUser, 0, n1)
	}
	return b, c
}

// itemBiases is biasRounds's items' step with one block of users, on a
// table with the items' order: it sets the items' biases c to their
// minimizers given the users' b, each item's sum along its row in the
// items' order, the items shared among the cores. An item's ratings are
// in user order, so that its sum adds the terms biasRounds scatters, in
// their order (the same bits), where that scatter ran on one core (on
// generate's 9 × 10^5 ratings, 85 ms of its 1 s; above 2^20 ratings the
// scatter's blocks take both cores, and they read the users' biases in
// order where this reads them at random: 0.47 s against this 0.57 on its
// 9 × 10^6).
func itemBiases(t *table, b, c []float64, mean, lambdaItem float64) {
	if h := t.iUser.h; h != nil {
		itemBiasesOf(t, h, b, c, mean, lambdaItem)
	} else {
		itemBiasesOf(t, t.iUser.w, b, c, mean, lambdaItem)
	}
}

// scatterItems adds to sq[i] the residuals of item i's ratings by the
// users [u0, u1) (items the users' half's index, of its width) given
// the users' biases b, in the users' order.
func scatterItems[I int32 | uint16](t *table, items []I, sq []fsum.Sum, b []float64, mean float64, u0, u1 int) {
	for u := u0; u < u1; u++ {
		bu := b[u]
		for p := t.uStart[u]; p < t.uStart[u+1]; p++ {
			sq[items[p]].Add(float64(t.y.at(p)) - mean - bu)
		}
	}
}

// itemBiasesOf is itemBiases with the items' half's index users, of its
// width: the loops over ratings are made for each width (reading through
// index.at cost a fifth more of the biases' time).
func itemBiasesOf[I int32 | uint16](t *table, users []I, b, c []float64, mean, lambdaItem float64) {
	const block = 64
	par.Do(runtime.GOMAXPROCS(0), (t.n2+block-1)/block, func(k int) {
		for i := k * block; i < min(t.n2, (k+1)*block); i++ {
			var si fsum.Sum
			for p := t.iStart[i]; p < t.iStart[i+1]; p++ {
				si = si.Plus(float64(t.iy.at(p)) - mean - b[users[p]])
			}
			c[i] = si.Value() / (float64(t.iStart[i+1]-t.iStart[i]) + lambdaItem)
		}
	})
}

// userBiases sets the biases b of the users [first, last) of the table to
// their minimizers given the items' c, each user's sum along its row, the
// users shared among the cores.
func userBiases(t *table, b, c []float64, mean, lambdaUser float64, first, last int) {
	if h := t.uItem.h; h != nil {
		userBiasesOf(t, h, b, c, mean, lambdaUser, first, last)
	} else {
		userBiasesOf(t, t.uItem.w, b, c, mean, lambdaUser, first, last)
	}
}

// userBiasesOf is userBiases with the users' half's index items, of its
// width (see itemBiasesOf).
func userBiasesOf[I int32 | uint16](t *table, items []I, b, c []float64, mean, lambdaUser float64, first, last int) {
	const block = 1024
	par.Do(runtime.GOMAXPROCS(0), (last-first+block-1)/block, func(k int) {
		for u := first + k*block; u < min(last, first+(k+1)*block); u++ {
			var su fsum.Sum
			for p := t.uStart[u]; p < t.uStart[u+1]; p++ {
				su = su.Plus(float64(t.y.at(p)) - mean - c[items[p]])
			}
			b[u] = su.Value() / (float64(t.uStart[u+1]-t.uStart[u]) + lambdaUser)
		}
	})
}

// checkPenalties checks the biases' penalties.
func checkPenalties(lambdaUser, lambdaItem float64) error {
	for _, l := range []struct {
		name string
		v    float64
	}{{"lambda_user", lambdaUser}, {"lambda_item", lambdaItem}} {
		if math.IsNaN(l.v) || l.v < 0 {
			return &InputError{Source: "recommend", Input: l.name, Value: l.v, Reason: "must be at least 0"}
		}
	}
	return nil
}

// BiasesShared is BiasesIndexed on the ranks of an MPI job (red, a
// ranks.Exchanger): x is this rank's part of the ratings, indexing the
// ids of all of them, as FitIndexed's on ranks (see Settings.Reducer).
// Every rank gets the same model, whatever the number of ranks (alone,
// with a nil red, BiasesIndexed's): that of
// one process's BiasesIndexed on up to 2^20 ratings, and to rounding
// above (each item's sum runs along the item's ratings, in the users'
// order, where one process adds it by blocks of users).
func BiasesShared(x *Indexed, lambdaUser, lambdaItem float64, red ranks.Reducer) (*Model, error) {
	if err := x.check("ratings"); err != nil {
		return nil, err
	}
	if err := checkPenalties(lambdaUser, lambdaItem); err != nil {
		return nil, err
	}
	ex, err := exchanger(red)
	if err != nil {
		return nil, err
	}
	if ex == nil {
		return BiasesIndexed(x, lambdaUser, lambdaItem)
	}
	if math.IsInf(lambdaUser, 1) && math.IsInf(lambdaItem, 1) {
		m := &Model{Users: x.Users, Items: x.Items, UserBias: make([]float64, len(x.Users)), ItemBias: make([]float64, len(x.Items))}
		m.Min, m.Max = valueRange(red, x.Values)
		var n int
		if m.Mean, n = sharedMean(x, red); n == 0 {
			return nil, &InputError{Source: "recommend", Input: "ratings", Reason: "no ratings"}
		}
		m.Info = Info{Method: "mean", Ratings: n}
		return m, nil
	}
	tb, err := LayOut(x, Settings{Reducer: red})
	if err != nil {
		return nil, err
	}
	return tb.Biases(lambdaUser, lambdaItem)
}

// Biases is BiasesIndexed of the table's ratings, alone or on the ranks
// that share it (BiasesShared's bits): the baselines of a fit of the
// table, without a table of their own. Take them before FitTable.
func (tb *Table) Biases(lambdaUser, lambdaItem float64) (*Model, error) {
	if err := checkPenalties(lambdaUser, lambdaItem); err != nil {
		return nil, err
	}
	t := tb.t
	m := &Model{Mean: t.mean, Users: tb.users, Items: tb.items}
	m.Min, m.Max = t.y.valueRange(t.red)
	if math.IsInf(lambdaUser, 1) && math.IsInf(lambdaItem, 1) {
		// The biases stay 0: the global mean.
		m.UserBias, m.ItemBias = make([]float64, t.n1), make([]float64, t.n2)
		m.Info = Info{Method: "mean", Ratings: t.m}
		return m, nil
	}
	if t.red == nil {
		parts := 1
		if t.m > 1<<20 {
			parts = itemParts
		}
		m.UserBias, m.ItemBias = biasRounds(t, t.mean, lambdaUser, lambdaItem, parts)
	} else {
		m.UserBias, m.ItemBias = sharedBiasRounds(t, lambdaUser, lambdaItem)
	}
	m.Info = Info{Method: "biases", Lambda: lambdaItem, Ratings: t.m}
	return m, nil
}

// sharedBiasRounds is biasRounds on ranks: each item's sum runs along the
// item's ratings, in the users' order, and the biases are gathered after
// each half of a round.
func sharedBiasRounds(t *table, lambdaUser, lambdaItem float64) (b, c []float64) {
	b, c = make([]float64, t.n1), make([]float64, t.n2)
	u0, u1 := t.part(t.rank(), t.n1)
	i0, i1 := t.part(t.rank(), t.n2)
	for range 20 {
		par.Do(runtime.GOMAXPROCS(0), i1-i0, func(j int) {
			i := i0 + j
			var s fsum.Sum
			for q := t.iStart[i]; q < t.iStart[i+1]; q++ {
				s = s.Plus(float64(t.iy.at(q)) - t.mean - b[t.iUser.at(q)])
			}
			c[i] = s.Value() / (float64(t.iStart[i+1]-t.iStart[i]) + lambdaItem)
		})
		t.share(c, t.n2, 1)
		userBiases(t, b, c, t.mean, lambdaUser, u0, u1)
		t.share(b, t.n1, 1)
	}
	return b, c
}
