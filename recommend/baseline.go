package recommend

import (
	"math"
	"runtime"
	"slices"

	"github.com/scaledsm/scaledsm/internal/fsum"
	"github.com/scaledsm/scaledsm/internal/par"
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
	if err := r.check("ratings"); err != nil {
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
		return nil, &InputError{Input: "ratings", Reason: "no ratings"}
	}
	for _, l := range []struct {
		name string
		v    float64
	}{{"lambda_user", lambdaUser}, {"lambda_item", lambdaItem}} {
		if math.IsNaN(l.v) || l.v < 0 {
			return nil, &InputError{Input: l.name, Value: l.v, Reason: "must be at least 0"}
		}
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
	m.UserBias, m.ItemBias = biasRounds(userOrder(n1, n2, x.Rows, x.Cols, x.Values), m.Mean, lambdaUser, lambdaItem, parts)
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
	ci := make([]float64, n2)
	for _, i := range t.uItem {
		ci[i]++
	}
	si := make([][]fsum.Sum, parts)
	for q := range si {
		si[q] = make([]fsum.Sum, n2)
	}
	const block = 1024
	for range 20 {
		par.Do(runtime.GOMAXPROCS(0), parts, func(q int) {
			sq := si[q]
			clear(sq)
			for u := q * n1 / parts; u < (q+1)*n1/parts; u++ {
				bu := b[u]
				for p := t.uStart[u]; p < t.uStart[u+1]; p++ {
					sq[t.uItem[p]].Add(float64(t.y[p]) - mean - bu)
				}
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
		par.Do(runtime.GOMAXPROCS(0), (n1+block-1)/block, func(k int) {
			for u := k * block; u < min(n1, (k+1)*block); u++ {
				var su fsum.Sum
				for p := t.uStart[u]; p < t.uStart[u+1]; p++ {
					su = su.Plus(float64(t.y[p]) - mean - c[t.uItem[p]])
				}
				b[u] = su.Value() / (float64(t.uStart[u+1]-t.uStart[u]) + lambdaUser)
			}
		})
	}
	return b, c
}
