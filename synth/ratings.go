package synth

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/scaledsm/scaledsm/internal/gamma"
)

// RatingsConfig describes synthetic ratings made to look like real ones,
// for tests of recommenders: a global mean, user and item biases, a
// low-rank interaction and noise, sampled with the skew of real data
// (a few users rate a lot, a few items are rated by many, and popular
// items are rated higher), then rounded to the steps of a bounded scale.
// A fraction of the ratings may be replaced by uniform random values on
// the scale (careless or fake ratings). The zero value of a field takes
// the default given beside it, which resembles MovieLens 100k.
type RatingsConfig struct {
	Users, Items int     // 900, 1600
	Ratings      int     // 80000
	Rank         int     // 5: the rank of the interaction
	Mean         float64 // 3.5
	UserBias     float64 // 0.4: the spread of the user biases
	ItemBias     float64 // 0.45
	Signal       float64 // 0.5: the spread of the interaction L_u·R_i
	Noise        float64 // 0.8: the noise's standard deviation
	Min, Max     float64 // 1, 5: the scale
	Step         float64 // 1: values are rounded to Min + k·Step (0.5 for half stars); negative: not rounded
	Skew         float64 // 1: the log-normal spread of the items' popularity (the users' activity: 0.7 of it)
	// Zipf, when positive, makes the popularity a power law instead: the
	// j-th most popular item is drawn with weight j^-Zipf (the j-th most
	// active user j^-(0.7 Zipf)), as in shops and music listening, where
	// the head of a few items takes most ratings and the tail is long.
	Zipf float64 // 0
	// NoiseNu, when positive, draws the noise from a Student-t law of
	// NoiseNu degrees of freedom (heavy tails: a few ratings far from the
	// user's taste), scaled to the standard deviation Noise when NoiseNu
	// is above 2.
	NoiseNu  float64 // 0: Gaussian
	Outliers float64 // 0: the fraction replaced by uniform random values on the scale
	// Choice, when positive, makes users choose what they rate by taste,
	// as real users do (ratings missing not at random): a pair drawn by
	// popularity and activity is kept with probability σ(Choice z), z the
	// pair's interaction L_u·R_i over its spread Signal, so that which
	// items a user rated tells what the user likes. 0 (the default) draws
	// the pairs by popularity alone.
	Choice float64
	Seed   uint64
}

// RatingsShapes names the shapes of RatingsLike.
var RatingsShapes = []string{"movielens", "jester", "zipf"}

// RatingsLike returns the configuration of ratings of a known shape, every
// field filled in:
//   - "movielens": the zero value's, MovieLens 100k's sizes and law;
//   - "jester": few items and many users on a continuous scale, as the
//     Jester jokes' ratings: 25,000 users rate 100 items on [-10, 10],
//     1.2 million ratings (48% of the pairs), strong biases, a rank-20
//     interaction and noise of standard deviation 4;
//   - "zipf": heavy tails, 70,000 users and 10,700 items in half stars,
//     10^7 ratings, the popularity a power law (Zipf 1) and the noise
//     Student-t of 3 degrees of freedom.
func RatingsLike(shape string, seed uint64) (RatingsConfig, error) {
	var c RatingsConfig
	switch shape {
	case "movielens":
		c = RatingsConfig{Seed: seed}
	case "jester":
		c = RatingsConfig{Users: 25000, Items: 100, Ratings: 1200000, Rank: 20, Mean: 0.9, UserBias: 2.5, ItemBias: 1.5,
			Signal: 3, Noise: 4, Min: -10, Max: 10, Step: -1, Skew: 0.3, Seed: seed}
	case "zipf":
		c = RatingsConfig{Users: 70000, Items: 10700, Ratings: 10000000, Step: 0.5, Zipf: 1, NoiseNu: 3, Seed: seed}
	default:
		return c, invalid("shape", shape, "want one of %v", RatingsShapes)
	}
	c.defaults()
	return c, nil
}

// RatingsData are synthetic ratings: the k-th is Values[k], of Items[k]
// by Users[k] (ids from 1); Expected[k] is the noiseless rating, the mean
// plus the biases and the interaction (not rounded or clipped), the best
// prediction there is; Outlier[k] says whether Values[k] was replaced.
type RatingsData struct {
	Users, Items []int64
	Values       []float64
	Expected     []float64
	Outlier      []bool
}

func (c *RatingsConfig) defaults() {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	if c.Users == 0 {
		c.Users = 900
	}
	if c.Items == 0 {
		c.Items = 1600
	}
	if c.Ratings == 0 {
		c.Ratings = 80000
	}
	if c.Rank == 0 {
		c.Rank = 5
	}
	def(&c.Mean, 3.5)
	def(&c.UserBias, 0.4)
	def(&c.ItemBias, 0.45)
	def(&c.Signal, 0.5)
	def(&c.Noise, 0.8)
	def(&c.Min, 1)
	def(&c.Max, 5)
	def(&c.Step, 1)
	def(&c.Skew, 1)
}

// Validate checks the configuration, the defaults filled in.
func (c RatingsConfig) Validate() error {
	c.defaults()
	switch {
	case c.Users < 1 || c.Items < 1:
		return invalid("users", c.Users, "users and items must be at least 1 (got %d and %d)", c.Users, c.Items)
	case c.Ratings < 1 || float64(c.Ratings) > 0.5*float64(c.Users)*float64(c.Items):
		return invalid("ratings", c.Ratings, "must lie in [1, %d], half the pairs", c.Users*c.Items/2)
	case c.Rank < 1 || c.Rank > min(c.Users, c.Items):
		return invalid("rank", c.Rank, "must lie in [1, %d]", min(c.Users, c.Items))
	case !(c.Min < c.Max):
		return invalid("min", c.Min, "must be below max %v", c.Max)
	case !(c.Outliers >= 0 && c.Outliers < 1):
		return invalid("outliers", c.Outliers, "must lie in [0, 1)")
	case !(c.Zipf >= 0 && c.Zipf <= 4):
		return invalid("zipf", c.Zipf, "must lie in [0, 4]")
	case !(c.NoiseNu == 0 || c.NoiseNu >= 1):
		return invalid("noise-nu", c.NoiseNu, "must be at least 1 (0 for Gaussian noise)")
	case !(c.Choice >= 0 && c.Choice <= 10):
		return invalid("choice", c.Choice, "must lie in [0, 10]")
	}
	for _, v := range []float64{c.Mean, c.UserBias, c.ItemBias, c.Signal, c.Noise, c.Step, c.Skew} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return invalid("ratings config", v, "must be finite")
		}
	}
	// Deviations and a skew: a negative one made every rating NaN (the
	// signal's square root) or was taken as its size.
	for _, f := range []struct {
		name string
		v    float64
	}{{"user-bias", c.UserBias}, {"item-bias", c.ItemBias}, {"signal", c.Signal}, {"noise", c.Noise}, {"skew", c.Skew}} {
		if f.v < 0 {
			return invalid(f.name, f.v, "must be positive (0 is the default)")
		}
	}
	return nil
}

// GenerateRatings draws the ratings of c. Every draw comes from a stream
// of c.Seed, so the same configuration gives the same ratings.
func GenerateRatings(c RatingsConfig) (*RatingsData, error) {
	d := &RatingsData{}
	err := EachRating(c, func(r Rating) bool {
		d.Users = append(d.Users, r.User)
		d.Items = append(d.Items, r.Item)
		d.Values = append(d.Values, r.Value)
		d.Expected = append(d.Expected, r.Expected)
		d.Outlier = append(d.Outlier, r.Outlier)
		return true
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// Rating is one synthetic rating: Value, of Item by User (ids from 1);
// Expected is the noiseless rating and Outlier says whether Value was
// replaced by a random one (see RatingsData).
type Rating struct {
	User, Item int64
	Value      float64
	Expected   float64
	Outlier    bool
}

// EachRating draws the ratings of c, the same as GenerateRatings, and
// gives them to yield one at a time, without holding them: so that 10^8
// ratings can be written as they are drawn. It stops when yield returns
// false. Its memory is the users' and items' parameters and a set of the
// pairs drawn, 16 bytes a rating.
func EachRating(c RatingsConfig, yield func(Rating) bool) error {
	if err := c.Validate(); err != nil {
		return err
	}
	c.defaults()
	rng := func(stream uint64) *rand.Rand { return rand.New(rand.NewPCG(c.Seed, 0x5a7e<<32|stream)) }
	// Popularity and activity, log-normal; popular items are rated higher.
	pop, act := make([]float64, c.Items), make([]float64, c.Users)
	r := rng(1)
	for i := range pop {
		pop[i] = r.NormFloat64()
	}
	for u := range act {
		act[u] = r.NormFloat64()
	}
	ib, ub := make([]float64, c.Items), make([]float64, c.Users)
	r = rng(2)
	for i := range ib {
		ib[i] = c.ItemBias * (0.6*r.NormFloat64() + 0.8*pop[i]) // corr(bias, log popularity) = 0.8
	}
	for u := range ub {
		ub[u] = c.UserBias * r.NormFloat64()
	}
	// The interaction: Gaussian factors scaled so that L_u·R_i has the
	// spread c.Signal.
	scale := math.Sqrt(c.Signal / math.Sqrt(float64(c.Rank)))
	l, f := make([]float64, c.Users*c.Rank), make([]float64, c.Items*c.Rank)
	r = rng(3)
	for k := range l {
		l[k] = scale * r.NormFloat64()
	}
	for k := range f {
		f[k] = scale * r.NormFloat64()
	}
	cum := func(z []float64, spread float64) []float64 {
		w := make([]float64, len(z))
		var s float64
		for i, v := range z {
			s += math.Exp(spread * v)
			w[i] = s
		}
		return w
	}
	cp, ca := cum(pop, c.Skew), cum(act, 0.7*c.Skew)
	if c.Zipf > 0 {
		cp, ca = zipfCum(pop, c.Zipf), zipfCum(act, 0.7*c.Zipf)
	}
	pick := func(r *rand.Rand, w []float64) int {
		i, _ := slices.BinarySearch(w, r.Float64()*w[len(w)-1])
		return min(i, len(w)-1)
	}
	seen := newPairSet(c.Ratings)
	rp, rv, rc := rng(4), rng(5), rng(6)
	for n := 0; n < c.Ratings; {
		u, i := pick(rp, ca), pick(rp, cp)
		if c.Choice > 0 {
			var taste float64
			for k := range c.Rank {
				taste += l[u*c.Rank+k] * f[i*c.Rank+k]
			}
			if !(rc.Float64() < 1/(1+math.Exp(-c.Choice*taste/c.Signal))) {
				continue
			}
		}
		if !seen.add(uint64(u)*uint64(c.Items) + uint64(i)) {
			continue
		}
		n++
		e := c.Mean + ub[u] + ib[i]
		for k := range c.Rank {
			e += l[u*c.Rank+k] * f[i*c.Rank+k]
		}
		v := e + c.Noise*noise(rv, c.NoiseNu)
		out := rv.Float64() < c.Outliers
		if out {
			v = c.Min + rv.Float64()*(c.Max-c.Min)
		}
		if c.Step > 0 {
			v = c.Min + math.Round((v-c.Min)/c.Step)*c.Step
		}
		if !yield(Rating{User: int64(u + 1), Item: int64(i + 1), Value: min(max(v, c.Min), c.Max), Expected: e, Outlier: out}) {
			return nil
		}
	}
	return nil
}

// zipfCum returns the cumulative weights of a power law of exponent s
// over the ranks of z, the largest first: the j-th largest has weight
// j^-s.
func zipfCum(z []float64, s float64) []float64 {
	order := make([]int, len(z))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(z[b], z[a]) })
	w := make([]float64, len(z))
	for j, i := range order {
		w[i] = math.Pow(float64(j+1), -s)
	}
	for i := 1; i < len(w); i++ {
		w[i] += w[i-1]
	}
	return w
}

// noise returns a draw of unit spread: Gaussian (nu 0), or Student-t of nu
// degrees of freedom scaled to unit variance when nu > 2.
func noise(r *rand.Rand, nu float64) float64 {
	z := r.NormFloat64()
	if nu == 0 {
		return z
	}
	g := gamma.Draw(r, nu/2) // a chi-square of nu degrees of freedom, halved
	t := z / math.Sqrt(2*g/nu)
	if nu > 2 {
		t *= math.Sqrt((nu - 2) / nu)
	}
	return t
}

// pairSet is a set of keys by open addressing, at most half full: a
// fraction of the memory of a map of as many keys.
type pairSet struct {
	slots []uint64 // key+1; 0 is empty
	mask  uint64
}

func newPairSet(n int) *pairSet {
	size := uint64(16)
	for size < 2*uint64(n) {
		size <<= 1
	}
	return &pairSet{slots: make([]uint64, size), mask: size - 1}
}

// add adds key and reports whether it was not there.
func (s *pairSet) add(key uint64) bool {
	h := key * 0x9e3779b97f4a7c15
	for j := (h >> 17) & s.mask; ; j = (j + 1) & s.mask {
		switch s.slots[j] {
		case 0:
			s.slots[j] = key + 1
			return true
		case key + 1:
			return false
		}
	}
}
