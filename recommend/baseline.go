package recommend

import (
	"math"
	"slices"

	"github.com/scaledsm/scaledsm/internal/fsum"
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
	t := newTable(len(m.Users), len(m.Items), x.Rows, x.Cols, x.Values)
	m.Mean = t.mean
	b, c := make([]float64, t.n1), make([]float64, t.n2)
	for range 20 {
		for i := range t.n2 {
			var s fsum.Sum
			for q := t.iStart[i]; q < t.iStart[i+1]; q++ {
				s.Add(float64(t.iy[q]) - t.mean - b[t.iUser[q]])
			}
			c[i] = s.Value() / (float64(t.iStart[i+1]-t.iStart[i]) + lambdaItem)
		}
		for u := range t.n1 {
			var s fsum.Sum
			for p := t.uStart[u]; p < t.uStart[u+1]; p++ {
				s.Add(t.at(p) - c[t.uItem[p]])
			}
			b[u] = s.Value() / (float64(t.uStart[u+1]-t.uStart[u]) + lambdaUser)
		}
	}
	m.UserBias, m.ItemBias = b, c
	m.Info = Info{Method: "biases", Lambda: lambdaItem, Ratings: x.Len()}
	if math.IsInf(lambdaUser, 1) && math.IsInf(lambdaItem, 1) {
		m.Info = Info{Method: "mean", Ratings: x.Len()}
	}
	return m, nil
}
