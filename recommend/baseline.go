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
	// Over the ratings in their order, each row's sum compensated: no
	// table of the ratings, a few numbers a user and an item.
	var total fsum.Sum
	for _, v := range x.Values {
		total.Add(float64(v))
	}
	m.Mean = total.Value() / float64(x.Len())
	n1, n2 := len(x.Users), len(x.Items)
	b, c := make([]float64, n1), make([]float64, n2)
	if math.IsInf(lambdaUser, 1) && math.IsInf(lambdaItem, 1) {
		// The biases stay 0: the global mean.
		m.UserBias, m.ItemBias = b, c
		m.Info = Info{Method: "mean", Ratings: x.Len()}
		return m, nil
	}
	cu, ci := make([]float64, n1), make([]float64, n2)
	for k := range x.Values {
		cu[x.Rows[k]]++
		ci[x.Cols[k]]++
	}
	su, si := make([]fsum.Sum, n1), make([]fsum.Sum, n2)
	pu, pi := waveSums(x.Len(), n1), waveSums(x.Len(), n2)
	for range 20 {
		biasSums(si, x.Values, x.Cols, x.Rows, b, m.Mean, pi)
		for i := range c {
			c[i] = si[i].Value() / (ci[i] + lambdaItem)
		}
		biasSums(su, x.Values, x.Rows, x.Cols, c, m.Mean, pu)
		for u := range b {
			b[u] = su[u].Value() / (cu[u] + lambdaUser)
		}
	}
	m.UserBias, m.ItemBias = b, c
	m.Info = Info{Method: "biases", Lambda: lambdaItem, Ratings: x.Len()}
	return m, nil
}

// biasSums sets acc[j] to the sum of y_k - mean - other[by[k]] over the
// ratings k with side[k] = j. The ratings are summed in chunks of a size
// set by their number alone (biasChunk), on the workers a wave of chunks
// at a time, each chunk's sums then added to acc in the chunks' order: the
// same bits whatever the number of workers, and, in one chunk (up to 2^20
// ratings), the sums in the ratings' order.
func biasSums(acc []fsum.Sum, y []float32, side, by []int32, other []float64, mean float64, parts [][]fsum.Sum) {
	clear(acc)
	m := len(y)
	size := biasChunk(m)
	sum := func(a []fsum.Sum, lo, hi int) {
		for k := lo; k < hi; k++ {
			a[side[k]].Add(float64(y[k]) - mean - other[by[k]])
		}
	}
	if m <= size {
		sum(acc, 0, m)
		return
	}
	chunks := (m + size - 1) / size
	for first := 0; first < chunks; first += len(parts) {
		wave := min(len(parts), chunks-first)
		par.Do(wave, wave, func(p int) {
			clear(parts[p])
			sum(parts[p], (first+p)*size, min(m, (first+p+1)*size))
		})
		for _, part := range parts[:wave] {
			for j, v := range part {
				acc[j].Add(v.Value())
			}
		}
	}
}

// waveSums returns the buffers of biasSums's waves for m ratings and n
// sums: one a core, none for a single chunk.
func waveSums(m, n int) [][]fsum.Sum {
	size := biasChunk(m)
	if m <= size {
		return nil
	}
	parts := make([][]fsum.Sum, min(runtime.GOMAXPROCS(0), (m+size-1)/size))
	for p := range parts {
		parts[p] = make([]fsum.Sum, n)
	}
	return parts
}

// biasChunk is the number of ratings in a chunk of biasSums: 2^20, or a
// sixteenth of the m ratings when that is more.
func biasChunk(m int) int { return max(1<<20, (m+15)/16) }
