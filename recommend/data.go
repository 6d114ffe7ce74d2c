package recommend

import (
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/scaledsm/scaledsm/dataio"
	"github.com/scaledsm/scaledsm/internal/fsum"
	"github.com/scaledsm/scaledsm/internal/inputerr"
	"github.com/scaledsm/scaledsm/internal/kernel"
	"github.com/scaledsm/scaledsm/internal/mem"
	"github.com/scaledsm/scaledsm/internal/par"
	"github.com/scaledsm/scaledsm/ranks"
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
		return &InputError{Source: "recommend", Input: what, Reason: fmt.Sprintf("%d users, %d items and %d values: want one of each per rating", len(r.Users), len(r.Items), len(r.Values))}
	}
	for k, v := range r.Values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &InputError{Source: "recommend", Input: what, Reason: fmt.Sprintf("rating %d (user %d, item %d) is %v", k, r.Users[k], r.Items[k], v)}
		}
	}
	return nil
}

// checkHeld is check for ratings a fit holds (Index): their values in
// float32 too, whose range is narrower than float64's.
func (r Ratings) checkHeld(what string) error {
	if err := r.check(what); err != nil {
		return err
	}
	for k, v := range r.Values {
		if math.IsInf(float64(float32(v)), 0) {
			return &InputError{Source: "recommend", Input: what, Reason: fmt.Sprintf("rating %d (user %d, item %d) is %v, beyond the range of the float32 the values are held in (±3.4e38)", k, r.Users[k], r.Items[k], v)}
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
// and the reason, its message prefixed "recommend:". It is the type of
// scaledsm.InputError too.
type InputError = inputerr.Error

// IDs are distinct ids in increasing order; an id's index is its position.
type IDs []int64

// newIDs returns the distinct ids of v in increasing order and the index
// of each element of v among them.
func newIDs(v []int64) (IDs, []int32) {
	uniq := slices.Clone(v)
	slices.Sort(uniq)
	uniq = slices.Compact(uniq)
	idx := make([]int32, len(v))
	// Ids of a modest range, as MovieLens's: a table is faster than a
	// search (see idIndex).
	x := IDs(uniq).indexer(len(v))
	for k, id := range v {
		i, _ := x.index(id)
		idx[k] = int32(i)
	}
	return IDs(slices.Clone(uniq)), idx // not the clone of v, as long as v
}

// Index returns the index of id, and false when it is not among the ids.
func (ids IDs) Index(id int64) (int, bool) { return slices.BinarySearch(ids, id) }

// idIndex is Index for many lookups: a table from id to index where the
// ids span a modest range (at most 4 times their number and 2^20) and the
// lookups are many beside it, a search otherwise. On the 10^6 test
// ratings of docs/recommend.md's 9 × 10^6 row (70,000 users), the
// searches of four passes (the model's errors, the two baselines' and the
// predictions written) took 0.9 s, an eighth of the command's time; but
// a table of 162,000 users took 0.7 ms to make, a search in them 60 ns
// (`PredictAll` of one pair).
type idIndex struct {
	ids   IDs
	lo    int64
	table []int32 // index of id lo+j, -1 for none; nil: search
}

// indexer returns the index of the ids for about lookups lookups.
func (ids IDs) indexer(lookups int) idIndex {
	x := idIndex{ids: ids}
	if n := len(ids); n > 0 {
		if lo, hi := ids[0], ids[n-1]; hi-lo >= 0 && hi-lo < int64(4*n+1<<20) && int64(lookups) >= (hi-lo)/16 {
			x.lo, x.table = lo, make([]int32, hi-lo+1)
			for j := range x.table {
				x.table[j] = -1
			}
			for i, id := range ids {
				x.table[id-lo] = int32(i)
			}
		}
	}
	return x
}

// index is ids.Index(id) where id is among the ids; where it is not, the
// index is not Index's but 0.
func (x idIndex) index(id int64) (int, bool) {
	if x.table == nil {
		return x.ids.Index(id)
	}
	if j := uint64(id - x.lo); j < uint64(len(x.table)) && x.table[j] >= 0 {
		return int(x.table[j]), true
	}
	return 0, false
}

// Indexed are ratings in the compact form that Fit works on, 12 bytes a
// rating: the k-th is Values[k], of item Items[Cols[k]] by user
// Users[Rows[k]]. Users and Items are distinct and increasing. The values
// are float32: ratings in stars, half stars or quarters are held exactly,
// tenths (which print back as themselves) and any other value to a
// relative 6e-8. FitIndexed fits them without the copies
// that Ratings' 24 bytes a rating would cost at 10^8 ratings.
type Indexed struct {
	Users, Items IDs
	Rows, Cols   []int32
	Values       []float32
}

// Len returns the number of ratings.
func (x *Indexed) Len() int { return len(x.Values) }

// Index returns r in the compact form, its ids mapped to indices.
func (r Ratings) Index() *Indexed {
	x := &Indexed{Values: make([]float32, len(r.Values))}
	x.Users, x.Rows = newIDs(r.Users)
	x.Items, x.Cols = newIDs(r.Items)
	for k, v := range r.Values {
		x.Values[k] = float32(v)
	}
	return x
}

// check reports malformed compact ratings: slices of different lengths,
// ids not increasing, an index out of range or a value not finite.
func (x *Indexed) check(what string) error {
	bad := func(format string, args ...any) error {
		return &InputError{Source: "recommend", Input: what, Reason: fmt.Sprintf(format, args...)}
	}
	if len(x.Rows) != len(x.Values) || len(x.Cols) != len(x.Values) {
		return bad("%d rows, %d columns and %d values: want one of each per rating", len(x.Rows), len(x.Cols), len(x.Values))
	}
	for _, ids := range []IDs{x.Users, x.Items} {
		for k := 1; k < len(ids); k++ {
			if ids[k] <= ids[k-1] {
				return bad("ids %d and %d are not increasing", ids[k-1], ids[k])
			}
		}
	}
	n1, n2 := int32(len(x.Users)), int32(len(x.Items))
	for k, v := range x.Values {
		u, i := x.Rows[k], x.Cols[k]
		if u < 0 || u >= n1 || i < 0 || i >= n2 {
			return bad("rating %d: user index %d or item index %d is out of range [0, %d) or [0, %d)", k, u, i, n1, n2)
		}
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return bad("rating %d (user %d, item %d) is %v", k, x.Users[u], x.Items[i], v)
		}
	}
	return nil
}

// Compact returns the ratings that package dataio read as the fit's
// compact form, sharing their slices.
func Compact(rt *dataio.Ratings32) *Indexed {
	return &Indexed{Users: rt.RowIDs, Items: rt.ColIDs, Rows: rt.Rows, Cols: rt.Cols, Values: rt.Values}
}

// ByID returns the ratings that package dataio read by their ids, every
// value 1 with ones (implicit feedback's test interactions, whose weights
// do not count).
func ByID[V float32 | float64](rt *dataio.RatingsOf[V], ones bool) Ratings {
	return byID(rt.RowIDs, rt.ColIDs, rt.Rows, rt.Cols, rt.Values, nil, ones)
}

// byID returns the ratings at the indices idx (all of them for nil) of
// rows and columns indexing the ids users and items, with their values (or
// 1 with ones) as float64.
func byID[V float32 | float64](users, items []int64, rows, cols []int32, values []V, idx []int, ones bool) Ratings {
	n := len(idx)
	if idx == nil {
		n = len(values)
	}
	r := Ratings{Users: make([]int64, n), Items: make([]int64, n), Values: make([]float64, n)}
	for m := range n {
		k := m
		if idx != nil {
			k = idx[m]
		}
		v := 1.0
		if !ones {
			v = float64(values[k])
		}
		r.Users[m], r.Items[m], r.Values[m] = users[rows[k]], items[cols[k]], v
	}
	return r
}

// index holds each rating's row on the other side, in one order of a
// table: in 2 bytes (h) where the other side has at most 2^16 rows, in 4
// (w) otherwise. Most catalogues have fewer items than that (MovieLens',
// Netflix's 17,770, Jester's 100), so that the users' half of a table
// takes 2 bytes a rating less: 200 MB at 10^8 ratings.
type index struct {
	w []int32
	h []uint16
}

// narrowIndex holds a table's indices in 2 bytes where they fit (see
// index); the tests turn it off to compare.
var narrowIndex = true

// makeIndex returns an index of m ratings of n rows.
func makeIndex(m, n int) index {
	if narrowIndex && n <= 1<<16 {
		return index{h: mem.Make[uint16](m)}
	}
	return index{w: mem.Make[int32](m)}
}

// at returns the row of rating p.
func (x index) at(p int) int32 {
	if x.h != nil {
		return int32(x.h[p])
	}
	return x.w[p]
}

// set sets the row of rating p to r.
func (x index) set(p int, r int32) {
	if x.h != nil {
		x.h[p] = uint16(r)
		return
	}
	x.w[p] = r
}

// len returns the number of ratings.
func (x index) len() int {
	if x.h != nil {
		return len(x.h)
	}
	return len(x.w)
}

// sub returns the ratings from lo to hi, sharing x's memory.
func (x index) sub(lo, hi int) index {
	if x.h != nil {
		return index{h: x.h[lo:hi]}
	}
	return index{w: x.w[lo:hi]}
}

// slice returns the rows of the ratings from lo to hi as int32: a part of
// w, or h's widened in *buf, grown as needed.
func (x index) slice(lo, hi int, buf *[]int32) []int32 {
	if x.h == nil {
		return x.w[lo:hi]
	}
	if cap(*buf) < hi-lo {
		*buf = make([]int32, hi-lo)
	}
	out := (*buf)[:hi-lo]
	for j, r := range x.h[lo:hi] {
		out[j] = int32(r)
	}
	return out
}

// gather is the kernel's row of the ratings from lo to hi (its Idx or
// Idx16 set from x, the rest from g).
func (x index) gather(g kernel.GatherRow, lo, hi int) kernel.GatherRow {
	if x.h != nil {
		g.Idx16 = x.h[lo:hi]
	} else {
		g.Idx = x.w[lo:hi]
	}
	return g
}

// prefetch asks for the rows of other (d wide) of the ratings from lo to
// hi ahead of their use (see kernel.PrefetchRows).
func (x index) prefetch(other []float64, lo, hi, d int) {
	if x.h != nil {
		kernel.PrefetchRows16(other, x.h[lo:hi], d, d)
		return
	}
	kernel.PrefetchRows(other, x.w[lo:hi], d, d)
}

// search returns the position from lo of the first of the ratings from
// lo to hi (sorted) whose row is at least r (hi - lo if none).
func (x index) search(lo, hi int, r int32) int {
	if x.h != nil {
		switch {
		case r < 0:
			return 0
		case r >= 1<<16:
			return hi - lo
		}
		q, _ := slices.BinarySearch(x.h[lo:hi], uint16(r))
		return q
	}
	q, _ := slices.BinarySearch(x.w[lo:hi], r)
	return q
}

// counts returns the offsets of the rows of n (n+1) that x's ratings
// would have in the other side's order.
func (x index) counts(n int) []int {
	if x.h != nil {
		return counts(n, x.h)
	}
	return counts(n, x.w)
}

// table is a set of ratings laid out for the sampler, 8 bytes a rating
// where they take at most 255 values (see stored) and there are at most
// 2^16 items (see index), 6 where the users are that few too, 16 at most
// otherwise: the values and the other side's index in rows of users (CSR)
// and in rows of items.
// The values are kept as given (float32, or a byte that codes it), in
// both orders so that each pass reads its own in order, and centred on
// the mean as they are read; a rating held out for validation is NaN in
// both orders.
type table struct {
	n1, n2 int
	m      int // the ratings, of every rank
	mean   float64
	y      stored // the values, user by user
	uStart []int  // ratings of user u: [uStart[u], uStart[u+1])
	uItem  index  // the item of each rating, user by user
	iStart []int  // ratings of item i in item order: [iStart[i], iStart[i+1])
	iUser  index  // the user of each rating, item by item
	iy     stored // the values, item by item
	// red, when not nil, is the ranks among which the ratings are shared:
	// this rank's table holds the ratings of its users in the users' half
	// and of its items in the items' half (see shardTable and part), the
	// others' rows are empty.
	red  ranks.Exchanger
	gbuf []float64 // share's buffers
}

// at returns rating p (in user order) less the mean.
func (t *table) at(p int) float64 { return float64(t.y.at(p)) - t.mean }

// newTable lays out ratings given as indices (rows < n1, cols < n2): the
// users' order from them, then the items' order from the users', so that
// the ratings given can be collected before the second half is made (at
// 10^8 ratings, 1.2 GB less at the peak).
func newTable(n1, n2 int, rows, cols []int32, values []float32) *table {
	t := userOrder(n1, n2, rows, cols, stored{f: values}, runtime.GOMAXPROCS(0))
	t.itemOrder(runtime.GOMAXPROCS(0))
	return t
}

// codeValues codes the values of a table in a byte where they allow (see
// stored); the tests turn it off to compare.
var codeValues = true

// userOrder returns the table with its users' order alone, of the
// ratings' values in (float32, or coded as the table will hold them).
func userOrder(n1, n2 int, rows, cols []int32, in stored, workers int) *table {
	m := in.len()
	var mean fsum.Sum
	for k := range m {
		mean.Add(float64(in.at(k)))
	}
	t := &table{n1: n1, n2: n2, m: m, mean: mean.Value() / float64(m)}
	t.uStart = counts(n1, rows)
	switch {
	case in.c != nil:
		t.y.scale = in.scale
	case codeValues:
		t.y.scale = newScale(in.f, workers)
	}
	if t.y.scale != nil {
		t.y.c = mem.Make[uint8](m)
	} else {
		t.y.f = mem.Make[float32](m)
	}
	t.uItem = makeIndex(m, n2)
	next := slices.Clone(t.uStart[:n1])
	rowRanges(t.uStart, scanParts(workers, m, 1<<20), func(lo, hi int32) {
		if h := t.uItem.h; h != nil {
			userOrderInto(t, h, rows, cols, in, next, lo, hi)
		} else {
			userOrderInto(t, t.uItem.w, rows, cols, in, next, lo, hi)
		}
	})
	return t
}

// userOrderInto lays out the users [lo, hi) of the users' order from the
// ratings given, into items, the users' half's index of its width (see
// itemOrderInto), next[u] the position of user u's next rating.
func userOrderInto[I int32 | uint16](t *table, items []I, rows, cols []int32, in stored, next []int, lo, hi int32) {
	for k, u := range rows {
		if u < lo || u >= hi {
			continue
		}
		p := next[u]
		next[u]++
		if in.c != nil {
			t.y.c[p] = in.c[k]
		} else {
			t.y.set(p, in.f[k])
		}
		items[p] = I(cols[k])
	}
}

// rowRanges calls f(lo, hi) on parts goroutines for ranges of the rows of
// start (n+1 offsets of their ratings) that split the ratings evenly and
// together cover the rows (see scanParts). Each call scans all the ratings in a fixed
// order and acts on those of its rows, so that what it makes depends on
// that order and not on the cores: the cores split random writes (the
// layout's, 9 s for each order of 10^8 ratings on one core) and random
// reads of the other side's rows (the spectral start's).
// scanParts is the number of parts of rowRanges for m ratings on workers
// cores: a part for every per ratings, so that its scan of all of them
// pays for itself, and 8 at most (each part scans them all).
func scanParts(workers, m, per int) int {
	return max(1, min(workers, 8, m/per))
}

func rowRanges(start []int, parts int, f func(lo, hi int32)) {
	n := len(start) - 1
	m := start[n]
	parts = max(1, parts)
	bounds := make([]int32, parts+1)
	for w := 1; w < parts; w++ { // rows split at even shares of the ratings
		r, _ := slices.BinarySearch(start, w*m/parts)
		bounds[w] = int32(min(r, n))
	}
	bounds[parts] = int32(n)
	par.Do(parts, parts, func(w int) {
		if bounds[w] < bounds[w+1] {
			f(bounds[w], bounds[w+1])
		}
	})
}

// itemOrder adds the items' order to a table of the users' order: items'
// rows list their ratings in user order, so that every pass adds in an
// order fixed by the data.
func (t *table) itemOrder(workers int) {
	m, n1, n2 := t.y.len(), t.n1, t.n2
	t.iStart = t.uItem.counts(n2)
	t.iUser = makeIndex(m, n1)
	t.iy = stored{scale: t.y.scale}
	if t.y.c != nil {
		t.iy.c = mem.Make[uint8](m)
	} else {
		t.iy.f = mem.Make[float32](m)
	}
	next := slices.Clone(t.iStart[:n2])
	rowRanges(t.iStart, scanParts(workers, m, 1<<20), func(lo, hi int32) {
		if h := t.uItem.h; h != nil {
			itemOrderFrom(t, h, next, lo, hi)
		} else {
			itemOrderFrom(t, t.uItem.w, next, lo, hi)
		}
	})
}

// itemOrderFrom lays out the items [lo, hi) of the items' order from the
// users' (items its index, of its width), next[i] the position of item
// i's next rating.
func itemOrderFrom[I int32 | uint16](t *table, items []I, next []int, lo, hi int32) {
	if h := t.iUser.h; h != nil {
		itemOrderInto(t, items, h, next, lo, hi)
	} else {
		itemOrderInto(t, items, t.iUser.w, next, lo, hi)
	}
}

// itemOrderInto is itemOrderFrom with the items' half's index users, of
// its width: the loop is made for each pair of widths (through index.at
// and set, the layout's scan took half as long again).
func itemOrderInto[I, J int32 | uint16](t *table, items []I, users []J, next []int, lo, hi int32) {
	for u := range t.n1 {
		for p := t.uStart[u]; p < t.uStart[u+1]; p++ {
			i := int32(items[p])
			if i < lo || i >= hi {
				continue
			}
			q := next[i]
			next[i]++
			users[q] = J(u)
			t.iy.copy(q, t.y, p)
		}
	}
}

// itemPos returns the position in item order of user u's rating of item
// i: an item's ratings are in user order.
func (t *table) itemPos(u, i int32) int {
	return t.iStart[i] + t.iUser.search(t.iStart[i], t.iStart[i+1], u)
}

// positions returns the positions of pair e of p in user and item order,
// the second -1 on the ranks of a shared table (see pairs.others).
func (t *table) positions(p *pairs, e int) (int, int) {
	u, i := p.users[e], p.items[e]
	q := -1
	if p.iOff[e] >= 0 {
		q = t.iStart[i] + int(p.iOff[e])
	}
	return t.uStart[u] + int(p.uOff[e]), q
}

// mark marks the ratings p (at their positions in both orders) held out
// (NaN), or gives them back their values.
func (t *table) mark(p *pairs, held bool) {
	for e := range p.uOff {
		v := float32(math.NaN())
		if !held {
			v = p.values[e]
		}
		pu, pi := t.positions(p, e)
		t.y.set(pu, v)
		if pi >= 0 {
			t.iy.set(pi, v)
		}
	}
	for _, o := range p.others {
		v := float32(math.NaN())
		if !held {
			v = o.v
		}
		t.iy.set(o.q, v)
	}
}

// counts returns the CSR start offsets of n rows holding the entries of
// the given rows.
func counts[I int32 | uint16](n int, rows []I) []int {
	start := make([]int, n+1)
	for _, r := range rows {
		start[int(r)+1]++
	}
	for i := range n {
		start[i+1] += start[i]
	}
	return start
}
