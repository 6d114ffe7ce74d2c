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
		return rest, held, &InputError{Source: "recommend", Input: "fraction", Value: fraction, Reason: "must lie in [0, 1)"}
	}
	in, out := splitIndices(r.Len(), fraction, seed)
	return r.subset(in), r.subset(out), nil
}

// splitIndices draws the fraction of m ratings held out and returns the
// indices of the rest and of them, each increasing.
func splitIndices(m int, fraction float64, seed uint64) (in, out []int) {
	st := newStream()
	st.seed(seed, 0, streamSplit, 1)
	perm := st.rng.Perm(m)
	n := int(math.Round(fraction * float64(m)))
	out = perm[:n]
	slices.Sort(out)
	in = make([]int, 0, m-n)
	j := 0
	for k := range m {
		if j < len(out) && out[j] == k {
			j++
			continue
		}
		in = append(in, k)
	}
	return in, out
}

// Split is Split of ratings in the compact form: it holds out the same
// ratings as Split of x's Ratings with the same seed, and returns the rest
// in the compact form (their ids those they rate) and the held-out ones
// as Ratings.
func (x *Indexed) Split(fraction float64, seed uint64) (*Indexed, Ratings, error) {
	if err := x.check("ratings"); err != nil {
		return nil, Ratings{}, err
	}
	if !(fraction >= 0 && fraction < 1) {
		return nil, Ratings{}, &InputError{Source: "recommend", Input: "fraction", Value: fraction, Reason: "must lie in [0, 1)"}
	}
	in, out := splitIndices(x.Len(), fraction, seed)
	held := x.ratings(out)
	out = nil
	rest := &Indexed{Rows: make([]int32, len(in)), Cols: make([]int32, len(in)), Values: make([]float32, len(in))}
	// The ids that the rest rates, renumbered in their order.
	users, items := make([]int32, len(x.Users)), make([]int32, len(x.Items))
	for _, k := range in {
		users[x.Rows[k]], items[x.Cols[k]] = 1, 1
	}
	renumber := func(ids IDs, at []int32) IDs {
		var kept IDs
		for j, id := range ids {
			if at[j] == 0 {
				at[j] = -1
				continue
			}
			at[j] = int32(len(kept))
			kept = append(kept, id)
		}
		return kept
	}
	rest.Users, rest.Items = renumber(x.Users, users), renumber(x.Items, items)
	for n, k := range in {
		rest.Rows[n], rest.Cols[n], rest.Values[n] = users[x.Rows[k]], items[x.Cols[k]], x.Values[k]
	}
	return rest, held, nil
}
