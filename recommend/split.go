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
	out := splitIndices(r.Len(), fraction, seed)
	in := make([]int, 0, r.Len()-len(out))
	eachKept(r.Len(), out, func(_, k int) { in = append(in, k) })
	return r.subset(in), r.subset(out), nil
}

// splitIndices draws the fraction of m ratings held out and returns their
// indices, increasing: the first of a random permutation of the m, made
// as rand.Perm makes it but in 4 bytes an index where m allows, not 8.
// With SplitCompact's kept ratings walked, not listed, and held-out
// ratings held compact, a fit of generate's 9 × 10^6 ratings with
// --holdout 0.1 peaked at 242 to 245 MiB, not 306 to 314
// (docs/recommend.md).
func splitIndices(m int, fraction float64, seed uint64) []int {
	st := newStream()
	st.seed(seed, 0, streamSplit, 1)
	n := int(math.Round(fraction * float64(m)))
	var out []int
	if m > math.MaxInt32 {
		out = slices.Clone(st.rng.Perm(m)[:n])
	} else {
		perm := make([]int32, m)
		for i := range perm {
			perm[i] = int32(i)
		}
		st.rng.Shuffle(m, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		out = make([]int, n)
		for k := range out {
			out[k] = int(perm[k])
		}
	}
	slices.Sort(out)
	return out
}

// eachKept calls f(n, k) in increasing k for each k < m not in out
// (which must be increasing), k being the n-th index kept.
func eachKept(m int, out []int, f func(n, k int)) {
	j, n := 0, 0
	for k := range m {
		if j < len(out) && out[j] == k {
			j++
			continue
		}
		f(n, k)
		n++
	}
}

// Split is Split of ratings in the compact form: it holds out the same
// ratings as Split of x's Ratings with the same seed, and returns the rest
// in the compact form (their ids those they rate) and the held-out ones
// as Ratings.
func (x *Indexed) Split(fraction float64, seed uint64) (*Indexed, Ratings, error) {
	rest, held, err := x.SplitCompact(fraction, seed)
	if err != nil {
		return nil, Ratings{}, err
	}
	return rest, held.Ratings(), nil
}

// SplitCompact is Split with the held-out ratings in the compact form too,
// 12 bytes a rating against Ratings' 24, indexing x's ids: a fit holds
// them so until it is done, and their Ratings are Split's.
func (x *Indexed) SplitCompact(fraction float64, seed uint64) (rest, held *Indexed, err error) {
	if err := x.check("ratings"); err != nil {
		return nil, nil, err
	}
	if !(fraction >= 0 && fraction < 1) {
		return nil, nil, &InputError{Source: "recommend", Input: "fraction", Value: fraction, Reason: "must lie in [0, 1)"}
	}
	m := x.Len()
	out := splitIndices(m, fraction, seed)
	held = &Indexed{Users: x.Users, Items: x.Items, Rows: make([]int32, len(out)), Cols: make([]int32, len(out)), Values: make([]float32, len(out))}
	for n, k := range out {
		held.Rows[n], held.Cols[n], held.Values[n] = x.Rows[k], x.Cols[k], x.Values[k]
	}
	rest = &Indexed{Rows: make([]int32, m-len(out)), Cols: make([]int32, m-len(out)), Values: make([]float32, m-len(out))}
	// The ids that the rest rates, renumbered in their order.
	users, items := make([]int32, len(x.Users)), make([]int32, len(x.Items))
	eachKept(m, out, func(_, k int) { users[x.Rows[k]], items[x.Cols[k]] = 1, 1 })
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
	eachKept(m, out, func(n, k int) {
		rest.Rows[n], rest.Cols[n], rest.Values[n] = users[x.Rows[k]], items[x.Cols[k]], x.Values[k]
	})
	return rest, held, nil
}

// Ratings returns the ratings with their ids, in their order.
func (x *Indexed) Ratings() Ratings {
	return byID(x.Users, x.Items, x.Rows, x.Cols, x.Values, nil, false)
}
