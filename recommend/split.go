package recommend

import (
	"math"
	"slices"
)

// Split draws a fraction of the ratings at random (from seed) and returns
// the rest and them, each in the order of the ratings.
func Split(r Ratings, fraction float64, seed uint64) (rest, held Ratings, err error) {
	if err := r.check("ratings"); err != nil {
		return rest, held, err
	}
	if !(fraction >= 0 && fraction < 1) {
		return rest, held, &InputError{Input: "fraction", Value: fraction, Reason: "must lie in [0, 1)"}
	}
	st := newStream()
	st.seed(seed, 0, streamSplit, 1)
	perm := st.rng.Perm(r.Len())
	n := int(math.Round(fraction * float64(r.Len())))
	out := perm[:n]
	slices.Sort(out)
	in := make([]int, 0, r.Len()-n)
	j := 0
	for k := range r.Len() {
		if j < len(out) && out[j] == k {
			j++
			continue
		}
		in = append(in, k)
	}
	return r.subset(in), r.subset(out), nil
}
