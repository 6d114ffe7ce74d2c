package recommend

import (
	"fmt"
	"math"
	"slices"

	"github.com/scaledsm/scaledsm/internal/fsum"
)

// Ratings are ratings of items by users: Users[k] rated Items[k] with
// Values[k]. Ids are any integers; a user or an item is known by its id.
type Ratings struct {
	Users, Items []int64
	Values       []float64
}

// Len returns the number of ratings.
func (r Ratings) Len() int { return len(r.Values) }

// check reports a malformed set of ratings: slices of different lengths,
// or a value that is not finite. what names the set ("ratings", "test").
func (r Ratings) check(what string) error {
	if len(r.Users) != len(r.Values) || len(r.Items) != len(r.Values) {
		return &InputError{Input: what, Reason: fmt.Sprintf("%d users, %d items and %d values: want one of each per rating", len(r.Users), len(r.Items), len(r.Values))}
	}
	for k, v := range r.Values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &InputError{Input: what, Reason: fmt.Sprintf("rating %d (user %d, item %d) is %v", k, r.Users[k], r.Items[k], v)}
		}
	}
	return nil
}

// subset returns the ratings at the indices idx, in their order.
func (r Ratings) subset(idx []int) Ratings {
	s := Ratings{Users: make([]int64, len(idx)), Items: make([]int64, len(idx)), Values: make([]float64, len(idx))}
	for n, k := range idx {
		s.Users[n], s.Items[n], s.Values[n] = r.Users[k], r.Items[k], r.Values[k]
	}
	return s
}

// An InputError is an invalid input of Fit or Load: it names the input
// and the reason.
type InputError struct {
	Input  string // "ratings", "rank", "validation", ...
	Value  any    // the value, or nil when too long to print
	Reason string
}

// Error returns "recommend: <input> <value>: <reason>".
func (e *InputError) Error() string {
	if e.Value == nil {
		return fmt.Sprintf("recommend: %s: %s", e.Input, e.Reason)
	}
	return fmt.Sprintf("recommend: %s %v: %s", e.Input, e.Value, e.Reason)
}

// IDs are distinct ids in increasing order; an id's index is its position.
type IDs []int64

// newIDs returns the distinct ids of v in increasing order and the index
// of each element of v among them.
func newIDs(v []int64) (IDs, []int32) {
	uniq := slices.Clone(v)
	slices.Sort(uniq)
	uniq = slices.Compact(uniq)
	idx := make([]int32, len(v))
	if len(uniq) > 0 {
		if lo, hi := uniq[0], uniq[len(uniq)-1]; hi-lo >= 0 && hi-lo < int64(4*len(v)+1<<20) {
			// Ids of a modest range, as MovieLens's: a table is faster
			// than a search.
			table := make([]int32, hi-lo+1)
			for i, id := range uniq {
				table[id-lo] = int32(i)
			}
			for k, id := range v {
				idx[k] = table[id-lo]
			}
			return IDs(slices.Clip(uniq)), idx
		}
	}
	for k, id := range v {
		i, _ := slices.BinarySearch(uniq, id)
		idx[k] = int32(i)
	}
	return IDs(slices.Clip(uniq)), idx
}

// Index returns the index of id, and false when it is not among the ids.
func (ids IDs) Index(id int64) (int, bool) { return slices.BinarySearch(ids, id) }

// table is a set of ratings laid out for the sampler: the values centred
// on their mean, in rows of users (CSR) and, through a permutation, in
// rows of items.
type table struct {
	n1, n2 int
	mean   float64
	y      []float64 // value - mean, user by user
	uStart []int     // ratings of user u: [uStart[u], uStart[u+1])
	uItem  []int32   // the item of each rating, user by user
	iStart []int     // ratings of item i in item order: [iStart[i], iStart[i+1])
	iUser  []int32   // the user of each rating, item by item
	iPerm  []int32   // the position in user order of each rating, item by item
}

// newTable lays out ratings given as indices (rows < n1, cols < n2).
func newTable(n1, n2 int, rows, cols []int32, values []float64) *table {
	m := len(values)
	t := &table{n1: n1, n2: n2, mean: fsum.Of(values) / float64(m)}
	t.uStart = counts(n1, rows)
	t.iStart = counts(n2, cols)
	t.y = make([]float64, m)
	t.uItem = make([]int32, m)
	next := slices.Clone(t.uStart[:n1])
	for k, u := range rows {
		p := next[u]
		next[u]++
		t.y[p] = values[k] - t.mean
		t.uItem[p] = cols[k]
	}
	// Items' rows list their ratings in user order, so that every pass
	// adds in an order fixed by the data.
	t.iUser = make([]int32, m)
	t.iPerm = make([]int32, m)
	next = slices.Clone(t.iStart[:n2])
	for u := range n1 {
		for p := t.uStart[u]; p < t.uStart[u+1]; p++ {
			i := t.uItem[p]
			q := next[i]
			next[i]++
			t.iUser[q] = int32(u)
			t.iPerm[q] = int32(p)
		}
	}
	return t
}

// counts returns the CSR start offsets of n rows holding the entries of
// the given rows.
func counts(n int, rows []int32) []int {
	start := make([]int, n+1)
	for _, r := range rows {
		start[r+1]++
	}
	for i := range n {
		start[i+1] += start[i]
	}
	return start
}
